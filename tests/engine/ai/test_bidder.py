"""The bidder model: make rates order hands sensibly, worlds follow what the bidder said, and a defender
does not double a contract whose bidder's hand the model knows to be strong."""

from __future__ import annotations

import random

from engine import STANDARD, Contract, apply, legal_actions, new_deal, view_for
from engine.actions import PASS, Bid, ChooseTrump, Double
from engine.ai import bidder, choose_action, evaluate_actions
from engine.ai.compact import mask_of
from engine.ai.knowledge import Sampler, gather
from engine.ai.pimc import _bidder_weight

C = Contract


def test_make_rate_is_reproducible_and_orders_hands() -> None:
    strong = mask_of(["HA", "HT", "SA", "ST", "CA"])
    weak = mask_of(["HJ", "SJ", "CJ", "DJ", "HQ"])
    rate = bidder.make_rate(STANDARD, C.GANG, None, 0, 0, strong)
    assert rate == bidder.make_rate(STANDARD, C.GANG, "H", 0, 0, strong)  # Gang has no trump
    assert rate > 0.8
    assert bidder.make_rate(STANDARD, C.GANG, None, 0, 0, weak) == 0.0
    assert bidder.make_rate(STANDARD, C.BETTLER, None, 1, 0, weak) > 0.8
    assert bidder.hand_bids(STANDARD, C.GANG, None, 0, 0, weak) == 0.0
    assert bidder.hand_bids(STANDARD, C.GANG, None, 0, 0, strong) > 0.9


def test_chosen_contract_judges_the_hand_alone() -> None:
    strong = mask_of(["HA", "HT", "SA", "ST", "CA"])
    weak = mask_of(["HJ", "SJ", "CJ", "DJ", "HQ"])
    contracts = [C.BETTLER, C.SCHNAPSER, C.GANG, C.ZEHNERLOCH, C.BAUERNSCHNAPSER]
    assert bidder.chosen_contract(STANDARD, contracts, "H", 0, 0, strong) in (C.GANG, C.BAUERNSCHNAPSER)
    assert bidder.chosen_contract(STANDARD, contracts, "H", 0, 0, weak) is C.BETTLER
    middling = mask_of(["HK", "HQ", "SJ", "DQ", "CT"])
    assert bidder.chosen_contract(STANDARD, contracts, "H", 0, 0, middling) is None


def _gang_doubling_state():  # type: ignore[no-untyped-def]
    """N (forehand) holds a sure Gang and bids it; everybody passes; E is asked for Kontra."""
    hands = (
        ("HA", "HT", "SA", "ST", "CA"),
        ("HK", "DJ", "SK", "CQ", "DQ"),
        ("HJ", "SQ", "CJ", "DT", "DK"),
        ("HQ", "SJ", "CT", "CK", "DA"),
    )
    state = new_deal(STANDARD, 3, hands)
    for seat, action in ((0, ChooseTrump("H")), (0, Bid(C.GANG)), (1, PASS), (2, PASS), (3, PASS)):
        state, _ = apply(state, seat, action)
    assert state.phase == "doubling" and state.to_act == 1
    return state


def test_worlds_follow_the_bid() -> None:
    state = _gang_doubling_state()
    view = view_for(state, 1)
    knowledge = gather(view, STANDARD)
    weight = _bidder_weight(STANDARD, knowledge, 0, C.GANG, "H", 0)
    sampler = Sampler(knowledge, random.Random(3), weight=weight)
    kept = 0
    while (hands := sampler.draw_weighted()) is not None:
        assert bidder.hand_bids(STANDARD, C.GANG, None, 0, 0, hands[0]) > 0.0
        kept += 1
    assert kept >= 2


def test_no_kontra_against_a_gang_the_bidder_model_believes() -> None:
    state = _gang_doubling_state()
    view = view_for(state, 1)
    for seed in range(3):
        action = choose_action(view, "pimc", seed, 50)
        assert not isinstance(action, Double)
        _, evaluations = evaluate_actions(view, "pimc", seed, 50)
        assert all(e.worlds > 0 for e in evaluations)
    assert PASS in legal_actions(state)


def test_the_meter_counts_each_hand_once_also_when_remembered() -> None:
    strong = mask_of(["HA", "HT", "SA", "ST", "CA"])
    first, again = bidder.Meter(), bidder.Meter()
    bidder.make_rate(STANDARD, C.GANG, None, 0, 0, strong, first)
    bidder.make_rate(STANDARD, C.GANG, "H", 0, 0, strong, first)  # the same search (Gang has no trump)
    assert first.nodes > 0
    bidder.make_rate(STANDARD, C.GANG, None, 0, 0, strong, again)  # remembered by the process now
    assert again.nodes == first.nodes


def test_weighing_stops_once_the_models_allowance_is_spent() -> None:
    state = _gang_doubling_state()
    view = view_for(state, 1)
    knowledge = gather(view, STANDARD)
    meter = bidder.Meter()
    weight = _bidder_weight(STANDARD, knowledge, 0, C.GANG, "H", 0, meter)
    sampler = Sampler(knowledge, random.Random(3), weight=weight, exhausted=lambda: meter.nodes > 0)
    while sampler.draw_weighted() is not None:
        pass
    assert sampler.weigh_left == 150 - 1  # one hand weighed, then the allowance was spent
