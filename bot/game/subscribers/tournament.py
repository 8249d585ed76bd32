"""Tournament results: a Bummerl that ends at a tournament match's table counts for that match, in the
transaction of the deal that ended it. The match is decided once a team has won the Bummerl it needs (one,
or two of three); the next round is the shell's to start (bot/schnapsen/tournaments.py), once every match
of the round is decided."""

from __future__ import annotations

from collections.abc import Sequence

from bot.db import Database
from bot.game.events import BummerlEnded, Change, TableEvent
from bot.game.tournaments import FIRST_TEAM_SIDE, bummerl_needed


class TournamentResults:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(self, change: Change) -> Sequence[TableEvent]:
        for event in change.events:
            if not isinstance(event, BummerlEnded):
                continue
            match = await self.db.tournaments.match_at_table(change.row.id)
            if match is None or match.done or match.second_team is None:
                continue
            # The first team sits North and South (engine team 0), the second East and West.
            first_won = event.bummerl.winner == FIRST_TEAM_SIDE
            winner = match.first_team if first_won else match.second_team
            first_points, second_points = event.bummerl.score
            counted = await self.db.tournaments.add_bummerl(match.id, winner, first_points, second_points)
            tournament = await self.db.tournaments.get_tournament(match.tournament_id)
            needed = bummerl_needed(tournament.bummerl_per_match)
            if max(counted.first_bummerl, counted.second_bummerl) >= needed:
                await self.db.tournaments.decide_match(match.id, winner, "play", change.now)
        return ()
