"""Soft inference from play: in the normal game a world counts by how likely it makes the other seats' free
card choices, for a player who plays greedy's card most of the time, and the forehand's named trump."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from engine import PLAY, STANDARD, Contract, apply, deal_hands, legal_actions, new_deal, view_for
from engine.actions import Action, PlayCard
from engine.ai import evaluate_actions, greedy
from engine.ai.compact import mask_of
from engine.ai.knowledge import Sampler, gather, table_of
from engine.ai.pimc import (
    GREEDY_AGREEMENT,
    MARRIAGE_SILENCE,
    NORMAL_PLAY_FACTOR,
    REJECTION_DRAWS,
    TRICK_ONE_TIE_Z,
    Evaluation,
    _Budget,
    _play_likelihood,
    _rejection_control,
    _Tally,
    _trump_likelihood,
    _with_noise,
    best_action,
    naming_probability,
)
from engine.cards import DECK as ALL_CARD_NAMES
from engine.cards import SUITS
from engine.state import DealState
from tests.engine.ai.games import normal_game_at_first_card


def _normal_game_after(seed: int, plays: int) -> tuple[DealState, list[tuple[int, bool]]]:
    """A normal game whose first ``plays`` cards greedy chose, every seat seeing its own hand."""
    state = normal_game_at_first_card(seed)
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
def test_worlds_count_by_the_choices_they_explain(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setattr("engine.ai.pimc.PLAY_MODEL", False)  # the flat model (tests/engine/ai/test_play_model.py)
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


def test_without_rejection_the_inference_weighs_the_same_worlds(monkeypatch: pytest.MonkeyPatch) -> None:
    state, _ = _normal_game_after(8, 6)
    view = view_for(state, state.to_act)
    monkeypatch.setattr("engine.ai.pimc.REJECTION_DRAWS", None)
    monkeypatch.setattr("engine.ai.pimc.GREEDY_AGREEMENT", None)
    monkeypatch.setattr("engine.ai.pimc.GREEDY_NODES", 0)
    monkeypatch.setattr("engine.ai.pimc.PLAY_MODEL_NODES", 0)
    plain = evaluate_actions(view, "pimc", 4, 40, STANDARD)
    monkeypatch.setattr("engine.ai.pimc.GREEDY_AGREEMENT", 0.75)
    weighed = evaluate_actions(view, "pimc", 4, 40, STANDARD)
    # Same worlds (the inference costs no nodes here), other weights: same count, other means.
    assert [e.worlds for e in weighed[1]] == [e.worlds for e in plain[1]]
    assert [e.value for e in weighed[1]] != [e.value for e in plain[1]]


def _solved_weights(monkeypatch: pytest.MonkeyPatch, view, rejection: int | None) -> list[float]:  # type: ignore[no-untyped-def]
    """The weights of the worlds one card-play decision solved."""
    monkeypatch.setattr("engine.ai.pimc.REJECTION_DRAWS", rejection)
    monkeypatch.setattr("engine.ai.pimc.EARLY_STOP", False)  # the worlds the whole budget buys
    monkeypatch.setattr("engine.ai.pimc.LATER_TRICKS_PERCENT", 100)  # as many as when it was measured
    monkeypatch.setattr("engine.ai.pimc.NORMAL_PLAY_FACTOR", 1)
    seen: list[float] = []
    add = _Tally.add

    def counted(self, values, weight=1.0):  # type: ignore[no-untyped-def]
        seen.append(weight)
        add(self, values, weight)

    monkeypatch.setattr(_Tally, "add", counted)
    evaluate_actions(view, "pimc", 4, 150, STANDARD)
    return seen


def _effective_share(weights: list[float]) -> float:
    return sum(weights) ** 2 / sum(w * w for w in weights) / len(weights)


def test_with_rejection_the_solved_worlds_weigh_nearly_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejection control: a drawn world is kept with the chance its weight bears to the highest so far and
    counts at that ceiling, so the solved worlds weigh nearly alike where plain weighting spreads them."""
    assert REJECTION_DRAWS is not None
    plain_shares, kept_shares = [], []
    for seed, plays in ((8, 6), (3, 5), (21, 2)):
        state, _ = _normal_game_after(seed, plays)
        view = view_for(state, state.to_act)
        assert len(view.legal) > 1
        plain = _solved_weights(monkeypatch, view, None)
        kept = _solved_weights(monkeypatch, view, REJECTION_DRAWS)
        assert kept == sorted(kept)  # each counts at the ceiling when it was kept, which only rises
        plain_shares.append(_effective_share(plain))
        kept_shares.append(_effective_share(kept))
    # Effective worlds per solved world: 0.07-0.27 weighed plainly, 0.76-0.95 kept so.
    assert all(kept > max(0.7, 2 * plain) for kept, plain in zip(kept_shares, plain_shares, strict=True))


def test_rejection_keeps_worlds_as_often_as_their_weight_says() -> None:
    """Kept worlds come in proportion to their weights and count alike: of worlds weighing 1 and 0.1 in
    equal numbers, about one kept in eleven is a light one, each kept at the ceiling 1."""
    rng = random.Random(7)
    drawn = [([index], 1.0 if index % 2 else 0.1) for index in range(4000)]
    kept = list(_rejection_control(iter(drawn), rng))
    assert {weight for _, weight in kept} == {1.0}
    light = sum(1 for hands, _ in kept if hands[0] % 2 == 0)
    assert light / len(kept) == pytest.approx(0.1 / 1.1, abs=0.02)
    assert len(kept) == pytest.approx(2000 * 1.1, rel=0.05)


def test_rejection_stops_when_the_budget_is_spent() -> None:
    budget = _Budget(0)
    drawn = [([index], 0.5 if index == 0 else 0.01) for index in range(1000)]
    kept = list(_rejection_control(iter(drawn), random.Random(1), budget))
    assert len(kept) < 20  # the first rejection after the warm-up ends it


def test_a_named_trump_is_likelier_from_hands_strong_in_it() -> None:
    def named(hand: str, suit: str) -> float:
        return naming_probability(mask_of(hand.split()), SUITS.index(suit), 0.9)

    assert named("HA HT HK SJ DQ", "H") > 0.9 > 0.05 > named("HJ SA ST SK DQ", "H")
    assert named("SA ST SK DQ CJ", "H") == 0.0  # the named suit is among the first three cards
    for hand in ("HA HT HK SJ DQ", "HK HQ SJ DA CT", "HA SA DA CA HT"):
        # any three of the five are the first: over the suits the chances add up to one
        assert sum(named(hand, suit) for suit in SUITS) == pytest.approx(1.0)


def test_worlds_count_by_how_well_the_forehand_named_trump() -> None:
    true_weights, sampled_weights = [], []
    for seed in range(12):
        state = normal_game_at_first_card(seed)
        forehand = state.to_act  # the forehand leads the first trick
        seat = (forehand + 1) % 4
        view = view_for(state, seat)
        likelihood = _trump_likelihood(view, gather(view, STANDARD))
        assert likelihood is not None
        assert _trump_likelihood(view_for(state, forehand), gather(view_for(state, forehand), STANDARD)) is None
        true_world = [mask_of(state.hands[s]) for s in range(4)]
        weight, new = likelihood(true_world)
        assert new and likelihood(true_world) == (weight, False)  # each hand judged once per decision
        true_weights.append(weight)
        sampler = Sampler(gather(view, STANDARD), random.Random(seed))
        sampled_weights += [likelihood(sampler.draw())[0] for _ in range(40)]
    # The hands that really named the trump explain it better than the hands the other cards allow.
    assert sum(true_weights) / len(true_weights) > 1.4 * sum(sampled_weights) / len(sampled_weights)


def test_card_play_measures_each_moves_noise_over_weighted_worlds() -> None:
    state = normal_game_at_first_card(11)
    view = view_for(state, state.to_act)
    assert len(view.legal) >= 3
    rng = random.Random(1)
    worlds = [[float(rng.randint(-2, 2) + i) for i in range(len(view.legal))] for _ in range(9)]
    even = _with_noise(view, worlds)
    best = max(even, key=lambda e: e.value)
    assert best.noise == 0.0 and all(e.noise > 0 for e in even if e is not best)
    assert [e.value for e in _with_noise(view, worlds, [2.0] * 9)] == pytest.approx([e.value for e in even])
    assert [e.noise for e in _with_noise(view, worlds, [2.0] * 9)] == pytest.approx([e.noise for e in even])
    # The same worlds, weighted unevenly, count as fewer: the means move and the noise grows.
    skewed = _with_noise(view, worlds, [8.0, 1.0, 1.0] * 3)
    assert all(s.noise > e.noise for s, e in zip(skewed, even, strict=True) if e.noise > 0)


def test_in_trick_one_a_card_within_the_noise_of_the_best_goes_to_greedy() -> None:
    state = normal_game_at_first_card(11)

    def evaluations(view, greedys_gap: float, noise: float) -> tuple[list[Evaluation], Action]:  # type: ignore[no-untyped-def]
        """Greedy's card ``greedys_gap`` below another card's best mean, with ``noise``; the rest far below."""
        greedys = greedy.choose(view, STANDARD)
        other = next(a for a in view.legal if a != greedys)
        values = {a: (-2.0, 0.5) for a in view.legal}
        values[other] = (1.0, 0.0)
        values[greedys] = (1.0 - greedys_gap, noise)
        return [Evaluation(a, values[a][0], 50, values[a][1]) for a in view.legal], other

    lead = view_for(state, state.to_act)
    assert len(lead.legal) > 1
    greedys = greedy.choose(lead, STANDARD)
    near, _ = evaluations(lead, TRICK_ONE_TIE_Z * 0.2 - 0.01, 0.2)
    assert best_action(lead, near) == greedys
    far, other = evaluations(lead, TRICK_ONE_TIE_Z * 0.2 + 0.01, 0.2)
    assert best_action(lead, far) == other
    # From trick 2 on the best mean is taken (more worlds, and no setting did better there).
    for _ in range(4):
        seat = state.to_act
        assert seat is not None
        state, _ = apply(state, seat, greedy.choose(view_for(state, seat), STANDARD))
    later = view_for(state, state.to_act)
    assert later.witnessed and len(later.legal) > 1
    near, other = evaluations(later, 0.01, 0.5)
    assert best_action(later, near) == other


def test_the_named_trumps_likelihood_follows_greedys_rule() -> None:
    """``naming_probability`` counts greedy's trump rule on card indices; for every three first cards, a
    forehand who always follows the rule names greedy's strongest suit (shared out where suits tie)."""
    for first in combinations(ALL_CARD_NAMES, 3):
        strength = {suit: greedy.trump_strength(first, suit) for suit in SUITS}
        best = max(strength.values())
        tied = [suit for suit in SUITS if strength[suit] == best]
        for suit in SUITS:
            expected = 1 / len(tied) if suit in tied else 0.0
            assert naming_probability(mask_of(first), SUITS.index(suit), 1.0) == pytest.approx(expected)


def _lead_of_a_pair(announce: bool) -> tuple[DealState, int, str]:
    """A normal game after its first lead, a King of a pair its leader holds (King and Ober), led with or
    without announcing the marriage; the leader and the Ober."""
    for seed in range(200):
        state = normal_game_at_first_card(seed)
        leader = state.to_act
        assert leader is not None
        for suit in SUITS:
            if {suit + "K", suit + "Q"} <= set(state.hands[leader]):
                legal = legal_actions(state)
                lead = next(
                    a
                    for a in legal
                    if isinstance(a, PlayCard) and a.card == suit + "K" and bool(a.marriage) == announce
                )
                state, _ = apply(state, leader, lead)
                return state, leader, suit + "Q"
    raise AssertionError("no deal with a pair in the first leader's hand")


@pytest.mark.parametrize("announce", [False, True])
def test_a_king_led_without_its_marriage_says_the_leader_had_no_ober(
    monkeypatch: pytest.MonkeyPatch, announce: bool
) -> None:
    state, leader, ober = _lead_of_a_pair(announce)
    me = state.to_act
    assert me is not None
    view = view_for(state, me)
    table = table_of(view, STANDARD)
    assert table is not None
    true_world = [mask_of(state.hands[seat]) for seat in range(4)]
    # The same world but the Ober with the third seat, which gives the leader one of its cards instead.
    third = next(seat for seat in range(4) if seat not in (me, leader))
    swapped = list(true_world)
    given = state.hands[third][0]
    swapped[leader] = true_world[leader] & ~mask_of([ober]) | mask_of([given])
    swapped[third] = true_world[third] & ~mask_of([given]) | mask_of([ober])

    def weights(silence: float | None) -> tuple[float, float]:
        monkeypatch.setattr("engine.ai.pimc.MARRIAGE_SILENCE", silence)
        likelihood = _play_likelihood(view, STANDARD, table)
        assert likelihood is not None
        return likelihood(true_world)[0], likelihood(swapped)[0]

    (held, not_held), (held_silent, not_held_silent) = weights(None), weights(MARRIAGE_SILENCE)
    assert MARRIAGE_SILENCE is not None and 0 < MARRIAGE_SILENCE < 0.2
    assert not_held_silent == not_held  # a world explaining the plain lead counts as before
    # A plain King with its Ober at hand is unlikely; an announced marriage says so anyway (the Ober is
    # known to be with the leader, and the world without it is not drawn).
    assert held_silent == pytest.approx(held if announce else held * MARRIAGE_SILENCE)


def test_the_normal_games_card_play_gets_more_nodes_than_the_other_contracts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    budgets: dict[bool, int] = {}

    def recorded(view, rules, rng, budget_nodes):  # type: ignore[no-untyped-def]
        budgets[view.contract is Contract.NORMAL] = budget_nodes
        return [Evaluation(action, 0.0, 0) for action in view.legal]

    monkeypatch.setattr("engine.ai.pimc._evaluate_play", recorded)
    for seed in range(100):
        dealer = seed % 4
        state = new_deal(STANDARD, dealer, deal_hands(seed, dealer))
        while state.phase != PLAY:  # greedy bids where its hand fits a contract
            seat = state.to_act
            assert seat is not None
            state, _ = apply(state, seat, greedy.choose(view_for(state, seat), STANDARD))
        # the second card of trick 1 (the normal game's first lead is the opening book's)
        leader = state.to_act
        assert leader is not None
        state, _ = apply(state, leader, greedy.choose(view_for(state, leader), STANDARD))
        view = view_for(state, state.to_act)
        if len(view.legal) > 1 and view.contract is not None:
            evaluate_actions(view, "pimc", 0, 150, STANDARD)
        if len(budgets) == 2:
            break
    assert budgets[True] == NORMAL_PLAY_FACTOR * budgets[False] > budgets[False]
