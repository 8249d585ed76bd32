"""Server tournaments (issue 30): the pure rules of running one, with no I/O and no Discord.

`pairing` pairs teams for a round (Swiss, single elimination); `standings` ranks them with their tie-breaks;
`teams` forms teams of two from the sign-ups; `progress` says what comes next (a round's pairings, or the
end and its winner). Storage of a tournament is `bot.db.tournaments`; the Discord side builds on both.
"""

from .model import Format, MatchResult, Pairing, TeamId
from .pairing import (
    PairingImpossible,
    bracket_order,
    elimination_first_round,
    elimination_next_round,
    elimination_round_count,
    rematch_count,
    swiss_pairings,
)
from .progress import next_round, winner_of
from .standings import BYE_POINTS, WIN_POINTS, Standing, standings
from .teams import Signup, form_teams

__all__ = [
    "BYE_POINTS",
    "WIN_POINTS",
    "Format",
    "MatchResult",
    "Pairing",
    "PairingImpossible",
    "Signup",
    "Standing",
    "TeamId",
    "bracket_order",
    "elimination_first_round",
    "elimination_next_round",
    "elimination_round_count",
    "form_teams",
    "next_round",
    "rematch_count",
    "standings",
    "swiss_pairings",
    "winner_of",
]
