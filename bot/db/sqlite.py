"""The SQLite engine: one aiosqlite connection, its transactions and its faults (the default engine)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal, Self, cast

import aiosqlite

from .core import DatabaseCore, Row, check_joinable
from .migrate import MIGRATIONS_DIR, apply_migrations
from .sqlite_trips import (
    BEGIN,
    RELEASE,
    SAVEPOINT,
    BatchFailed,
    DueFailed,
    StatementKind,
    run_alone,
    run_statement,
)

log = logging.getLogger(__name__)


# Group commit: a transaction that ends while other writers wait for the connection leaves its batch open for
# them (its changes are kept by a savepoint of its own), and one COMMIT, one sync of the disk, stores them all.
# Nobody is told "stored" before that COMMIT: each transaction() returns only once its batch is committed.
# A batch is committed when no writer waits, or once it holds BATCH_MOST transactions or is BATCH_SECONDS old:
# the first of a batch never waits long for the others.
BATCH_MOST = 16
BATCH_SECONDS = 0.02

# Each statement is a trip to aiosqlite's thread, and each trip's answer waits for a turn of the event loop, which
# under load is most of a transaction's time on the write connection (that all writers queue for). So the
# statements that only frame a block wait and go with the next statement sent: a batch's BEGIN and a member's
# SAVEPOINT with the block's first statement, a member's RELEASE with the next member's first statement or with
# the batch's COMMIT. A block of one statement (a hand message stored) is then one trip, and a batch one more for
# its COMMIT. It needs aiosqlite's way to run a function in its thread (``Connection._execute``, there since aiosqlite
# 0.1); without it the statements go one by one.
TRIPS_SHARED = hasattr(aiosqlite.Connection, "_execute")

# A write known in full before it starts (a click's move: `fetch_chain_alone`) holds the write connection for no
# turn of the event loop: one trip carries the open batch's framing, the write in a savepoint of its own and the
# batch's COMMIT, and it is queued at once, in order with every other trip. The writers queued for the connection
# then follow one another without waiting for the loop between them (under load most of a click's "stored" time).
# It is queued on aiosqlite's queue of trips (``Connection._tx``, there since 0.20) because ``_execute`` queues
# only once its coroutine runs, a turn of the loop too late to keep that order.


class SqliteCore(DatabaseCore):
    """One aiosqlite connection for the bot's writes, and one for reads beside it.

    The write connection runs in autocommit mode and every write goes through `transaction()`. An asyncio lock
    gives one task at a time the write connection. Inside a transaction the owning task may call any
    repository method (they join it, and read through the write connection, seeing their own writes); it must
    not await *another* task that uses the database, or both wait for each other.

    Transactions that queue for the write lock are committed together (group commit, `BATCH_MOST`): each runs
    in a savepoint of the batch, so one that fails undoes only its own writes, and each returns only after the
    batch's COMMIT, so nothing is acknowledged before it is on disk. A batch whose COMMIT fails fails all of its
    transactions: none of them is stored.

    Reads outside a transaction go through the read connection (WAL lets it read beside the writer): they see
    only committed data, never a batch still open, and never wait behind a commit's sync. A file that is not
    in WAL mode (an in-memory database) has no read connection: reads then take the write lock, after the open
    batch is committed.

    Repository methods check before they write, so a typed `StorageError` raised inside an outer
    transaction has written nothing; the caller may catch it and carry on.
    """

    dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, reader: aiosqlite.Connection | None = None) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None  # the task holding the write connection
        self._writing = False  # the owner is inside transaction()
        self._guild_id: int | None = None  # the owner's transaction is confined to this guild
        # The last transaction ended abnormally (a failed ROLLBACK, a cancellation while BEGIN, COMMIT or
        # ROLLBACK ran in aiosqlite's thread): the connection may still be inside it. Checked before next use.
        self._unsettled = False
        self._batch: _Batch | None = None  # the transactions whose COMMIT is still to come
        # Framing statements (BEGIN, RELEASE, SAVEPOINT) still to be sent, in order, before the next statement.
        self._due: list[str] = []
        # A due statement failed: the batch's savepoints are no longer known, so only a rollback of it all is safe.
        self._due_failed = False
        self._writers_waiting = 0  # tasks queued for the write lock in transaction()
        self._flush_queued = False  # a task is queued to commit the open batch (`_flush`)
        self._alone_in_flight = 0  # trips of `fetch_chain_alone` queued and not yet back
        self._reader = reader
        self._read_lock = asyncio.Lock()
        self._reader_owner: asyncio.Task[Any] | None = (
            None  # the task inside reading() on the read connection
        )

    @classmethod
    async def connect(
        cls,
        path: str | os.PathLike[str],
        *,
        migrations_dir: Path = MIGRATIONS_DIR,
        busy_timeout_ms: int = 5000,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    ) -> Self:
        """Connect, switch to WAL with foreign keys on, apply any pending migrations, and open the read
        connection.

        With WAL, `synchronous=NORMAL` survives any crash of the bot process; only a power cut or an OS
        crash may lose the last commits. `FULL` also survives those, at one sync of the disk per COMMIT (shared
        by the transactions of a batch).
        """
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be NORMAL or FULL, not {synchronous!r}")
        conn = await aiosqlite.connect(os.fspath(path), isolation_level=None)
        reader: aiosqlite.Connection | None = None
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute(f"PRAGMA synchronous = {synchronous}")
            # WAL is a property of the file: set it once, not on every start.
            (mode,) = next(iter(await conn.execute_fetchall("PRAGMA journal_mode")))
            if mode != "wal":
                (mode,) = next(iter(await conn.execute_fetchall("PRAGMA journal_mode = WAL")))
            await apply_migrations(conn, migrations_dir)
            if mode == "wal":
                reader = await aiosqlite.connect(os.fspath(path), isolation_level=None)
                reader.row_factory = sqlite3.Row
                await reader.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                await reader.execute("PRAGMA query_only = ON")
        except BaseException:
            if reader is not None:
                await reader.close()
            await conn.close()
            raise
        return cls(conn, reader)

    async def close(self) -> None:
        async with self._lock:
            if self._batch is not None:
                with contextlib.suppress(BaseException):  # its members get the error
                    await self._commit_batch()
            await self._conn.close()
        if self._reader is not None:
            async with self._read_lock:
                await self._reader.close()

    @asynccontextmanager
    async def transaction(self, *, guild_id: int | None = None) -> AsyncIterator[None]:
        """A write transaction: a savepoint of the open batch (`BEGIN IMMEDIATE` starts a batch), released
        when the block ends, rolled back when it raises; the block's exit returns once the batch is committed.
        One connection runs one transaction at a time, so `guild_id` only holds the block to its promise (see
        `DatabaseCore`).

        Nested in a transaction of the same task it simply joins it: the outermost block commits.

        Faults leave the connection usable: when COMMIT fails (a full disk, an I/O error) the batch is
        rolled back and each of its transactions raises the COMMIT's error; when that ROLLBACK fails too, or
        the task is cancelled while BEGIN (sent with the block's first statement) or ROLLBACK runs in
        aiosqlite's thread, the next use of the connection rolls back whatever was left open (logged at
        ERROR). A task cancelled after its block ran gets `CancelledError`, yet its batch may still be
        committed: the write is then stored, as if the cancellation came later.
        """
        if self._owner is asyncio.current_task():
            check_joinable(self._writing, self._guild_id, guild_id)
            yield
            return
        if self._reader_owner is asyncio.current_task():
            check_joinable(False, None, guild_id)
        self._writers_waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self._writers_waiting -= 1
        self._owner, self._writing, self._guild_id = asyncio.current_task(), True, guild_id
        batch: _Batch | None = None
        try:
            # The first block of a batch needs no savepoint: nothing else is in the batch yet, so undoing it is
            # rolling the batch back. Its BEGIN waits for the block's first statement (none: no trip at all).
            first = self._batch is None
            if first:
                if not self._alone_in_flight:  # else the BEGIN settles it in the thread, behind them (`frame`)
                    await self._settle()
                loop = asyncio.get_running_loop()
                self._batch = _Batch(loop.create_future(), loop.time(), members=1)
                self._due, self._due_failed = [BEGIN], False
            batch = self._batch
            assert batch is not None
            if not first:
                self._due.append(SAVEPOINT)
                batch.members += 1
            try:
                yield
            except BaseException as err:
                if first:  # none but this block is in it: nobody else to tell
                    await self._fail_batch(batch, None, cause=err)
                else:
                    await self._undo_member(batch, err)
                raise
            if not first:
                await self._end_member(batch)
            elif batch.complete(self._writers_waiting):
                await self._commit_batch()
        finally:
            self._owner, self._writing, self._guild_id = None, False, None
            if batch is not None and self._batch is batch and not batch.committing:
                self._leave_open(batch)
            self._lock.release()
        await asyncio.shield(batch.committed)

    async def _statement(self, kind: StatementKind, sql: str, params: Any) -> Any:
        """One statement of the owner's block on the write connection: rows, the count of rows changed, or
        nothing (``many``: one statement for each of ``params``; ``chain``: each of ``params``' statements in
        turn, until one returns no row). The framing statements still due go with it, in the same trip."""
        if not TRIPS_SHARED:
            await self._send_due()
        elif self._due or kind == "chain":
            due, self._due = self._due, []
            try:
                return await self._conn._execute(run_statement, self._conn, due, kind, sql, params)
            except DueFailed as failed:
                self._due_failed = True
                raise failed.err from None
        if kind == "rows":
            return list(await self._conn.execute_fetchall(sql, params))
        if kind == "count":
            # The cursor is left to the garbage collector: closing it would cost another trip to the thread.
            return (await self._conn.execute(sql, params)).rowcount
        await self._conn.executemany(sql, params)
        return None

    async def _send_due(self) -> None:
        """Send the framing statements still due, one trip each (where they cannot go with a statement)."""
        while self._due:
            sql = self._due.pop(0)
            try:
                await self._conn.execute(sql)
            except BaseException:
                self._due_failed = True
                raise

    async def _undo_member(self, batch: _Batch, err: BaseException) -> None:
        """The block raised: undo its writes only. If that cannot be done, the whole batch fails. Never raises:
        the block's own error is what its task raises."""
        if self._due and self._due[-1] == SAVEPOINT:  # the block sent no statement: it wrote nothing
            self._due.pop()
            batch.members -= 1
            if batch.complete(self._writers_waiting):
                with contextlib.suppress(BaseException):  # the batch's members get its error
                    await self._commit_batch()
            return
        if self._due_failed:  # an earlier member's RELEASE (or this one's SAVEPOINT) failed on the way
            await self._fail_batch(batch, err)
            return
        if not self._conn.in_transaction:
            await self._fail_batch(batch, err)  # SQLite rolled the whole batch back itself (a full disk, ...)
            return
        try:
            await self._conn.execute("ROLLBACK TO member")
            await self._conn.execute("RELEASE member")
        except BaseException as undo_err:
            log.error("undoing a failed transaction (%r) failed: %r; its batch is rolled back", err, undo_err)
            await self._fail_batch(batch, err)
            return
        batch.members -= 1
        if batch.complete(self._writers_waiting):
            with contextlib.suppress(BaseException):  # the batch's members get its error
                await self._commit_batch()

    async def _end_member(self, batch: _Batch) -> None:
        """The block ran: keep its writes in the batch (its RELEASE goes with the next statement sent), and commit
        the batch unless other writers wait to join. A task cancelled during the COMMIT raises `CancelledError`,
        and its writes may be committed with the batch all the same."""
        if self._due and self._due[-1] == SAVEPOINT:  # the block sent no statement: nothing to keep
            self._due.pop()
            batch.members -= 1
        else:
            self._due.append(RELEASE)
        if batch.complete(self._writers_waiting):
            await self._commit_batch()

    def _leave_open(self, batch: _Batch) -> None:
        """The batch stays open for the writers waiting; a flush queued behind them commits it in any case (a
        waiter may be cancelled before it gets the connection)."""
        if not self._flush_queued:
            self._flush_queued = True
            asyncio.get_running_loop().create_task(self._flush(), name="sqlite group commit")

    async def _flush(self) -> None:
        async with self._lock:
            self._flush_queued = False
            if self._batch is not None:
                with contextlib.suppress(BaseException):  # its members get the error
                    await self._commit_batch()

    async def _commit_batch(self) -> None:
        """COMMIT the open batch (the caller holds the write lock), with the RELEASE still due, in one trip, and tell
        its members; raises the COMMIT's error (or the RELEASE's) after the batch was rolled back."""
        batch = self._batch
        assert batch is not None
        batch.committing = True
        if batch.members == 0 or BEGIN in self._due:  # every block of it failed, or none sent a statement
            await self._fail_batch(batch, None)
            return
        try:
            await self._statement("count", "COMMIT", ())
        except asyncio.CancelledError:
            # The COMMIT may still run in the thread: a statement queued behind it tells how it ended.
            await self._conn.execute("SELECT 1")
            if self._conn.in_transaction:
                await self._fail_batch(batch, asyncio.CancelledError())
            else:
                self._batch = None
                batch.committed.set_result(None)
            raise
        except BaseException as err:
            await self._fail_batch(batch, err)
            raise
        self._batch = None
        batch.committed.set_result(None)

    async def _fail_batch(
        self, batch: _Batch, err: BaseException | None, *, cause: BaseException | None = None
    ) -> None:
        """Roll the batch back; each of its transactions raises `err` (None: none is waiting for it). ``cause``:
        what ended it, when not `err` (a cancellation means a statement may still run in the thread)."""
        batch.committing = True
        if self._batch is batch:
            self._batch = None
        began = BEGIN not in self._due
        self._due, self._due_failed = [], False
        if began:
            await self._abandon(cause or err or sqlite3.OperationalError("rolled back"))
        if not batch.committed.done():
            if err is None:
                batch.committed.set_result(None)
            else:
                batch.committed.set_exception(_member_error(err))
                batch.committed.exception()  # retrieved: a batch nobody waits for must not log it

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
        if self._alone_in_flight:  # `in_transaction` tells of them until they are back: a statement behind them waits
            await self._conn.execute("SELECT 1")
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
        """Hold one consistent view of committed data for a few reads (inside this task's transaction: its
        own view, writes included)."""
        task = asyncio.current_task()
        if task in (self._owner, self._reader_owner):
            yield
            return
        if self._reader is None:
            async with self._lock:
                self._owner = task
                try:
                    # A read shares the write connection: the open batch is committed first, so no read sees
                    # what is not stored yet.
                    if self._batch is None:
                        await self._settle()
                    else:
                        with contextlib.suppress(BaseException):  # its members get the error
                            await self._commit_batch()
                    yield
                finally:
                    self._owner = None
            return
        async with self._read_lock:
            self._reader_owner = task
            try:
                await _leave_old_view(self._reader)
                await self._reader.execute("BEGIN")
                try:
                    yield
                finally:
                    with contextlib.suppress(sqlite3.Error):
                        await self._reader.execute("COMMIT")  # ends the read; it wrote nothing
            finally:
                self._reader_owner = None

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        task = asyncio.current_task()
        if task is self._owner:
            return cast(list[Row], await self._statement("rows", sql, tuple(params)))
        if self._reader is None:
            async with self.reading():
                return cast(list[Row], list(await self._conn.execute_fetchall(sql, tuple(params))))
        if task is self._reader_owner:
            return cast(list[Row], list(await self._reader.execute_fetchall(sql, tuple(params))))
        async with self._read_lock:  # one statement: its own consistent view
            await _leave_old_view(self._reader)
            return cast(list[Row], list(await self._reader.execute_fetchall(sql, tuple(params))))

    async def fetch_batches(self, sql: str, size: int) -> AsyncIterator[list[Row]]:
        async with self.reading():
            conn = self._reader if self._reader_owner is asyncio.current_task() else self._conn
            assert conn is not None
            if conn is self._conn:
                await self._send_due()
            cursor = await conn.execute(sql)
            try:
                while rows := await cursor.fetchmany(size):
                    yield cast(list[Row], list(rows))
            finally:
                await cursor.close()

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one write inside the current transaction; returns the number of rows changed."""
        if not (self._writing and self._owner is asyncio.current_task()):
            raise RuntimeError("database writes run inside `async with db.transaction():`")
        return cast(int, await self._statement("count", sql, tuple(params)))

    async def fetch_chain(self, statements: Sequence[tuple[str, Iterable[Any]]]) -> list[list[Row]]:
        if not (self._writing and self._owner is asyncio.current_task()):
            raise RuntimeError("database writes run inside `async with db.transaction():`")
        if not TRIPS_SHARED:  # one statement a trip, as every engine can
            return await super().fetch_chain(statements)
        chain = [(sql, tuple(params)) for sql, params in statements]
        return cast(list[list[Row]], await self._statement("chain", "", chain))

    async def fetch_chain_alone(
        self,
        statements: Sequence[tuple[str, Iterable[Any]]],
        *,
        guild_id: int | None = None,
        unordered: bool = False,
    ) -> list[list[Row]]:
        """A transaction of its own made of one chain (see `DatabaseCore`), in one trip to the thread: the open
        batch's framing still due, the chain in a savepoint of its own, and the batch's COMMIT (see the note at the
        top). The write connection is held only while the trip is queued. A statement that fails undoes only the
        chain; the framing or the COMMIT failing fails every transaction of the batch."""
        task = asyncio.current_task()
        if task in (self._owner, self._reader_owner) or not (TRIPS_SHARED and hasattr(self._conn, "_tx")):
            return await super().fetch_chain_alone(statements, guild_id=guild_id, unordered=unordered)
        chain = [(sql, tuple(params)) for sql, params in statements]
        self._writers_waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self._writers_waiting -= 1
        loop = asyncio.get_running_loop()
        try:
            batch = self._batch
            due = self._due if batch is not None else [BEGIN]

            def back(failed: BatchFailed | None) -> None:
                """On the loop, told by the trip itself (so even when its caller was cancelled meanwhile), before
                its caller is: the batch's other members learn its fate."""
                self._alone_in_flight -= 1
                if batch is None or batch.committed.done():
                    return
                if failed is None:
                    batch.committed.set_result(None)
                else:
                    batch.committed.set_exception(_member_error(failed.err))
                    batch.committed.exception()

            def landed(failed: BatchFailed | None) -> None:  # in the thread
                with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits for it any more
                    loop.call_soon_threadsafe(back, failed)

            trip = queue_trip(self._conn, run_alone, self._conn, due, chain, landed)
            # Nothing can fail from here on: the trip is queued, the batch is in its hands.
            self._due, self._batch = [], None
            if batch is not None:
                batch.committing = True
            self._alone_in_flight += 1
        finally:
            self._lock.release()
        try:
            # Awaited as it is: a cancellation of the caller cancels only this future, never the trip, and the
            # trip's answer reaches the caller a turn of the loop sooner than through a shield.
            return cast(list[list[Row]], await trip)
        except BatchFailed as failed:
            raise _member_error(failed.err) from None

    async def execute_many(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        """Run one write for each of many rows inside the current transaction, in one trip to the thread."""
        if not (self._writing and self._owner is asyncio.current_task()):
            raise RuntimeError("database writes run inside `async with db.transaction():`")
        await self._statement("many", sql, [tuple(row) for row in rows])

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


@dataclass(eq=False)
class _Batch:
    """Transactions sharing one COMMIT: `committed` resolves once they are stored (or fails with the reason
    none of them is)."""

    committed: asyncio.Future[None]
    started: float  # the event loop's time at its BEGIN
    members: int = 0  # blocks whose writes it keeps
    committing: bool = field(default=False)  # its COMMIT (or ROLLBACK) has begun: no one joins it any more

    def complete(self, writers_waiting: int) -> bool:
        """Commit now: no writer waits to join, or the batch is full or old enough."""
        return (
            writers_waiting == 0
            or self.members >= BATCH_MOST
            or asyncio.get_running_loop().time() - self.started >= BATCH_SECONDS
        )


def queue_trip(conn: aiosqlite.Connection, function: Callable[..., Any], *args: Any) -> asyncio.Future[Any]:
    """Queue ``function(*args)`` for aiosqlite's thread now, behind the trips already queued; its future."""
    if not conn._running:  # as ``_execute`` says it (a closed connection's thread has stopped)
        raise ValueError("Connection closed")
    future = asyncio.get_running_loop().create_future()
    conn._tx.put_nowait((future, partial(function, *args)))
    return future


async def _leave_old_view(reader: aiosqlite.Connection) -> None:
    """End the read transaction a read block cancelled before its end (or at its BEGIN) left open: the next read
    must not see the database as it was then."""
    if reader.in_transaction:
        await reader.execute("COMMIT")


def _member_error(err: BaseException) -> BaseException:
    """What each member of a failed batch raises: its error, unless that was a cancellation (of another member)."""
    if isinstance(err, Exception):
        return err
    return sqlite3.OperationalError(f"rolled back with a transaction of its batch ({err!r})")
