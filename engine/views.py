"""The hidden-information boundary: what one seat (or a spectator) may see of a deal.

Renderers, messages and AI players receive a ``PlayerView``, never a ``DealState``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action
from .cards import NORMAL_ORDER, SUITS, ZEHNERLOCH_ORDER
from .contracts import TRUMP_CONTRACTS, Contract
from .rules import legal_actions
from .ruleset import Ruleset
from .state import TRUMP, DealResult, DealState, Phase


@dataclass(frozen=True, slots=True)
class TrickView:
    leader: int
    winner: int
    plays: tuple[tuple[int, str], ...] | None  # None: turned face down (RULES.md D20)
    points: int | None


@dataclass(frozen=True, slots=True)
class MarriageView:
    seat: int
    suit: str
    value: int
    trick_no: int
    counted: bool


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int | None  # None: the public view of the table
    phase: Phase
    dealer: int
    forehand: int
    to_act: int | None
    hand: tuple[str, ...]  # the viewer's cards as far as dealt (three before trump is chosen)
    hand_sizes: tuple[int, int, int, int]
    known_cards: tuple[tuple[str, ...], ...]  # per seat: cards in hand that everybody knows (Aufschlag card)
    trump: str | None
    aufschlag_card: str | None
    auction: tuple[tuple[int, Contract | None], ...]
    contract: Contract | None
    declarer: int | None
    multiplier: int
    doubling: tuple[tuple[int, str], ...]
    sitting_out: int | None
    trick: tuple[tuple[int, str], ...]
    # The trick just completed stays face up until the next card is led, as on a real table.
    last_trick: TrickView | None
    tricks: tuple[TrickView, ...]
    # Every card played in completed tricks, as this seat watched them fall (memory, not display).
    witnessed: tuple[tuple[int, str], ...]
    team_tricks: tuple[int, int]
    team_points: tuple[int, int] | None  # only where the rules show all tricks
    marriages: tuple[MarriageView, ...]
    result: DealResult | None
    legal: tuple[Action, ...]  # the viewer's legal actions when it is the viewer's turn
    rules: Ruleset  # the table's rules are public


def view_for(state: DealState, seat: int | None) -> PlayerView:
    show_all = state.rules.show_all_tricks
    first_trick_of: dict[int, int] = {}
    for index, trick in enumerate(state.tricks):
        first_trick_of.setdefault(trick.winner & 1, index)
    face_up = set(first_trick_of.values())
    tricks = tuple(
        TrickView(t.leader, t.winner, t.plays, t.points)
        if show_all or i in face_up
        else TrickView(t.leader, t.winner, None, None)
        for i, t in enumerate(state.tricks)
    )
    dealt_now = 3 if state.phase == TRUMP else 5
    if seat is None:
        hand: tuple[str, ...] = ()
    elif state.phase == TRUMP:
        hand = state.dealt[seat][:3]
    else:
        hand = state.hands[seat]
    sizes = tuple(min(len(h), dealt_now) if state.phase == TRUMP else len(h) for h in state.hands)
    known = tuple((state.aufschlag_card,) if state.aufschlag_card in state.hands[s] else () for s in range(4))
    marriages = tuple(
        MarriageView(m.seat, m.suit, m.value, m.trick_no, state.team_tricks[m.seat & 1] > 0)
        for m in state.marriages
    )
    return PlayerView(
        seat=seat,
        phase=state.phase,
        dealer=state.dealer,
        forehand=state.forehand,
        to_act=state.to_act,
        hand=hand,
        hand_sizes=sizes,  # type: ignore[arg-type]
        known_cards=known,
        trump=state.trump,
        aufschlag_card=state.aufschlag_card,
        auction=state.auction,
        contract=state.contract,
        declarer=state.declarer,
        multiplier=state.multiplier,
        doubling=state.doubling,
        sitting_out=state.sitting_out,
        trick=state.trick,
        last_trick=_just_completed(state),
        tricks=tricks,
        witnessed=tuple(play for t in state.tricks for play in t.plays) if seat is not None else (),
        team_tricks=state.team_tricks,
        team_points=state.team_cards if show_all else None,
        marriages=marriages,
        result=state.result,
        legal=legal_actions(state) if seat is not None and seat == state.to_act else (),
        rules=state.rules,
    )


def _just_completed(state: DealState) -> TrickView | None:
    if state.trick or not state.tricks:
        return None
    last = state.tricks[-1]
    return TrickView(last.leader, last.winner, last.plays, last.points)


def display_order(
    hand: tuple[str, ...] | list[str], trump: str | None, contract: Contract | None
) -> tuple[str, ...]:
    """``hand`` in the order a player holds it: trumps first, then the other suits (Herz, Schellen, Eichel,
    Laub), each from its strongest card down in the contract's rank order (Zehnerloch: T K Q J A).

    ``trump`` is the suit named (None before it is chosen: then by suit and rank only); a contract without
    trumps (Bettler, Gang, Zehnerloch ...) has no trump group. While the auction runs (``contract`` None)
    the named trump leads, as it will in the normal game.

    >>> display_order(("CK", "HJ", "SA", "HA", "CT"), "C", Contract.NORMAL)
    ('CT', 'CK', 'HA', 'HJ', 'SA')
    >>> display_order(("CK", "HJ", "SA", "HA", "CT"), "C", Contract.ZEHNERLOCH)
    ('HJ', 'HA', 'CT', 'CK', 'SA')
    >>> display_order(("SQ", "DA", "SA"), None, None)
    ('DA', 'SA', 'SQ')
    """
    trump_group = trump if contract is None or contract in TRUMP_CONTRACTS else None
    strength = ZEHNERLOCH_ORDER if contract is Contract.ZEHNERLOCH else NORMAL_ORDER

    def place(card: str) -> tuple[bool, int, int]:
        return card[0] != trump_group, SUITS.index(card[0]), -strength[card]

    return tuple(sorted(hand, key=place))
