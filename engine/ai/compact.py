"""The search's own representation of card play: cards are bits, hands are integer masks.

Card ``i`` is ``DECK[i]`` (suit-major: H D C S, each A T K Q J), so a suit is five adjacent bits. A ``Table``
holds what stays fixed during play (contract, trump, card order, obligations, who declares); a ``Position``
is everything that changes. ``legal_mask`` and ``beats_mask`` implement RULES.md section 5 on masks; the
property tests in tests/ai/ prove them equal to the engine's ``legal_actions`` and trick winners.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from ..cards import CARD_POINTS, DECK, NORMAL_ORDER, SUITS, ZEHNERLOCH_ORDER
from ..contracts import (
    BEGGAR_CONTRACTS,
    MARRIAGE_CONTRACTS,
    SCHNAPSER_CONTRACTS,
    TRUMP_CONTRACTS,
    Contract,
)
from ..ruleset import Ruleset

C = Contract
INDEX = {card: i for i, card in enumerate(DECK)}
BIT = {card: 1 << i for i, card in enumerate(DECK)}
SUIT_OF = [i // 5 for i in range(20)]
SUIT_MASK = [0b11111 << (5 * s) for s in range(4)]
POINTS = [CARD_POINTS[card] for card in DECK]
KING_QUEEN = [BIT[suit + "K"] | BIT[suit + "Q"] for suit in SUITS]
ALL_CARDS = (1 << 20) - 1

# How a contract ends (RULES.md 6.1): one code per family so the solver's hot loop compares small ints.
NORMAL, BEGGAR, SCHNAPSER, ALL_TRICKS = 0, 1, 2, 3


class SearchAborted(Exception):
    """Raised inside the search when its node limit is reached (the anytime loop then stops). Defined here,
    outside the solver, so the pure and the compiled solver (solver.py) raise the same class."""


def mask_of(cards: object) -> int:
    mask = 0
    for card in cards:  # type: ignore[attr-defined]
        mask |= BIT[card]
    return mask


def cards_of(mask: int) -> list[str]:
    out = []
    while mask:
        low = mask & -mask
        out.append(DECK[low.bit_length() - 1])
        mask ^= low
    return out


def family_of(contract: Contract) -> int:
    if contract is C.NORMAL:
        return NORMAL
    if contract in BEGGAR_CONTRACTS:
        return BEGGAR
    if contract in SCHNAPSER_CONTRACTS:
        return SCHNAPSER
    return ALL_TRICKS


@dataclass(frozen=True)
class Table:
    """Everything about a deal's card play that no card changes."""

    rules: Ruleset
    contract: Contract
    trump: str | None  # the named suit (kept for marriages' 20/40 even where trumps are off)
    declarer: int
    sitting_out: int | None
    multiplier: int = 1
    family: int = field(init=False)
    trump_suit: int = field(init=False)  # -1 when no card is a trump
    trump_mask: int = field(init=False)
    strength: tuple[int, ...] = field(init=False)
    above: tuple[int, ...] = field(init=False)  # same-suit cards that beat the card
    beats: tuple[int, ...] = field(init=False)  # every card that beats the card when it is winning
    must_beat: bool = field(init=False)
    value: int = field(init=False)
    next_seat: tuple[int, ...] = field(init=False)
    players: int = field(init=False)

    def __post_init__(self) -> None:
        def put(name: str, value: object) -> None:
            object.__setattr__(self, name, value)

        order = ZEHNERLOCH_ORDER if self.contract is C.ZEHNERLOCH else NORMAL_ORDER
        trumps_on = self.contract in TRUMP_CONTRACTS and self.trump is not None
        trump_suit = SUITS.index(self.trump) if trumps_on else -1
        trump_mask = SUIT_MASK[trump_suit] if trump_suit >= 0 else 0
        strength = tuple(order[card] for card in DECK)
        above = tuple(
            sum(1 << j for j in range(20) if SUIT_OF[j] == SUIT_OF[i] and strength[j] > strength[i])
            for i in range(20)
        )
        beats = tuple(above[i] | (trump_mask if SUIT_OF[i] != trump_suit else 0) for i in range(20))
        put("family", family_of(self.contract))
        put("trump_suit", trump_suit)
        put("trump_mask", trump_mask)
        put("strength", strength)
        put("above", above)
        put("beats", beats)
        put("must_beat", self.contract in self.rules.stichzwang_contracts)
        put("value", self.rules.contract_value(self.contract))
        nxt = []
        for seat in range(4):
            following = (seat + 1) % 4
            if following == self.sitting_out:
                following = (following + 1) % 4
            nxt.append(following)
        put("next_seat", tuple(nxt))
        put("players", 3 if self.sitting_out is not None else 4)

    def legal_mask(self, hand: int, led_suit: int, winning: int) -> int:
        """Cards of ``hand`` that may join a trick led in ``led_suit`` and won so far by card ``winning``."""
        follow = hand & SUIT_MASK[led_suit]
        if follow:
            if self.must_beat and SUIT_OF[winning] == led_suit:
                higher = follow & self.above[winning]
                if higher:
                    return higher
            return follow
        trumps = hand & self.trump_mask
        if trumps:
            if not self.must_beat:
                return trumps
            over = trumps & self.beats[winning]
            if over:
                return over
            return trumps if self.rules.undertrump_required else hand
        return hand

    def marriage_options(self, seat: int, hand: int, trick_no: int) -> list[tuple[int, int]]:
        """(suit, value) pairs ``seat`` may announce when leading trick ``trick_no`` (RULES.md 6.2)."""
        if self.contract not in MARRIAGE_CONTRACTS:
            return []
        allow_40 = True
        if self.family == SCHNAPSER:
            mode = self.rules.schnapser_marriages
            if mode == "none" or seat != self.declarer or trick_no not in (2, 3):
                return []
            allow_40 = trick_no == 2 or mode == "additive"
        options = []
        for suit in range(4):
            if hand & KING_QUEEN[suit] == KING_QUEEN[suit]:
                value = 40 if SUITS[suit] == self.trump else 20
                if value == 20 or allow_40:
                    options.append((suit, value))
        return options

    def first_leader(self, forehand: int) -> int:
        """Who leads trick 1 (RULES.md D3), as ``engine.bidding.start_play`` decides it."""
        if self.contract not in TRUMP_CONTRACTS or (
            self.contract in (C.SCHNAPSER, C.BAUERNSCHNAPSER) and self.rules.schnapser_leader == "declarer"
        ):
            leader = self.declarer
        else:
            leader = forehand
        if leader == self.sitting_out:
            leader = (leader + 1) % 4
        return leader


@lru_cache(maxsize=256)
def shared_table(
    rules: Ruleset,
    contract: Contract,
    trump: str | None,
    declarer: int,
    sitting_out: int | None,
    multiplier: int = 1,
) -> Table:
    """The ``Table`` of these facts, built once per process for the few a process meets: a table is immutable,
    and building one costs more than a small search (every decision of a deal asks for its own)."""
    return Table(rules, contract, trump, declarer, sitting_out, multiplier)


@dataclass
class Position:
    """A moment of card play with every hand known (a sampled world)."""

    hands: list[int]  # per seat
    to_act: int
    trick: list[tuple[int, int]]  # (seat, card index) in playing order
    trick_no: int  # 1-based number of the trick in progress
    points: list[int]  # card points per team
    tricks: list[int]  # tricks won per team
    marriages: list[int]  # marriage values announced per team (they count once the team has a trick)

    def copy(self) -> Position:
        return Position(
            list(self.hands),
            self.to_act,
            list(self.trick),
            self.trick_no,
            list(self.points),
            list(self.tricks),
            list(self.marriages),
        )


def trick_winner(table: Table, trick: list[tuple[int, int]]) -> tuple[int, int]:
    """(seat, card) winning the trick so far."""
    seat, card = trick[0]
    for other_seat, other in trick[1:]:
        if table.beats[card] >> other & 1:
            seat, card = other_seat, other
    return seat, card


def legal_moves(table: Table, pos: Position) -> list[tuple[int, int]]:
    """Every legal (card, marriage value or 0) of the seat to act, in the engine's sense."""
    hand = pos.hands[pos.to_act]
    if pos.trick:
        mask = table.legal_mask(hand, SUIT_OF[pos.trick[0][1]], trick_winner(table, pos.trick)[1])
        return [(INDEX[c], 0) for c in cards_of(mask)]
    moves = [(INDEX[c], 0) for c in cards_of(hand)]
    for suit, value in table.marriage_options(pos.to_act, hand, pos.trick_no):
        moves += [(INDEX[c], value) for c in cards_of(hand & KING_QUEEN[suit])]
    return moves


def normal_win(pos: Position, team: int) -> int:
    """Signed base (team 0 positive) when ``team`` reaches 66 in the normal game (RULES.md D10)."""
    loser = 1 - team
    if pos.tricks[loser] == 0:
        base = 3
    elif pos.points[loser] + pos.marriages[loser] < 33:
        base = 2
    else:
        base = 1
    return base if team == 0 else -base


def apply_move(table: Table, pos: Position, card: int, marriage: int) -> int | None:
    """Play a legal move in place; return the signed base (team 0 positive) if the hand ends."""
    seat = pos.to_act
    if marriage:
        ended = _announce(table, pos, seat, marriage)
        if ended is not None:
            return ended
    pos.hands[seat] &= ~(1 << card)
    pos.trick.append((seat, card))
    if len(pos.trick) < table.players:
        pos.to_act = table.next_seat[seat]
        return None
    winner, _ = trick_winner(table, pos.trick)
    team = winner & 1
    pos.points[team] += sum(POINTS[c] for _, c in pos.trick)
    pos.tricks[team] += 1
    pos.trick = []
    pos.to_act = winner
    trick_no = pos.trick_no
    pos.trick_no += 1
    return end_after_trick(table, pos, winner, trick_no)


def _announce(table: Table, pos: Position, seat: int, value: int) -> int | None:
    team = seat & 1
    if table.family == NORMAL:
        pos.marriages[team] += value
        if pos.tricks[team] and pos.points[team] + pos.marriages[team] >= 66:
            return normal_win(pos, team)
        return None
    side_sign = 1 if team == 0 else -1
    if table.rules.schnapser_marriages == "claim":
        return side_sign * table.value if pos.points[team] + value >= 66 else -side_sign * table.value
    pos.marriages[team] += value
    if pos.points[team] + pos.marriages[team] >= 66:
        return side_sign * table.value
    return None


def end_after_trick(table: Table, pos: Position, winner: int, trick_no: int) -> int | None:
    side = table.declarer & 1
    side_sign = 1 if side == 0 else -1
    family = table.family
    if family == NORMAL:
        team = winner & 1
        if pos.points[team] + pos.marriages[team] >= 66:
            return normal_win(pos, team)
        if trick_no == 5:
            return 1 if team == 0 else -1
        return None
    if family == BEGGAR:
        if winner == table.declarer:
            return -side_sign * table.value
        return side_sign * table.value if trick_no == 5 else None
    if winner != table.declarer:
        return -side_sign * table.value
    if family == SCHNAPSER:
        if pos.points[side] + pos.marriages[side] >= 66:
            return side_sign * table.value
        return -side_sign * table.value if trick_no == 3 else None
    return side_sign * table.value if trick_no == 5 else None
