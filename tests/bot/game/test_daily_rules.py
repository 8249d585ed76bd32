"""The daily deal's pure rules: a day's deals are distinct and fixed by its secret, the dealer rotates from a
dealer the secret fixes, par's seeds differ per decision, days and weeks are UTC, and streaks count back."""

from __future__ import annotations

import engine
from bot.game import daily


def test_a_days_deals_are_fixed_by_its_secret_and_differ_from_each_other_and_other_days() -> None:
    deals = [engine.deal_hands(daily.deal_seed(99, n), daily.dealer_of(99, n)) for n in range(daily.DAILY_DEALS)]
    assert len(set(deals)) == daily.DAILY_DEALS
    assert deals == [engine.deal_hands(daily.deal_seed(99, n), daily.dealer_of(99, n)) for n in range(daily.DAILY_DEALS)]
    assert all(daily.deal_seed(99, n) != daily.deal_seed(100, n) for n in range(daily.DAILY_DEALS))
    assert all(0 <= daily.deal_seed(secret, 0) < 2**62 for secret in range(50))


def test_the_dealer_rotates_clockwise_from_the_secrets_first_dealer_as_at_any_table() -> None:
    for secret in range(40):
        first = daily.first_dealer(secret)
        match = engine.new_match(daily.daily_rules(), first)
        for deal_no in range(daily.DAILY_DEALS):
            assert daily.dealer_of(secret, deal_no) == (first + deal_no) % 4 == match.next_dealer
            match = match._replace(deals_played=match.deals_played + 1)
    assert {daily.first_dealer(secret) for secret in range(40)} == {0, 1, 2, 3}


def test_an_ai_seed_belongs_to_a_position_of_a_deal_of_a_day() -> None:
    """The same position has the same seed (par and an attempt meet there), any other its own."""
    seeds = []
    for deal_no in range(daily.DAILY_DEALS):
        dealer = daily.dealer_of(5, deal_no)
        state = engine.new_deal(daily.daily_rules(), dealer, engine.deal_hands(daily.deal_seed(5, deal_no), dealer))
        while not state.finished:
            seeds.append(daily.ai_seed(5, deal_no, state))
            assert daily.ai_seed(5, deal_no, state._replace()) == seeds[-1]
            assert state.to_act is not None
            state, _ = engine.apply(state, state.to_act, engine.legal_actions(state)[0])
    assert len(set(seeds)) == len(seeds)
    assert daily.ai_seed(6, 0, engine.new_deal(daily.daily_rules(), 0, engine.deal_hands(1, 0))) != daily.ai_seed(
        5, 0, engine.new_deal(daily.daily_rules(), 0, engine.deal_hands(1, 0))
    )


def test_days_and_weeks_are_utc_and_streaks_count_back_from_today_or_yesterday() -> None:
    assert daily.day_of(1_764_806_399) == "2025-12-03" and daily.day_of(1_764_806_400) == "2025-12-04"
    assert daily.week_of("2026-11-30") == ["2026-11-30"]  # a Monday starts a week
    assert len(daily.week_of("2026-12-06")) == 7
    assert daily.streak([], "2026-12-03") == 0
    assert daily.streak(["2026-12-03"], "2026-12-03") == 1
    assert daily.streak(["2026-12-01", "2026-11-30"], "2026-12-03") == 0  # a day missed ends it


def test_the_daily_rules_never_end_a_bummerl_within_a_day() -> None:
    rules = daily.daily_rules()
    assert rules.target == 99 and rules.preset == daily.DAILY_PRESET
