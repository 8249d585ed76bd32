"""greedy's hand-pattern test on card masks (``hand_fits``, which the search asks of every sampled bidder's
hand) says what the same rules say counted card by card (the form it had before, kept here as the
reference)."""

from __future__ import annotations

import itertools
import random

from engine.ai import greedy
from engine.cards import CARD_POINTS, DECK, NORMAL_ORDER, SUITS, ZEHNERLOCH_ORDER
from engine.contracts import BEGGAR_CONTRACTS, IMMEDIATE_CONTRACTS, Contract

C = Contract


def run_from_top(cards: list[str], suit: str, order: dict[str, int]) -> int:
    ranks = sorted((c for c in order if c[0] == suit), key=lambda c: -order[c])
    run = 0
    for card in ranks:
        if card not in cards:
            break
        run += 1
    return run


def reference_fit(cards: list[str], contract: Contract, trump: str | None, strict: bool) -> bool:
    slack = 0 if strict else 1
    if contract in IMMEDIATE_CONTRACTS:
        return True
    if contract in BEGGAR_CONTRACTS:
        high = sum(card[1] in "AT" for card in cards)
        kings = sum(card[1] == "K" for card in cards)
        if contract is C.ASS_BETTLER:
            aces = sum(card[1] == "A" for card in cards)
            tens = sum(card[1] == "T" for card in cards)
            return aces >= 1 and aces + tens <= 1 + slack and kings <= slack
        return high <= slack and kings <= 1 + slack
    if contract in (C.GANG, C.ZEHNERLOCH):
        order = ZEHNERLOCH_ORDER if contract is C.ZEHNERLOCH else NORMAL_ORDER
        return sum(run_from_top(cards, suit, order) for suit in SUITS) >= 5 - slack
    if trump is None:
        return False
    trump_run = run_from_top(cards, trump, NORMAL_ORDER)
    side_runs = sum(run_from_top(cards, suit, NORMAL_ORDER) for suit in SUITS if suit != trump)
    if contract in (C.BAUERNSCHNAPSER, C.KONTRABAUERNSCHNAPSER):
        return trump_run >= 2 and trump_run + side_runs >= 5 - slack
    sure_points = sum(
        CARD_POINTS[c]
        for c in cards
        if c[1] in "AT" and run_from_top(cards, c[0], NORMAL_ORDER) >= (1 if c[1] == "A" else 2)
    )
    sure = trump_run + side_runs
    return trump_run >= 1 and sure >= 3 - slack and sure_points >= 40 - 10 * slack


def test_hand_fits_agrees_with_the_card_by_card_rules_for_every_contract_trump_and_threshold() -> None:
    hands = random.Random(7).sample(list(itertools.combinations(DECK, 5)), 1500)
    for hand in hands:
        cards = list(hand)
        for contract in Contract:
            for trump in (None, *SUITS):
                for strict in (True, False):
                    expected = reference_fit(cards, contract, trump, strict)
                    assert greedy.contract_fit(cards, contract, trump, strict) == expected, (hand, contract)
        for suit in SUITS:
            for order in (NORMAL_ORDER, ZEHNERLOCH_ORDER):
                assert greedy._run_from_top(cards, suit, order) == run_from_top(cards, suit, order)
