import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from bot.db import Database, TableRow

CREATED_AT = 1_700_000_000

# What a broken constraint or a refusing trigger raises, on either engine.
INTEGRITY_ERRORS = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)

MakeTable = Callable[..., Awaitable[TableRow]]


class RecordingConnection:
    """Stands for the sqlite3 connection under aiosqlite: records each statement as it runs in aiosqlite's thread
    (statements sent together in one trip too). A statement named in ``fail`` meets its fault first, once: an
    exception is raised instead of the statement, a function is called before it (it may wait, or raise)."""

    def __init__(
        self, raw: sqlite3.Connection, sent: list[str], fail: dict[str, BaseException | Callable[[], None]]
    ) -> None:
        self.raw, self.sent, self.fail = raw, sent, fail

    def execute(self, sql: str, *parameters: Any) -> sqlite3.Cursor:
        self.sent.append(sql)
        if (fault := self.fail.pop(sql, None)) is not None:
            if isinstance(fault, BaseException):
                raise fault
            fault()
        return self.raw.execute(sql, *parameters)

    def executemany(self, sql: str, *parameters: Any) -> sqlite3.Cursor:
        self.sent.append(sql)
        return self.raw.executemany(sql, *parameters)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def watch_statements(
    db: Database, monkeypatch: pytest.MonkeyPatch, fail: dict[str, BaseException | Callable[[], None]]
) -> list[str]:
    """The SQLite write connection's statements as they run; a statement named in ``fail`` meets its fault (once,
    see `RecordingConnection`)."""
    sent: list[str] = []
    conn = db.core._conn  # type: ignore[attr-defined]
    monkeypatch.setattr(conn, "_connection", RecordingConnection(conn._connection, sent, fail))
    return sent


@pytest.fixture
def make_table(db: Database) -> MakeTable:
    """Open a lobby, created at `CREATED_AT` (unix seconds) with first dealer W."""

    async def make(channel_id: int = 500, guild_id: int = 1, host_id: int = 11) -> TableRow:
        return await db.tables.create_table(
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            rules_json='"standard"',
            deck="doppeldeutsch",
            turn_seconds=60,
            language="en",
            first_dealer=3,
            now=CREATED_AT,
        )

    return make


@pytest.fixture(params=["sqlite", "postgresql"])
def database_engine(request: pytest.FixtureRequest) -> str:
    """Every storage test runs on both engines."""
    return str(request.param)
