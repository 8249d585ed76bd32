"""A deal played through its decisions, for the AI benches that look at the decisions before or beside the
card play (bench/ai_trump.py, bench/ai_calibration.py, bench/ai_model_allowance.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from engine.actions import Action
from engine.deal import Hands, new_deal
from engine.rules import apply_unchecked, legal_actions
from engine.ruleset import STANDARD
from engine.state import PLAY, DealState
from engine.views import PlayerView, view_for

Choose = Callable[[DealState, int, PlayerView, int], Action]


def walk_deal(seed: int, dealer: int, hands: Hands, choose: Choose, *, until_play: bool = False) -> DealState:
    """Play the deal ``hands`` (as bench/data/deals.jsonl holds it) from its start: a lone legal action is
    taken as it is, any other is ``choose(state, seat, view, key)``'s, with ``key`` = seed * 1000 + the
    decision's number (lone ones counted too). Stops at the first card with ``until_play``; returns the
    state reached."""
    state = new_deal(STANDARD, dealer, hands)
    decision = 0
    while not state.finished and not (until_play and state.phase == PLAY):
        seat = state.to_act
        assert seat is not None
        legal = legal_actions(state)
        action = legal[0] if len(legal) == 1 else choose(state, seat, view_for(state, seat), seed * 1000 + decision)
        decision += 1
        state, _ = apply_unchecked(state, seat, action)
    return state


def deals_parser(doc: str | None, *, deals: int = 30) -> argparse.ArgumentParser:
    """A bench's arguments with the deals it walks: ``--deals`` (default ``deals``) from ``--first-deal``, at
    ``--budget-ms``."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=deals)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--budget-ms", type=int, default=150)
    return parser
