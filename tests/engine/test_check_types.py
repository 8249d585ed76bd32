"""``check`` (and so ``is_legal`` and ``apply``) refuses a seat or an action of the wrong type with a typed
``MalformedInput`` and a stable code, in every phase, also where a look-alike value would compare equal to a
legal action (``Bid(3)`` equals ``Bid(Contract.SCHNAPSER)``, ``1.0`` equals seat 1, ``20.0`` equals 20)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine import (
    AUCTION,
    DOUBLING,
    PLAY,
    STANDARD,
    TRUMP,
    Aufschlagen,
    Bid,
    ChooseTrump,
    Contract,
    DealState,
    Double,
    MalformedInput,
    Pass,
    PlayCard,
    RulesError,
    apply,
    check,
    deal_hands,
    is_legal,
    legal_actions,
    new_deal,
)


def find_position(wanted: Callable[[DealState], bool]) -> DealState:
    """The first position of seeded random play for which ``wanted`` holds."""
    for seed in range(2000):
        rng = random.Random(seed)
        state = new_deal(STANDARD, seed % 4, deal_hands(seed, seed % 4))
        while state.to_act is not None:
            if wanted(state):
                return state
            state, _ = apply(state, state.to_act, rng.choice(legal_actions(state)))
    raise AssertionError("no such position in 2000 random deals")


def marriage_leads(state: DealState) -> list[PlayCard]:
    return [a for a in legal_actions(state) if isinstance(a, PlayCard) and a.marriage is not None]


POSITIONS = {
    TRUMP: find_position(lambda s: s.phase == TRUMP),
    AUCTION: find_position(
        lambda s: s.phase == AUCTION and Bid(Contract.SCHNAPSER) in legal_actions(s) and s.to_act != 0
    ),
    DOUBLING: find_position(lambda s: s.phase == DOUBLING and Double("kontra") in legal_actions(s)),
    PLAY: find_position(lambda s: s.phase == PLAY and bool(marriage_leads(s))),
}


def assert_refused(state: DealState, seat: Any, action: Any, code: str) -> None:
    with pytest.raises(MalformedInput) as caught:
        check(state, seat, action)
    assert caught.value.code == code, caught.value.message
    assert caught.value.message
    assert is_legal(state, seat, action) is False
    with pytest.raises(RulesError):
        apply(state, seat, action)


def any_legal(state: DealState) -> Any:
    return legal_actions(state)[0]


BAD_SEATS: list[Callable[[int], Any]] = [
    float,  # 1.0 == 1
    lambda seat: bool(seat) if seat in (0, 1) else str(seat),  # True == 1, False == 0
    str,
    lambda seat: seat + 4,  # 7 for seat 3, ...
    lambda seat: -1,
    lambda seat: None,
    lambda seat: [seat],
]


@pytest.mark.parametrize("phase", sorted(POSITIONS))
@pytest.mark.parametrize("bad_seat", range(len(BAD_SEATS)))
def test_a_seat_that_is_not_an_int_0_to_3_is_refused(phase: str, bad_seat: int) -> None:
    state = POSITIONS[phase]
    assert state.to_act is not None
    assert_refused(state, BAD_SEATS[bad_seat](state.to_act), any_legal(state), "unknown_seat")


def test_seat_7_is_refused_as_a_seat_not_as_a_turn() -> None:
    assert_refused(POSITIONS[PLAY], 7, any_legal(POSITIONS[PLAY]), "unknown_seat")


NOT_ACTIONS = [None, "N pass", 3, object(), ("play", "HA"), Contract.SCHNAPSER]


@pytest.mark.parametrize("phase", sorted(POSITIONS))
@pytest.mark.parametrize("index", range(len(NOT_ACTIONS)))
def test_a_value_that_is_no_action_is_refused(phase: str, index: int) -> None:
    state = POSITIONS[phase]
    assert_refused(state, state.to_act, NOT_ACTIONS[index], "bad_action")


@pytest.mark.parametrize("phase", sorted(POSITIONS))
@pytest.mark.parametrize("contract", [3, 3.0, "schnapser", "SCHNAPSER", None, True])
def test_a_bid_of_something_other_than_a_contract_is_refused(phase: str, contract: Any) -> None:
    state = POSITIONS[phase]
    assert_refused(state, state.to_act, Bid(contract), "unknown_contract")


def test_bid_3_does_not_pass_for_a_schnapser() -> None:
    state = POSITIONS[AUCTION]
    assert Bid(Contract.SCHNAPSER) in legal_actions(state)
    assert_refused(state, state.to_act, Bid(3), "unknown_contract")  # type: ignore[arg-type]


@pytest.mark.parametrize("phase", sorted(POSITIONS))
@pytest.mark.parametrize("card", ["XZ", "ha", "H", "HAA", "", None, 11, ("H", "A")])
def test_playing_something_other_than_a_card_is_refused(phase: str, card: Any) -> None:
    state = POSITIONS[phase]
    assert_refused(state, state.to_act, PlayCard(card), "unknown_card")


@pytest.mark.parametrize("value", [30, 0, 20.0, 40.0, "20", True, -20])
def test_a_marriage_value_other_than_20_or_40_is_refused(value: Any) -> None:
    state = POSITIONS[PLAY]
    lead = marriage_leads(state)[0]
    assert_refused(state, state.to_act, PlayCard(lead.card, value), "bad_action")


@pytest.mark.parametrize("phase", sorted(POSITIONS))
@pytest.mark.parametrize("suit", ["X", "h", "", None, 0, "HA"])
def test_trump_of_an_unknown_suit_is_refused(phase: str, suit: Any) -> None:
    state = POSITIONS[phase]
    assert_refused(state, state.to_act, ChooseTrump(suit), "bad_action")


@pytest.mark.parametrize("phase", sorted(POSITIONS))
@pytest.mark.parametrize("word", ["nope", "Kontra", "", None, 2])
def test_a_double_of_an_unknown_word_is_refused(phase: str, word: Any) -> None:
    state = POSITIONS[phase]
    assert_refused(state, state.to_act, Double(word), "bad_action")


def test_an_action_missing_its_field_is_refused() -> None:
    state = POSITIONS[PLAY]
    assert_refused(state, state.to_act, object.__new__(PlayCard), "unknown_card")


@pytest.mark.parametrize("phase", sorted(POSITIONS))
def test_well_formed_actions_built_by_the_caller_are_judged_as_before(phase: str) -> None:
    """Copies (not the engine's own instances) of every legal action are legal, and apply the same."""
    state = POSITIONS[phase]
    seat = state.to_act
    assert seat is not None
    for action in legal_actions(state):
        copy = dataclasses.replace(action)
        assert copy is not action
        check(state, seat, copy)
        assert apply(state, seat, copy)[0] == apply(state, seat, action)[0]
    for action in (Pass(), Aufschlagen(), ChooseTrump("H"), Bid(Contract.GANG), Double("re"), PlayCard("HA")):
        if action not in legal_actions(state):
            assert not is_legal(state, seat, action)
            with pytest.raises(RulesError) as caught:
                check(state, seat, action)
            assert not isinstance(caught.value, MalformedInput)
