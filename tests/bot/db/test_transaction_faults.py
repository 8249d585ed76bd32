"""`transaction()` under faults: a full disk, a COMMIT or ROLLBACK that fails, a task cancelled at the wrong
moment. Whatever happens, the connection stays usable and the next transaction works."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.db import Database
from tests.bot.db.conftest import watch_statements


def meta_rows(path: Path) -> dict[str, str]:
    """What another connection sees: only committed data."""
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())


def assert_idle(db: Database) -> None:
    assert db.core._owner is None
    assert not db.core._writing


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "bot.db"


@pytest.fixture
async def db(path: Path) -> Any:
    database = await Database.open(path)
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
def errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.ERROR, logger="bot.db")
    yield caplog


def logged_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


async def test_a_full_disk_fails_the_write_and_the_next_transaction_works_once_space_is_freed(
    db: Database, path: Path
) -> None:
    await db.meta.set("before", "1")
    (pages,) = next(iter(await db.core._conn.execute_fetchall("PRAGMA page_count")))
    await db.core._conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full: no page may be added

    with pytest.raises(sqlite3.OperationalError, match="full"):
        async with db.transaction():
            for n in range(200):
                await db.core.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (f"big{n}", "x" * 2000))
    assert_idle(db)
    assert not db.core._conn.in_transaction

    await db.core._conn.execute("PRAGMA max_page_count = 1073741823")  # space is freed
    await db.meta.set("after", "2")
    assert meta_rows(path) == {"before": "1", "after": "2"}
    assert await db.meta.get("big0") is None


async def test_a_failed_commit_whose_rollback_fails_too_is_rolled_back_before_the_next_use(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch, errors_logged: pytest.LogCaptureFixture
) -> None:
    """The worst case: COMMIT fails (full disk) and leaves the transaction open, then ROLLBACK fails too
    (I/O error). The caller sees the COMMIT's error; the next use of the connection rolls back first."""
    faults: dict[str, BaseException | Callable[[], None]] = {
        "COMMIT": sqlite3.OperationalError("database or disk is full"),
        "ROLLBACK": sqlite3.OperationalError("disk I/O error"),
    }
    watch_statements(db, monkeypatch, faults)
    with pytest.raises(sqlite3.OperationalError, match="full"):
        async with db.transaction():
            await db.core.execute("INSERT INTO meta (key, value) VALUES ('lost', 'x')")
    assert_idle(db)
    assert not faults

    assert await db.meta.get("lost") is None  # a read does not see the failed write
    await db.meta.set("next", "1")  # and the next transaction works
    assert meta_rows(path) == {"next": "1"}
    assert any("rolled back" in message for message in logged_errors(errors_logged))


async def test_a_write_cancelled_while_it_waits_for_the_write_lock_leaves_the_connection_usable(
    db: Database, path: Path
) -> None:
    """BEGIN IMMEDIATE waits (busy_timeout) while another process writes; the task is cancelled meanwhile.
    The BEGIN still completes in aiosqlite's thread once the other writer is done."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")

        async def write() -> None:
            async with db.transaction():
                await db.core.execute("INSERT INTO meta (key, value) VALUES ('cancelled', 'x')")

        task = asyncio.create_task(write())
        for _ in range(3):
            await asyncio.sleep(0)  # the task now waits for BEGIN IMMEDIATE in the thread
        task.cancel()
        for _ in range(3):
            await asyncio.sleep(0)  # the task handles its cancellation while BEGIN still waits
        other.execute("COMMIT")  # now the BEGIN goes through in the thread
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        other.close()
    assert_idle(db)

    await db.meta.set("next", "1")
    assert meta_rows(path) == {"next": "1"}
    await db.meta.set("again", "2")
    assert meta_rows(path) == {"next": "1", "again": "2"}


async def test_a_write_cancelled_during_commit_raises_cancelled_and_leaves_the_connection_usable(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A COMMIT runs in aiosqlite's thread: a task cancelled while it runs may have committed. The task
    ends with CancelledError (not a follow-up error), the flags are cleared, the next write works."""
    entered, release = threading.Event(), threading.Event()

    def slow_commit() -> None:
        entered.set()
        release.wait(10)

    watch_statements(db, monkeypatch, {"COMMIT": slow_commit})

    async def write() -> None:
        async with db.transaction():
            await db.core.execute("INSERT INTO meta (key, value) VALUES ('committed', 'x')")

    task = asyncio.create_task(write())
    assert await asyncio.to_thread(entered.wait, 10)
    task.cancel()
    for _ in range(3):
        await asyncio.sleep(0)  # the task handles its cancellation while the COMMIT is still running
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_idle(db)
    monkeypatch.undo()

    assert meta_rows(path) == {"committed": "x"}  # the thread finished the COMMIT
    await db.meta.set("next", "1")
    assert meta_rows(path) == {"committed": "x", "next": "1"}


async def test_a_commit_refused_by_a_deferred_constraint_is_rolled_back(db: Database, path: Path) -> None:
    """A COMMIT that fails and leaves the transaction open (here a deferred foreign key) is rolled back."""
    with pytest.raises(sqlite3.IntegrityError):
        async with db.transaction():
            await db.core.execute("PRAGMA defer_foreign_keys = ON")
            await db.core.execute(
                "INSERT INTO actions (table_id, deal_no, seq, action, created_at) VALUES (99, 0, 0, 'N x', 1)"
            )
    assert_idle(db)
    assert not db.core._conn.in_transaction
    await db.meta.set("next", "1")
    assert meta_rows(path) == {"next": "1"}
