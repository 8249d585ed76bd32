"""Deals the AI tests share."""

from __future__ import annotations

from engine import PLAY, STANDARD, apply, deal_hands, legal_actions, new_deal, view_for
from engine.actions import PASS
from engine.ai import greedy
from engine.state import DealState


def normal_game_at_first_card(seed: int) -> DealState:
    """A normal game at its first card, trump named by greedy's rule from the forehand's first three cards."""
    dealer = seed % 4
    state = new_deal(STANDARD, dealer, deal_hands(seed, dealer))
    while state.phase != PLAY:
        seat = state.to_act
        assert seat is not None
        legal = legal_actions(state)
        state, _ = apply(state, seat, PASS if PASS in legal else greedy.choose(view_for(state, seat)))
    return state
