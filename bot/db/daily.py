"""The daily deal's storage (migration 007): each UTC day's secret seed, the AI's par per deal, each person's
one attempt (a table of its own) and the game points of its finished deals; and each server's monthly league
ladder (migration 009). The rules are bot/game/daily.py and bot/game/dailyleague.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .core import Repository


@dataclass(frozen=True, slots=True)
class DailyAttempt:
    day: str
    user_id: int
    guild_id: int
    table_id: int
    display_name: str
    started_at: int
    finished_at: int | None
    place: str = "dm"  # "dm": in the person's DM with the bot; "channel": ephemeral in a server channel

    @property
    def finished(self) -> bool:
        return self.finished_at is not None


@dataclass(frozen=True, slots=True)
class DailyPar:
    deal_no: int
    points: int  # North-South's signed game points when the AI plays all four seats
    actions: tuple[str, ...]  # the AI's line, in record notation


@dataclass(frozen=True, slots=True)
class DailyStanding:
    """One person on a board: their score against par over the deals counted (played, or all of a finished
    attempt), how many they played and how many attempts (days) it covers."""

    user_id: int
    display_name: str
    score: int
    played: int
    days: int


class DailyAttemptTaken(Exception):
    """The person already has an attempt at that day's deals."""


_ATTEMPT_COLUMNS = "day, user_id, guild_id, table_id, display_name, started_at, finished_at, place"


class DailyRepo(Repository):
    async def day_secret(self, day: str, new_secret: int, now: int) -> int:
        """The day's secret seed, stored with ``new_secret`` when the day has none yet (every process asking
        at once gets the one stored first)."""
        async with self._core.transaction():
            await self._core.execute(
                "INSERT INTO daily_days (day, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (day) DO NOTHING",
                (day, new_secret, now),
            )
            row = await self._core.fetch_one("SELECT secret FROM daily_days WHERE day = ?", (day,))
        assert row is not None
        return int(row["secret"])

    async def known_secret(self, day: str) -> int | None:
        row = await self._core.fetch_one("SELECT secret FROM daily_days WHERE day = ?", (day,))
        return None if row is None else int(row["secret"])

    async def par(self, day: str) -> list[DailyPar]:
        rows = await self._core.fetch_all(
            "SELECT deal_no, points, actions FROM daily_par WHERE day = ? ORDER BY deal_no", (day,)
        )
        return [DailyPar(int(r["deal_no"]), int(r["points"]), tuple(line for line in str(r["actions"]).split("\n") if line)) for r in rows]

    async def store_par(self, day: str, par: DailyPar, now: int) -> None:
        """Par is written once: a second computation (another process, a restart) leaves the first."""
        async with self._core.transaction():
            await self._core.execute(
                """
                INSERT INTO daily_par (day, deal_no, points, actions, computed_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (day, deal_no) DO NOTHING
                """,
                (day, par.deal_no, par.points, "\n".join(par.actions), now),
            )

    async def start_attempt(
        self, *, day: str, user_id: int, guild_id: int, table_id: int, display_name: str, now: int, place: str = "dm"
    ) -> None:
        """Raises `DailyAttemptTaken` when the person has an attempt at the day already."""
        async with self._core.transaction():
            if await self.attempt(day, user_id) is not None:
                raise DailyAttemptTaken(day, user_id)
            await self._core.execute(
                f"INSERT INTO daily_attempts ({_ATTEMPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
                (day, user_id, guild_id, table_id, display_name, now, place),
            )

    async def attempt(self, day: str, user_id: int) -> DailyAttempt | None:
        row = await self._core.fetch_one(
            f"SELECT {_ATTEMPT_COLUMNS} FROM daily_attempts WHERE day = ? AND user_id = ?", (day, user_id)
        )
        return None if row is None else DailyAttempt(**dict(row))

    async def attempt_of_table(self, table_id: int) -> DailyAttempt | None:
        row = await self._core.fetch_one(
            f"SELECT {_ATTEMPT_COLUMNS} FROM daily_attempts WHERE table_id = ?", (table_id,)
        )
        return None if row is None else DailyAttempt(**dict(row))

    async def open_attempt_tables(self) -> list[tuple[int, int, str]]:
        """Every open attempt's table, the table's channel (the person's DM) and where it is played."""
        rows = await self._core.fetch_all(
            """
            SELECT a.table_id, t.channel_id, a.place FROM daily_attempts a JOIN game_tables t ON t.id = a.table_id
            WHERE a.finished_at IS NULL
            """
        )
        return [(int(r["table_id"]), int(r["channel_id"]), str(r["place"])) for r in rows]

    async def record_deal(self, table_id: int, deal_no: int, points: int) -> None:
        async with self._core.transaction():
            await self._core.execute(
                "INSERT INTO daily_deals (table_id, deal_no, points) VALUES (?, ?, ?)", (table_id, deal_no, points)
            )

    async def deals_of(self, table_id: int) -> dict[int, int]:
        """Deal number -> the person's team's signed game points, for the attempt's finished deals."""
        rows = await self._core.fetch_all(
            "SELECT deal_no, points FROM daily_deals WHERE table_id = ? ORDER BY deal_no", (table_id,)
        )
        return {int(r["deal_no"]): int(r["points"]) for r in rows}

    async def finish_attempt(self, table_id: int, now: int) -> None:
        async with self._core.transaction():
            await self._core.execute(
                "UPDATE daily_attempts SET finished_at = ? WHERE table_id = ? AND finished_at IS NULL",
                (now, table_id),
            )

    async def standings(self, days: Sequence[str], guild_id: int | None, limit: int = 10) -> list[DailyStanding]:
        """The board of ``days`` in one guild (None: every guild): each person's score against par, best first.
        A deal counts once its par is stored and it was played, or the attempt is over (a deal not played then
        counts as no game points: abandoning counts as finished with what was played)."""
        if not days:
            return []
        marks = ", ".join("?" for _ in days)
        where = f"a.day IN ({marks})" + (
            " AND a.user_id NOT IN (SELECT h.user_id FROM daily_hidden h)" if guild_id is None else " AND a.guild_id = ?"
        )
        params: list[object] = [*days, *([] if guild_id is None else [guild_id]), limit]
        rows = await self._core.fetch_all(
            f"""
            SELECT a.user_id, MAX(a.display_name) AS display_name, COUNT(d.deal_no) AS played,
                   COUNT(DISTINCT a.day) AS days, SUM(COALESCE(d.points, 0) - p.points) AS score
            FROM daily_attempts a
            JOIN daily_par p ON p.day = a.day
            LEFT JOIN daily_deals d ON d.table_id = a.table_id AND d.deal_no = p.deal_no
            WHERE {where} AND (d.deal_no IS NOT NULL OR a.finished_at IS NOT NULL)
            GROUP BY a.user_id
            ORDER BY score DESC, played DESC, a.user_id
            LIMIT ?
            """,
            params,
        )
        return [
            DailyStanding(int(r["user_id"]), str(r["display_name"]), int(r["score"]), int(r["played"]), int(r["days"]))
            for r in rows
        ]

    async def set_hidden(self, user_id: int, hidden: bool, now: int) -> None:
        """Whether the person keeps out of the board across all servers (their own server's shows them)."""
        async with self._core.transaction():
            await self._core.execute("DELETE FROM daily_hidden WHERE user_id = ?", (user_id,))
            if hidden:
                await self._core.execute("INSERT INTO daily_hidden (user_id, hidden_at) VALUES (?, ?)", (user_id, now))

    async def is_hidden(self, user_id: int) -> bool:
        return await self._core.fetch_one("SELECT 1 AS hidden FROM daily_hidden WHERE user_id = ?", (user_id,)) is not None

    async def set_channel(self, guild_id: int, channel_id: int, now: int) -> None:
        async with self._core.transaction():
            await self._core.execute(
                """
                INSERT INTO daily_channels (guild_id, channel_id, set_at) VALUES (?, ?, ?)
                ON CONFLICT (guild_id) DO UPDATE SET channel_id = excluded.channel_id, set_at = excluded.set_at
                """,
                (guild_id, channel_id, now),
            )

    async def unposted(self, day: str) -> list[tuple[int, int]]:
        """(guild, channel) of every server with a results channel, an attempt at ``day`` and no post of it."""
        rows = await self._core.fetch_all(
            """
            SELECT c.guild_id, c.channel_id FROM daily_channels c
            WHERE EXISTS (SELECT 1 FROM daily_attempts a WHERE a.guild_id = c.guild_id AND a.day = ?1)
              AND NOT EXISTS (SELECT 1 FROM daily_posts p WHERE p.guild_id = c.guild_id AND p.day = ?1)
            ORDER BY c.guild_id
            """,
            (day,),
        )
        return [(int(r["guild_id"]), int(r["channel_id"])) for r in rows]

    async def reserve_post(self, guild_id: int, day: str, now: int) -> bool:
        """Claim the post of the day's results in the guild (False: posted, or being posted, already)."""
        async with self._core.transaction():
            return bool(
                await self._core.execute(
                    "INSERT INTO daily_posts (guild_id, day, posted_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                    (guild_id, day, now),
                )
            )

    async def release_post(self, guild_id: int, day: str) -> None:
        async with self._core.transaction():
            await self._core.execute("DELETE FROM daily_posts WHERE guild_id = ? AND day = ?", (guild_id, day))

    async def days_played(self, user_id: int) -> list[str]:
        """The days the person has an attempt at, newest first (for the streak)."""
        rows = await self._core.fetch_all(
            "SELECT day FROM daily_attempts WHERE user_id = ? ORDER BY day DESC", (user_id,)
        )
        return [str(r["day"]) for r in rows]

    # --- monthly leagues (migration 009; the rules: bot/game/dailyleague.py) ------------------------------

    async def league_ladder(self, guild_id: int, month: str) -> list[tuple[int, str]] | None:
        """The server's ladder for the month as seeded, top first (user id, name); None: not built yet. Two
        reads of one snapshot: no write lock taken (a page view reads this)."""
        async with self._core.reading():
            built = await self._core.fetch_one(
                "SELECT 1 AS built FROM daily_league_months WHERE guild_id = ? AND month = ?", (guild_id, month)
            )
            rows = await self._core.fetch_all(
                "SELECT user_id, display_name FROM daily_league_ladder WHERE guild_id = ? AND month = ? ORDER BY position",
                (guild_id, month),
            )
        return None if built is None else [(int(r["user_id"]), str(r["display_name"])) for r in rows]

    async def store_league_ladder(
        self, guild_id: int, month: str, ladder: Sequence[tuple[int, str]], now: int
    ) -> bool:
        """Write the server's ladder for the month once: False (and nothing written) when it was built already."""
        async with self._core.transaction():
            claimed = await self._core.execute(
                "INSERT INTO daily_league_months (guild_id, month, built_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (guild_id, month, now),
            )
            if not claimed:
                return False
            for position, (user_id, name) in enumerate(ladder):
                await self._core.execute(
                    """
                    INSERT INTO daily_league_ladder (guild_id, month, position, user_id, display_name, built_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    (guild_id, month, position, user_id, name, now),
                )
        return True

    async def month_players(self, guild_id: int, first_day: str, last_day: str) -> list[tuple[int, str]]:
        """Everyone with an attempt in the server between the two days, in the order of their first attempt."""
        rows = await self._core.fetch_all(
            """
            SELECT user_id, MAX(display_name) AS display_name, MIN(started_at) AS first
            FROM daily_attempts WHERE guild_id = ? AND day >= ? AND day <= ?
            GROUP BY user_id ORDER BY first, user_id
            """,
            (guild_id, first_day, last_day),
        )
        return [(int(r["user_id"]), str(r["display_name"])) for r in rows]

    async def attempts_open_between(self, guild_id: int, first_day: str, last_day: str) -> bool:
        row = await self._core.fetch_one(
            """
            SELECT 1 AS open FROM daily_attempts
            WHERE guild_id = ? AND day >= ? AND day <= ? AND finished_at IS NULL LIMIT 1
            """,
            (guild_id, first_day, last_day),
        )
        return row is not None

    async def channels(self) -> list[tuple[int, int]]:
        """(guild, channel) of every server that chose a channel for the daily deal's results."""
        rows = await self._core.fetch_all("SELECT guild_id, channel_id FROM daily_channels ORDER BY guild_id")
        return [(int(r["guild_id"]), int(r["channel_id"])) for r in rows]

    async def claim_league_announcement(self, guild_id: int, month: str, now: int) -> bool:
        """Claim the post of the final standings of the month before ``month`` (whose ladder is built): False when
        it was posted, or is being posted, already."""
        async with self._core.transaction():
            return bool(
                await self._core.execute(
                    """
                    UPDATE daily_league_months SET announced_at = ?
                    WHERE guild_id = ? AND month = ? AND announced_at IS NULL
                    """,
                    (now, guild_id, month),
                )
            )

    async def release_league_announcement(self, guild_id: int, month: str) -> None:
        async with self._core.transaction():
            await self._core.execute(
                "UPDATE daily_league_months SET announced_at = NULL WHERE guild_id = ? AND month = ?", (guild_id, month)
            )
