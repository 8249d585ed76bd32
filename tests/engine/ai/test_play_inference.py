"""Soft inference from play: in the normal game a world counts by how likely it makes the other seats' free
card choices, for a player who plays greedy's card most of the time."""

from __future__ import annotations

import random

import pytest

from engine import PLAY, STANDARD, Contract, apply, deal_hands, legal_actions, new_deal, view_for
from engine.actions import PASS, ChooseTrump
from engine.ai import evaluate_actions, greedy
from engine.ai.compact import mask_of
from engine.ai.knowledge import Sampler, gather, table_of
from engine.ai.pimc import GREEDY_AGREEMENT, _play_likelihood
from engine.state import DealState


def _normal_game_after(seed: int, plays: int) -> tuple[DealState, list[tuple[int, bool]]]:
    """A normal game whose first ``plays`` cards greedy chose, every seat seeing its own hand."""
    dealer = seed % 4
    state = new_deal(STANDARD, dealer, deal_hands(seed, dealer))
    while state.phase != PLAY:
        seat = state.to_act
        assert seat is not None
        legal = legal_actions(state)
        action = next(a for a in legal if isinstance(a, ChooseTrump)) if PASS not in legal else PASS
        state, _ = apply(state, seat, action)
    assert state.contract is Contract.NORMAL
    free = []  # (seat, was the choice free)
    for _ in range(plays):
        seat = state.to_act
        assert seat is not None
        view = view_for(state, seat)
        free.append((seat, len(view.legal) > 1))
        state, _ = apply(state, seat, greedy.choose(view, STANDARD))
    return state, free


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_worlds_count_by_the_choices_they_explain(seed: int) -> None:
    state, free = _normal_game_after(seed, 7)
    me = state.to_act
    view = view_for(state, me)
    table = table_of(view, STANDARD)
    assert table is not None
    likelihood = _play_likelihood(view, STANDARD, table)
    assert likelihood is not None
    true_world = [mask_of(state.hands[seat]) for seat in range(4)]
    choices = sum(1 for seat, was_free in free if was_free and seat != me)
    assert choices > 0
    weight, judged = likelihood(true_world)
    assert GREEDY_AGREEMENT is not None
    assert weight == pytest.approx(GREEDY_AGREEMENT**choices)  # every free choice was greedy's
    assert judged == sum(1 for seat, _ in free if seat != me)  # forced cards are looked at, and count nothing
    assert likelihood(true_world) == (weight, 0)  # judged once per decision
    sampler = Sampler(gather(view, STANDARD), random.Random(seed))
    weights = [likelihood(sampler.draw())[0] for _ in range(60)]
    # Worlds in which greedy would have played other cards count less (a world may count more, where a free
    # choice was forced in it).
    assert min(weights) < weight / 2


def test_no_inference_without_another_seats_card() -> None:
    state, _ = _normal_game_after(5, 0)
    view = view_for(state, state.to_act)
    table = table_of(view, STANDARD)
    assert table is not None
    assert _play_likelihood(view, STANDARD, table) is None


def test_the_inference_weighs_the_same_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    state, _ = _normal_game_after(8, 6)
    view = view_for(state, state.to_act)
    monkeypatch.setattr("engine.ai.pimc.GREEDY_AGREEMENT", None)
    monkeypatch.setattr("engine.ai.pimc.GREEDY_NODES", 0)
    plain = evaluate_actions(view, "pimc", 4, 40, STANDARD)
    monkeypatch.setattr("engine.ai.pimc.GREEDY_AGREEMENT", 0.75)
    weighed = evaluate_actions(view, "pimc", 4, 40, STANDARD)
    # Same worlds (the inference costs no nodes here), other weights: same count, other means.
    assert [e.worlds for e in weighed[1]] == [e.worlds for e in plain[1]]
    assert [e.value for e in weighed[1]] != [e.value for e in plain[1]]
