"""Playing whole deals between AI players: the core of ``bench/ai_match.py`` and of the match test.

A duplicate pair plays one seeded deal twice with the teams swapped, so the luck of the cards cancels.
``normal_only`` fixes trump (greedy's rule, the same for both players) and passes every auction and
doubling turn, so only card play is compared.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..actions import PASS, Action, Bid, Double, Pass
from ..cards import team_of
from ..contracts import Contract
from ..deal import deal_hands, new_deal
from ..rules import apply_unchecked, legal_actions
from ..ruleset import STANDARD, Ruleset
from ..state import AUCTION, DOUBLING, PLAY, TRUMP, DealState
from ..views import view_for
from . import choose_action, greedy

PHASE_KIND = {TRUMP: "trump", AUCTION: "bid", DOUBLING: "kontra", PLAY: "card"}


@dataclass
class DealOutcome:
    points: tuple[int, int]  # game points won by team NS, EW
    contract: Contract | None
    declaring_team: int | None
    made: bool | None
    bid: bool  # was the contract bid (not the normal game by four passes)?
    kontra: int  # how many Kontra/Re/Subkontra were said
    # (seat, word, won) for every Kontra/Re/Subkontra: who said it, the word, did its team win the deal
    doubles: tuple[tuple[int, str, bool], ...] = ()
    timings: list[tuple[str, float]] = field(default_factory=list)  # (decision kind, seconds)


Hands = tuple[tuple[str, ...], ...]
# A stand-in for ``choose_action`` for a player name (e.g. an older AI run in another process): called with
# the deal's dealer, its dealt hands, the actions so far (seat, action), the seat, the seed and the budget.
Chooser = Callable[[int, Hands, list[tuple[int, Action]], int, int, int], Action]


def play_deal(
    hands: Hands,
    dealer: int,
    seed: int,
    seat_players: tuple[str, str, str, str],
    normal_only: bool = False,
    budget_ms: int = 150,
    rules: Ruleset = STANDARD,
    timed: bool = False,
    choosers: dict[str, Chooser] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> DealOutcome:
    """One deal; with ``timed``, each decision's time by ``clock`` (wall time, or e.g. ``time.process_time``
    for the CPU time of this process, which a loaded machine disturbs less)."""
    state = new_deal(rules, dealer, hands)
    timings: list[tuple[str, float]] = []
    history: list[tuple[int, Action]] = []
    decision = 0
    while not state.finished:
        seat = state.to_act
        assert seat is not None
        legal = legal_actions(state)
        action: Action
        if normal_only and state.phase != PLAY:
            action = fixed_normal(state, seat)
        elif len(legal) == 1:
            action = legal[0]
        else:
            started = clock()
            chooser = (choosers or {}).get(seat_players[seat])
            if chooser is not None:
                action = chooser(dealer, hands, history, seat, seed * 1000 + decision, budget_ms)
            else:
                view = view_for(state, seat)
                action = choose_action(view, seat_players[seat], seed * 1000 + decision, budget_ms, rules)
            if timed:
                timings.append((PHASE_KIND[state.phase], clock() - started))
        assert action in legal, (action, legal)
        decision += 1
        history.append((seat, action))
        state, _ = apply_unchecked(state, seat, action)
    result = state.result
    assert result is not None
    points = [0, 0]
    points[result.winner] = result.game_points
    kontras = sum(1 for _, word in state.doubling if word != "pass")
    bid = any(contract is not None for _, contract in state.auction)
    declaring = team_of(state.declarer) if state.declarer is not None else None
    doubles = tuple(
        (seat, word, team_of(seat) == result.winner) for seat, word in state.doubling if word != "pass"
    )
    return DealOutcome(
        (points[0], points[1]), state.contract, declaring, result.made, bid, kontras, doubles, timings
    )


def play_normal(
    state: DealState, card: Callable[[DealState, int, int], Action], first_decision: int = 0
) -> DealState:
    """``state`` played to its end as ``normal_only`` plays: trump by greedy's rule, every bid and double
    passed, a forced card played, and ``card(state, seat, decision)`` choosing every other card, where
    ``decision`` counts the actions before it from ``first_decision`` (for the seeds of a search)."""
    decision = first_decision
    while not state.finished:
        seat = state.to_act
        assert seat is not None
        legal = legal_actions(state)
        if state.phase != PLAY:
            action = fixed_normal(state, seat)
        elif len(legal) == 1:
            action = legal[0]
        else:
            action = card(state, seat, decision)
        decision += 1
        state, _ = apply_unchecked(state, seat, action)
    return state


def fixed_normal(state: DealState, seat: int) -> Action:
    """``normal_only``'s choice outside card play: trump by greedy's rule, a pass at every bid and double."""
    if state.phase == TRUMP:
        return greedy.choose(view_for(state, seat))
    legal = legal_actions(state)
    return (
        next(a for a in legal if isinstance(a, Pass))
        if PASS in legal
        else next(a for a in legal if not isinstance(a, (Bid, Double)))
    )


def duplicate_pair(
    hands: Hands,
    dealer: int,
    seed: int,
    first: str,
    second: str,
    normal_only: bool = False,
    budget_ms: int = 150,
    rules: Ruleset = STANDARD,
    timed: bool = False,
    choosers: dict[str, Chooser] | None = None,
) -> tuple[float, list[DealOutcome]]:
    """Half the difference in game points, ``first`` minus ``second``, over the deal played twice with the
    seats swapped: the duplicate score of one deal."""
    as_ns = play_deal(
        hands, dealer, seed, (first, second, first, second), normal_only, budget_ms, rules, timed, choosers
    )
    as_ew = play_deal(
        hands, dealer, seed, (second, first, second, first), normal_only, budget_ms, rules, timed, choosers
    )
    margin = (as_ns.points[0] - as_ns.points[1]) + (as_ew.points[1] - as_ew.points[0])
    return margin / 2, [as_ns, as_ew]


def fresh_deals(first_seed: int, count: int) -> list[tuple[int, int, Hands]]:
    """``count`` new deals from seeds ``first_seed``, ``first_seed + 1``, ..., the dealer ``seed % 4`` as in
    the fixed list (``load_deals``), whose seeds are 100000-101999."""
    return [(seed, seed % 4, deal_hands(seed, seed % 4)) for seed in range(first_seed, first_seed + count)]


def load_deals(path: str) -> list[tuple[int, int, Hands]]:
    """The fixed deal list (bench/data/deals.jsonl): one JSON object per line, seed, dealer and hands."""
    import json

    from ..cards import SEAT_NAMES

    deals = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                item = json.loads(line)
                hands = tuple(tuple(item["hands"][seat].split()) for seat in SEAT_NAMES)
                deals.append((item["seed"], SEAT_NAMES.index(item["dealer"]), hands))
    return deals
