"""The alpha-beta solver returns the exact minimax value, checked against a plain search of engine states."""

from __future__ import annotations

import random

import pytest

from devtools.positions import (
    PLAYED_CONTRACTS,
    RULE_VARIANTS,
    play_start,
    position_of_state,
    random_walk,
    signed_base,
    table_of_state,
)
from engine import apply_unchecked, legal_actions
from engine.ai.solver import Solver
from engine.contracts import Contract


def minimax(state) -> int:  # type: ignore[no-untyped-def]
    """Team NS maximises the signed base, team EW minimises it; every legal action is tried."""
    if state.finished:
        return signed_base(state)
    values = [minimax(apply_unchecked(state, state.to_act, a)[0]) for a in legal_actions(state)]
    return max(values) if state.to_act % 2 == 0 else min(values)


def mid_game_states(seed: str, contract, rules, count: int):  # type: ignore[no-untyped-def]
    """``count`` unfinished deals of ``contract`` from the middle of trick 2 or later (the plain search stays
    small), the same for the same seed."""
    rng = random.Random(seed)
    found = 0
    while found < count:
        state = random_walk(play_start(rng.randrange(10**9), contract, rules), rng, rng.randrange(5, 10))
        if not state.finished:
            found += 1
            yield state


@pytest.mark.parametrize("rules_index", [0, 1, 3])
@pytest.mark.parametrize("contract", PLAYED_CONTRACTS, ids=lambda c: c.id)
def test_solver_value_equals_minimax(contract, rules_index) -> None:  # type: ignore[no-untyped-def]
    for state in mid_game_states(f"solve:{contract.id}:{rules_index}", contract, RULE_VARIANTS[rules_index], 12):
        expected = minimax(state)
        solver = Solver(table_of_state(state))
        assert solver.solve(position_of_state(state)) == expected
        # A second solve reuses the transposition table and must agree, also with a narrow window.
        assert solver.solve(position_of_state(state)) == expected


@pytest.mark.parametrize("rules_index", [0, 1, 3])
@pytest.mark.parametrize("contract", PLAYED_CONTRACTS, ids=lambda c: c.id)
def test_null_window_search_equals_minimax(contract, rules_index) -> None:  # type: ignore[no-untyped-def]
    """``solve_mtd`` (null-window searches from a guess) is exact from every guess."""
    for state in mid_game_states(f"mtd:{contract.id}:{rules_index}", contract, RULE_VARIANTS[rules_index], 8):
        expected = minimax(state)
        solver = Solver(table_of_state(state))
        for guess in (-solver.bound - 1, -1, 0, 1, 2, solver.bound):
            assert solver.solve_mtd(position_of_state(state), guess) == expected


def test_normal_game_range_keeps_values_from_trick_one() -> None:
    """The normal game's shrinking value range (``Solver._normal_range``) and the null-window search
    return the values of the plain full-window search, on whole deals from their first tricks."""
    rng = random.Random("range")
    for _ in range(40):
        state = play_start(rng.randrange(10**9), Contract.NORMAL, RULE_VARIANTS[0])
        state = random_walk(state, rng, rng.randrange(0, 4))
        if state.finished:
            continue
        plain = Solver(table_of_state(state))
        plain.normal = False
        fast = Solver(table_of_state(state))
        expected = plain.solve(position_of_state(state))
        assert fast.solve(position_of_state(state)) == expected
        assert (
            Solver(table_of_state(state)).solve_mtd(position_of_state(state), rng.choice((-2, 1, 3)))
            == expected
        )
