"""Copying a whole database from one engine to another (`python -m bot.copydata`), keeping every id.

Rows pass through in batches (`copy_all`'s `batch`): a table is never held in memory whole, so a large
actions table copies on a small machine."""

from __future__ import annotations

from collections.abc import Mapping

from .database import Database

# Every table the bot stores rows in, parents before children (foreign keys hold after each insert).
TABLES: tuple[str, ...] = (
    "meta",
    "guild_settings",
    "player_prefs",
    "game_tables",
    "seats",
    "deals",
    "actions",
    "deal_results",
    "bummerl_results",
    "player_stats",
    "team_tallies",
    "ratings",
    "rating_history",
    "outbox",
    "click_inbox",
    "daily_days",
    "daily_par",
    "daily_attempts",
    "daily_deals",
    "daily_hidden",
    "daily_channels",
    "daily_posts",
    "daily_league_months",
    "daily_league_ladder",
    # server tournaments (issue 30)
    "tournaments",
    "tournament_signups",
    "tournament_teams",
    "tournament_forbidden",
    "tournament_rounds",
    "tournament_matches",
    "tournament_log",
    "tournament_organiser_roles",
    # "Review my play" kept for the replay's marks (issue 36)
    "deal_reviews",
)
# The tables numbered by the database (SQLite AUTOINCREMENT, PostgreSQL identity), by their `id`.
NUMBERED: tuple[str, ...] = (
    "game_tables",
    "bummerl_results",
    "outbox",
    "click_inbox",
    "tournaments",
    "tournament_teams",
    "tournament_matches",
    "tournament_log",
)


async def row_counts(db: Database) -> dict[str, int]:
    counts: dict[str, int] = {}
    for table in TABLES:
        row = await db.core.fetch_one(f"SELECT COUNT(*) AS n FROM {table}")
        counts[table] = 0 if row is None else int(row["n"])
    return counts


async def copy_all(source: Database, target: Database, *, batch: int = 2000) -> Mapping[str, int]:
    """Copy every row of `source` into `target` in one transaction of the target, `batch` rows at a time
    (read and written in turn), then set the target's numbering past the highest id. Returns rows copied per
    table. The target should be empty."""
    copied: dict[str, int] = {}
    async with target.transaction():
        # Seats of closed tables are stored as they were; the trigger refusing them guards play, not a copy.
        # (DDL is transactional on both engines: the trigger is back at commit, or was never gone.)
        seats_trigger = None
        if target.dialect == "postgresql":
            await target.core.execute("ALTER TABLE seats DISABLE TRIGGER seats_not_at_closed_table")
        else:
            seats_trigger = await target.core.fetch_one(
                "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = 'seats_not_at_closed_table'"
            )
            await target.core.execute("DROP TRIGGER IF EXISTS seats_not_at_closed_table")
        for table in TABLES:
            copied[table] = 0
            insert = ""
            async for rows in source.core.fetch_batches(f"SELECT * FROM {table}", batch):
                if not insert:
                    columns = list(dict(rows[0]).keys())
                    # The seats' `table_open` mirror and the triggers are replayed as stored.
                    insert = (
                        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
                    )
                await target.core.execute_many(insert, [tuple(dict(row).values()) for row in rows])
                copied[table] += len(rows)
        if seats_trigger is not None:
            await target.core.execute(seats_trigger["sql"])
        if target.dialect == "postgresql":
            await target.core.execute("ALTER TABLE seats ENABLE TRIGGER seats_not_at_closed_table")
            for table in NUMBERED:
                # SQLite's AUTOINCREMENT follows explicit ids by itself; an identity column does not.
                await target.core.fetch_one(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL)"
                    f" FROM {table}"
                )
    return copied


async def clear_all(db: Database) -> None:
    """Delete every row (children first), inside the caller's transaction."""
    async with db.transaction():
        for table in reversed(TABLES):
            await db.core.execute(f"DELETE FROM {table}")
