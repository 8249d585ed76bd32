"""Standings: each team's match points and tie-breaks, ranked.

A won match is worth `WIN_POINTS` (1), a bye `BYE_POINTS` (1, as a win), a lost one 0; a match both teams
forfeited is lost by both. The ranking goes by, in order:

1. points;
2. Buchholz: the sum of the points of every opponent the team was paired with (a forfeited match counts as
   met, a bye adds nothing);
3. game points: the Bummerl game points the team scored in its matches (0 in a forfeit or bye);
4. the seed (sign-up order), which only orders teams: those equal in 1-3 share their rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .model import MatchResult, TeamId

WIN_POINTS = 1
BYE_POINTS = 1


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int  # 1 is the best; teams equal in every tie-break share a rank
    team: TeamId
    points: int
    buchholz: int
    game_points: int
    played: int  # matches paired against another team, forfeits included
    won: int
    lost: int
    byes: int
    forfeited: int  # matches this team lost by forfeit

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.points, self.buchholz, self.game_points)


def points_of(results: Iterable[MatchResult]) -> dict[TeamId, int]:
    points: dict[TeamId, int] = {}
    for result in results:
        for team in result.pairing.teams:
            points.setdefault(team, 0)
        if result.winner is not None:
            points[result.winner] += BYE_POINTS if result.second is None else WIN_POINTS
    return points


def standings(seeds: Sequence[TeamId], results: Iterable[MatchResult]) -> tuple[Standing, ...]:
    """The teams of `seeds` (sign-up order) ranked by the `results` of every round so far. A team in
    `results` but not in `seeds` (removed by the organiser) is not listed, yet its points still count in
    its opponents' Buchholz.

    >>> [(s.rank, s.team, s.points) for s in standings([1, 2, 3], [MatchResult(1, 2, 2), MatchResult.bye(3)])]
    [(1, 2, 1), (1, 3, 1), (3, 1, 0)]
    """
    results = list(results)
    points = points_of(results)
    buchholz = dict.fromkeys(seeds, 0)
    game_points = dict.fromkeys(seeds, 0)
    counts = {team: [0, 0, 0, 0, 0] for team in seeds}  # played, won, lost, byes, forfeited
    for result in results:
        for team in result.pairing.teams:
            if team not in counts:
                continue
            tally = counts[team]
            opponent = result.opponent_of(team)
            if opponent is None:
                tally[3] += 1
                continue
            tally[0] += 1
            buchholz[team] += points.get(opponent, 0)
            game_points[team] += result.game_points_of(team)
            if result.winner == team:
                tally[1] += 1
            else:
                tally[2] += 1
                if result.forfeit:
                    tally[4] += 1
    ordered = sorted(
        enumerate(seeds),
        key=lambda item: (-points.get(item[1], 0), -buchholz[item[1]], -game_points[item[1]], item[0]),
    )
    table: list[Standing] = []
    for position, (_, team) in enumerate(ordered, start=1):
        key = (points.get(team, 0), buchholz[team], game_points[team])
        rank = table[-1].rank if table and table[-1].sort_key == key else position
        table.append(Standing(rank, team, key[0], key[1], key[2], *counts[team]))
    return tuple(table)
