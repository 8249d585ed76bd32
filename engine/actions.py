"""Player intents (immutable values) and their record notation ``"<seat> <verb> [<args>]"``.

>>> seat, action = parse_action("N play HK 20")
>>> action
PlayCard(card='HK', marriage=20)
>>> format_action(seat, action)
'N play HK 20'
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CARD_POINTS, DECK, SEAT_NAMES, SUITS, parse_card, parse_seat
from .contracts import Contract
from .errors import MalformedInput


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    suit: str


@dataclass(frozen=True, slots=True)
class Aufschlagen:
    """Turn the forehand's fourth card face up; its suit is trump."""


@dataclass(frozen=True, slots=True)
class Bid:
    contract: Contract


@dataclass(frozen=True, slots=True)
class Pass:
    """'Weiter' in the auction, or declining to double."""


DOUBLING_WORDS = ("kontra", "re", "subkontra")


@dataclass(frozen=True, slots=True)
class Double:
    word: str  # kontra, re or subkontra


@dataclass(frozen=True, slots=True)
class PlayCard:
    card: str
    marriage: int | None = None  # 20 or 40 when the lead announces a marriage


Action = ChooseTrump | Aufschlagen | Bid | Pass | Double | PlayCard

# Interned instances: legal_actions hands these out instead of building new objects on every call.
PASS = Pass()
AUFSCHLAGEN = Aufschlagen()
CHOOSE_TRUMP = {suit: ChooseTrump(suit) for suit in SUITS}
BID = {contract: Bid(contract) for contract in Contract}
DOUBLE = {word: Double(word) for word in DOUBLING_WORDS}
PLAY = {card: PlayCard(card) for card in DECK}
PLAY_MARRIAGE = {(card, value): PlayCard(card, value) for card in DECK for value in (20, 40)}
# Every well-formed action exists once above; ``check`` knows these by identity and looks no further at
# their fields. They live as long as the module, so their ids stay theirs.
INTERNED_IDS = frozenset(
    id(action)
    for action in (
        PASS,
        AUFSCHLAGEN,
        *CHOOSE_TRUMP.values(),
        *BID.values(),
        *DOUBLE.values(),
        *PLAY.values(),
        *PLAY_MARRIAGE.values(),
    )
)


def shown(value: object) -> str:
    """``repr`` for a message about a value of any type: short, and never failing itself."""
    try:
        text = repr(value)
    except Exception:  # e.g. an int too long to convert to text
        return f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def action_problem(action: object) -> MalformedInput | None:
    """Why ``action`` is no well-formed action (one of the action types, with fields of exactly the right
    type and a known value), or None. ``Bid(3)`` or ``PlayCard("HK", 20.0)`` compare equal to a legal
    action, so equality alone cannot tell."""
    kind = type(action)
    if kind is PlayCard:
        card = getattr(action, "card", None)
        if type(card) is not str or card not in CARD_POINTS:
            return MalformedInput(
                "unknown_card", f"{shown(card)} is not a card code (suit H D C S, then rank A T K Q J)"
            )
        value = getattr(action, "marriage", None)
        if value is not None and (type(value) is not int or value not in (20, 40)):
            return MalformedInput("bad_action", f"{shown(value)} is not a marriage value (20 or 40)")
    elif kind is Bid:
        contract = getattr(action, "contract", None)
        if type(contract) is not Contract:
            return MalformedInput("unknown_contract", f"{shown(contract)} is not a Contract")
    elif kind is ChooseTrump:
        suit = getattr(action, "suit", None)
        if type(suit) is not str or suit not in SUITS:
            return MalformedInput("bad_action", f"{shown(suit)} is not a suit (H, D, C or S)")
    elif kind is Double:
        word = getattr(action, "word", None)
        if type(word) is not str or word not in DOUBLING_WORDS:
            return MalformedInput("bad_action", f"{shown(word)} is not kontra, re or subkontra")
    elif kind is not Pass and kind is not Aufschlagen:
        return MalformedInput("bad_action", f"{shown(action)} is not an action")
    return None


def format_action(seat: int, action: Action) -> str:
    who = SEAT_NAMES[seat]
    match action:
        case PlayCard(card, None):
            return f"{who} play {card}"
        case PlayCard(card, value):
            return f"{who} play {card} {value}"
        case Pass():
            return f"{who} pass"
        case Bid(contract):
            return f"{who} bid {contract.id}"
        case Double(word):
            return f"{who} {word}"
        case ChooseTrump(suit):
            return f"{who} trump {suit}"
        case Aufschlagen():
            return f"{who} aufschlagen"
    raise TypeError(f"not an action: {action!r}")


def parse_action(text: str) -> tuple[int, Action]:
    """Parse one action string; MalformedInput says what is wrong with it."""
    if not isinstance(text, str):
        raise MalformedInput("bad_action", f"an action must be a string, not {text!r}")
    words = text.split()
    if len(words) < 2:
        raise MalformedInput("bad_action", f"{text!r} is not an action (expected '<seat> <verb> ...')")
    seat = parse_seat(words[0])
    verb, args = words[1], words[2:]
    action: Action
    if verb in ("pass", "aufschlagen", *DOUBLING_WORDS) and not args:
        action = PASS if verb == "pass" else AUFSCHLAGEN if verb == "aufschlagen" else DOUBLE[verb]
    elif verb == "trump" and len(args) == 1 and args[0] in SUITS:
        action = CHOOSE_TRUMP[args[0]]
    elif verb == "bid" and len(args) == 1:
        action = BID[Contract.from_id(args[0])]
    elif verb == "play" and len(args) == 1:
        action = PLAY[parse_card(args[0])]
    elif verb == "play" and len(args) == 2 and args[1] in ("20", "40"):
        action = PLAY_MARRIAGE[(parse_card(args[0]), int(args[1]))]
    else:
        raise MalformedInput("bad_action", f"{text!r} is not an action")
    return seat, action
