"""Plain-value inputs of the table and result images (no engine objects, so the renderer stays independent).

Seats are ints 0..3 = N, E, S, W clockwise; team 0 = seats 0 and 2, team 1 = seats 1 and 3.
Cards are two-letter codes, suit H D C S + rank A T K Q J.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.render.names import (
    CONTRACT_FAMILIES,
    DEFAULT_DECK,
    DEFAULT_LANGUAGE,
    check_card,
    check_deck,
    check_lang,
    check_suit,
)

SEATS = range(4)


def team_of(seat: int) -> int:
    return seat % 2


def _check_seat(seat: int | None, what: str, optional: bool = True) -> None:
    if seat is None and optional:
        return
    if seat not in SEATS:
        raise ValueError(f"{what} must be a seat 0..3{' or None' if optional else ''}, got {seat!r}")


def _check_pair(values: tuple, what: str) -> None:
    if len(values) != 2:
        raise ValueError(f"{what} needs one entry per team, got {values!r}")


@dataclass(frozen=True, slots=True)
class TableScene:
    """What one player sees of the table during play (their seat at the bottom), or, with viewer_seat=None,
    everyone: the public image, drawn as a compass with North at the top and East on the right."""

    viewer_seat: int | None
    seat_names: tuple[str, str, str, str]
    trick: tuple[tuple[int, str], ...] = ()  # (seat, card) in play order
    leader_seat: int | None = None
    to_act_seat: int | None = None
    trump: str | None = None  # suit letter
    contract_label: str | None = None  # already translated by the caller
    multiplier: int = 1
    team_points: tuple[int, int] | None = None  # None while the rules hide the points
    team_tricks: tuple[int, int] = (0, 0)
    first_tricks: tuple[tuple[str, ...] | None, tuple[str, ...] | None] = (None, None)
    sitting_out_seat: int | None = None
    deck: str = DEFAULT_DECK
    lang: str = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        _check_seat(self.viewer_seat, "viewer_seat")
        _check_seat(self.leader_seat, "leader_seat")
        _check_seat(self.to_act_seat, "to_act_seat")
        _check_seat(self.sitting_out_seat, "sitting_out_seat")
        if len(self.seat_names) != 4:
            raise ValueError("seat_names needs four names, N E S W")
        seats_played = [seat for seat, _ in self.trick]
        if len(set(seats_played)) != len(seats_played) or len(seats_played) > 4:
            raise ValueError(f"a seat plays at most once per trick: {self.trick!r}")
        for seat, card in self.trick:
            _check_seat(seat, "trick seat", optional=False)
            check_card(card)
        if self.trump is not None:
            check_suit(self.trump)
        if self.multiplier < 1:
            raise ValueError("multiplier must be at least 1")
        if self.team_points is not None:
            _check_pair(self.team_points, "team_points")
        _check_pair(self.team_tricks, "team_tricks")
        _check_pair(self.first_tricks, "first_tricks")
        for cards in self.first_tricks:
            for card in cards or ():
                check_card(card)
        check_deck(self.deck)
        check_lang(self.lang)


@dataclass(frozen=True, slots=True)
class ResultScene:
    """The end of a deal: who won, by what, and the Bummerl score afterwards."""

    seat_names: tuple[str, str, str, str]
    winner_team: int
    game_points: int
    score: tuple[int, int]  # running Bummerl score after this deal (count-up)
    target: int = 24
    bummerls: tuple[int, int] = (0, 0)  # Bummerl each team has lost so far
    contract_label: str | None = None
    multiplier: int = 1
    detail: str | None = None  # a short, already translated line, e.g. "Schneider"
    card_points: tuple[int, int] | None = None
    trump: str | None = None
    viewer_seat: int | None = None
    deck: str = DEFAULT_DECK
    lang: str = DEFAULT_LANGUAGE

    def __post_init__(self) -> None:
        if self.winner_team not in (0, 1):
            raise ValueError(f"winner_team must be 0 or 1, got {self.winner_team!r}")
        if len(self.seat_names) != 4:
            raise ValueError("seat_names needs four names, N E S W")
        _check_pair(self.score, "score")
        _check_pair(self.bummerls, "bummerls")
        if self.card_points is not None:
            _check_pair(self.card_points, "card_points")
        if self.target < 1:
            raise ValueError("target must be positive")
        if self.trump is not None:
            check_suit(self.trump)
        _check_seat(self.viewer_seat, "viewer_seat")
        check_deck(self.deck)
        check_lang(self.lang)


@dataclass(frozen=True, slots=True)
class ProfileScene:
    """A player's profile card: rating and its history, results, contracts per family, Kontra, best partner.

    Counts are (won, played) or (declared, made) as named; every name is shown as given.
    """

    display_name: str
    lang: str = DEFAULT_LANGUAGE
    rating: int | None = None  # the shown rating; None: not rated yet
    uncertainty: int | None = None  # ± of the shown rating
    history: tuple[int, ...] = ()  # the shown rating after each of the last Bummerl, oldest first
    rank: int | None = None
    bummerl: tuple[int, int] = (0, 0)  # won, played
    deals: tuple[int, int] = (0, 0)  # won, played
    contracts: tuple[tuple[str, int, int], ...] = ()  # (contract family, declared, made), in family order
    kontra: tuple[int, int] = (0, 0)  # won, said
    partner: tuple[str, int, int] | None = None  # (name, Bummerl together, won together)
    min_together: int = 3  # Bummerl together before a partner is shown (said when there is none)

    def __post_init__(self) -> None:
        check_lang(self.lang)
        if (self.rating is None) != (self.uncertainty is None):
            raise ValueError("a rating comes with its uncertainty, and neither without the other")
        if self.rating is None and self.history:
            raise ValueError("a rating history needs a rating")
        for what, (won, total) in (("bummerl", self.bummerl), ("deals", self.deals), ("kontra", self.kontra)):
            if not 0 <= won <= total:
                raise ValueError(f"{what} needs 0 <= won <= played, got {(won, total)!r}")
        families = [family for family, _, _ in self.contracts]
        if len(set(families)) != len(families) or not set(families) <= set(CONTRACT_FAMILIES):
            raise ValueError(
                f"contracts are one row per contract family of {CONTRACT_FAMILIES}: {families!r}"
            )
        for family, declared, made in self.contracts:
            if not 0 <= made <= declared:
                raise ValueError(f"{family}: needs 0 <= made <= declared, got {(declared, made)!r}")
        if self.partner is not None and not 0 <= self.partner[2] <= self.partner[1]:
            raise ValueError(f"partner needs 0 <= won <= together, got {self.partner!r}")
        if self.rank is not None and self.rank < 1:
            raise ValueError(f"rank starts at 1, got {self.rank!r}")

    @property
    def has_games(self) -> bool:
        return self.bummerl[1] > 0 or self.deals[1] > 0
