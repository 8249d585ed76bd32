"""The SQLite engine: one aiosqlite connection, its transactions and its faults (the default engine)."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal, Self, cast

import aiosqlite

from .core import DatabaseCore, Row, check_joinable
from .migrate import MIGRATIONS_DIR, apply_migrations

log = logging.getLogger(__name__)


class SqliteCore(DatabaseCore):
    """One aiosqlite connection shared by the whole bot.

    The connection runs in autocommit mode and every write goes through `transaction()`. An asyncio lock
    gives one task at a time the connection, so a task's reads never see another task's unfinished writes.
    Inside a transaction the owning task may call any repository method (they join it); it must not
    await *another* task that uses the database, or both wait for each other.

    Repository methods check before they write, so a typed `StorageError` raised inside an outer
    transaction has written nothing; the caller may catch it and carry on.
    """

    dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None  # the task holding the connection
        self._writing = False  # the owner is inside transaction()
        self._guild_id: int | None = None  # the owner's transaction is confined to this guild
        # The last transaction ended abnormally (a failed ROLLBACK, a cancellation while BEGIN, COMMIT or
        # ROLLBACK ran in aiosqlite's thread): the connection may still be inside it. Checked before next use.
        self._unsettled = False

    @classmethod
    async def connect(
        cls,
        path: str | os.PathLike[str],
        *,
        migrations_dir: Path = MIGRATIONS_DIR,
        busy_timeout_ms: int = 5000,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    ) -> Self:
        """Connect, switch to WAL with foreign keys on, and apply any pending migrations.

        With WAL, `synchronous=NORMAL` survives any crash of the bot process; only a power cut or an OS
        crash may lose the last commits. `FULL` also survives those, at about 1.5 ms more per commit.
        """
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be NORMAL or FULL, not {synchronous!r}")
        conn = await aiosqlite.connect(os.fspath(path), isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute(f"PRAGMA synchronous = {synchronous}")
            # WAL is a property of the file: set it once, not on every start.
            (mode,) = next(iter(await conn.execute_fetchall("PRAGMA journal_mode")))
            if mode != "wal":
                await conn.execute("PRAGMA journal_mode = WAL")
            await apply_migrations(conn, migrations_dir)
        except BaseException:
            await conn.close()
            raise
        return cls(conn)

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    @asynccontextmanager
    async def transaction(self, *, guild_id: int | None = None) -> AsyncIterator[None]:
        """`BEGIN IMMEDIATE` ... `COMMIT`, or `ROLLBACK` when the block raises. One connection runs one
        transaction at a time, so `guild_id` only holds the block to its promise (see `DatabaseCore`).

        Nested in a transaction of the same task it simply joins it: the outermost block commits.

        Faults leave the connection usable: when COMMIT fails (a full disk, an I/O error) the transaction is
        rolled back and the COMMIT's error raised; when that ROLLBACK fails too, or the task is cancelled
        while BEGIN, COMMIT or ROLLBACK runs in aiosqlite's thread, the next use of the connection rolls back
        whatever was left open (logged at ERROR). A task cancelled during COMMIT gets `CancelledError`, yet
        the thread may still have committed: the write is then stored, as if the cancellation came later.
        """
        if self._owner is asyncio.current_task():
            check_joinable(self._writing, self._guild_id, guild_id)
            yield
            return
        async with self._lock:
            self._owner = asyncio.current_task()
            self._writing = True
            self._guild_id = guild_id
            try:
                await self._settle()
                try:
                    await self._conn.execute("BEGIN IMMEDIATE")
                    yield
                    await self._conn.execute("COMMIT")
                except BaseException as err:
                    await self._abandon(err)
                    raise
            finally:
                self._owner = None
                self._writing = False
                self._guild_id = None

    async def _abandon(self, err: BaseException) -> None:
        """Roll back after `err` ended a transaction; never replaces `err` by a follow-up error."""
        # After a cancellation the statement may still be running in the thread: `in_transaction` is not
        # known yet. A ROLLBACK queued behind it settles the question either way.
        cancelled = isinstance(err, asyncio.CancelledError)
        self._unsettled = True
        if cancelled or self._conn.in_transaction:
            try:
                await self._conn.execute("ROLLBACK")
            except Exception as rollback_err:  # never hide `err` behind it
                if self._conn.in_transaction:
                    log.error("ROLLBACK after %r failed: %s; retried before the next use", err, rollback_err)
                    return
        self._unsettled = self._conn.in_transaction

    async def _settle(self) -> None:
        """Roll back a transaction a fault left open, before the connection is used again."""
        if not (self._unsettled or self._conn.in_transaction):
            return
        if self._unsettled:
            # A statement of the abandoned transaction may still be queued in the thread: wait for it.
            await self._conn.execute("SELECT 1")
        if self._conn.in_transaction:
            log.error("a transaction left open by an earlier fault is rolled back before the next use")
            await self._conn.execute("ROLLBACK")
        self._unsettled = False

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[None]:
        """Hold the connection for a few consistent reads (already held inside this task's transaction)."""
        if self._owner is asyncio.current_task():
            yield
            return
        async with self._lock:
            self._owner = asyncio.current_task()
            try:
                await self._settle()
                yield
            finally:
                self._owner = None

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        async with self.reading():
            return cast(list[Row], list(await self._conn.execute_fetchall(sql, tuple(params))))

    async def fetch_batches(self, sql: str, size: int) -> AsyncIterator[list[Row]]:
        async with self.reading():
            cursor = await self._conn.execute(sql)
            try:
                while rows := await cursor.fetchmany(size):
                    yield cast(list[Row], list(rows))
            finally:
                await cursor.close()

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one write inside the current transaction; returns the number of rows changed."""
        if not (self._writing and self._owner is asyncio.current_task()):
            raise RuntimeError("database writes run inside `async with db.transaction():`")
        # The cursor is left to the garbage collector: closing it would cost another trip to the thread.
        cursor = await self._conn.execute(sql, tuple(params))
        return cursor.rowcount

    async def execute_many(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        """Run one write for each of many rows inside the current transaction, in one trip to the thread."""
        if not (self._writing and self._owner is asyncio.current_task()):
            raise RuntimeError("database writes run inside `async with db.transaction():`")
        await self._conn.executemany(sql, [tuple(row) for row in rows])

    async def next_id_hint(self, table: str) -> int:
        row = await self.fetch_one("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
        return 1 if row is None else int(row["seq"]) + 1

    @asynccontextmanager
    async def statement_savepoint(self) -> AsyncIterator[None]:
        yield  # a failed statement leaves SQLite's transaction as it was before the statement

    def violated(self, err: BaseException) -> str | None:
        if not isinstance(err, sqlite3.IntegrityError):
            return None
        text = str(err)
        return "unique" if "UNIQUE" in text else "foreign_key" if "FOREIGN KEY" in text else "other"
