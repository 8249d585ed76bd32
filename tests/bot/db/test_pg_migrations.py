"""PostgreSQL's migrations: the same numbers and meaning as SQLite's, each applied whole or not at all,
tracked in schema_version, applied once when processes start together, and a newer schema refused."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import asyncpg
import pytest

from bot.db import MIGRATIONS_DIR, Database, MigrationError, SchemaTooNew
from bot.db.migrate import PG_MIGRATIONS_DIR, load_migrations
from bot.db.transfer import TABLES

LATEST = len(load_migrations(PG_MIGRATIONS_DIR, whole_files=True))
BROKEN_NEXT = """
CREATE TABLE half_done (id integer PRIMARY KEY);
ALTER TABLE game_tables ADD COLUMN note text;
INSERT INTO no_such_table VALUES (1);
"""


async def catalogue(url: str) -> tuple[int, list[tuple[str, str, str]]]:
    conn = await asyncpg.connect(url)
    try:
        version = await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version")
        columns = await conn.fetch(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, column_name"
        )
    finally:
        await conn.close()
    return int(version), [tuple(row) for row in columns]


def test_both_dialects_have_the_same_numbered_migrations() -> None:
    sqlite_names = [path.name for path in sorted(MIGRATIONS_DIR.glob("*.sql"))]
    assert [path.name for path in sorted(PG_MIGRATIONS_DIR.glob("*.sql"))] == sqlite_names
    assert LATEST == len(sqlite_names) >= 4


async def test_an_empty_database_gets_every_table_and_the_latest_version(pg_empty_url: str) -> None:
    await (await Database.open(pg_empty_url)).close()
    version, columns = await catalogue(pg_empty_url)
    assert version == LATEST
    assert set(TABLES) <= {table for table, _, _ in columns}


async def test_reopening_keeps_data_and_schema(pg_empty_url: str) -> None:
    db = await Database.open(pg_empty_url)
    await db.meta.set("kept", "yes")
    await db.close()
    before = await catalogue(pg_empty_url)
    db = await Database.open(pg_empty_url)
    assert await db.meta.get("kept") == "yes"
    await db.close()
    assert await catalogue(pg_empty_url) == before


async def test_processes_starting_together_apply_each_migration_once(pg_empty_url: str) -> None:
    opened = await asyncio.gather(*(Database.open(pg_empty_url) for _ in range(3)))
    for db in opened:
        await db.close()
    assert (await catalogue(pg_empty_url))[0] == LATEST


async def test_a_failed_migration_leaves_the_database_as_before(pg_empty_url: str, tmp_path: Path) -> None:
    await (await Database.open(pg_empty_url)).close()
    before = await catalogue(pg_empty_url)
    broken = tmp_path / "migrations"
    shutil.copytree(PG_MIGRATIONS_DIR, broken)
    (broken / f"{LATEST + 1:03d}-broken.sql").write_text(BROKEN_NEXT, encoding="utf-8")

    with pytest.raises(MigrationError, match=rf"{LATEST + 1:03d}-broken\.sql failed.*no_such_table"):
        await Database.open(pg_empty_url, migrations_dir=broken)

    assert await catalogue(pg_empty_url) == before


async def test_a_newer_schema_is_refused(pg_empty_url: str) -> None:
    await (await Database.open(pg_empty_url)).close()
    conn = await asyncpg.connect(pg_empty_url)
    await conn.execute("UPDATE schema_version SET version = 99")
    await conn.close()
    with pytest.raises(SchemaTooNew, match="version 99 is newer than this code knows"):
        await Database.open(pg_empty_url)


def test_transaction_control_in_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "001-sneaky.sql").write_text("CREATE TABLE a (x integer);\nCOMMIT;\n", encoding="utf-8")
    with pytest.raises(MigrationError, match="belong to the runner"):
        load_migrations(tmp_path, whole_files=True)


async def test_sign_ups_stored_before_migration_12_keep_the_order_they_were_read_in(
    pg_empty_url: str, tmp_path: Path
) -> None:
    """PostgreSQL has no row order of its own: existing sign-ups are numbered as they were read (by the second
    they were made, then the user id), and a new one comes after them."""
    earlier = tmp_path / "before-012"
    shutil.copytree(PG_MIGRATIONS_DIR, earlier)
    for later in earlier.glob("*.sql"):
        if int(later.name[:3]) >= 12:
            later.unlink()
    await (await Database.open(pg_empty_url, migrations_dir=earlier)).close()
    conn = await asyncpg.connect(pg_empty_url)
    try:
        tournament = await conn.fetchval(
            "INSERT INTO tournaments (guild_id, channel_id, organiser_id, name, format, swiss_rounds,"
            " bummerl_per_match, rules_json, turn_seconds, created_at, updated_at)"
            " VALUES (1, 2, 3, 'Cup', 'swiss', 3, 1, '{}', 60, 0, 0) RETURNING id"
        )
        for user, second in ((40, 8), (10, 9), (30, 7), (20, 8)):
            await conn.execute(
                "INSERT INTO tournament_signups (tournament_id, user_id, display_name, signed_at)"
                " VALUES ($1, $2, 'x', $3)",
                tournament, user, second,
            )
    finally:
        await conn.close()
    db = await Database.open(pg_empty_url)
    try:
        assert [s.user_id for s in await db.tournaments.signups(tournament)] == [30, 20, 40, 10]
        await db.tournaments.sign_up(tournament, 5, "new", None, now=1)
        assert [s.user_id for s in await db.tournaments.signups(tournament)] == [30, 20, 40, 10, 5]
    finally:
        await db.close()
