"""Numbered SQL migrations: SQLite's tracked with `PRAGMA user_version`, PostgreSQL's in `schema_version`.

`migrations/NNN-name.sql` holds schema statements only. The runner applies each file inside its own
`BEGIN IMMEDIATE ... COMMIT` together with the new `user_version`, so a file is applied completely or not at
all. (`executescript` would commit on its own, which is why statements are split and run one by one.)
Statements run inside a transaction, so `PRAGMA foreign_keys` cannot be switched in a migration.

PostgreSQL has its own files with the same numbers and meaning in `migrations/postgresql/`; each is run whole
(PL/pgSQL bodies hold semicolons) in one transaction that also sets the one row of `schema_version`, under an
advisory lock so that processes starting together apply it once.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from .errors import MigrationError, SchemaTooNew

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
PG_MIGRATIONS_DIR = MIGRATIONS_DIR / "postgresql"
MIGRATION_LOCK_KEY = 0x5C4A_9E25_0002  # pg_advisory_xact_lock key while migrating

_FILE_NAME = re.compile(r"^(?P<number>\d{3})-[a-z0-9_-]+\.sql$")
_LEADING_COMMENTS = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.DOTALL)
# Statements that would end or nest the runner's transaction, or set the version behind its back.
_FORBIDDEN = re.compile(
    r"(?:BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|VACUUM|PRAGMA\s+user_version)\b", re.IGNORECASE
)


_PG_FORBIDDEN = re.compile(
    r"^\s*(?:BEGIN\s*;|COMMIT|ROLLBACK|START\s+TRANSACTION|SAVEPOINT|RELEASE)\b|\bschema_version\b",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


def split_statements(script: str, name: str = "<script>") -> list[str]:
    """Split an SQL script into complete statements (semicolons in strings, comments and triggers kept)."""
    statements: list[str] = []
    pending = ""
    *terminated, tail = script.split(";")
    for piece in terminated:
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if _strip_leading_comments(pending) != ";":
                statements.append(pending.strip())
            pending = ""
    leftover = _strip_leading_comments(pending + tail)
    if leftover:
        raise MigrationError(f"{name}: incomplete statement at the end: {leftover[:60]!r}")
    return statements


def _strip_leading_comments(sql: str) -> str:
    return _LEADING_COMMENTS.sub("", sql, count=1)


def load_migrations(directory: Path = MIGRATIONS_DIR, *, whole_files: bool = False) -> list[Migration]:
    """Read and check every migration file; numbers must run 001, 002, ... without gaps. `whole_files`:
    each file is one script (PostgreSQL's), checked for transaction control line by line."""
    migrations: list[Migration] = []
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise MigrationError(f"{path.name}: migration files are named NNN-name.sql")
        version = int(match["number"])
        if version != len(migrations) + 1:
            raise MigrationError(f"{path.name}: expected migration number {len(migrations) + 1:03d}")
        script = path.read_text(encoding="utf-8")
        if whole_files:
            if _PG_FORBIDDEN.search(script):
                raise MigrationError(f"{path.name}: transaction control and schema_version belong to the runner")
            migrations.append(Migration(version, path.name, (script,)))
            continue
        statements = split_statements(script, path.name)
        for statement in statements:
            if _FORBIDDEN.match(_strip_leading_comments(statement)):
                raise MigrationError(
                    f"{path.name}: transaction control and user_version belong to the runner: "
                    f"{statement[:60]!r}"
                )
        migrations.append(Migration(version, path.name, tuple(statements)))
    return migrations


async def user_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def apply_migrations(conn: aiosqlite.Connection, directory: Path = MIGRATIONS_DIR) -> int:
    """Bring the database up to the newest migration; returns the resulting version.

    `conn` must be in autocommit mode (`isolation_level=None`) so that the runner owns the transactions.
    """
    migrations = load_migrations(directory)
    known = len(migrations)
    current = await user_version(conn)
    if current > known:
        raise SchemaTooNew(current, known)
    for migration in migrations[current:]:
        await _apply_one(conn, migration)
    return known


async def _apply_one(conn: aiosqlite.Connection, migration: Migration) -> None:
    await conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have applied it while we waited for the write lock.
        if await user_version(conn) >= migration.version:
            await conn.execute("ROLLBACK")
            return
        for index, statement in enumerate(migration.statements, start=1):
            try:
                await conn.execute(statement)
            except sqlite3.Error as err:
                raise MigrationError(
                    f"migration {migration.name} failed at statement {index} ({err}); "
                    f"the database is unchanged by it: {statement[:80]!r}"
                ) from err
        violations = list(await conn.execute_fetchall("PRAGMA foreign_key_check"))
        if violations:
            broken = [tuple(row) for row in violations[:3]]
            raise MigrationError(f"migration {migration.name} leaves foreign keys broken: {broken}")
        await conn.execute(f"PRAGMA user_version = {migration.version:d}")
        await conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            await conn.execute("ROLLBACK")
        raise


async def pg_schema_version(conn: Any) -> int:
    """The version of a PostgreSQL database (0: no migration applied yet). `conn` is an asyncpg connection."""
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))


async def apply_pg_migrations(conn: Any, directory: Path = PG_MIGRATIONS_DIR) -> int:
    """PostgreSQL's `apply_migrations`: each pending file in its own transaction; refuses a newer schema."""
    import asyncpg  # only a PostgreSQL database needs the driver

    migrations = load_migrations(directory, whole_files=True)
    known = len(migrations)
    current = await pg_schema_version(conn)
    if current > known:
        raise SchemaTooNew(current, known)
    for migration in migrations[current:]:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK_KEY)
            # Another process may have applied it while we waited for the lock.
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)")
            if await pg_schema_version(conn) >= migration.version:
                continue
            try:
                await conn.execute(migration.statements[0])
            except asyncpg.PostgresError as err:
                raise MigrationError(
                    f"migration {migration.name} failed ({type(err).__name__}: {err}); "
                    "the database is unchanged by it"
                ) from err
            await conn.execute("DELETE FROM schema_version")
            await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", migration.version)
    return known
