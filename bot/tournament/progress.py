"""What comes next in a tournament: the next round's pairings, or the end and its winner."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .model import Format, MatchResult, Pairing, TeamId
from .pairing import elimination_first_round, elimination_next_round, elimination_round_count, swiss_pairings
from .standings import standings


def round_count(fmt: Format, swiss_rounds: int, teams: int) -> int:
    """How many rounds the tournament has: the organiser's number for Swiss, as many as the bracket needs
    for an elimination."""
    return swiss_rounds if fmt == "swiss" else elimination_round_count(teams)


def next_round(
    fmt: Format,
    swiss_rounds: int,
    seeds: Sequence[TeamId],
    rounds: Sequence[Sequence[MatchResult]],
    active: Collection[TeamId] | None = None,
    forbidden: Collection[Collection[TeamId]] = (),
) -> tuple[Pairing, ...] | None:
    """The pairings of the round after the finished `rounds`, or None when the tournament is over. `seeds`
    are all teams in sign-up order, `active` those still playing (all when None: the organiser may remove a
    team; its results stay). Raises `PairingImpossible` when Swiss pairing cannot keep its hard rules.

    >>> next_round("swiss", 2, [1, 2, 3, 4], [])
    (Pairing(first=1, second=2), Pairing(first=3, second=4))
    >>> next_round("swiss", 2, [1, 2, 3, 4], [[MatchResult(1, 2, 2), MatchResult(3, 4, 3)]])
    (Pairing(first=2, second=3), Pairing(first=1, second=4))
    >>> next_round("elimination", 0, [1, 2, 3, 4], [[MatchResult(1, 4, 1), MatchResult(2, 3, 3)]])
    (Pairing(first=1, second=3),)
    """
    playing = [team for team in seeds if active is None or team in active]
    if fmt == "elimination":
        if not rounds:
            return elimination_first_round(playing) if len(playing) >= 2 else None
        last = rounds[-1]
        return None if len(last) <= 1 else elimination_next_round(last)
    if len(rounds) >= swiss_rounds or len(playing) < 2:
        return None
    played = [result for round_results in rounds for result in round_results]
    ranking = [standing.team for standing in standings(seeds, played) if standing.team in playing]
    return swiss_pairings(ranking, [result.pairing for result in played], forbidden)


def winner_of(fmt: Format, seeds: Sequence[TeamId], rounds: Sequence[Sequence[MatchResult]]) -> TeamId | None:
    """The tournament's winner once its last round has ended: the final's winner, or the Swiss standings'
    first (tie-breaks, then the seed, decide a shared first place). None before any round.

    >>> winner_of("swiss", [1, 2], [[MatchResult(1, 2, 2)]])
    2
    """
    if not rounds:
        return None
    if fmt == "elimination":
        return rounds[-1][0].winner if len(rounds[-1]) == 1 else None
    table = standings(seeds, [result for round_results in rounds for result in round_results])
    return table[0].team if table else None
