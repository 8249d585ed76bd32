"""Early stop: a decision stops solving worlds once its best action is clear beyond the noise, drops the
actions clearly worse, and pays nothing for a choice that is no choice. Decisions stay reproducible."""

from __future__ import annotations

import time

import pytest

from engine import AUCTION, STANDARD, apply_unchecked, deal_hands, legal_actions, new_deal, view_for
from engine.actions import PASS, Bid
from engine.ai import bidder, choose_action, evaluate_actions, pimc
from engine.ai.pimc import STOP_MIN_WORLDS, _Tally

from .test_play_inference import _normal_game_after


def test_a_clearly_worse_action_is_dropped_and_the_decision_settles() -> None:
    tally = _Tally(3)
    for world in range(STOP_MIN_WORLDS):
        noise = 0.1 * (world % 3 - 1)
        swing = 0.3 if world % 2 else -0.3
        tally.add([1.0 + noise, -1.0 + noise / 2, 1.0 + noise + swing + 0.005])
        if world < STOP_MIN_WORLDS - 1:
            assert not tally.settled()  # never before the least number of worlds
    # Action 1 trails by 2 with little spread: dropped. Action 2 leads action 0 by 0.005 on a spread of
    # 0.3 per world: not told apart, so the decision goes on.
    assert not tally.settled()
    assert tally.alive == [True, False, True]
    evaluations = tally.evaluations([PASS, PASS, PASS])
    assert evaluations[1].worlds == STOP_MIN_WORLDS and evaluations[1].value == pytest.approx(-1.0)


def test_actions_equal_in_every_world_so_far_are_not_told_apart_yet() -> None:
    # A difference no world showed yet may show in the next: the decision goes on to its budget.
    tally = _Tally(2)
    for world in range(3 * STOP_MIN_WORLDS):
        value = float(world % 3)
        tally.add([value, value])
        assert not tally.settled()
    assert tally.alive == [True, True]


def test_a_bid_offset_counts_in_the_comparison() -> None:
    # The same values per world, but the second action pays a caution of 0.5: clearly worse.
    tally = _Tally(2, [0.0, -0.5])
    for world in range(STOP_MIN_WORLDS):
        value = 0.01 * (world % 4)
        tally.add([value, value + 0.001 * (world % 2)])
    assert tally.settled() and tally.alive == [True, False]


@pytest.mark.parametrize(("seed", "plays"), [(3, 5), (8, 6), (21, 2), (5, 8), (11, 5), (9, 3)])
def test_early_stop_chooses_as_the_full_search_where_the_choice_is_clear(
    seed: int, plays: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, _ = _normal_game_after(seed, plays)
    view = view_for(state, state.to_act)
    assert len(view.legal) > 1
    stopped_action, stopped = evaluate_actions(view, "pimc", 4, 150, STANDARD)
    monkeypatch.setattr(pimc, "EARLY_STOP", False)
    full_action, full = evaluate_actions(view, "pimc", 4, 150, STANDARD)
    best = max(full, key=lambda e: e.value)
    runner_up = max((e.value for e in full if e is not best), default=best.value)
    clear = best.value - runner_up > 3 * max(e.noise for e in full)
    if clear:
        assert stopped_action == full_action
    # A dropped action is solved in fewer worlds than the full search's.
    assert min(e.worlds for e in stopped) <= min(e.worlds for e in full)


def test_early_stop_saves_worlds_over_several_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    # Trick 1, where the budget buys the most worlds (87 against 107 over these decisions).
    views = [view_for(state, state.to_act) for state, _ in (_normal_game_after(s, 1) for s in range(6))]
    views = [view for view in views if len(view.legal) > 1]
    stopped = sum(max(e.worlds for e in evaluate_actions(v, "pimc", 4, 150, STANDARD)[1]) for v in views)
    monkeypatch.setattr(pimc, "EARLY_STOP", False)
    full = sum(max(e.worlds for e in evaluate_actions(v, "pimc", 4, 150, STANDARD)[1]) for v in views)
    assert stopped < full


def test_a_forced_card_costs_no_search() -> None:
    for seed in range(40):
        state, _ = _normal_game_after(seed, 9)
        view = view_for(state, state.to_act)
        if len(view.legal) == 1:
            break
    else:
        pytest.fail("no forced card found")
    started = time.process_time()
    assert choose_action(view, "pimc", 0, 150, STANDARD) == view.legal[0]
    action, evaluations = evaluate_actions(view, "pimc", 0, 150, STANDARD)
    assert action == view.legal[0] and [e.worlds for e in evaluations] == [0]
    assert time.process_time() - started < 0.05


def test_a_bid_the_hand_cannot_make_is_not_solved_for_a_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pimc, "BID_SCREEN", True)  # off in play (docs/ai.md)
    state = new_deal(STANDARD, 0, deal_hands(0, 0))
    while state.phase != AUCTION:
        state, _ = apply_unchecked(state, state.to_act, legal_actions(state)[0])
    view = view_for(state, state.to_act)
    hand = list(view.hand)
    hopeless = [a for a in view.legal if isinstance(a, Bid) and not bidder.could_bid(a.contract, view.trump, hand)]
    assert hopeless
    quick = {e.action: e for e in pimc.evaluate(view, STANDARD, 0, 150, quick=True)}
    assert all(quick[a].worlds == 0 and quick[a].value == pimc.NEVER for a in hopeless)
    assert quick[PASS].worlds > 0
    # Asked for values (the coach), every bid is solved.
    assert all(e.worlds > 0 for e in pimc.evaluate(view, STANDARD, 0, 150))


@pytest.mark.parametrize(("seed", "plays"), [(3, 0), (8, 6), (21, 2)])
def test_the_same_view_seed_and_budget_give_the_same_evaluation(seed: int, plays: int) -> None:
    state, _ = _normal_game_after(seed, plays)
    view = view_for(state, state.to_act)
    first = evaluate_actions(view, "pimc", 7, 60, STANDARD)
    # Other decisions in between (process-wide caches warm up) change nothing.
    other, _ = _normal_game_after(seed + 1, 3)
    evaluate_actions(view_for(other, other.to_act), "pimc", 1, 60, STANDARD)
    assert evaluate_actions(view, "pimc", 7, 60, STANDARD) == first


def test_bid_values_carry_no_noise_so_the_best_mean_bids() -> None:
    # With noise, best_action would give a bid near passing's value up for greedy's choice (it did: the
    # full game bid the Bettler 40% less often than before early stop).
    state = new_deal(STANDARD, 0, deal_hands(0, 0))
    while state.phase != AUCTION:
        state, _ = apply_unchecked(state, state.to_act, legal_actions(state)[0])
    view = view_for(state, state.to_act)
    evaluations = pimc.evaluate(view, STANDARD, 0, 150)
    assert len(evaluations) > 1 and all(e.noise == 0 for e in evaluations)
    assert pimc.best_action(view, evaluations, STANDARD) == max(evaluations, key=lambda e: e.value).action
