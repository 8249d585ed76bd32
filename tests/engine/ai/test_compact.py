"""The search's bitmask representation agrees with the engine: legal moves, trick winners, hand ends."""

from __future__ import annotations

import random

import pytest

from devtools.positions import (
    PLAYED_CONTRACTS,
    RULE_VARIANTS,
    play_start,
    position_of_state,
    signed_base,
    table_of_state,
)
from engine import DECK, PlayCard, apply_unchecked, legal_actions
from engine.ai.compact import apply_move, legal_moves, trick_winner


def _engine_moves(state) -> set[tuple[int, int]]:  # type: ignore[no-untyped-def]
    return {(DECK.index(a.card), a.marriage or 0) for a in legal_actions(state) if isinstance(a, PlayCard)}


@pytest.mark.parametrize("rules_index", range(len(RULE_VARIANTS)))
@pytest.mark.parametrize("contract", PLAYED_CONTRACTS, ids=lambda c: c.id)
def test_moves_winners_and_results_equal_the_engines(contract, rules_index) -> None:  # type: ignore[no-untyped-def]
    rules = RULE_VARIANTS[rules_index]
    rng = random.Random(f"{contract.id}:{rules_index}")
    checked_moves = checked_tricks = checked_ends = 0
    for deal in range(40):
        state = play_start(rng.randrange(10**9), contract, rules, multiplier=rng.choice((1, 2, 4)))
        table = table_of_state(state)
        pos = position_of_state(state)
        while not state.finished:
            moves = legal_moves(table, pos)
            assert set(moves) == _engine_moves(state) and len(moves) == len(set(moves))
            checked_moves += 1
            action = rng.choice(legal_actions(state))
            seat = state.to_act
            before = list(pos.trick)
            ended = apply_move(table, pos, DECK.index(action.card), action.marriage or 0)
            state, _ = apply_unchecked(state, seat, action)
            if state.tricks and len(before) == table.players - 1 and not state.trick and ended is None:
                last = state.tricks[-1]
                plays = [(s, DECK.index(c)) for s, c in last.plays]
                assert trick_winner(table, plays)[0] == last.winner
                checked_tricks += 1
            if state.finished:
                assert ended == signed_base(state)
                checked_ends += 1
            else:
                assert ended is None
                assert pos == position_of_state(state), f"deal {deal}"
    assert checked_moves > 100 and checked_ends == 40
    if contract.id not in ("bettler", "ass_bettler", "gang", "zehnerloch", "bauernschnapser"):
        assert checked_tricks > 0
