"""`Database`: the one object the bot uses for storage, on SQLite (the default) or PostgreSQL."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .inbox import ClickInboxRepo
from .outbox import OutboxRepo
from .prefs import PlayerPrefsRepo
from .profile import ProfileRepo
from .ratings import RatingsRepo
from .records import RecordsRepo
from .retention import RetentionRepo
from .settings import GuildSettingsRepo
from .sqlite import SqliteCore
from .stats import StatsRepo
from .tables import TablesRepo


@dataclass(frozen=True, slots=True)
class DatabaseUrl:
    """Where the data lives: `dialect` "sqlite" with a file `path`, or "postgresql" with a `dsn`."""

    dialect: Literal["sqlite", "postgresql"]
    path: str = ""
    dsn: str = ""


def parse_database_url(target: str | os.PathLike[str]) -> DatabaseUrl:
    """A file path, `sqlite:///path` (`sqlite:////abs/path` for an absolute one) or `postgresql://...`.

    >>> parse_database_url("schnapsen.sqlite3")
    DatabaseUrl(dialect='sqlite', path='schnapsen.sqlite3', dsn='')
    >>> parse_database_url("sqlite:///data/bot.sqlite3").path
    'data/bot.sqlite3'
    >>> parse_database_url("postgres://bot@db/schnapsen").dialect
    'postgresql'
    """
    text = os.fspath(target)
    if text.startswith(("postgresql://", "postgres://")):
        return DatabaseUrl("postgresql", dsn=text)
    if text.startswith("sqlite://"):
        path = text.removeprefix("sqlite://").removeprefix("/")
        if not path:
            raise ValueError(f"{text!r} names no file: write sqlite:///relative/path or sqlite:////absolute/path")
        return DatabaseUrl("sqlite", path=path)
    if "://" in text:
        raise ValueError(f"{text!r}: a database is a file path, sqlite:///path or postgresql://...")
    return DatabaseUrl("sqlite", path=text)


class Database(
    GuildSettingsRepo, TablesRepo, RecordsRepo, StatsRepo, RatingsRepo, OutboxRepo, RetentionRepo, ProfileRepo,
    PlayerPrefsRepo, ClickInboxRepo,
):
    """Open with `await Database.open(path_or_url)`, close with `await db.close()`.

    Every method takes and returns plain values. Each write method runs in its own transaction, or joins
    the caller's: `async with db.transaction(): ...` makes several calls one atomic change. What an object
    is opened on decides its engine (`SqliteDatabase` or `PostgresDatabase`); callers never need to know.
    """

    @classmethod
    async def open(
        cls,
        target: str | os.PathLike[str],
        *,
        migrations_dir: Path | None = None,
        busy_timeout_ms: int = 5000,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        connect_timeout: float = 60.0,
    ) -> Database:
        """Connect and apply any pending migrations. `synchronous` and `busy_timeout_ms` are SQLite's; a
        PostgreSQL server keeps its own durability settings (`synchronous_commit`), and must accept a
        connection within `connect_timeout` seconds."""
        url = parse_database_url(target)
        if url.dialect == "postgresql":
            # Imported here: the PostgreSQL driver is needed only by those who use PostgreSQL.
            from .postgres_database import PostgresDatabase

            if migrations_dir is None:
                return await PostgresDatabase.connect(url.dsn, connect_timeout=connect_timeout)
            return await PostgresDatabase.connect(
                url.dsn, migrations_dir=migrations_dir, connect_timeout=connect_timeout
            )
        if migrations_dir is None:
            return await SqliteDatabase.connect(url.path, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous)
        return await SqliteDatabase.connect(
            url.path, migrations_dir=migrations_dir, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous
        )


class SqliteDatabase(SqliteCore, Database):
    """The bot's storage in one SQLite file."""
