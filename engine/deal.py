"""Dealing from a seed: packets of three then two, clockwise from the forehand (RULES.md D14)."""

from __future__ import annotations

import random

from .cards import CARD_POINTS, DECK, SEAT_NAMES
from .errors import MalformedInput
from .ruleset import Ruleset
from .state import TRUMP, DealState

Hands = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]


def shuffled_deck(seed: int) -> list[str]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


def deal_hands(seed: int, dealer: int) -> Hands:
    """Each seat's five cards in deal order (N, E, S, W); the same seed and dealer give the same cards."""
    deck = shuffled_deck(seed)
    forehand = (dealer + 1) % 4
    hands: list[tuple[str, ...]] = [(), (), (), ()]
    for i in range(4):
        hands[(forehand + i) % 4] = (*deck[3 * i : 3 * i + 3], *deck[12 + 2 * i : 14 + 2 * i])
    return hands[0], hands[1], hands[2], hands[3]


def new_deal(rules: Ruleset, dealer: int, hands: Hands | tuple[tuple[str, ...], ...]) -> DealState:
    """The position before trump is chosen; the forehand (dealer + 1) acts first."""
    if dealer not in range(4):
        raise MalformedInput("bad_dealer", f"dealer must be a seat 0..3, not {dealer!r}")
    dealt = tuple(tuple(hand) for hand in hands)
    cards = {card for hand in dealt for card in hand}
    # Fast path: 20 distinct known cards in four hands of five; otherwise find and name the problem.
    if len(cards) != 20 or len(dealt) != 4 or not cards <= _DECK_SET or any(len(h) != 5 for h in dealt):
        _raise_hand_problem(dealt)
    return DealState(
        rules=rules, dealer=dealer, dealt=dealt, hands=dealt, phase=TRUMP, to_act=(dealer + 1) % 4
    )


_DECK_SET = frozenset(DECK)


def _raise_hand_problem(hands: tuple[tuple[str, ...], ...]) -> None:
    if len(hands) != 4:
        raise MalformedInput("bad_hands", "a deal needs exactly four hands")
    seen: set[str] = set()
    for seat, hand in enumerate(hands):
        if len(hand) != 5:
            raise MalformedInput("bad_hands", f"{SEAT_NAMES[seat]} must hold 5 cards, not {len(hand)}")
        for card in hand:
            if card not in CARD_POINTS:
                raise MalformedInput(
                    "unknown_card", f"{card!r} in {SEAT_NAMES[seat]}'s hand is not a card code"
                )
            if card in seen:
                raise MalformedInput("duplicate_card", f"{card} is dealt twice")
            seen.add(card)
