"""The values a tournament is made of: a team's id, a round's pairings and a match's result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TeamId = int
Format = Literal["swiss", "elimination"]


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two teams that meet in a round, or one team with a bye (`second` None)."""

    first: TeamId
    second: TeamId | None

    @property
    def bye(self) -> bool:
        return self.second is None

    @property
    def teams(self) -> tuple[TeamId, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a pairing ended. `winner` None: both teams lost (both forfeited). A bye is won by its team.
    `forfeit`: decided without being played (a no-show; its game points are 0 for both)."""

    first: TeamId
    second: TeamId | None
    winner: TeamId | None
    first_game_points: int = 0
    second_game_points: int = 0
    forfeit: bool = False

    def __post_init__(self) -> None:
        if self.winner is not None and self.winner not in (self.first, self.second):
            raise ValueError(f"the winner {self.winner} did not play in {self.first} v {self.second}")
        if self.second is None and self.winner != self.first:
            raise ValueError("a bye is won by its team")

    @property
    def pairing(self) -> Pairing:
        return Pairing(self.first, self.second)

    @classmethod
    def bye(cls, team: TeamId) -> MatchResult:
        return cls(team, None, team)

    def game_points_of(self, team: TeamId) -> int:
        return self.first_game_points if team == self.first else self.second_game_points

    def opponent_of(self, team: TeamId) -> TeamId | None:
        return self.second if team == self.first else self.first
