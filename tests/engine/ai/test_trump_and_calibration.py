"""The trump choice is stable (options the worlds cannot tell apart go to greedy's rule, so King and Ober
of a suit name it), and a bid's value predicts its made rate per contract family."""

from __future__ import annotations

import pytest

from engine import STANDARD, Contract, new_deal, view_for
from engine.actions import Aufschlagen, Bid, ChooseTrump
from engine.ai import choose_action, evaluate_actions
from engine.ai.compact import ALL_TRICKS, BEGGAR, SCHNAPSER
from engine.ai.pimc import (
    DECLARER_CAUTION,
    OPTIMISM,
    TIE_Z,
    Evaluation,
    _caution,
    best_action,
    predicted_made_rate,
)

C = Contract


def _trump_view(first_three: tuple[str, str, str]):  # type: ignore[no-untyped-def]
    """N is forehand (the dealer is W) and holds ``first_three`` first; the other cards follow in order."""
    rest = [f"{s}{r}" for s in "HDSC" for r in "AT KQJ".replace(" ", "") if f"{s}{r}" not in first_three]
    hands = (first_three + tuple(rest[:2]), tuple(rest[2:7]), tuple(rest[7:12]), tuple(rest[12:17]))
    state = new_deal(STANDARD, 3, hands)
    assert state.phase == "trump" and state.to_act == 0
    return view_for(state, 0)


@pytest.mark.parametrize("hand", [("HK", "HQ", "SJ"), ("SA", "CK", "CQ"), ("DK", "DQ", "HT")])
def test_king_and_ober_name_their_suit(hand: tuple[str, str, str]) -> None:
    view = _trump_view(hand)
    suit = next(s for s in "HDSC" if f"{s}K" in hand and f"{s}Q" in hand)
    for seed in (0, 1):
        assert choose_action(view, "pimc", seed, 150, STANDARD) == ChooseTrump(suit)


def test_trump_values_carry_their_noise_and_aufschlagen_is_valued() -> None:
    view = _trump_view(("HK", "HQ", "SJ"))
    _, evaluations = evaluate_actions(view, "pimc", 0, 150, STANDARD)
    assert {type(e.action) for e in evaluations} == {ChooseTrump, Aufschlagen}
    best = max(evaluations, key=lambda e: e.value)
    assert best.noise == 0.0
    assert all(e.worlds > 20 for e in evaluations)
    assert all(e.noise > 0 for e in evaluations if e is not best)


def test_an_option_within_the_noise_of_the_best_goes_to_greedys_rule() -> None:
    view = _trump_view(("HK", "HQ", "SJ"))  # greedy names the longest suit: Hearts
    hearts, spades, turn = ChooseTrump("H"), ChooseTrump("S"), Aufschlagen()
    ordered = {a: a for a in view.legal}
    assert set(ordered) == {hearts, spades, turn}

    def evaluations(hearts_value: float, hearts_noise: float) -> list[Evaluation]:
        values = {hearts: (hearts_value, hearts_noise), spades: (0.0, 0.3), turn: (1.5, 0.0)}
        return [Evaluation(a, values[a][0], 100, values[a][1]) for a in view.legal]

    assert best_action(view, evaluations(1.5 - TIE_Z * 0.2 + 0.01, 0.2)) == hearts
    assert best_action(view, evaluations(1.5 - TIE_Z * 0.2 - 0.01, 0.2)) == turn
    assert best_action(view, evaluations(1.2, 0.0)) == turn  # no noise measured: the best mean


def test_a_bids_value_predicts_its_made_rate_per_family() -> None:
    """A bid solved at made rate p is worth v(2(p - gap) - 1) - risk; the prediction read back is p - gap.
    The whole margin of a bid is ``DECLARER_CAUTION`` of its value, or twice the gap where that is more
    (the risk margin never goes below 0)."""
    for contract, family in ((C.BETTLER, BEGGAR), (C.SCHNAPSER, SCHNAPSER), (C.GANG, ALL_TRICKS)):
        worth = STANDARD.contract_value(contract)
        margin = max(DECLARER_CAUTION, 2 * OPTIMISM[family])
        assert _caution(STANDARD, Bid(contract)) == pytest.approx(margin * worth)
        solved_rate = 0.8
        value = worth * (2 * solved_rate - 1) - _caution(STANDARD, Bid(contract))
        predicted = predicted_made_rate(STANDARD, contract, value)
        assert predicted == pytest.approx(solved_rate - OPTIMISM[family])
    assert OPTIMISM[SCHNAPSER] > OPTIMISM[BEGGAR] > OPTIMISM[ALL_TRICKS] == 0.0


def test_three_suits_that_the_worlds_cannot_tell_apart_turn_a_card() -> None:
    view = _trump_view(("HA", "SJ", "CQ"))
    evaluations = [Evaluation(a, 1.0 if a == ChooseTrump("H") else 0.9, 100, 0.0 if a == ChooseTrump("H") else 0.2)
                   for a in view.legal]  # fmt: skip
    assert best_action(view, evaluations) == Aufschlagen()
    clear = [Evaluation(e.action, e.value, e.worlds, e.noise / 10) for e in evaluations]
    assert best_action(view, clear) == ChooseTrump("H")
