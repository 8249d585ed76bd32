"""The forehand's first two decisions, searched offline: an opening book.

The trump choice depends on nothing but the forehand's first three cards, and the first lead of a normal
game on nothing but his five cards and the trump (named, or turned up from his own hand): nobody has acted
yet whose choice the AI reads, and suits that play alike are alike. Up to renaming suits (all four before
trump is named, the three besides trump after) there are 95 trump hands and 2526 first-lead hands, few
enough to search each once offline (``tools/build_opening_book.py``) with far more worlds than a decision
affords: the first lead with ``opening_book.LEAD_WORLDS`` (a 150 ms decision solves about 15), the trump
choice with twice as many (about 40 in play). Trick 1 is where more worlds change the most card choices,
and of its four decisions the first lead lost the most against a longer search (docs/ai.md, "An opening
book").

The book holds, per hand, the value and the noise of every legal action as ``pimc`` computed them and the
worlds behind them; ``pimc`` takes them in place of its own search under the rules the book was built for
(``STANDARD``).
"""

from __future__ import annotations

from functools import lru_cache

from ..actions import Action, Aufschlagen, ChooseTrump, PlayCard
from ..cards import DECK, RANKS, SUITS
from ..contracts import Contract
from ..ruleset import STANDARD, Ruleset
from ..state import PLAY, TRUMP
from ..views import PlayerView
from . import opening_book

# The book's suits: trump is the first, the other three follow in the order ``canonical_suits`` gives them.
BOOK_TRUMP = SUITS[0]


def canonical_suits(hand: tuple[str, ...] | list[str], trump: str) -> dict[str, str]:
    """Real suit -> the book's suit: trump to ``BOOK_TRUMP``, the others ordered by the cards held in them
    (more cards first, then higher ones), so hands alike but for the names of those suits meet in one
    entry. Suits held alike may go either way: both give the same hand."""
    others = sorted((suit for suit in SUITS if suit != trump), key=lambda suit: _held(hand, suit), reverse=True)
    return {trump: BOOK_TRUMP, **{suit: SUITS[i + 1] for i, suit in enumerate(others)}}


def canonical_trump_suits(hand: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Real suit -> the book's suit for a trump choice (no trump yet): all four suits ordered by the cards
    held in them, more cards first, then higher ones."""
    ordered = sorted(SUITS, key=lambda suit: _held(hand, suit), reverse=True)
    return {suit: SUITS[i] for i, suit in enumerate(ordered)}


def _held(hand: tuple[str, ...] | list[str], suit: str) -> tuple[int, tuple[int, ...]]:
    ranks = sorted(RANKS.index(card[1]) for card in hand if card[0] == suit)
    return len(ranks), tuple(-rank for rank in ranks)


def book_hand(hand: tuple[str, ...] | list[str], mapping: dict[str, str]) -> str:
    """A hand as the book names it: its cards in the book's suits, in deck order, space-separated."""
    return " ".join(sorted((mapping[card[0]] + card[1] for card in hand), key=DECK.index))


def book_action(action: Action, mapping: dict[str, str]) -> str:
    """An action as the book names it, in the book's suits: a lead's card (``+20``/``+40`` for a
    marriage), a named trump's suit, or ``aufschlagen``."""
    if isinstance(action, ChooseTrump):
        return mapping[action.suit]
    if isinstance(action, Aufschlagen):
        return "aufschlagen"
    assert isinstance(action, PlayCard)
    card = mapping[action.card[0]] + action.card[1]
    return card if action.marriage is None else f"{card}+{action.marriage}"


def applies(view: PlayerView, rules: Ruleset) -> bool:
    """Is this decision the forehand's first lead of a normal game under the book's rules? A turned-up
    card (Aufschlagen) is his own, so his worlds are those of a named trump; a card of another seat known
    to all would change them."""
    return (
        rules == STANDARD
        and view.phase == PLAY
        and view.contract is Contract.NORMAL
        and view.seat is not None
        and view.seat == view.forehand == view.to_act
        and not view.witnessed
        and not view.trick
        and not view.marriages
        and view.trump is not None
        and not any(cards for seat, cards in enumerate(view.known_cards) if seat != view.seat)
        and len(view.hand) == 5
    )


def applies_trump(view: PlayerView, rules: Ruleset) -> bool:
    """Is this decision the forehand's trump choice from his first three cards under the book's rules?"""
    return (
        rules == STANDARD
        and view.phase == TRUMP
        and view.seat is not None
        and view.seat == view.forehand == view.to_act
        and len(view.hand) == 3
    )


# An entry: the worlds its search used, and per action (as the book names it) its value and noise.
Entry = tuple[int, dict[str, tuple[float, float]]]


def lookup(view: PlayerView, rules: Ruleset) -> tuple[int, list[tuple[float, float]]] | None:
    """The worlds and the (value, noise) of each of ``view.legal`` from the book, in game points for the
    seat's team (a first lead's with the view's multiplier); None where the book does not apply or does
    not hold the decision."""
    if applies(view, rules):
        assert view.trump is not None
        mapping = canonical_suits(view.hand, view.trump)
        entry = _entries(opening_book.LEADS).get(book_hand(view.hand, mapping))
    elif applies_trump(view, rules):
        mapping = canonical_trump_suits(view.hand)
        entry = _entries(opening_book.TRUMPS).get(book_hand(view.hand, mapping))
    else:
        return None
    if entry is None:
        return None
    worlds, values = entry
    try:
        found = [values[book_action(action, mapping)] for action in view.legal]
    except KeyError:
        return None  # the book's actions are not this view's legal actions: search instead
    return worlds, [(value * view.multiplier, noise * view.multiplier) for value, noise in found]


def parse_line(line: str) -> tuple[str, Entry]:
    """One line of the book: ``hand|worlds|action value noise;...``, values in thousandths."""
    hand, worlds, actions = line.split("|")
    values = {}
    for item in actions.split(";"):
        action, value, noise = item.split()
        values[action] = (int(value) / 1000, int(noise) / 1000)
    return hand, (int(worlds), values)


def format_line(hand: str, worlds: int, actions: list[tuple[str, float, float]]) -> str:
    """The inverse of ``parse_line``."""
    items = ";".join(f"{action} {round(value * 1000)} {round(noise * 1000)}" for action, value, noise in actions)
    return f"{hand}|{worlds}|{items}"


@lru_cache(maxsize=2)
def _entries(text: str) -> dict[str, Entry]:
    return dict(parse_line(line) for line in text.splitlines() if line)
