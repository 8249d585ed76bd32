"""The organiser's controls of server tournaments (migration 010): options before the start (the AI stand-in,
the start time), the organiser's pause and resume, each player's record of finished tournaments, and the
role a server names for organisers. The tournaments' rows themselves are `TournamentsRepo`'s."""

from __future__ import annotations

from .core import Repository
from .tournaments import TournamentsRepo


class TournamentControlsRepo(Repository):
    """What the organiser changes besides results, and what the profile reads of tournaments."""

    async def set_options(
        self, tournament_id: int, *, ai_stand_in: bool, starts_at: int | None, actor_id: int, now: int
    ) -> bool:
        """Before the start: whether the AI may stand in for one absent partner, and when the tournament starts
        itself (None: when the organiser starts it). Logged. False when it has started already."""
        async with self._core.transaction():
            changed = await self._core.execute(
                "UPDATE tournaments SET ai_stand_in = ?, starts_at = ?, updated_at = ? WHERE id = ?"
                " AND status = 'signup'",
                (int(ai_stand_in), starts_at, now, tournament_id),
            )
            if changed:
                await self._log(
                    tournament_id,
                    actor_id=actor_id,
                    action="options",
                    reason=f"ai_stand_in={int(ai_stand_in)} starts_at={starts_at}",
                    now=now,
                )
        return bool(changed)

    async def pause(self, tournament_id: int, *, actor_id: int, reason: str, now: int) -> bool:
        """The organiser pauses a running tournament: no round is paired, no table opens, the no-show clocks
        stand still. Logged. False when it was not running."""
        async with self._core.transaction():
            changed = await self._core.execute(
                "UPDATE tournaments SET status = 'paused', paused_at = ?, updated_at = ? WHERE id = ?"
                " AND status = 'running'",
                (now, now, tournament_id),
            )
            if changed:
                await self._log(tournament_id, actor_id=actor_id, action="pause", reason=reason, now=now)
        return bool(changed)

    async def resume(self, tournament_id: int, *, actor_id: int, reason: str, now: int) -> bool:
        """The organiser resumes a paused tournament: the matches being played get the paused time back on
        their no-show clocks. Logged. False when it was not paused."""
        async with self._core.transaction():
            row = await self._core.fetch_one(
                "SELECT paused_at FROM tournaments WHERE id = ? AND status = 'paused'", (tournament_id,)
            )
            if row is None:
                return False
            if row["paused_at"] is not None:
                await self._core.execute(
                    "UPDATE tournament_matches SET paused_seconds = paused_seconds + ? WHERE tournament_id = ?"
                    " AND status = 'playing'",
                    (max(0, now - int(row["paused_at"])), tournament_id),
                )
            await self._core.execute(
                "UPDATE tournaments SET status = 'running', paused_at = NULL, updated_at = ? WHERE id = ?",
                (now, tournament_id),
            )
            await self._log(tournament_id, actor_id=actor_id, action="resume", reason=reason, now=now)
        return True

    async def record_of(self, guild_id: int, user_id: int) -> tuple[int, int]:
        """(played, won): the finished tournaments of the guild the person played in a team, and those their
        team won."""
        row = await self._core.fetch_one(
            "SELECT COUNT(DISTINCT t.id) AS played,"
            " COUNT(DISTINCT CASE WHEN t.winner_team = m.id THEN t.id END) AS won"
            " FROM tournaments t JOIN tournament_teams m ON m.tournament_id = t.id"
            " WHERE t.guild_id = ? AND t.status = 'finished' AND ? IN (m.first_user_id, m.second_user_id)",
            (guild_id, user_id),
        )
        return (0, 0) if row is None else (int(row["played"] or 0), int(row["won"] or 0))

    async def organiser_role(self, guild_id: int) -> int | None:
        """The role the server named for tournament organisers (besides Manage Server), if any."""
        row = await self._core.fetch_one(
            "SELECT role_id FROM tournament_organiser_roles WHERE guild_id = ?", (guild_id,)
        )
        return None if row is None else int(row["role_id"])

    async def set_organiser_role(self, guild_id: int, role_id: int | None) -> None:
        async with self._core.transaction():
            if role_id is None:
                await self._core.execute(
                    "DELETE FROM tournament_organiser_roles WHERE guild_id = ?", (guild_id,)
                )
            else:
                await self._core.execute(
                    "INSERT INTO tournament_organiser_roles (guild_id, role_id) VALUES (?, ?)"
                    " ON CONFLICT (guild_id) DO UPDATE SET role_id = excluded.role_id",
                    (guild_id, role_id),
                )

    async def finish(self, tournament_id: int, winner_team: int | None, now: int) -> None:
        """The tournament is over; `winner_team` won it (None: no single winner)."""
        async with self._core.transaction():
            await self._core.execute(
                "UPDATE tournaments SET status = 'finished', winner_team = ?, updated_at = ? WHERE id = ?",
                (winner_team, now, tournament_id),
            )

    async def _log(self, tournament_id: int, *, actor_id: int, action: str, reason: str, now: int) -> None:
        await TournamentsRepo(self._core).add_log(
            tournament_id, actor_id=actor_id, action=action, reason=reason, now=now
        )
