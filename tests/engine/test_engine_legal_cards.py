"""RULES.md section 5: Farbzwang, Stichzwang, Trumpfzwang, one named test per rule and per edge case of 5.3."""

from __future__ import annotations

import dataclasses

import pytest

from engine import STANDARD, Contract, IllegalAction, PlayCard, apply, check, is_legal
from tests.engine.engine_builder import legal_cards, mid_trick, play, position, seat

C = Contract
NORMAL, BETTLER, GANG, ZEHNERLOCH = C.NORMAL, C.BETTLER, C.GANG, C.ZEHNERLOCH


def rejected_code(state, card: str) -> str:
    with pytest.raises(IllegalAction) as caught:
        check(state, state.to_act, PlayCard(card))
    return caught.value.code


def test_leader_may_lead_any_card() -> None:
    state = mid_trick(NORMAL, "H", "", "HA DJ CQ SK ST")
    assert legal_cards(state) == {"HA", "DJ", "CQ", "SK", "ST"}


def test_must_follow_suit_when_able() -> None:
    state = mid_trick(NORMAL, "H", "N:DK", "DJ HA CA SA")
    assert legal_cards(state) == {"DJ"}
    assert rejected_code(state, "CA") == "must_follow_suit"
    assert rejected_code(state, "HA") == "must_follow_suit"


def test_must_beat_with_the_led_suit_when_able() -> None:
    state = mid_trick(NORMAL, "H", "N:DK", "DA DJ CA")
    assert legal_cards(state) == {"DA"}
    assert rejected_code(state, "DJ") == "must_beat"


def test_may_play_any_card_of_the_suit_when_unable_to_beat() -> None:
    state = mid_trick(NORMAL, "H", "N:DA", "DK DJ CA")
    assert legal_cards(state) == {"DK", "DJ"}


def test_trump_led_must_beat_the_winning_trump() -> None:
    state = mid_trick(NORMAL, "H", "N:HK", "HA HQ DA")
    assert legal_cards(state) == {"HA"}


def test_trump_led_any_trump_when_unable_to_beat() -> None:
    state = mid_trick(NORMAL, "H", "N:HA", "HK HJ DA")
    assert legal_cards(state) == {"HK", "HJ"}


def test_trump_led_discard_only_without_trumps() -> None:
    state = mid_trick(NORMAL, "H", "N:HA", "DA CK SJ")
    assert legal_cards(state) == {"DA", "CK", "SJ"}


def test_following_a_trumped_trick_any_card_of_the_led_suit() -> None:
    # S01 trick 3: W may play DQ or DJ; he may neither trump nor discard.
    state = mid_trick(NORMAL, "H", "E:DA S:HQ", "DQ DJ CT CJ HT")
    assert legal_cards(state) == {"DQ", "DJ"}
    assert rejected_code(state, "HT") == "must_follow_suit"
    assert rejected_code(state, "CT") == "must_follow_suit"


def test_beat_the_current_winner_not_the_led_card() -> None:
    state = mid_trick(NORMAL, "H", "N:DJ E:DK", "DQ DA CA")
    assert legal_cards(state) == {"DA"}
    assert rejected_code(state, "DQ") == "must_beat"


def test_when_the_winner_cannot_be_beaten_any_card_of_the_suit() -> None:
    state = mid_trick(NORMAL, "H", "N:DJ E:DA", "DK DQ CA")
    assert legal_cards(state) == {"DK", "DQ"}


def test_stichzwang_applies_against_the_own_partner() -> None:
    # N's partner S is winning with DT; N holding DA must still beat it.
    state = mid_trick(NORMAL, "H", "E:DJ S:DT W:DQ", "DA DK CA")
    assert legal_cards(state) == {"DA"}


def test_trumpfzwang_void_player_must_trump() -> None:
    state = mid_trick(NORMAL, "H", "N:DK", "HJ CA SA")
    assert legal_cards(state) == {"HJ"}
    assert rejected_code(state, "CA") == "must_trump"


def test_must_trump_even_when_partner_is_winning() -> None:
    # S04 trick 3: N must trump his partner's winning ace.
    state = mid_trick(NORMAL, "H", "E:DJ S:DA W:DQ", "HJ CA SA")
    assert legal_cards(state) == {"HJ"}


def test_must_overtrump_when_able() -> None:
    state = mid_trick(NORMAL, "D", "N:HK E:DK", "DA DJ CA")
    assert legal_cards(state) == {"DA"}
    assert rejected_code(state, "DJ") == "must_overtrump"
    assert rejected_code(state, "CA") == "must_trump"


def test_must_undertrump_when_unable_to_overtrump() -> None:
    state = mid_trick(NORMAL, "D", "N:HK E:DA", "DK DJ CA")
    assert legal_cards(state) == {"DK", "DJ"}
    assert rejected_code(state, "CA") == "must_trump"


def test_variant_undertrump_not_required_frees_the_discard() -> None:
    rules = dataclasses.replace(STANDARD, undertrump_required=False)
    state = mid_trick(NORMAL, "D", "N:HK E:DA", "DK DJ CA", rules=rules)
    assert legal_cards(state) == {"DK", "DJ", "CA"}
    # A trump that wins is still compulsory.
    state = mid_trick(NORMAL, "D", "N:HK E:DQ", "DK DJ CA", rules=rules)
    assert legal_cards(state) == {"DK"}


def test_variant_no_stichzwang_follow_suit_without_beating() -> None:
    rules = dataclasses.replace(STANDARD, stichzwang_contracts=frozenset({C.GANG}))
    state = mid_trick(NORMAL, "H", "N:DK", "DA DJ CA", rules=rules)
    assert legal_cards(state) == {"DA", "DJ"}


def test_variant_no_stichzwang_still_trump_when_void_but_no_overtrump() -> None:
    rules = dataclasses.replace(STANDARD, stichzwang_contracts=frozenset({C.GANG}))
    state = mid_trick(NORMAL, "D", "N:HK E:DK", "DA DJ CA", rules=rules)
    assert legal_cards(state) == {"DA", "DJ"}
    # The listed contract keeps Stichzwang.
    state = mid_trick(GANG, "D", "N:HK", "HA HJ CA", rules=rules)
    assert legal_cards(state) == {"HA"}


def test_three_player_trick_skips_the_sitting_out_partner() -> None:
    # S07: E declares a Bettler; W sits out, so the trick goes E, S, N and ends after three cards.
    state = mid_trick(BETTLER, "H", "E:HJ", "HT CK ST DK SQ", declarer="E")
    assert state.to_act == seat("S") and state.sitting_out == seat("W")
    after_s, _ = apply(state, seat("S"), PlayCard("HT"))
    assert after_s.to_act == seat("N")
    state = mid_trick(BETTLER, "H", "E:HJ S:HT", "HA CA SA DA CT", declarer="E")
    done, _ = apply(state, seat("N"), PlayCard("HA"))
    assert len(done.tricks) == 1 and len(done.tricks[0].plays) == 3


def test_no_trump_contract_void_player_may_play_any_card() -> None:
    state = mid_trick(GANG, "H", "N:DK", "HA HJ CA")
    assert legal_cards(state) == {"HA", "HJ", "CA"}


def test_no_trump_contract_only_a_higher_card_of_the_led_suit_wins() -> None:
    state = mid_trick(GANG, "H", "N:DK E:HA S:DJ", "CA SK", declarer="N")
    done, _ = apply(state, seat("W"), PlayCard("CA"))
    assert done.tricks[-1].winner == seat("N")  # HA is no trump in a Gang


def test_zehnerloch_ten_is_highest_and_ace_lowest() -> None:
    state = mid_trick(ZEHNERLOCH, "H", "N:HK", "HA HT CA")
    assert legal_cards(state) == {"HT"}
    state = mid_trick(ZEHNERLOCH, "H", "N:HJ", "HA HQ CA")
    assert legal_cards(state) == {"HQ"}  # the ace does not beat the Unter


def test_zehnerloch_ace_never_wins_its_suit() -> None:
    state = mid_trick(ZEHNERLOCH, "H", "N:HT E:HA S:HJ", "CA", declarer="N")
    done, _ = apply(state, seat("W"), PlayCard("CA"))
    assert done.tricks[-1].winner == seat("N")


def test_bettler_declarer_must_beat_when_able() -> None:
    # S08/S09 trick 2 pattern: the declarer's ace is forced.
    state = mid_trick(BETTLER, "H", "N:DK", "DA DJ CA", declarer="E")
    assert state.to_act == seat("E")
    assert legal_cards(state) == {"DA"}


def test_marriage_lead_must_be_king_or_ober_of_the_suit() -> None:
    state = position(
        {"N": "HK HQ CQ / DT SJ", "E": "HT DA DK / CA SQ", "S": "HA HJ SA / ST CK", "W": "DQ DJ CT / CJ SK"},
        actions=["N trump H", "N pass", "E pass", "S pass", "W pass", "E pass", "W pass"],
    )
    assert is_legal(state, seat("N"), PlayCard("HK", 40))
    assert is_legal(state, seat("N"), PlayCard("HQ", 40))
    with pytest.raises(IllegalAction) as caught:
        check(state, seat("N"), PlayCard("CQ", 40))
    assert caught.value.code == "marriage_not_allowed"
    assert not is_legal(state, seat("N"), PlayCard("HK", 20))  # a trump marriage is a 40


def test_marriage_is_never_compulsory() -> None:
    state = position(
        {"N": "HK HQ CQ / DT SJ", "E": "HT DA DK / CA SQ", "S": "HA HJ SA / ST CK", "W": "DQ DJ CT / CJ SK"},
        actions=["N trump H", "N pass", "E pass", "S pass", "W pass", "E pass", "W pass"],
    )
    assert is_legal(state, seat("N"), PlayCard("HK"))
    assert is_legal(state, seat("N"), PlayCard("CQ"))
    state = play(state, "N play HK")
    assert state.marriages == ()


def test_marriage_only_when_leading() -> None:
    state = mid_trick(NORMAL, "H", "N:DK", "SK SQ DJ")
    with pytest.raises(IllegalAction) as caught:
        check(state, state.to_act, PlayCard("SK", 20))
    assert caught.value.code == "marriage_not_leading"


def test_card_not_in_hand_is_rejected() -> None:
    state = mid_trick(NORMAL, "H", "N:DK", "DJ CA")
    assert rejected_code(state, "DA") == "card_not_in_hand"
