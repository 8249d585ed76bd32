"""The PostgreSQL engine (asyncpg): a pool of connections behind the same interface as SQLite's.

Each task gets its own pooled connection for a `transaction()` or `reading()` block; single reads outside a
block take one for the statement. A write transaction first takes one advisory lock, the write lock, shared
by every process on the database, so write transactions run one at a time exactly as SQLite's `BEGIN
IMMEDIATE` makes them: the repositories' check-then-write stays right across processes (a process may still
read while another writes). A transaction confined to one guild's rows (`transaction(guild_id=...)`, a move
at a table) holds the write lock shared and its guild's lock alone: two processes' moves in different guilds
overlap, and any other write transaction still runs by itself. Placeholders `?` and `?N` are translated to
`$n` once per statement text.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, cast

import asyncpg

from .core import DatabaseCore, Row, check_joinable
from .migrate import PG_MIGRATIONS_DIR, apply_pg_migrations

# pg_advisory_xact_lock key of the write lock: any fixed 64-bit number no other program on the database uses.
WRITE_LOCK_KEY = 0x5C4A_9E25_0001
# The first key of a guild's lock, pg_advisory_xact_lock(GUILD_LOCK_SPACE, guild key): two-key advisory
# locks are a key space apart from WRITE_LOCK_KEY's.
GUILD_LOCK_SPACE = 0x5C4A_0002

_GUILD_LOCKS = (
    "SELECT pg_advisory_xact_lock($2, $3)"
    " FROM (SELECT pg_advisory_xact_lock_shared($1) OFFSET 0) AS write_lock_taken_first"
)


def guild_lock_key(guild_id: int) -> int:
    """The guild's 32-bit lock key: its id folded (two guilds that share a key merely wait for each other).

    >>> guild_lock_key(1), guild_lock_key((1 << 32) | 1), guild_lock_key(0xFFFF_FFFF)
    (1, 0, -1)
    """
    folded = (guild_id ^ (guild_id >> 32)) & 0xFFFF_FFFF
    return folded - (1 << 32) if folded >= 1 << 31 else folded


# A quoted string or identifier, a comment, or a placeholder: strings and comments are kept as they are.
_PLACEHOLDER_OR_QUOTED = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\?(\d*)""")


@functools.lru_cache(maxsize=512)
def to_dollar_placeholders(sql: str) -> str:
    """SQLite's `?` (numbered in order) and `?N` placeholders as PostgreSQL's `$n`.

    >>> to_dollar_placeholders("SELECT '?' AS q, a FROM t WHERE a = ? AND b = ?")
    "SELECT '?' AS q, a FROM t WHERE a = $1 AND b = $2"
    >>> to_dollar_placeholders("SELECT ?2, ?1, ?2")
    'SELECT $2, $1, $2'
    """
    counter = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal counter
        text = match.group(0)
        if not text.startswith("?"):
            return text
        if match.group(1):
            return "$" + match.group(1)
        counter += 1
        return f"${counter}"

    return _PLACEHOLDER_OR_QUOTED.sub(replace, sql)


def _arguments(params: Iterable[Any]) -> list[Any]:
    # The schema keeps SQLite's 0/1 integers for flags; asyncpg would refuse a bool for an integer column.
    return [int(value) if isinstance(value, bool) else value for value in params]


def _rows_changed(status: str) -> int:
    """The row count of a command tag: "UPDATE 3", "DELETE 0", "INSERT 0 1"."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


@dataclass(slots=True)
class _Held:
    conn: asyncpg.Connection[Any]
    writing: bool
    guild_id: int | None = None  # a write transaction confined to this guild's rows


class PostgresCore(DatabaseCore):
    dialect = "postgresql"

    def __init__(self, pool: asyncpg.Pool[Any], dsn: str) -> None:
        self._pool = pool
        self._dsn = dsn  # listeners hold a connection of their own, outside the pool
        self._held: dict[asyncio.Task[Any], _Held] = {}
        # This process's writers queue here first, in order (asyncio.Lock is FIFO), and only the one whose turn
        # it is waits for the database's write lock: a long job of many small transactions lets a write that
        # queued meanwhile in after its current transaction (as SQLite's connection lock does), and waiting
        # writers hold no pooled connections.
        self._write_turn = asyncio.Lock()

    @classmethod
    async def connect(
        cls,
        dsn: str,
        *,
        migrations_dir: Path = PG_MIGRATIONS_DIR,
        max_connections: int = 10,
        connect_timeout: float = 60.0,
    ) -> Self:
        """Open a pool on `dsn` (postgresql://...) and apply any pending migrations. Each connection must be
        made within `connect_timeout` seconds."""
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=max_connections, timeout=connect_timeout)
        try:
            async with pool.acquire() as conn:
                await apply_pg_migrations(conn, migrations_dir)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, dsn)

    async def close(self) -> None:
        await self._pool.close()

    def _current(self) -> _Held | None:
        task = asyncio.current_task()
        return None if task is None else self._held.get(task)

    @asynccontextmanager
    async def transaction(self, *, guild_id: int | None = None) -> AsyncIterator[None]:
        """One PostgreSQL transaction holding the write lock (with `guild_id`: holding it shared, and the
        guild's lock); rolled back when the block raises. Nested in a transaction of the same task it joins
        it."""
        held = self._current()
        if held is not None:
            check_joinable(held.writing, held.guild_id, guild_id)
            yield
            return
        task = asyncio.current_task()
        assert task is not None
        async with self._write_turn, self._pool.acquire() as conn, conn.transaction():
            self._held[task] = _Held(conn, writing=True, guild_id=guild_id)
            try:
                if guild_id is None:
                    await conn.execute("SELECT pg_advisory_xact_lock($1)", WRITE_LOCK_KEY)
                else:
                    # The shared write lock first, then the guild's, before any row is locked: a transaction
                    # holding the write lock alone never waits for a row of a guild's transaction that waits
                    # for it. One round trip: the outer select runs on the fenced (OFFSET 0) subquery's row.
                    await conn.execute(_GUILD_LOCKS, WRITE_LOCK_KEY, GUILD_LOCK_SPACE, guild_lock_key(guild_id))
                yield
            finally:
                del self._held[task]

    @asynccontextmanager
    async def unordered_write(self) -> AsyncIterator[None]:
        if self._current() is not None:  # inside a transaction: part of it
            yield
            return
        task = asyncio.current_task()
        assert task is not None
        async with self._pool.acquire() as conn, conn.transaction():
            self._held[task] = _Held(conn, writing=True)
            try:
                yield
            finally:
                del self._held[task]

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[None]:
        """A few reads from one snapshot (a read-only repeatable-read transaction)."""
        if self._current() is not None:
            yield
            return
        task = asyncio.current_task()
        assert task is not None
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            self._held[task] = _Held(conn, writing=False)
            try:
                yield
            finally:
                del self._held[task]

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        held = self._current()
        runner = self._pool if held is None else held.conn
        return cast(list[Row], await runner.fetch(to_dollar_placeholders(sql), *_arguments(params)))

    async def fetch_batches(self, sql: str, size: int) -> AsyncIterator[list[Row]]:
        held = self._current()
        if held is not None:  # a cursor lives in a transaction: the caller's
            async for rows in _cursor_batches(held.conn, sql, size):
                yield rows
            return
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            async for rows in _cursor_batches(conn, sql, size):
                yield rows

    def _writer(self) -> asyncpg.Connection[Any]:
        held = self._current()
        if held is None or not held.writing:
            raise RuntimeError("database writes run inside `async with db.transaction():`")
        return held.conn

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        status = await self._writer().execute(to_dollar_placeholders(sql), *_arguments(params))
        return _rows_changed(status)

    async def execute_many(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        conn = self._writer()
        await conn.executemany(to_dollar_placeholders(sql), [_arguments(row) for row in rows])

    async def next_id_hint(self, table: str) -> int:
        # An identity column's sequence; last_value is NULL until the first row is numbered.
        row = await self.fetch_one(
            "SELECT pg_sequence_last_value(pg_get_serial_sequence(?, 'id')) AS last", (table,)
        )
        return 1 if row is None or row["last"] is None else int(row["last"]) + 1

    async def notify(self, channel: str, payload: str) -> None:
        await self._writer().execute("SELECT pg_notify($1, $2)", channel, payload)

    async def notify_now(self, channel: str, payload: str) -> None:
        await self._pool.execute("SELECT pg_notify($1, $2)", channel, payload)

    async def insert_notifying(self, sql: str, params: Iterable[Any], channel: str, payload: str) -> Row:
        if self._current() is not None:  # part of the caller's transaction
            return await super().insert_notifying(sql, params, channel, payload)
        # One statement, its own transaction: one round trip instead of four (BEGIN, INSERT, NOTIFY, COMMIT),
        # and the notification still goes out only at its commit.
        row = await self._pool.fetchrow(
            to_dollar_placeholders(f"WITH inserted AS ({sql}) SELECT inserted.*, pg_notify(?, ?) FROM inserted"),
            *_arguments([*params, channel, payload]),
        )
        assert row is not None
        return cast(Row, row)

    async def listen(
        self, channel: str, on_notice: Callable[[str], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None:
        conn = await asyncpg.connect(self._dsn)
        try:
            await conn.add_listener(channel, lambda _conn, _pid, _channel, payload: on_notice(payload))
        except BaseException:
            await conn.close()
            raise
        stopping = False
        conn.add_termination_listener(lambda _conn: None if stopping else on_lost())

        async def stop() -> None:
            nonlocal stopping
            stopping = True
            await conn.close()

        return stop

    @asynccontextmanager
    async def statement_savepoint(self) -> AsyncIterator[None]:
        async with self._writer().transaction():  # nested in a transaction: a SAVEPOINT
            yield

    def violated(self, err: BaseException) -> str | None:
        if isinstance(err, asyncpg.UniqueViolationError):
            return "unique"
        if isinstance(err, asyncpg.ForeignKeyViolationError):
            return "foreign_key"
        if isinstance(err, asyncpg.IntegrityConstraintViolationError):
            return "other"
        return None


async def _cursor_batches(conn: asyncpg.Connection[Any], sql: str, size: int) -> AsyncIterator[list[Row]]:
    cursor = await conn.cursor(to_dollar_placeholders(sql))
    while rows := await cursor.fetch(size):
        yield cast(list[Row], rows)
