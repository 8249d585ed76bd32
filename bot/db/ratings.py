"""Skill ratings per guild and their history (computed in bot/game/ratings.py; stored here)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .core import Repository
from .models import PlayerRating, RatingChange

REBUILD_PENDING = "ratings_rebuild_pending"  # meta key set by migration 003: ratings still to be computed


_INSERT_HISTORY = """
    INSERT INTO rating_history (bummerl_id, guild_id, player_id, mu_before, sigma_before, mu_after, sigma_after)
    VALUES (?, ?, ?, ?, ?, ?, ?)
"""


def _rating_row(guild_id: int, rating: PlayerRating) -> tuple[int, int, float, float, int]:
    return guild_id, rating.player_id, rating.mu, rating.sigma, rating.games


def _history_row(bummerl_id: int, guild_id: int, change: RatingChange) -> tuple[int, int, int, float, float, float, float]:
    before, after = change.before, change.after
    return bummerl_id, guild_id, change.player_id, before.mu, before.sigma, after.mu, after.sigma


class RatingsRepo(Repository):
    async def get_ratings(self, guild_id: int, player_ids: Iterable[int]) -> dict[int, PlayerRating]:
        """The players' ratings; a player never rated gets the initial rating."""
        wanted = sorted(set(player_ids))
        if not wanted:
            return {}  # PostgreSQL refuses an empty IN ()
        found = {
            int(row["player_id"]): PlayerRating(int(row["player_id"]), row["mu"], row["sigma"], row["games"])
            for row in await self._core.fetch_all(
                f"SELECT player_id, mu, sigma, games FROM ratings WHERE guild_id = ?"
                f" AND player_id IN ({', '.join('?' * len(wanted))})",
                (guild_id, *wanted),
            )
        }
        return {player_id: found.get(player_id, PlayerRating(player_id)) for player_id in wanted}

    async def store_rating_changes(self, guild_id: int, bummerl_id: int, changes: Sequence[RatingChange]) -> None:
        """The new ratings and one history row each for Bummerl ``bummerl_id``."""
        async with self._core.transaction():
            await self._core.execute_many(
                """
                INSERT INTO ratings (guild_id, player_id, mu, sigma, games) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (guild_id, player_id) DO UPDATE SET
                    mu = excluded.mu, sigma = excluded.sigma, games = excluded.games
                """,
                (_rating_row(guild_id, change.after) for change in changes),
            )
            await self._core.execute_many(_INSERT_HISTORY, (_history_row(bummerl_id, guild_id, c) for c in changes))

    async def store_rebuilt_ratings(
        self, final: Mapping[tuple[int, int], PlayerRating], history: Sequence[tuple[int, int, RatingChange]]
    ) -> None:
        """After ``clear_ratings``: every rating (by guild id and player id) and every history row (Bummerl id,
        guild id, change), written in bulk (a rebuild of thousands of Bummerl holds the write lock briefly)."""
        async with self._core.transaction():
            await self._core.execute_many(
                "INSERT INTO ratings (guild_id, player_id, mu, sigma, games) VALUES (?, ?, ?, ?, ?)",
                (_rating_row(guild_id, rating) for (guild_id, _), rating in final.items()),
            )
            await self._core.execute_many(_INSERT_HISTORY, (_history_row(*row) for row in history))

    async def clear_ratings(self) -> None:
        """Forget every rating and its history, and that a rebuild is pending (a rebuild starts with this, in
        its transaction)."""
        async with self._core.transaction():
            await self._core.execute("DELETE FROM rating_history")
            await self._core.execute("DELETE FROM ratings")
            await self._core.execute("DELETE FROM meta WHERE key = ?", (REBUILD_PENDING,))

    async def rating_history(self, guild_id: int, player_id: int, limit: int) -> list[tuple[int, float, float]]:
        """The player's last ``limit`` rated Bummerl as (Bummerl id, mu after, sigma after), oldest first."""
        rows = await self._core.fetch_all(
            """
            SELECT bummerl_id, mu_after, sigma_after FROM rating_history
            WHERE guild_id = ? AND player_id = ? ORDER BY bummerl_id DESC LIMIT ?
            """,
            (guild_id, player_id, limit),
        )
        return [(int(row["bummerl_id"]), row["mu_after"], row["sigma_after"]) for row in reversed(rows)]

    async def all_ratings(self) -> list[tuple[int, PlayerRating]]:
        """Every (guild id, rating), for comparing a rebuild with what was stored incrementally."""
        rows = await self._core.fetch_all("SELECT * FROM ratings ORDER BY guild_id, player_id")
        return [(int(r["guild_id"]), PlayerRating(r["player_id"], r["mu"], r["sigma"], r["games"])) for r in rows]

    async def has_rated_person(self, guild_id: int, min_games: int) -> bool:
        """Does some person (not an AI identity) of the guild have at least ``min_games`` rated Bummerl?"""
        row = await self._core.fetch_one(
            "SELECT EXISTS (SELECT 1 FROM ratings WHERE guild_id = ? AND player_id > 0 AND games >= ?) AS any_",
            (guild_id, min_games),
        )
        return row is not None and bool(row["any_"])
