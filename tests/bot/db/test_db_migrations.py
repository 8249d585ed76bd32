import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.db import MIGRATIONS_DIR, Database, MigrationError, SchemaTooNew
from bot.db.migrate import load_migrations, split_statements


def schema_of(path: Path) -> tuple[int, list[tuple[str, ...]]]:
    with sqlite3.connect(path) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        schema = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name").fetchall()
    conn.close()
    return version, schema


def table_names(path: Path) -> set[str]:
    return {row[1] for row in schema_of(path)[1] if row[0] == "table"}


def migrations_with(tmp_path: Path, **extra: str) -> Path:
    """A copy of the real migrations plus extra files (name -> SQL)."""
    directory = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, directory)
    for name, sql in extra.items():
        (directory / name).write_text(sql, encoding="utf-8")
    return directory


LATEST = len(list(MIGRATIONS_DIR.glob("*.sql")))
NEXT = f"{LATEST + 1:03d}"  # the number the next migration file takes
BROKEN_NEXT = """
CREATE TABLE half_done (id INTEGER PRIMARY KEY);
ALTER TABLE game_tables ADD COLUMN note TEXT;
INSERT INTO no_such_table VALUES (1);
"""


async def test_migrates_an_empty_database_to_the_number_of_files(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path)
    await db.close()
    version, _ = schema_of(path)
    assert version == len(list(MIGRATIONS_DIR.glob("*.sql"))) >= 1
    assert {"guild_settings", "game_tables", "seats", "deals", "actions", "deal_results", "bummerl_results",
            "player_stats", "team_tallies", "meta"} <= table_names(path)


async def test_reopening_is_idempotent_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path)
    await db.meta.set("commands", "abc")
    await db.close()
    before = schema_of(path)
    db = await Database.open(path)
    assert await db.meta.get("commands") == "abc"
    await db.close()
    assert schema_of(path) == before


async def test_wal_and_foreign_keys_are_on(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path)
    try:
        # Connection-level settings can only be read on the connection itself.
        rows = await db.core._conn.execute_fetchall("PRAGMA foreign_keys")
        assert next(iter(rows))[0] == 1
    finally:
        await db.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


async def test_a_failed_migration_leaves_the_database_exactly_as_before(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path)  # the latest version with the real migrations
    await db.close()
    before = schema_of(path)

    broken = migrations_with(tmp_path, **{f"{NEXT}-broken.sql": BROKEN_NEXT})
    with pytest.raises(MigrationError, match=rf"{NEXT}-broken\.sql failed at statement 3.*no such table"):
        await Database.open(path, migrations_dir=broken)

    assert schema_of(path) == before
    assert "half_done" not in table_names(path)


async def test_migrations_before_the_failed_one_stay_applied(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    broken = migrations_with(tmp_path, **{f"{NEXT}-broken.sql": BROKEN_NEXT})
    with pytest.raises(MigrationError):
        await Database.open(path, migrations_dir=broken)
    version, _ = schema_of(path)
    assert version == LATEST
    assert "game_tables" in table_names(path)
    assert "half_done" not in table_names(path)


async def test_a_new_migration_applies_on_top(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    db = await Database.open(path)
    await db.meta.set("kept", "yes")
    await db.close()
    directory = migrations_with(tmp_path, **{f"{NEXT}-notes.sql": "CREATE TABLE notes (id INTEGER PRIMARY KEY);"})
    db = await Database.open(path, migrations_dir=directory)
    assert await db.meta.get("kept") == "yes"
    await db.close()
    assert schema_of(path)[0] == LATEST + 1
    assert "notes" in table_names(path)


async def test_sign_ups_stored_before_their_order_was_kept_keep_the_order_they_were_made_in(tmp_path: Path) -> None:
    """Migration 012: sign-ups made within one second by people whose ids run the other way are read back in
    the order they were made (their rowids), as they were not before."""
    path, earlier = tmp_path / "bot.db", tmp_path / "before-012"
    shutil.copytree(MIGRATIONS_DIR, earlier)
    for later in earlier.glob("*.sql"):
        if int(later.name[:3]) >= 12:
            later.unlink()
    await (await Database.open(path, migrations_dir=earlier)).close()
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(
            "INSERT INTO tournaments (guild_id, channel_id, organiser_id, name, format, swiss_rounds,"
            " bummerl_per_match, rules_json, turn_seconds, created_at, updated_at)"
            " VALUES (1, 2, 3, 'Cup', 'swiss', 3, 1, '{\"preset\": \"standard\"}', 60, 0, 0)"
        )
        for user in (40, 10, 30, 20):
            conn.execute(
                "INSERT INTO tournament_signups (tournament_id, user_id, display_name, signed_at) VALUES (1, ?, 'x', 7)",
                (user,),
            )
    db = await Database.open(path)
    try:
        assert [s.user_id for s in await db.tournaments.signups(1)] == [40, 10, 30, 20]
        await db.tournaments.sign_up(1, 5, "new", None, now=7)
        assert [s.user_id for s in await db.tournaments.signups(1)] == [40, 10, 30, 20, 5]
    finally:
        await db.close()


async def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(SchemaTooNew, match="version 99 is newer than this code knows") as caught:
        await Database.open(path)
    assert caught.value.database_version == 99
    assert schema_of(path)[0] == 99


def test_statements_split_at_their_real_ends() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    /* block; comment */ CREATE TRIGGER t_guard BEFORE INSERT ON t
    BEGIN
        SELECT RAISE(ABORT, 'no; way');
    END;
    INSERT INTO t VALUES ('1'); INSERT INTO t VALUES ('2');
    -- trailing comment
    """
    statements = split_statements(script)
    assert len(statements) == 4
    assert statements[1].endswith("END;") and "RAISE(ABORT, 'no; way');" in statements[1]
    assert statements[3] == "INSERT INTO t VALUES ('2');"


def test_an_unfinished_statement_is_an_error() -> None:
    with pytest.raises(MigrationError, match="incomplete statement"):
        split_statements("CREATE TABLE t (x); CREATE TABLE u (y)", "003-x.sql")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({f"{LATEST + 2:03d}-gap.sql": "SELECT 1;"}, f"expected migration number {NEXT}"),
        ({"2-short.sql": "SELECT 1;"}, "named NNN-name.sql"),
        ({f"{NEXT}-own-tx.sql": "BEGIN; CREATE TABLE x (y); COMMIT;"}, "transaction control"),
        ({f"{NEXT}-version.sql": "PRAGMA user_version = 7;"}, "transaction control"),
    ],
)
def test_malformed_migration_folders_are_refused(tmp_path: Path, files: dict[str, str], message: str) -> None:
    with pytest.raises(MigrationError, match=message):
        load_migrations(migrations_with(tmp_path, **files))
