"""The one interface the repositories use, whatever the engine (bot/db/sqlite.py, bot/db/postgres.py).

An engine's core holds the connection (or pool) and its transactions; each repository holds the core.
Repositories write their SQL once, with `?` or `?N` placeholders and only what SQLite and PostgreSQL both
understand; where the dialects differ the core has a small method (`next_id_hint`, `violated`). Rows are
read by column name (`row["id"]`, `dict(row)`) on both engines.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

Row = Mapping[str, Any]


def check_joinable(writing: bool, held_guild_id: int | None, guild_id: int | None) -> None:
    """Refuse a transaction block that may not join the task's open block: a read block cannot become a
    write, and a guild's transaction cannot write another guild's rows."""
    if not writing:
        raise RuntimeError("transaction() cannot start inside a read block")
    if guild_id is not None and held_guild_id is not None and guild_id != held_guild_id:
        raise RuntimeError(f"a transaction of guild {held_guild_id} cannot write rows of guild {guild_id}")


class DatabaseCore:
    """What every engine provides. Writes run inside `async with db.transaction():` (a nested block joins
    the caller's transaction: the outermost one commits); `reading()` holds one consistent view for a few
    reads. Every engine serialises write transactions, so a repository method that checks before it writes
    stays right: a typed `StorageError` raised inside a transaction has written nothing."""

    dialect: str  # "sqlite" or "postgresql"

    def transaction(self, *, guild_id: int | None = None) -> AbstractAsyncContextManager[None]:
        """A write transaction. With `guild_id` it promises to write only that guild's rows (its tables,
        records, statistics, tallies and ratings, and queue rows by id) and to check nothing across guilds:
        where the engine can, it then overlaps with the writes of other guilds (of other processes). A block
        nested in it joins it, and may not name another guild."""
        raise NotImplementedError

    def unordered_write(self) -> AbstractAsyncContextManager[None]:
        """A transaction for a write that checks nothing it read (an insert into a queue): where the engine
        allows, it does not queue behind the write lock that keeps check-then-write right."""
        return self.transaction()

    def reading(self) -> AbstractAsyncContextManager[None]:
        raise NotImplementedError

    async def insert_notifying(self, sql: str, params: Iterable[Any], channel: str, payload: str) -> Row:
        """Run `sql` (an INSERT ... RETURNING, which checks nothing it read) and notify `channel` with
        `payload` once it commits; the returned row. Where the engine can, in one statement."""
        async with self.unordered_write():
            row = await self.fetch_one(sql, params)
            await self.notify(channel, payload)
        assert row is not None
        return row

    async def close(self) -> None:
        raise NotImplementedError

    async def fetch_all(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        raise NotImplementedError

    def fetch_batches(self, sql: str, size: int) -> AsyncIterator[list[Row]]:
        """The rows of `sql` in lists of at most `size`, read from one snapshot as they are asked for: a
        whole table passes through in bounded memory (`bot.db.transfer`)."""
        raise NotImplementedError

    async def fetch_one(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        rows = await self.fetch_all(sql, params)
        return rows[0] if rows else None

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """Run one write inside the current transaction; returns the number of rows changed."""
        raise NotImplementedError

    async def fetch_chain(self, statements: Sequence[tuple[str, Iterable[Any]]]) -> list[list[Row]]:
        """Inside the current transaction: each statement in turn, each's rows, stopping after the first that
        returns none (the next ones build on it). Where the engine can, in one trip."""
        results: list[list[Row]] = []
        for sql, params in statements:
            results.append(rows := await self.fetch_all(sql, params))
            if not rows:
                break
        return results

    async def fetch_chain_alone(
        self,
        statements: Sequence[tuple[str, Iterable[Any]]],
        *,
        guild_id: int | None = None,
        unordered: bool = False,
    ) -> list[list[Row]]:
        """A transaction of its own made of one `fetch_chain` (``guild_id`` as for `transaction`; ``unordered``: it
        checks nothing it read, as `unordered_write`), stored whole or not at all: when a statement returns no
        row, the ones before it are undone too. For a write known in full before it starts (a click's move), which
        the engine may then store without holding its write lock across the statements (SQLite). Inside the
        caller's transaction it is one `fetch_chain` of it, and what a stopped chain wrote stays there until the
        caller's error undoes it."""
        try:
            async with self.unordered_write() if unordered else self.transaction(guild_id=guild_id):
                results = await self.fetch_chain(statements)
                if len(results) < len(statements) or not results[-1]:
                    raise _ChainStopped(results)
        except _ChainStopped as stopped:
            return stopped.results
        return results

    async def execute_many(self, sql: str, rows: Iterable[Iterable[Any]]) -> None:
        """Run one write for each of many rows inside the current transaction."""
        raise NotImplementedError

    async def next_id_hint(self, table: str) -> int:
        """The id the next row of `table` (an auto-numbered one) will most likely get."""
        raise NotImplementedError

    def statement_savepoint(self) -> AbstractAsyncContextManager[None]:
        """Around a write that may break a unique constraint another process raced for: afterwards the
        transaction goes on (SQLite undoes only the failed statement by itself; PostgreSQL needs a savepoint,
        or the whole transaction is aborted)."""
        raise NotImplementedError

    def violated(self, err: BaseException) -> str | None:
        """Which kind of constraint the driver's `err` reports broken ("unique", "foreign_key", "other"), or
        None when it is no constraint violation."""
        raise NotImplementedError

    async def notify(self, channel: str, payload: str) -> None:
        """Inside the current transaction: wake the listeners of `channel` once it commits (PostgreSQL's
        NOTIFY). An engine without notifications does nothing: its readers look for themselves."""

    async def notify_now(self, channel: str, payload: str) -> None:
        """Outside any transaction: wake the listeners of `channel` at once (one statement of its own, no write
        lock: for news of a change already stored). An engine without notifications does nothing."""

    async def listen(
        self, channel: str, on_notice: Callable[[str], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None:
        """Call `on_notice(payload)` for each notification on `channel`, from now until the returned function
        is awaited, and `on_lost()` if the listening connection drops before. None where the engine has no
        notifications. Raises when it cannot start listening."""
        return None


class _ChainStopped(Exception):
    """A chain of `fetch_chain_alone` stopped: its transaction is rolled back, its results still returned."""

    def __init__(self, results: list[list[Row]]) -> None:
        super().__init__()
        self.results = results


class Repository:
    """A few related queries over one engine core (`Database` holds one of each kind: `db.tables`,
    `db.records`, ...). A test may construct one alone on a core: `TablesRepo(core)`. Each write method runs
    in its own transaction or joins the caller's, so several calls, of any repositories on the same core,
    are one atomic change inside `async with core.transaction():`."""

    def __init__(self, core: DatabaseCore) -> None:
        self._core = core
