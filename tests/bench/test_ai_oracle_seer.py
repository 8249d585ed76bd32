"""bench/ai_oracle.py's seer, pimc that also knows some hidden cards at the decisions it is told and plays as
the shipped pimc everywhere else, and its played-out leads."""

from __future__ import annotations

import pytest

from bench import ai_oracle
from engine.actions import Action
from engine.ai import choose_action, pimc
from engine.ai.arena import fixed_normal
from engine.ai.compact import BIT, cards_of, mask_of
from engine.deal import deal_hands, new_deal
from engine.rules import apply_unchecked, legal_actions
from engine.ruleset import STANDARD
from engine.state import PLAY
from engine.views import PlayerView, view_for

SEED, DEALER = 7, 1
READ_SEED = 8  # a deal whose plays before the lead of trick 2 include a choice that tells something


def _history_until(
    follow: bool, trick_no: int = 1, seed: int = SEED, by_pimc: bool = False
) -> tuple[list[tuple[int, Action]], int]:
    """The actions of a normal game of deal ``seed`` up to the first lead (or follow) with a choice from trick
    ``trick_no`` on, every card before it the first legal one, or (``by_pimc``) pimc's in deck order with the
    seeds 3000, 3001, ... as the reader's match plays it."""
    hands = deal_hands(seed, DEALER)
    state = new_deal(STANDARD, DEALER, hands)
    history: list[tuple[int, Action]] = []
    while True:
        seat = state.to_act
        assert seat is not None
        legal = legal_actions(state)
        if state.phase == PLAY and len(legal) > 1 and bool(state.trick) == follow and state.trick_no >= trick_no:
            return history, seat
        if state.phase != PLAY:
            action = fixed_normal(state, seat)
        elif by_pimc and len(legal) > 1:
            action = ai_oracle.pimc_in_deck_order(DEALER, hands, history, seat, 3000 + len(history), 20)
        else:
            action = legal[0]
        history.append((seat, action))
        state, _ = apply_unchecked(state, seat, action)


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[PlayerView]:
    """The views pimc.choose is asked to search, in order (it still searches them)."""
    seen: list[PlayerView] = []
    real = pimc.choose
    monkeypatch.setattr(pimc, "choose", lambda view, *args, **kwargs: seen.append(view) or real(view, *args, **kwargs))
    return seen


def test_a_seer_of_the_partners_hand_searches_with_those_cards_known(searched: list[PlayerView]) -> None:
    history, seat = _history_until(follow=False)
    action = ai_oracle.seer("partner", "leads")(DEALER, deal_hands(SEED, DEALER), history, seat, 3, 20)
    partner = (seat + 2) % 4
    assert searched and set(searched[0].known_cards[partner]) == set(deal_hands(SEED, DEALER)[partner])
    assert action in searched[0].legal


@pytest.mark.parametrize(("at", "trick_no", "knows"), [
    ("first-lead", 1, True), ("first-lead", 2, False), ("later-leads", 1, False), ("later-leads", 2, True),
])
def test_the_first_lead_and_the_leads_after_it_are_told_apart(
    searched: list[PlayerView], at: str, trick_no: int, knows: bool
) -> None:
    history, seat = _history_until(follow=False, trick_no=trick_no)
    ai_oracle.seer("partner", at)(DEALER, deal_hands(SEED, DEALER), history, seat, 3, 20)
    partner = (seat + 2) % 4
    assert bool(searched and searched[0].known_cards[partner]) == knows


def test_where_it_is_not_told_to_know_more_it_plays_as_pimc() -> None:
    history, seat = _history_until(follow=True)
    hands = deal_hands(SEED, DEALER)
    action = ai_oracle.seer("partner", "leads")(DEALER, hands, history, seat, 3, 20)
    state = ai_oracle.replay(DEALER, hands, history)
    assert action == choose_action(view_for(state, seat), "pimc", 3, 20, STANDARD)


def test_a_fact_keeps_only_worlds_that_agree_and_leaves_pimc_as_it_was() -> None:
    history, seat = _history_until(follow=False)
    hands = deal_hands(SEED, DEALER)
    original = pimc._declarer_plausible
    action = ai_oracle.seer("partner-aces", "all")(DEALER, hands, history, seat, 3, 20)
    assert pimc._declarer_plausible is original
    assert action in legal_actions(ai_oracle.replay(DEALER, hands, history))


def test_a_lead_of_trick_2_is_played_out_and_a_follow_is_pimcs() -> None:
    hands = deal_hands(SEED, DEALER)
    history, seat = _history_until(follow=False, trick_no=2)
    state = ai_oracle.replay(DEALER, hands, history)
    assert state.trick_no == 2 and not state.trick
    own = choose_action(view_for(state, seat), "pimc", 3, 20, STANDARD)
    assert ai_oracle.played_out_leads(0)(DEALER, hands, history, seat, 3, 20) == own  # no world: pimc's
    assert ai_oracle.played_out_leads(6)(DEALER, hands, history, seat, 3, 20) in legal_actions(state)
    history, seat = _history_until(follow=True, trick_no=2)
    state = ai_oracle.replay(DEALER, hands, history)
    own = choose_action(view_for(state, seat), "pimc", 3, 20, STANDARD)
    assert ai_oracle.played_out_leads(6)(DEALER, hands, history, seat, 3, 20) == own


def test_the_exact_reading_counts_the_true_world_fully_and_a_world_unlike_the_plays_barely() -> None:
    hands = deal_hands(READ_SEED, DEALER)
    history, seat = _history_until(follow=False, trick_no=2, seed=READ_SEED, by_pimc=True)
    state = ai_oracle.replay(DEALER, hands, history)
    stand_in = ai_oracle.exact_reading(DEALER, hands, history, seat, 3000, 20)()
    assert stand_in is not None
    truth = [mask_of(hand) for hand in state.hands]
    assert stand_in(truth) == (1.0, 0)
    # Two other seats swap a card: some of these worlds make a seat's pimc choose otherwise than it did.
    others = [other for other in range(4) if other != seat]
    verdicts = []
    for one, two in ((a, b) for a in others for b in others if a < b):
        for given in cards_of(truth[one]):
            for taken in cards_of(truth[two]):
                world = list(truth)
                world[one] = truth[one] ^ BIT[given] | BIT[taken]
                world[two] = truth[two] ^ BIT[taken] | BIT[given]
                verdicts.append(stand_in(world)[0])
    assert set(verdicts) == {1.0, ai_oracle.UNREAD}


def test_the_reader_puts_pimcs_reading_back() -> None:
    hands = deal_hands(READ_SEED, DEALER)
    history, seat = _history_until(follow=False, trick_no=2, seed=READ_SEED, by_pimc=True)
    original = pimc._play_likelihood
    action = ai_oracle.reader(DEALER, hands, history, seat, 3000 + len(history), 20)
    assert pimc._play_likelihood is original
    assert action in legal_actions(ai_oracle.replay(DEALER, hands, history))
