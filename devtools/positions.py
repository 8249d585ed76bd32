"""Building engine positions of any contract for the AI tests."""

from __future__ import annotations

import dataclasses
import random

from engine import (
    PLAY,
    STANDARD,
    Contract,
    DealState,
    Ruleset,
    apply_unchecked,
    deal_hands,
    legal_actions,
    new_deal,
)
from engine.ai.compact import INDEX, Position, Table, mask_of
from engine.cards import partner_of

PLAYED_CONTRACTS = tuple(c for c in Contract if c not in (Contract.FARBRINGERL, Contract.TRUMPFFARBRINGERL))

RULE_VARIANTS = (
    STANDARD,
    dataclasses.replace(STANDARD, undertrump_required=False),
    dataclasses.replace(
        STANDARD,
        stichzwang_contracts=frozenset(
            {Contract.SCHNAPSER, Contract.KONTRASCHNAPSER, Contract.BAUERNSCHNAPSER, Contract.GANG}
        ),
    ),
    dataclasses.replace(STANDARD, schnapser_marriages="additive", schnapser_leader="declarer"),
    dataclasses.replace(STANDARD, schnapser_marriages="none"),
    dataclasses.replace(
        STANDARD,
        partner_sits_out=frozenset(
            {Contract.BETTLER, Contract.ASS_BETTLER, Contract.GANG, Contract.ZEHNERLOCH}
        ),
    ),
)


def play_start(seed: int, contract: Contract, rules: Ruleset = STANDARD, multiplier: int = 1) -> DealState:
    """A deal at its first lead with the given contract (hand conditions are not needed for play)."""
    rng = random.Random(seed)
    dealer = rng.randrange(4)
    state = new_deal(rules, dealer, deal_hands(seed, dealer))
    trump = rng.choice("HDCS")
    declarer = rng.randrange(4)
    sitting_out = partner_of(declarer) if contract in rules.partner_sits_out else None
    table = Table(rules, contract, trump, declarer, sitting_out)
    return state._replace(
        phase=PLAY,
        trump=trump,
        contract=contract,
        declarer=declarer,
        sitting_out=sitting_out,
        multiplier=multiplier,
        to_act=table.first_leader(state.forehand),
    )


def random_walk(state: DealState, rng: random.Random, steps: int) -> DealState:
    for _ in range(steps):
        if state.finished:
            break
        action = rng.choice(legal_actions(state))
        state, _ = apply_unchecked(state, state.to_act, action)
    return state


def table_of_state(state: DealState) -> Table:
    assert state.contract is not None and state.declarer is not None
    return Table(
        state.rules, state.contract, state.trump, state.declarer, state.sitting_out, state.multiplier
    )


def position_of_state(state: DealState) -> Position:
    marriages = [0, 0]
    for m in state.marriages:
        marriages[m.seat & 1] += m.value
    assert state.to_act is not None
    return Position(
        [mask_of(h) for h in state.hands],
        state.to_act,
        [(seat, INDEX[card]) for seat, card in state.trick],
        len(state.tricks) + 1,
        list(state.team_cards),
        list(state.team_tricks),
        marriages,
    )


def signed_base(state: DealState) -> int:
    """The finished deal's base, positive for NS (what the compact code and the solver return)."""
    assert state.result is not None
    return state.result.base if state.result.winner == 0 else -state.result.base
