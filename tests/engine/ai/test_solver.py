"""The alpha-beta solver returns the exact minimax value, checked against a plain search of engine states."""

from __future__ import annotations

import random

import pytest

from engine import apply_unchecked, legal_actions
from engine.ai.solver import Solver
from engine.contracts import Contract
from tests.engine.ai.helpers import (
    PLAYED_CONTRACTS,
    RULE_VARIANTS,
    play_start,
    position_of_state,
    random_walk,
    signed_base,
    table_of_state,
)


def minimax(state) -> int:  # type: ignore[no-untyped-def]
    """Team NS maximises the signed base, team EW minimises it; every legal action is tried."""
    if state.finished:
        return signed_base(state)
    values = [minimax(apply_unchecked(state, state.to_act, a)[0]) for a in legal_actions(state)]
    return max(values) if state.to_act % 2 == 0 else min(values)


@pytest.mark.parametrize("rules_index", [0, 1, 3])
@pytest.mark.parametrize("contract", PLAYED_CONTRACTS, ids=lambda c: c.id)
def test_solver_value_equals_minimax(contract, rules_index) -> None:  # type: ignore[no-untyped-def]
    rules = RULE_VARIANTS[rules_index]
    rng = random.Random(f"solve:{contract.id}:{rules_index}")
    compared = 0
    while compared < 12:
        state = play_start(rng.randrange(10**9), contract, rules)
        # From the middle of trick 2 or later, so the plain search stays small.
        state = random_walk(state, rng, rng.randrange(5, 10))
        if state.finished:
            continue
        expected = minimax(state)
        solver = Solver(table_of_state(state))
        assert solver.solve(position_of_state(state)) == expected
        # A second solve reuses the transposition table and must agree, also with a narrow window.
        assert solver.solve(position_of_state(state)) == expected
        compared += 1


@pytest.mark.parametrize("rules_index", [0, 1, 3])
@pytest.mark.parametrize("contract", PLAYED_CONTRACTS, ids=lambda c: c.id)
def test_null_window_search_equals_minimax(contract, rules_index) -> None:  # type: ignore[no-untyped-def]
    """``solve_mtd`` (null-window searches from a guess) is exact from every guess."""
    rules = RULE_VARIANTS[rules_index]
    rng = random.Random(f"mtd:{contract.id}:{rules_index}")
    compared = 0
    while compared < 8:
        state = play_start(rng.randrange(10**9), contract, rules)
        state = random_walk(state, rng, rng.randrange(5, 10))
        if state.finished:
            continue
        expected = minimax(state)
        solver = Solver(table_of_state(state))
        for guess in (-solver.bound - 1, -1, 0, 1, 2, solver.bound):
            assert solver.solve_mtd(position_of_state(state), guess) == expected
        compared += 1


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
