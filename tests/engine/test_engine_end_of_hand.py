"""RULES.md section 6: the end-of-hand conditions of 6.1 (one test per row) and the marriages of 6.2."""

from __future__ import annotations

import dataclasses

import pytest

from engine import FINISHED, STANDARD, Contract, PlayCard, Trick, apply, is_legal, legal_actions
from engine.events import MarriageAnnounced, MarriageCounted
from engine.state import Marriage
from tests.engine.engine_builder import (
    FARBRINGERL_AUCTION,
    FARBRINGERL_HANDS,
    mid_trick,
    play,
    position,
    seat,
)

C = Contract
NS, EW = 0, 1
OPENING = ["N pass", "E pass", "S pass", "W pass", "E pass", "W pass"]


def late(
    contract: Contract,
    trump: str | None,
    trick: str,
    hand: str,
    *,
    team_cards: tuple[int, int],
    tricks_won_by: str = "",
    declarer: str = "N",
    rules=STANDARD,
    marriages: tuple[Marriage, ...] = (),
):
    """A position later in the hand: ``tricks_won_by`` ("NNE") names the winners of the completed tricks
    (their cards do not matter here), ``team_cards`` their card points per team."""
    state = mid_trick(contract, trump, trick, hand, declarer=declarer, rules=rules)
    done = tuple(Trick(seat(w), (), seat(w), 0) for w in tricks_won_by)
    team_tricks = (sum(seat(w) % 2 == 0 for w in tricks_won_by), sum(seat(w) % 2 == 1 for w in tricks_won_by))
    return state._replace(tricks=done, team_cards=team_cards, team_tricks=team_tricks, marriages=marriages)


def finish(state, card: str):
    new, events = apply(state, state.to_act, PlayCard(card))
    return new, events


# --- normal game -----------------------------------------------------------------------------------------

NORMAL_HANDS = {
    "N": "HA HT HK / DA CA",
    "E": "HJ DJ CJ / SJ DQ",
    "S": "HQ DT CT / ST SA",
    "W": "DK CK SK / CQ SQ",
}


def test_normal_game_ends_when_a_team_reaches_66_and_scores_3_if_the_losers_took_no_trick() -> None:
    state = position(NORMAL_HANDS, actions=["N trump H", *OPENING])
    state = play(state, "N play HA", "E play HJ", "S play HQ", "W play CQ")  # NS 19
    state = play(state, "N play HT", "E play DQ", "S play ST", "W play SQ")  # NS 45
    assert state.phase != FINISHED
    state = play(state, "N play DA", "E play DJ", "S play DT", "W play DK")  # NS 72
    assert state.phase == FINISHED
    assert (state.result.winner, state.result.base, state.result.game_points) == (NS, 3, 3)
    assert "72" in state.result.reason


def test_normal_game_scores_2_when_the_losers_have_under_33() -> None:
    state = late(C.NORMAL, "H", "N:DA E:DJ S:DT", "DK SQ", team_cards=(50, 20), tricks_won_by="NNE")
    state, _ = finish(state, "DK")
    assert (state.result.winner, state.result.base) == (NS, 2)


def test_normal_game_scores_1_when_the_losers_have_33_or_more() -> None:
    state = late(C.NORMAL, "H", "N:DA E:DJ S:DT", "DK SQ", team_cards=(40, 33), tricks_won_by="NNE")
    state, _ = finish(state, "DK")
    assert (state.result.winner, state.result.base) == (NS, 1)


def test_normal_game_without_66_the_last_trick_wins_1() -> None:
    state = late(C.NORMAL, "H", "N:DJ E:DQ S:CJ", "DK", team_cards=(55, 54), tricks_won_by="NSEN")
    state, _ = finish(state, "DK")
    assert state.team_cards == (55, 65)
    assert (state.result.winner, state.result.base, state.result.game_points) == (EW, 1, 1)
    assert "last trick" in state.result.reason


def test_normal_game_marriage_reaching_66_ends_the_hand_and_the_card_is_not_played() -> None:
    state = late(C.NORMAL, "H", "", "SK SQ DA", team_cards=(50, 30), tricks_won_by="NE")
    state, events = apply(state, seat("N"), PlayCard("SK", 20))
    assert state.phase == FINISHED
    assert (state.result.winner, state.result.base) == (NS, 2)
    assert "SK" in state.hands[seat("N")] and state.trick == ()
    assert MarriageAnnounced(seat("N"), "S", 20, True) in events
    assert state.final_lead == Marriage(seat("N"), "S", 20, 3, "SK"), "the lead that ended it, card and all"


def test_normal_game_marriage_below_66_adds_and_play_continues_with_the_card() -> None:
    state = late(C.NORMAL, "H", "", "SK SQ DA", team_cards=(30, 30), tricks_won_by="NE")
    state, _ = apply(state, seat("N"), PlayCard("SK", 20))
    assert state.phase != FINISHED
    assert state.total(NS) == 50
    assert state.trick == ((seat("N"), "SK"),)
    assert state.final_lead is None, "the deal goes on"


def test_normal_game_marriage_is_pending_until_the_team_wins_a_trick() -> None:
    hands = {
        "N": "HA HT HK / DA HQ",
        "E": "HJ DJ CJ / SJ DQ",
        "S": "CA DT CT / ST SA",
        "W": "DK CK SK / CQ SQ",
    }
    state = position(hands, actions=["N trump H", *OPENING])
    state, events = apply(state, seat("N"), PlayCard("HK", 40))
    assert MarriageAnnounced(seat("N"), "H", 40, False) in events
    assert state.total(NS) == 0  # pending: NS have no trick yet
    state = play(state, "E play HJ", "S play CA")
    state, events = apply(state, seat("W"), PlayCard("SQ"))
    assert MarriageCounted(seat("N"), "H", 40) in events
    assert state.total(NS) == 40 + 4 + 2 + 11 + 3


def test_normal_game_pending_marriage_of_a_team_without_tricks_never_counts() -> None:
    marriages = (Marriage(seat("N"), "S", 20, 1, "SK"),)
    state = late(
        C.NORMAL, "H", "N:DJ E:DA S:DQ", "DK", team_cards=(0, 50), tricks_won_by="EWE", marriages=marriages
    )
    state, _ = finish(state, "DK")
    assert state.total(NS) == 0
    assert (state.result.winner, state.result.base) == (EW, 3)


# --- Bettler, Ass-Bettler ----------------------------------------------------------------------------------


@pytest.mark.parametrize("contract", [C.BETTLER, C.ASS_BETTLER])
def test_beggar_lost_at_once_when_the_declarer_wins_a_trick(contract: Contract) -> None:
    state = late(contract, "H", "S:DJ N:DQ", "DA CJ SJ", team_cards=(0, 0), declarer="E")
    state, _ = finish(state, "DA")  # forced: E must beat
    assert state.phase == FINISHED
    value = STANDARD.contract_value(contract)
    assert (state.result.winner, state.result.game_points, state.result.made) == (NS, value, False)


@pytest.mark.parametrize("contract", [C.BETTLER, C.ASS_BETTLER])
def test_beggar_made_when_the_declarer_took_no_trick_in_five(contract: Contract) -> None:
    state = late(contract, "H", "E:DJ S:DQ", "DA", team_cards=(80, 0), tricks_won_by="NSNS", declarer="E")
    state, _ = finish(state, "DA")
    assert (state.result.winner, state.result.made) == (EW, True)


# --- Schnapser, Kontraschnapser ------------------------------------------------------------------------------

SCHNAPSER_BIG = {
    "N": "HA HT HK / HQ HJ",
    "E": "SA ST SK / SQ SJ",
    "S": "CA CT CK / CQ CJ",
    "W": "DA DT DK / DQ DJ",
}
SCHNAPSER_PARTNER = {
    "N": "HA DA CA / SA HJ",
    "E": "DT CT ST / DK CK",
    "S": "HT HK HQ / DQ CQ",
    "W": "DJ CJ SJ / SK SQ",
}
SCHNAPSER_SHORT = {
    "N": "HA DA CA / SA HJ",
    "E": "DJ CJ SJ / HT DT",
    "S": "DQ CQ SQ / HK CT",
    "W": "DK CK SK / HQ ST",
}
CLAIM_28 = {
    "N": "HK HQ DA / CA HA",
    "E": "DT CJ SJ / SQ ST",
    "S": "DK CQ SK / HJ CT",
    "W": "DQ CK DJ / HT SA",
}
CLAIM_20 = {
    "N": "HK HQ DA / DT HA",
    "E": "DK CJ SJ / SQ ST",
    "S": "DQ CQ SK / HJ CT",
    "W": "DJ CK CA / HT SA",
}
SCHNAPSER_BID = ["N trump H", "N bid schnapser", "E pass", "S pass", "W pass", "E pass", "W pass"]


def test_schnapser_made_as_soon_as_the_declarer_has_66_even_after_trick_2() -> None:
    state = position(SCHNAPSER_BIG, actions=SCHNAPSER_BID)
    state = play(state, "N play HA", "E play SA", "S play CA", "W play DA")
    state = play(state, "N play HT", "E play ST", "S play CT", "W play DT")
    assert state.phase == FINISHED and len(state.tricks) == 2
    assert (state.result.winner, state.result.game_points, state.result.made) == (NS, 6, True)


def test_schnapser_lost_when_the_declarers_partner_wins_a_trick() -> None:
    state = position(SCHNAPSER_PARTNER, actions=SCHNAPSER_BID)
    state = play(state, "N play HJ", "E play DT")
    assert {a.card for a in legal_actions(state)} == {"HT", "HK", "HQ"}  # S must beat
    state = play(state, "S play HQ", "W play SK")
    assert state.phase == FINISHED
    assert (state.result.winner, state.result.game_points, state.result.made) == (EW, 6, False)


def test_schnapser_lost_after_three_tricks_below_66() -> None:
    state = position(SCHNAPSER_SHORT, actions=SCHNAPSER_BID)
    state = play(state, "N play DA", "E play DJ", "S play DQ", "W play DK")
    state = play(state, "N play CA", "E play CJ", "S play CQ", "W play CK")
    state = play(state, "N play SA", "E play SJ", "S play SQ", "W play SK")
    assert state.team_cards == (60, 0)
    assert (state.result.winner, state.result.made) == (EW, False)


def test_schnapser_no_marriage_at_trick_1() -> None:
    state = position(CLAIM_28, actions=SCHNAPSER_BID)
    assert not is_legal(state, seat("N"), PlayCard("HK", 40))


def test_schnapser_40_claim_at_trick_2_wins_with_26_or_more_from_trick_1() -> None:
    state = position(CLAIM_28, actions=SCHNAPSER_BID)
    state = play(state, "N play DA", "E play DT", "S play DK", "W play DQ")  # 28
    state = play(state, "N play HK 40")
    assert state.phase == FINISHED and len(state.tricks) == 1
    assert (state.result.winner, state.result.made) == (NS, True)


def test_schnapser_40_claim_at_trick_2_loses_below_26_from_trick_1() -> None:
    state = position(CLAIM_20, actions=SCHNAPSER_BID)
    state = play(state, "N play DA", "E play DK", "S play DQ", "W play DJ")  # 20
    state = play(state, "N play HQ 40")
    assert state.phase == FINISHED
    assert (state.result.winner, state.result.made) == (EW, False)
    assert state.final_lead == Marriage(seat("N"), "H", 40, 2, "HQ"), "a failed claim ends on its lead too"


def test_schnapser_no_40_at_trick_3() -> None:
    state = position(CLAIM_28, actions=SCHNAPSER_BID)
    state = play(state, "N play DA", "E play DT", "S play DK", "W play DQ")
    state = play(state, "N play CA", "E play CJ", "S play CQ", "W play CK")
    assert state.trick_no == 3 and state.to_act == seat("N")
    assert not is_legal(state, seat("N"), PlayCard("HK", 40))


def test_schnapser_20_claim_at_trick_2_always_loses() -> None:
    # The most trick 1 can hold is 42 card points: 42 + 20 < 66.
    marriages_hand = "SK SQ DA HA"
    state = late(C.SCHNAPSER, "H", "", marriages_hand, team_cards=(42, 0), tricks_won_by="N")
    state, _ = apply(state, seat("N"), PlayCard("SQ", 20))
    assert (state.result.winner, state.result.made) == (EW, False)


def test_schnapser_only_the_declarer_may_announce() -> None:
    # A Kontraschnapser by E: after trick 1 only E may lead, and only E may announce.
    state = late(
        C.KONTRASCHNAPSER, "H", "", "SK SQ DA HA", team_cards=(0, 30), tricks_won_by="E", declarer="E"
    )
    assert is_legal(state, seat("E"), PlayCard("SK", 20))
    other = state._replace(to_act=seat("W"), hands=((), (), (), ("SK", "SQ", "DA", "HA")))
    assert not is_legal(other, seat("W"), PlayCard("SK", 20))


def test_schnapser_additive_variant_adds_the_value_and_allows_40_at_trick_3() -> None:
    rules = dataclasses.replace(STANDARD, schnapser_marriages="additive")
    state = position(CLAIM_20, actions=SCHNAPSER_BID, rules=rules)
    state = play(state, "N play DA", "E play DK", "S play DQ", "W play DJ")  # 20
    state = play(state, "N play HQ 40")  # 60: short, but the hand goes on
    assert state.phase != FINISHED and state.total(NS) == 60
    state = late(C.SCHNAPSER, "H", "", "HK HQ DA", team_cards=(30, 0), tricks_won_by="NN", rules=rules)
    assert is_legal(state, seat("N"), PlayCard("HK", 40))
    state, _ = apply(state, seat("N"), PlayCard("HK", 40))
    assert (state.result.winner, state.result.made) == (NS, True)


def test_schnapser_none_variant_has_no_marriages() -> None:
    rules = dataclasses.replace(STANDARD, schnapser_marriages="none")
    state = late(C.SCHNAPSER, "H", "", "HK HQ DA", team_cards=(30, 0), tricks_won_by="N", rules=rules)
    assert not is_legal(state, seat("N"), PlayCard("HK", 40))


# --- Gang, Zehnerloch, Bauernschnapser, Kontrabauernschnapser ---------------------------------------------------

ALL_TRICKS = [C.GANG, C.ZEHNERLOCH, C.BAUERNSCHNAPSER, C.KONTRABAUERNSCHNAPSER]


@pytest.mark.parametrize("contract", ALL_TRICKS)
def test_all_tricks_contract_lost_at_once_when_the_partner_wins_a_trick(contract: Contract) -> None:
    declarer = "E" if contract is C.KONTRABAUERNSCHNAPSER else "N"
    partner_plays = "S" if declarer == "N" else "W"
    lead = "W:DJ N:DK E:DQ" if declarer == "N" else "N:DJ E:DK S:DQ"
    state = late(contract, "H", lead, "DT CJ", team_cards=(0, 0), declarer=declarer)
    assert state.to_act == seat(partner_plays)
    state, _ = finish(state, "DT")  # forced: the partner must beat his own declarer
    value = STANDARD.contract_value(contract)
    assert state.phase == FINISHED
    assert (state.result.game_points, state.result.made) == (value, False)
    assert state.result.winner != seat(declarer) % 2


@pytest.mark.parametrize("contract", ALL_TRICKS)
def test_all_tricks_contract_made_with_all_five_tricks(contract: Contract) -> None:
    state = late(contract, "H", "N:DT E:DJ S:DQ", "DK", team_cards=(100, 0), tricks_won_by="NNNN")
    state, _ = finish(state, "DK")
    assert (state.result.winner, state.result.made) == (NS, True)
    assert state.result.game_points == STANDARD.contract_value(contract)


# --- immediate contracts and the multiplier -------------------------------------------------------------------


def test_farbringerl_is_won_at_the_end_of_the_auction_without_play() -> None:
    state = position(FARBRINGERL_HANDS, actions=FARBRINGERL_AUCTION)
    assert state.phase == FINISHED and state.tricks == ()
    assert (state.result.winner, state.result.game_points, state.result.multiplier) == (EW, 18, 1)


def test_trumpffarbringerl_is_won_at_once_by_the_forehand() -> None:
    hands = {
        "N": "HA HT HK / HQ HJ",
        "E": "DA DT DK / DQ DJ",
        "S": "SK SQ CT / CK CQ",
        "W": "CA SA ST / SJ CJ",
    }
    state = position(
        hands,
        actions=["N trump H", "N bid trumpffarbringerl", "E pass", "S pass", "W pass"],
    )
    assert (state.result.winner, state.result.game_points) == (NS, 24)


def test_every_result_is_multiplied_by_the_doubling() -> None:
    state = late(C.GANG, "H", "N:DT E:DJ S:DQ", "DK", team_cards=(100, 0), tricks_won_by="NNNN")
    state, _ = finish(state._replace(multiplier=4), "DK")
    assert (state.result.base, state.result.multiplier, state.result.game_points) == (9, 4, 36)
