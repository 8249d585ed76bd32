"""AI players: legal in every phase, reproducible from a seed, blind to what their seat cannot see."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import (
    FINISHED,
    PLAY,
    STANDARD,
    STARGAMES,
    PlayCard,
    RulesError,
    apply,
    apply_unchecked,
    deal_hands,
    legal_actions,
    new_deal,
    view_for,
)
from engine.ai import PLAYERS, choose_action, evaluate_actions
from engine.ai.compact import cards_of
from engine.ai.knowledge import Sampler, gather

PHASES_SEEN = ("trump", "auction", "doubling", "play")


def _play_through(seed: int, players: tuple[str, ...], rules=STANDARD, budget_ms: int = 5):  # type: ignore[no-untyped-def]
    """Play one deal; every decision must be legal. Returns the phases in which a choice was made."""
    dealer = seed % 4
    state = new_deal(rules, dealer, deal_hands(seed, dealer))
    phases = set()
    step = 0
    while state.phase != FINISHED:
        seat = state.to_act
        view = view_for(state, seat)
        action = choose_action(view, players[seat], seed + step, budget_ms, rules)
        assert action in legal_actions(state)
        if len(view.legal) > 1:
            phases.add(state.phase)
        state, _ = apply(state, seat, action)
        step += 1
    return phases


@pytest.mark.parametrize("player", PLAYERS)
def test_every_decision_is_legal_in_every_phase(player: str) -> None:
    seen: set[str] = set()
    deals = 12 if player == "pimc" else 150
    for seed in range(deals):
        rules = STARGAMES if seed % 3 == 2 else STANDARD
        # The others play randomly so that many contracts and doubling turns come up.
        players = (player, "random", player, "random") if seed % 2 else ("random", player, "random", player)
        seen |= _play_through(seed, players, rules)
    assert seen == set(PHASES_SEEN)


def test_pimc_plays_legally_in_many_random_positions() -> None:
    rng = random.Random(5)
    for seed in range(40):
        state = new_deal(STANDARD, seed % 4, deal_hands(1000 + seed, seed % 4))
        for _ in range(rng.randrange(0, 25)):
            if state.finished:
                break
            state, _ = apply_unchecked(state, state.to_act, rng.choice(legal_actions(state)))
        if state.finished:
            continue
        view = view_for(state, state.to_act)
        assert choose_action(view, "pimc", seed, 3) in legal_actions(state)


def _position(seed: int, moves: int):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    state = new_deal(STANDARD, seed % 4, deal_hands(seed, seed % 4))
    for _ in range(moves):
        if state.finished:
            break
        state, _ = apply_unchecked(state, state.to_act, rng.choice(legal_actions(state)))
    return state


def test_decisions_are_reproducible_from_the_seed() -> None:
    for seed in range(12):
        state = _position(seed, 6 + seed * 2)
        if state.finished:
            continue
        view = view_for(state, state.to_act)
        first = evaluate_actions(view, "pimc", seed, 20)
        again = evaluate_actions(view, "pimc", seed, 20)
        assert first == again
        assert choose_action(view, "random", seed) == choose_action(view, "random", seed)


def _hidden_swaps(state, viewer: int, rng: random.Random):  # type: ignore[no-untyped-def]
    """Deals that differ from ``state``'s by exchanging unplayed, unrevealed cards between two other seats."""
    view = view_for(state, viewer)
    revealed = {c for cards in view.known_cards for c in cards}
    for m in view.marriages:
        revealed |= {m.suit + "K", m.suit + "Q"}
    others = [s for s in range(4) if s != viewer]
    for _ in range(6):
        a, b = rng.sample(others, 2)
        free_a = [c for c in state.hands[a] if c not in revealed]
        free_b = [c for c in state.hands[b] if c not in revealed]
        if not free_a or not free_b:
            continue
        x, y = rng.choice(free_a), rng.choice(free_b)
        dealt = [list(h) for h in state.dealt]
        dealt[a][dealt[a].index(x)] = y
        dealt[b][dealt[b].index(y)] = x
        yield tuple(tuple(h) for h in dealt)


def test_hidden_cards_never_change_the_view_or_the_decision() -> None:
    rng = random.Random(11)
    checked = 0
    for seed in range(60):
        record_rng = random.Random(seed)
        start = new_deal(STANDARD, seed % 4, deal_hands(seed, seed % 4))
        actions = []
        state = start
        for _ in range(record_rng.randrange(1, 22)):
            if state.finished:
                break
            seat = state.to_act
            action = record_rng.choice(legal_actions(state))
            actions.append((seat, action))
            state, _ = apply_unchecked(state, seat, action)
        if state.finished:
            continue
        viewer = state.to_act
        view = view_for(state, viewer)
        decision = choose_action(view, "pimc", seed, 10)
        for dealt in _hidden_swaps(state, viewer, rng):
            other = new_deal(STANDARD, start.dealer, dealt)
            try:
                for seat, action in actions:
                    other, _ = apply(other, seat, action)
            except RulesError:  # the swap contradicts what was played: not a world the viewer could be in
                continue
            assert view_for(other, viewer) == view
            assert choose_action(view_for(other, viewer), "pimc", seed, 10) == decision
            checked += 1
    assert checked > 30


def test_sampled_worlds_respect_everything_the_seat_saw() -> None:
    """Each sampled world, put in place of the real hands, makes every card played so far legal."""
    for seed in range(80):
        state = _position(seed, 8 + seed % 14)
        if state.finished or state.phase != PLAY:
            continue
        viewer = state.to_act
        view = view_for(state, viewer)
        knowledge = gather(view, state.rules)
        sampler = Sampler(knowledge, random.Random(seed))
        for _ in range(10):
            world = sampler.draw()
            assert not sampler.relaxed
            held = [set(cards_of(mask)) for mask in world]
            assert held[viewer] == set(state.hands[viewer])
            assert [len(h) for h in held] == [len(h) for h in state.hands]
            for card in view.known_cards[state.forehand]:
                assert card in held[state.forehand]
            _replay_play_with(state, held)


def _replay_play_with(state, held: list[set[str]]) -> None:  # type: ignore[no-untyped-def]
    """Every trick card played so far must be legal if the seats had held the world's cards."""
    played: list[list[str]] = [[], [], [], []]
    plays = [p for t in state.tricks for p in t.plays] + list(state.trick)
    for seat, card in plays:
        played[seat].append(card)
    hands = tuple(tuple(sorted(held[s] | set(played[s]))) for s in range(4))
    start = state._replace(
        hands=hands, trick=(), tricks=(), team_cards=(0, 0), team_tricks=(0, 0), marriages=()
    )
    first_leader = (
        state.tricks[0].leader if state.tricks else (state.trick[0][0] if state.trick else state.to_act)
    )
    probe = start._replace(to_act=first_leader)
    marriage_of = {(m.seat, m.trick_no): m.value for m in state.marriages}
    trick_no = 1
    for seat, card in plays:
        lead = not probe.trick
        action = PlayCard(card, marriage_of.get((seat, trick_no)) if lead else None)
        probe, _ = apply(probe, seat, action)
        if not probe.trick:
            trick_no += 1


def test_unknown_player_is_refused() -> None:
    state = new_deal(STANDARD, 0, deal_hands(1, 0))
    with pytest.raises(ValueError):
        choose_action(view_for(state, state.to_act), "nobody")


def test_one_legal_action_needs_no_search() -> None:
    rules = dataclasses.replace(STANDARD, show_all_tricks=True)
    state = _position(3, 30)
    while not state.finished and len(legal_actions(state)) != 1:
        state, _ = apply_unchecked(state, state.to_act, legal_actions(state)[0])
    if not state.finished:
        _, evaluations = evaluate_actions(view_for(state, state.to_act), "pimc", 0, 150, rules)
        assert evaluations[0].worlds == 0


def test_a_decision_pauses_cyclic_garbage_collection_and_restores_it_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    from engine.ai import pimc

    state = new_deal(STANDARD, 0, deal_hands(5, 0))
    view = view_for(state, state.to_act)
    seen: list[bool] = []
    decide = pimc._evaluate

    def watched(*args):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return decide(*args)

    monkeypatch.setattr(pimc, "_evaluate", watched)
    assert gc.isenabled()
    pimc.evaluate(view, budget_ms=5)
    assert seen == [False] and gc.isenabled()

    def failing(*args):  # type: ignore[no-untyped-def]
        raise RuntimeError("search failed")

    monkeypatch.setattr(pimc, "_evaluate", failing)
    with pytest.raises(RuntimeError):
        pimc.evaluate(view, budget_ms=5)
    assert gc.isenabled()
    gc.disable()  # a caller that paused it itself gets it back paused
    try:
        monkeypatch.setattr(pimc, "_evaluate", watched)
        pimc.evaluate(view, budget_ms=5)
        assert not gc.isenabled()
    finally:
        gc.enable()
