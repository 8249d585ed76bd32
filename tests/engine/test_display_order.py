"""The order a hand is shown in: trumps first, then the other suits, each by rank in the contract's order."""

from __future__ import annotations

import itertools
import random

from engine import DECK, SUITS, Contract, display_order
from engine.cards import NORMAL_ORDER, ZEHNERLOCH_ORDER
from engine.contracts import NO_TRUMP_CONTRACTS, TRUMP_CONTRACTS


def test_every_hand_is_a_permutation_grouped_by_suit_with_trumps_first() -> None:
    rng = random.Random(13)
    for _ in range(500):
        hand = tuple(rng.sample(DECK, 5))
        trump = rng.choice(SUITS)
        contract = rng.choice([None, *Contract])
        shown = display_order(hand, trump, contract)
        assert sorted(shown) == sorted(hand)
        suits = [card[0] for card in shown]
        trump_group = trump if contract is None or contract in TRUMP_CONTRACTS else None
        assert suits == sorted(suits, key=lambda suit: (suit != trump_group, SUITS.index(suit)))
        order = ZEHNERLOCH_ORDER if contract is Contract.ZEHNERLOCH else NORMAL_ORDER
        for left, right in itertools.pairwise(shown):
            if left[0] == right[0]:
                assert order[left] > order[right]


def test_trump_contracts_lead_with_trumps_and_no_trump_contracts_do_not() -> None:
    hand = ("HA", "ST", "SJ", "DK", "CQ")
    for contract in TRUMP_CONTRACTS:
        assert display_order(hand, "S", contract) == ("ST", "SJ", "HA", "DK", "CQ")
    for contract in NO_TRUMP_CONTRACTS - {Contract.ZEHNERLOCH}:
        assert display_order(hand, "S", contract) == ("HA", "DK", "CQ", "ST", "SJ")


def test_zehnerloch_ranks_ten_king_queen_jack_ace() -> None:
    assert display_order(("HA", "HJ", "HT", "HQ", "HK"), "H", Contract.ZEHNERLOCH) == (
        "HT",
        "HK",
        "HQ",
        "HJ",
        "HA",
    )


def test_before_trump_is_chosen_by_suit_and_rank() -> None:
    assert display_order(("SK", "HQ", "SA"), None, None) == ("HQ", "SA", "SK")
