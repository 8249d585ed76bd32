"""Dealing, trump, the auction, Kontra/Re/Subkontra, the trick-1 leader (RULES.md D2-D7, D12-D14) and the
Bummerl (D11)."""

from __future__ import annotations

import dataclasses

import pytest

from engine import (
    AUCTION,
    DOUBLING,
    FINISHED,
    PLAY,
    STANDARD,
    STARGAMES,
    Bid,
    ChooseTrump,
    Contract,
    DealResult,
    IllegalAction,
    NotYourTurn,
    Pass,
    PlayCard,
    WrongPhase,
    apply,
    check,
    deal_hands,
    displayed_score,
    is_legal,
    new_match,
    score_deal,
    view_for,
)
from engine.deal import shuffled_deck
from tests.engine.engine_builder import FARBRINGERL_AUCTION, FARBRINGERL_HANDS, legal_strings, position, seat

C = Contract
# RULES.md S01: aces with N (HA), E (DA CA), S (SA); W has none.
S01 = {"N": "HA HK CQ / DT SJ", "E": "HT DA DK / CA SQ", "S": "HQ HJ SA / ST CK", "W": "DQ DJ CT / CJ SK"}


def code_of(state, who: str, action) -> str:
    with pytest.raises(IllegalAction) as caught:
        check(state, seat(who), action)
    return caught.value.code


# --- the deal and trump ----------------------------------------------------------------------------------


def test_the_same_seed_and_dealer_give_the_same_cards() -> None:
    assert deal_hands(7, 2) == deal_hands(7, 2)
    assert deal_hands(7, 2) != deal_hands(8, 2)


def test_cards_are_dealt_three_then_two_clockwise_from_the_forehand() -> None:
    deck, dealer = shuffled_deck(11), 1
    hands = deal_hands(11, dealer)
    forehand = dealer + 1
    for i in range(4):
        hand = hands[(forehand + i) % 4]
        assert hand == (*deck[3 * i : 3 * i + 3], *deck[12 + 2 * i : 14 + 2 * i])


def test_trump_is_a_suit_of_the_forehands_first_packet() -> None:
    state = position(S01)
    assert legal_strings(state) == {"N trump H", "N trump C", "N aufschlagen"}
    assert code_of(state, "N", ChooseTrump("D")) == "suit_not_held"


def test_only_the_forehand_chooses_trump() -> None:
    state = position(S01)
    with pytest.raises(NotYourTurn):
        check(state, seat("E"), ChooseTrump("H"))


def test_aufschlagen_turns_the_forehands_fourth_card() -> None:
    state = position(S01, actions=["N aufschlagen"])
    assert (state.trump, state.aufschlag_card) == ("D", "DT")
    assert "DT" in state.hands[seat("N")]
    assert view_for(state, seat("E")).known_cards[seat("N")] == ("DT",)


def test_actions_of_another_phase_are_rejected() -> None:
    state = position(S01)
    with pytest.raises(WrongPhase):
        check(state, seat("N"), Pass())
    with pytest.raises(WrongPhase):
        check(state, seat("N"), PlayCard("HA"))


# --- the auction ------------------------------------------------------------------------------------------


def test_four_passes_give_a_normal_game_with_the_forehand_as_declarer() -> None:
    state = position(S01, actions=["N trump H", "N pass", "E pass", "S pass", "W pass"])
    assert (state.phase, state.contract, state.declarer) == (DOUBLING, C.NORMAL, seat("N"))


def test_forehand_speaks_first_and_is_offered_only_eligible_contracts() -> None:
    state = position(S01, actions=["N trump H"])
    assert state.phase == AUCTION and state.to_act == seat("N")
    offered = {text.split()[-1] for text in legal_strings(state)}
    assert offered == {"pass", "bettler", "ass_bettler", "schnapser", "gang", "zehnerloch", "bauernschnapser"}


def test_opponents_of_the_forehand_may_bid_the_kontra_contracts_but_not_schnapser() -> None:
    state = position(S01, actions=["N trump H", "N pass"])
    offered = {text.split()[-1] for text in legal_strings(state)}
    assert offered == {
        "pass",
        "bettler",
        "ass_bettler",
        "gang",
        "zehnerloch",
        "kontraschnapser",
        "kontrabauernschnapser",
    }
    assert code_of(state, "E", Bid(C.SCHNAPSER)) == "not_eligible"


def test_ass_bettler_needs_an_ace() -> None:
    state = position(S01, actions=["N trump H", "N pass", "E pass", "S pass"])
    assert code_of(state, "W", Bid(C.ASS_BETTLER)) == "not_eligible"


def test_farbringerl_needs_all_five_cards_of_a_non_trump_suit() -> None:
    hands = {
        "N": "HA HT SK / CA SJ",
        "E": "DA DT DK / DQ DJ",
        "S": "HK HQ CT / CK CQ",
        "W": "HJ SA ST / SQ CJ",
    }
    state = position(hands, actions=["N trump H", "N pass"])
    assert "E bid farbringerl" in legal_strings(state)
    state = position(hands, actions=["N aufschlagen"])  # trump is clubs: still fine for E
    assert state.trump == "C"
    state = position(S01, actions=["N trump H", "N pass"])
    assert code_of(state, "E", Bid(C.FARBRINGERL)) == "not_eligible"


def test_trumpffarbringerl_needs_the_forehand_with_all_five_trumps() -> None:
    hands = {
        "N": "HA HT HK / HQ HJ",
        "E": "DA DT DK / DQ DJ",
        "S": "SK SQ CT / CK CQ",
        "W": "CA SA ST / SJ CJ",
    }
    assert "N bid trumpffarbringerl" in legal_strings(position(hands, actions=["N trump H"]))
    # E's five diamonds are five trumps only if diamonds were trump, which N cannot name here.
    assert "E bid trumpffarbringerl" not in legal_strings(position(hands, actions=["N trump H", "N pass"]))


def test_a_bid_must_rank_strictly_higher_even_at_equal_value() -> None:
    state = position(S01, actions=["N trump H", "N bid bauernschnapser"])
    assert is_legal(state, seat("E"), Bid(C.KONTRASCHNAPSER))  # 12 over 12: higher rank
    state = position(S01, actions=["N trump H", "N pass", "E bid kontraschnapser"])
    assert code_of(state, "S", Bid(C.BAUERNSCHNAPSER)) == "bid_too_low"
    assert code_of(state, "S", Bid(C.NORMAL)) == "not_biddable"


def test_auction_ends_after_three_passes_following_the_last_bid() -> None:
    state = position(S01, actions=["N trump H", "N pass", "E bid gang", "S pass", "W pass"])
    assert state.phase == AUCTION and state.to_act == seat("N")  # N's second turn
    state = position(S01, actions=["N trump H", "N pass", "E bid gang", "S pass", "W pass", "N pass"])
    assert (state.phase, state.contract, state.declarer) == (DOUBLING, C.GANG, seat("E"))


def test_each_player_speaks_at_most_twice() -> None:
    bids = ["N bid bettler", "E bid ass_bettler", "S bid gang", "W bid zehnerloch"]
    state = position(S01, actions=["N trump H", *bids, "N bid bauernschnapser", "E bid kontraschnapser"])
    assert state.phase == AUCTION
    state = position(S01, actions=["N trump H", *bids, "N pass", "E pass", "S pass"])
    assert (state.contract, state.declarer) == (C.ZEHNERLOCH, seat("W"))
    state = position(
        S01,
        actions=["N trump H", *bids, "N bid bauernschnapser", "E bid kontraschnapser", "S pass", "W pass"],
    )
    assert (state.phase, state.contract, state.declarer) == (DOUBLING, C.KONTRASCHNAPSER, seat("E"))


def test_single_round_variant_each_player_speaks_once() -> None:
    rules = dataclasses.replace(STANDARD, bidding_turns=1)
    state = position(S01, rules=rules, actions=["N trump H", "N pass", "E bid gang", "S pass", "W pass"])
    assert (state.phase, state.contract) == (DOUBLING, C.GANG)


def test_stargames_preset_bettler_is_5_and_there_is_no_ass_bettler() -> None:
    state = position(S01, rules=STARGAMES, actions=["N trump H"])
    assert "N bid ass_bettler" not in legal_strings(state)
    assert STARGAMES.contract_value(C.BETTLER) == 5


# --- doubling ------------------------------------------------------------------------------------------


def test_kontra_asks_the_declarers_left_neighbour_first_then_the_other_defender() -> None:
    state = position(S01, actions=["N trump H", "N pass", "E bid gang", "S pass", "W pass", "N pass"])
    assert state.to_act == seat("S") and legal_strings(state) == {"S pass", "S kontra"}
    state = position(
        S01, actions=["N trump H", "N pass", "E bid gang", "S pass", "W pass", "N pass", "S pass"]
    )
    assert state.to_act == seat("N")
    state = position(
        S01, actions=["N trump H", "N pass", "E bid gang", "S pass", "W pass", "N pass", "S pass", "N pass"]
    )
    assert (state.phase, state.multiplier, state.to_act) == (PLAY, 1, seat("E"))


def test_re_is_asked_of_the_declarer_then_his_partner() -> None:
    base = ["N trump H", "N pass", "E bid gang", "S pass", "W pass", "N pass", "S kontra"]
    state = position(S01, actions=base)
    assert (state.multiplier, state.to_act) == (2, seat("E"))
    assert legal_strings(state) == {"E pass", "E re"}
    state = position(S01, actions=[*base, "E pass"])
    assert state.to_act == seat("W")
    state = position(S01, actions=[*base, "E pass", "W re"])
    assert (state.phase, state.multiplier) == (PLAY, 4)  # nothing beyond x4 in the standard rules


def test_no_re_on_bauernschnapser_or_kontraschnapser() -> None:
    state = position(
        S01, actions=["N trump H", "N bid bauernschnapser", "E pass", "S pass", "W pass", "E kontra"]
    )
    assert (state.phase, state.multiplier) == (PLAY, 2)


def test_no_doubling_on_kontrabauernschnapser() -> None:
    state = position(
        S01, actions=["N trump H", "N pass", "E bid kontrabauernschnapser", "S pass", "W pass", "N pass"]
    )
    assert (state.phase, state.multiplier, state.doubling) == (PLAY, 1, ())


def test_subkontra_by_the_defenders_when_the_ceiling_is_8() -> None:
    actions = ["N trump H", "N pass", "E pass", "S pass", "W pass", "E kontra", "N re"]
    state = position(S01, rules=STARGAMES, actions=actions)
    assert state.to_act == seat("E") and legal_strings(state) == {"E pass", "E subkontra"}
    state = position(S01, rules=STARGAMES, actions=[*actions, "E pass", "W subkontra"])
    assert (state.phase, state.multiplier) == (PLAY, 8)


def test_sitting_out_partner_is_asked_for_re_unless_the_variant_forbids_it() -> None:
    actions = ["N trump H", "N pass", "E bid bettler", "S pass", "W pass", "N pass", "S kontra", "E pass"]
    assert position(S01, actions=actions).to_act == seat("W")
    rules = dataclasses.replace(STANDARD, sitting_out_partner_may_double=False)
    assert position(S01, rules=rules, actions=actions).phase == PLAY


# --- who leads trick 1 -------------------------------------------------------------------------------------

AFTER_BID = {
    C.BETTLER: (["N pass", "E bid bettler", "S pass", "W pass", "N pass"], "E"),
    C.SCHNAPSER: (["N pass", "E pass", "S bid schnapser", "W pass", "N pass", "E pass"], "N"),
    C.GANG: (["N pass", "E pass", "S bid gang", "W pass", "N pass", "E pass"], "S"),
    C.ZEHNERLOCH: (["N pass", "E pass", "S pass", "W bid zehnerloch", "N pass", "E pass", "S pass"], "W"),
    C.BAUERNSCHNAPSER: (["N pass", "E pass", "S bid bauernschnapser", "W pass", "N pass", "E pass"], "N"),
    C.KONTRASCHNAPSER: (["N pass", "E bid kontraschnapser", "S pass", "W pass", "N pass"], "N"),
    C.KONTRABAUERNSCHNAPSER: (["N pass", "E bid kontrabauernschnapser", "S pass", "W pass", "N pass"], "N"),
}


@pytest.mark.parametrize("contract", list(AFTER_BID))
def test_trick_1_leader_per_contract(contract: Contract) -> None:
    auction, leader = AFTER_BID[contract]
    state = position(S01, actions=["N trump H", *auction])
    while state.phase == DOUBLING:
        state, _ = apply(state, state.to_act, Pass())
    assert (state.phase, state.contract, state.to_act) == (PLAY, contract, seat(leader))
    assert state.sitting_out == ((state.declarer + 2) % 4 if contract is C.BETTLER else None)


def test_schnapser_leader_variant_lets_the_declarer_lead() -> None:
    rules = dataclasses.replace(STANDARD, schnapser_leader="declarer")
    auction, _ = AFTER_BID[C.SCHNAPSER]
    state = position(S01, rules=rules, actions=["N trump H", *auction, "W pass", "E pass"])
    assert state.to_act == seat("S")


def test_partner_sits_out_variant_covers_gang() -> None:
    rules = dataclasses.replace(STANDARD, partner_sits_out=frozenset({C.BETTLER, C.ASS_BETTLER, C.GANG}))
    auction, _ = AFTER_BID[C.GANG]
    state = position(S01, rules=rules, actions=["N trump H", *auction, "W pass", "E pass"])
    assert state.sitting_out == seat("N")


def test_finished_deal_rejects_every_action() -> None:
    state = position(FARBRINGERL_HANDS, actions=FARBRINGERL_AUCTION)
    assert state.phase == FINISHED
    with pytest.raises(WrongPhase):
        check(state, seat("N"), PlayCard("HA"))


# --- the Bummerl -------------------------------------------------------------------------------------------


def won(team: int, points: int) -> DealResult:
    return DealResult(team, points, 1, points, "test", True)


def test_bummerl_won_at_the_target_and_the_surplus_is_lost() -> None:
    match = new_match(STANDARD, 3)
    match, event = score_deal(match, won(0, 20))
    assert event is None
    match, event = score_deal(match, won(1, 5))
    match, event = score_deal(match, won(0, 12))
    assert (event.winner, event.kind, event.count, event.score) == (0, "bummerl", 1, (32, 5))
    assert match.score == (0, 0)  # a new Bummerl starts at 0:0


def test_schneider_when_the_loser_has_nothing() -> None:
    _, event = score_deal(new_match(STANDARD, 3), won(1, 24))
    assert (event.winner, event.kind, event.count) == (1, "schneider", 2)


def test_retourschneider_when_the_loser_had_led_23_to_0() -> None:
    match = new_match(STANDARD, 3)
    for points in (12, 10, 1):
        match, _ = score_deal(match, won(1, points))
    assert match.score == (0, 23)
    match, event = score_deal(match, won(0, 24))
    assert (event.winner, event.kind, event.count) == (0, "retourschneider", 4)


def test_retourschneider_can_be_switched_off() -> None:
    rules = dataclasses.replace(STANDARD, retourschneider_bummerl=0)
    match = new_match(rules, 3)
    match, _ = score_deal(match, won(1, 23))
    match, event = score_deal(match, won(0, 24))
    assert (event.kind, event.count) == ("bummerl", 1)


def test_dealer_passes_clockwise_after_every_deal_and_across_bummerls() -> None:
    match = new_match(STANDARD, 3)
    dealers = []
    for points in (24, 1, 2):
        dealers.append(match.next_dealer)
        match, _ = score_deal(match, won(0, points))
    assert dealers == [3, 0, 1] and match.next_dealer == 2


def test_count_down_display_is_the_missing_points() -> None:
    rules = dataclasses.replace(STANDARD, score_display="count_down")
    assert displayed_score(rules, (3, 30)) == (21, 0)
    assert displayed_score(STANDARD, (3, 20)) == (3, 20)
