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
from engine.ai import solver as solver_module
from engine.ai.solver import Solver, solver_classes
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


@pytest.mark.parametrize("rules_index", range(len(RULE_VARIANTS)))
@pytest.mark.parametrize("contract", PLAYED_CONTRACTS, ids=lambda c: c.id)
def test_solver_legal_cards_equal_the_tables(contract, rules_index) -> None:  # type: ignore[no-untyped-def]
    """The search's own legal cards (``Solver._legal_mask``) are ``Table.legal_mask``'s, pure and compiled."""
    rng = random.Random(f"legal:{contract.id}:{rules_index}")
    table = table_of_state(play_start(rng.randrange(10**9), contract, RULE_VARIANTS[rules_index]))
    for kind, solver_class in solver_classes().items():
        solver = solver_class(table)
        for _ in range(300):
            hand = rng.getrandbits(20)
            led, winning = rng.randrange(4), rng.randrange(20)
            assert solver._legal_mask(hand, led, winning) == table.legal_mask(hand, led, winning), kind


@pytest.mark.parametrize("contract", [Contract.NORMAL, Contract.BETTLER, Contract.SCHNAPSER])
def test_solvers_sharing_a_tables_move_lists_search_alike(contract) -> None:  # type: ignore[no-untyped-def]
    """Move lists shared by the solvers of one table (``_shared_memo``) change neither values nor the nodes
    searched: a second solver of a table, which finds the first one's lists, searches as the first did."""
    states = list(mid_game_states(f"shared:{contract.id}", contract, RULE_VARIANTS[0], 6))
    for kind, solver_class in solver_classes().items():
        module = solver_module if kind == "pure" else solver_module._compiled
        for state in states:
            module._memos.clear()
            searches = []
            for _ in range(2):
                solver = solver_class(table_of_state(state))
                searches.append((solver.solve_mtd(position_of_state(state), 1), solver.nodes))
            assert searches[0] == searches[1], kind
            assert module._memos, kind
