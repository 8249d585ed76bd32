"""PostgreSQL's faults: the server dropping the bot's connections, a task cancelled while it waits for the
write lock held by another process (in a whole-database or a guild's transaction). Each leaves the database usable and nothing half-written."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import asyncpg
import pytest

from bot.db import Database
from bot.db.postgres import WRITE_LOCK_KEY


async def test_connections_dropped_by_the_server_fail_one_call_at_most_and_then_work(pg_url: str) -> None:
    db = await Database.open(pg_url)
    try:
        await db.meta.set("before", "1")
        admin = await asyncpg.connect(pg_url)
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        await admin.close()
        # The pool may hand out a connection that died: that call fails (the caller retries, as it does for
        # any storage fault); the broken connection is dropped, and the next call gets a new one.
        with contextlib.suppress(Exception):  # asyncpg reports a dead connection in several error types
            await db.meta.set("during", "1")
        await db.meta.set("after", "1")
        assert await db.meta.get("before") == "1"
        assert await db.meta.get("after") == "1"
    finally:
        await db.close()


async def until_someone_waits_for_a_lock(conn: asyncpg.Connection) -> None:
    """The server itself says when a session is blocked on a lock; asked until it is (or the test times out)."""
    while not await conn.fetchval("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE NOT granted)"):
        await asyncio.sleep(0.01)


async def waits_for_a_lock(conn: asyncpg.Connection, task: asyncio.Task[object]) -> bool:
    """Whether ``task`` is still running once the server says a session waits for a lock (it ended first:
    it did not wait)."""
    blocked = asyncio.create_task(until_someone_waits_for_a_lock(conn))
    await asyncio.wait({task, blocked}, return_when=asyncio.FIRST_COMPLETED)
    blocked.cancel()
    return not task.done()


async def guild_write(db: Database, key: str) -> None:
    """A write in a guild's transaction, which waits for the write lock shared."""
    async with db.transaction(guild_id=1):
        await db.meta.set(key, "1")


@pytest.mark.parametrize(
    "write",
    [lambda db, key, value: db.meta.set(key, value), lambda db, key, _value: guild_write(db, key)],
    ids=["whole database", "guild"],
)
async def test_a_write_cancelled_while_another_process_holds_the_write_lock_writes_nothing(
    pg_url: str, write: Callable[[Database, str, str], Awaitable[None]]
) -> None:
    db = await Database.open(pg_url)
    other_process = await asyncpg.connect(pg_url)
    try:
        holding = other_process.transaction()
        await holding.start()
        await other_process.execute("SELECT pg_advisory_xact_lock($1)", WRITE_LOCK_KEY)

        waiting = asyncio.create_task(write(db, "cancelled", "1"))
        reading = await db.meta.get("cancelled")  # reads are not blocked by a writer
        assert reading is None
        await until_someone_waits_for_a_lock(other_process)
        assert not waiting.done()
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await holding.rollback()

        await db.meta.set("later", "1")  # the lock is free and the pool usable
        assert await db.meta.get("cancelled") is None
        assert await db.meta.get("later") == "1"
    finally:
        await other_process.close()
        await db.close()
