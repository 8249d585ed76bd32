"""A defender's Kontra is said exactly when its edge, (doubled mean - mean) / stake, clears the family's
margin: the quantity bench/ai_calibration.py records and sweeps."""

from __future__ import annotations

import pytest

from engine import AUCTION, DOUBLING, STANDARD, Contract, apply_unchecked, legal_actions, new_deal, view_for
from engine.actions import PASS, Bid, Double
from engine.ai import evaluate_actions
from engine.ai.pimc import (
    ALL_TRICKS_DOUBLE_MARGIN,
    BEGGAR_DOUBLE_MARGIN,
    DOUBLE_MARGIN,
    RE_MARGIN,
    SCHNAPSER_DOUBLE_MARGIN,
    doubling_margin,
    doubling_stake,
)
from engine.cards import team_of

C = Contract
HANDS = (
    ("HJ", "SJ", "CJ", "DJ", "HQ"),  # N: low cards, a Bettler hand
    ("HA", "HT", "HK", "SA", "ST"),
    ("SK", "SQ", "CA", "CT", "CK"),
    ("CQ", "DA", "DT", "DK", "DQ"),
)


def _doubling_state(contract: Contract):  # type: ignore[no-untyped-def]
    """N (forehand; the dealer is W) bids ``contract`` at once, everyone else passes, up to the first Kontra."""
    state = new_deal(STANDARD, 3, HANDS)
    state, _ = apply_unchecked(state, state.to_act, legal_actions(state)[0])  # trump (or Aufschlagen)
    while state.phase == AUCTION:
        seat = state.to_act
        bid = Bid(contract)
        action = bid if seat == 0 and bid in legal_actions(state) and not state.auction else PASS
        state, _ = apply_unchecked(state, seat, action)
    assert state.phase == DOUBLING and state.contract is contract and state.declarer == 0
    return state


def test_margins_per_family() -> None:
    assert doubling_margin(C.NORMAL, True) == DOUBLE_MARGIN
    assert doubling_margin(C.BETTLER, True) == doubling_margin(C.ASS_BETTLER, True) == BEGGAR_DOUBLE_MARGIN
    schnapser_family = (C.SCHNAPSER, C.KONTRASCHNAPSER)
    assert {doubling_margin(c, True) for c in schnapser_family} == {SCHNAPSER_DOUBLE_MARGIN}
    all_tricks = (C.GANG, C.ZEHNERLOCH, C.BAUERNSCHNAPSER, C.KONTRABAUERNSCHNAPSER)
    assert {doubling_margin(c, True) for c in all_tricks} == {ALL_TRICKS_DOUBLE_MARGIN}
    assert SCHNAPSER_DOUBLE_MARGIN < ALL_TRICKS_DOUBLE_MARGIN
    assert doubling_margin(C.BETTLER, False) == RE_MARGIN
    assert doubling_stake(STANDARD, C.NORMAL) == 3
    assert doubling_stake(STANDARD, C.BETTLER) == STANDARD.contract_value(C.BETTLER)


def _kontra_edge(state, seed: int) -> tuple[bool, float]:  # type: ignore[no-untyped-def]
    """Did the defender to act say Kontra, and the edge recomputed from his evaluations."""
    margin = doubling_margin(C.BETTLER, True)
    action, evaluations = evaluate_actions(view_for(state, state.to_act), "pimc", seed, 60, STANDARD)
    kontra = next(e.value for e in evaluations if isinstance(e.action, Double))
    passing = next(e.value for e in evaluations if e.action == PASS)
    return isinstance(action, Double), (kontra - passing) / doubling_stake(STANDARD, C.BETTLER) + margin


@pytest.mark.parametrize("seed", [0, 1])
def test_kontra_is_said_when_its_edge_clears_the_margin(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    state = _doubling_state(C.BETTLER)
    assert team_of(state.to_act) != team_of(0)
    said, edge = _kontra_edge(state, seed)
    assert not said and edge < BEGGAR_DOUBLE_MARGIN  # N's low cards: a sound Bettler
    # The margin also decides when the worlds have shown enough (early stop, the screen without the bidder
    # model), so the edge may move with it; the decision always follows the edge it measured.
    for margin in (edge - 0.05, edge + 0.05, -10.0):
        monkeypatch.setattr("engine.ai.pimc.BEGGAR_DOUBLE_MARGIN", margin)
        said, measured = _kontra_edge(state, seed)
        assert said == (measured > margin)
    assert said  # a margin below any edge: Kontra
