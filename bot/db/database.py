"""`Database`: the one object the bot uses for storage, on SQLite (the default) or PostgreSQL: an engine's core
(the connection and its transactions) and one repository per concern over it (`db.tables`, `db.records`, ...)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Self

from .core import DatabaseCore
from .daily import DailyRepo
from .inbox import ClickInboxRepo
from .meta import MetaRepo
from .outbox import OutboxRepo
from .prefs import PlayerPrefsRepo
from .privacy import PrivacyRepo
from .profile import ProfileRepo
from .ratings import RatingsRepo
from .records import RecordsRepo
from .retention import RetentionRepo
from .reviews import ReviewsRepo
from .seats import SeatsRepo
from .settings import GuildSettingsRepo
from .sqlite import SqliteCore
from .stats import StatsRepo
from .tables import TablesRepo
from .tournament_controls import TournamentControlsRepo
from .tournaments import TournamentsRepo
from .web import WebRepo


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


class Database:
    """Open with `await Database.open(path_or_url)`, close with `await db.close()`.

    Each concern of storage is a repository attribute: `db.tables` (card tables), `db.seats`, `db.records`
    (deals and actions), `db.stats` (Bummerl, statistics, tallies, leaderboard), `db.ratings`, `db.outbox`,
    `db.inbox` (clicks handed between processes), `db.settings` (per guild), `db.prefs` (per person),
    `db.profile`, `db.privacy`, `db.retention`, `db.meta` and `db.daily` (the daily deal). Every method takes and returns plain values. Each
    write method runs in its own transaction, or joins the caller's: `async with db.transaction(): ...` makes
    several calls, of any repositories, one atomic change. The engine (`db.core`: `SqliteCore` or
    `PostgresCore`) is decided by what the database is opened on; callers never need to know.
    """

    def __init__(self, core: DatabaseCore) -> None:
        self.core = core
        self.tables = TablesRepo(core)
        self.seats = SeatsRepo(core)
        self.records = RecordsRepo(core)
        self.stats = StatsRepo(core)
        self.ratings = RatingsRepo(core)
        self.outbox = OutboxRepo(core)
        self.inbox = ClickInboxRepo(core)
        self.settings = GuildSettingsRepo(core)
        self.prefs = PlayerPrefsRepo(core)
        self.profile = ProfileRepo(core)
        self.privacy = PrivacyRepo(core)
        self.retention = RetentionRepo(core)
        self.meta = MetaRepo(core)
        self.daily = DailyRepo(core)
        self.tournaments = TournamentsRepo(core)  # server tournaments (issue 30)
        self.tournament_controls = TournamentControlsRepo(core)  # their organiser's controls
        self.web = WebRepo(core)  # what only the web pages ask (docs/web.md)
        self.reviews = ReviewsRepo(core)  # "Review my play" kept for the replay's marks

    @classmethod
    async def open(
        cls,
        target: str | os.PathLike[str],
        *,
        migrations_dir: Path | None = None,
        busy_timeout_ms: int = 5000,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        connect_timeout: float = 60.0,
    ) -> Self:
        """Connect and apply any pending migrations. `synchronous` and `busy_timeout_ms` are SQLite's; a
        PostgreSQL server keeps its own durability settings (`synchronous_commit`), and must accept a
        connection within `connect_timeout` seconds."""
        url = parse_database_url(target)
        core: DatabaseCore
        if url.dialect == "postgresql":
            # Imported here: the PostgreSQL driver is needed only by those who use PostgreSQL.
            from .postgres import PostgresCore

            if migrations_dir is None:
                core = await PostgresCore.connect(url.dsn, connect_timeout=connect_timeout)
            else:
                core = await PostgresCore.connect(
                    url.dsn, migrations_dir=migrations_dir, connect_timeout=connect_timeout
                )
        elif migrations_dir is None:
            core = await SqliteCore.connect(url.path, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous)
        else:
            core = await SqliteCore.connect(
                url.path, migrations_dir=migrations_dir, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous
            )
        return cls(core)

    @property
    def dialect(self) -> str:
        """The engine: "sqlite" or "postgresql"."""
        return self.core.dialect

    def transaction(self, *, guild_id: int | None = None) -> AbstractAsyncContextManager[None]:
        """A write transaction joining any repository calls made inside it (see `DatabaseCore.transaction`)."""
        return self.core.transaction(guild_id=guild_id)

    async def notify_now(self, channel: str, payload: str) -> None:
        """Wake the listeners of `channel` at once, outside any transaction (see `DatabaseCore.notify_now`)."""
        await self.core.notify_now(channel, payload)

    async def listen(
        self, channel: str, on_notice: Callable[[str], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None:
        """Notifications on `channel` until the returned function is awaited (see `DatabaseCore.listen`)."""
        return await self.core.listen(channel, on_notice, on_lost)

    async def close(self) -> None:
        await self.core.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
