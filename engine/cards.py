"""Cards, seats and teams: the vocabulary every other module speaks.

Cards are the two-letter codes of the game record (suit letter + rank letter, e.g. ``"HA"``): they are
already readable, hashable and JSON-ready, and plain strings keep the engine fast.

>>> parse_card("ht")
'HT'
>>> points("HT"), suit_of("HT"), rank_of("HT")
(10, 'H', 'T')
"""

from __future__ import annotations

from .errors import MalformedInput

SUITS = ("H", "D", "C", "S")  # Herz, Schellen, Eichel, Laub
RANKS = ("A", "T", "K", "Q", "J")  # Sau, Zehner, König, Ober, Unter
DECK: tuple[str, ...] = tuple(suit + rank for suit in SUITS for rank in RANKS)

RANK_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
CARD_POINTS = {card: RANK_POINTS[card[1]] for card in DECK}
# Strength of a card within its suit; a higher number beats a lower one.
NORMAL_ORDER = {card: {"A": 5, "T": 4, "K": 3, "Q": 2, "J": 1}[card[1]] for card in DECK}
ZEHNERLOCH_ORDER = {card: {"T": 5, "K": 4, "Q": 3, "J": 2, "A": 1}[card[1]] for card in DECK}

SEAT_NAMES = ("N", "E", "S", "W")  # clockwise; partners sit opposite
SEATS = (0, 1, 2, 3)
TEAM_NAMES = ("NS", "EW")


def suit_of(card: str) -> str:
    return card[0]


def rank_of(card: str) -> str:
    return card[1]


def points(card: str) -> int:
    return CARD_POINTS[card]


def team_of(seat: int) -> int:
    """Team 0 is N+S, team 1 is E+W."""
    return seat & 1


def partner_of(seat: int) -> int:
    return (seat + 2) % 4


def next_seat(seat: int) -> int:
    return (seat + 1) % 4


def parse_card(text: str) -> str:
    """A card code from text, case-insensitive; raises MalformedInput for anything else."""
    card = text.strip().upper() if isinstance(text, str) else ""
    if card not in CARD_POINTS:
        raise MalformedInput(
            "unknown_card", f"{text!r} is not a card code (suit H D C S, then rank A T K Q J)"
        )
    return card


def parse_seat(text: str) -> int:
    if isinstance(text, str) and text.upper() in SEAT_NAMES:
        return SEAT_NAMES.index(text.upper())
    raise MalformedInput("unknown_seat", f"{text!r} is not a seat (N, E, S or W)")
