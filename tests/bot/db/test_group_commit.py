"""Group commit on SQLite: transactions that queue for the write connection share one COMMIT, none of them
returns before it, one that fails undoes only itself, and reads never see a batch that is not committed."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.db import Database
from bot.db import sqlite as sqlite_core
from tests.bot.db.conftest import MakeTable, watch_statements
from tests.bot.db.test_db_records import HANDS, NOW


def committed_rows(path: Path) -> dict[str, str]:
    """What another connection sees: only committed data."""
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())


@pytest.fixture(autouse=True)
def batches_close_by_their_writers_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests hold a batch's first transaction open until the others queue behind it: on a loaded machine
    that takes longer than a batch's age limit (20 ms), which would commit it before they join."""
    monkeypatch.setattr(sqlite_core, "BATCH_SECONDS", 3600.0)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "bot.db"


@pytest.fixture
async def db(path: Path) -> AsyncIterator[Database]:
    database = await Database.open(path, synchronous="FULL")
    try:
        yield database
    finally:
        await database.close()


def count_trips(db: Database, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The write connection's trips to aiosqlite's thread, one entry each (through aiosqlite's ``_execute``, or
    queued directly by a write known in full)."""
    trips: list[object] = []
    conn = db.core._conn  # type: ignore[attr-defined]
    real, real_queue = conn._execute, sqlite_core.queue_trip

    async def counted(function: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(function)
        return await real(function, *args, **kwargs)

    def queued(queued_on: Any, function: Any, *args: Any) -> Any:
        trips.append(function)
        return real_queue(queued_on, function, *args)

    monkeypatch.setattr(conn, "_execute", counted)
    monkeypatch.setattr(sqlite_core, "queue_trip", queued)
    return trips


@dataclass
class HeldWrite:
    """A task whose transaction has written ``key`` = "1" and holds the write connection until ``may_end``."""

    task: asyncio.Task[None]
    holding: asyncio.Event
    may_end: asyncio.Event


def hold_a_write(db: Database, key: str) -> HeldWrite:
    holding, may_end = asyncio.Event(), asyncio.Event()

    async def write() -> None:
        async with db.transaction():
            await db.meta.set(key, "1")
            holding.set()
            await may_end.wait()

    return HeldWrite(asyncio.create_task(write()), holding, may_end)


async def until_writers_wait(db: Database, count: int) -> None:
    """Until ``count`` tasks queue for the write connection (each loop turn lets them get there)."""
    while db.core._writers_waiting < count:  # type: ignore[attr-defined]
        await asyncio.sleep(0)


async def behind_a_held_write(db: Database, *writes: Coroutine[Any, Any, None]) -> list[object]:
    """A transaction writes ``first`` = "1" and holds the connection until ``writes`` queue behind it; what
    each of them returned or raised, the held one first."""
    first = hold_a_write(db, "first")
    await first.holding.wait()
    tasks = [first.task, *(asyncio.create_task(write) for write in writes)]
    await until_writers_wait(db, len(writes))
    first.may_end.set()
    return await asyncio.gather(*tasks, return_exceptions=True)


async def write_behind(db: Database, first_may_end: asyncio.Event, path: Path, keys: list[str]) -> list[bool]:
    """The first key's transaction holds the connection until ``first_may_end``; the others queue behind it.
    For each key: was its row committed when its transaction() returned?"""
    seen: dict[str, bool] = {}
    holding = asyncio.Event()

    async def write(key: str, hold: bool) -> None:
        async with db.transaction():
            await db.core.execute("INSERT INTO meta (key, value) VALUES (?, 'x')", (key,))
            if hold:
                holding.set()
                await first_may_end.wait()
        seen[key] = key in committed_rows(path)

    first = asyncio.create_task(write(keys[0], True))
    await holding.wait()
    others = [asyncio.create_task(write(key, False)) for key in keys[1:]]
    await until_writers_wait(db, len(others))
    first_may_end.set()
    await asyncio.gather(first, *others)
    return [seen[key] for key in keys]


async def test_writers_queued_together_share_one_commit_and_none_returns_before_it(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = watch_statements(db, monkeypatch, {})
    keys = [f"k{n}" for n in range(6)]
    assert await write_behind(db, asyncio.Event(), path, keys) == [True] * 6
    assert sent.count("COMMIT") == 1
    assert committed_rows(path) == dict.fromkeys(keys, "x")


async def test_each_transaction_of_one_statement_is_one_trip_and_its_batch_one_more_for_the_commit(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each trip to the thread waits for a turn of the event loop, which under load is most of a transaction's
    time on the write connection: the framing statements (BEGIN, SAVEPOINT, RELEASE) wait for the next statement
    and go with it."""
    sent = watch_statements(db, monkeypatch, {})
    trips = count_trips(db, monkeypatch)
    keys = ["first", "second", "third"]
    assert await write_behind(db, asyncio.Event(), path, keys) == [True] * 3
    insert = "INSERT INTO meta (key, value) VALUES (?, 'x')"
    assert sent == [
        "BEGIN IMMEDIATE", insert,
        "SAVEPOINT member", insert,
        "RELEASE member", "SAVEPOINT member", insert,
        "RELEASE member", "COMMIT",
    ]  # fmt: skip
    assert len(trips) == 4  # one a line above
    assert committed_rows(path) == dict.fromkeys(keys, "x")


async def test_a_transaction_alone_is_one_trip_for_its_statement_and_one_for_its_commit(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = watch_statements(db, monkeypatch, {})
    trips = count_trips(db, monkeypatch)
    async with db.transaction():
        await db.core.execute("INSERT INTO meta (key, value) VALUES ('alone', 'x')")
    assert sent == ["BEGIN IMMEDIATE", "INSERT INTO meta (key, value) VALUES ('alone', 'x')", "COMMIT"]
    assert len(trips) == 2
    assert committed_rows(path) == {"alone": "x"}


async def test_a_move_is_one_trip_with_its_commit(
    db: Database, path: Path, make_table: MakeTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A click's whole write is known before it starts: BEGIN, the action, the version it moves to and the COMMIT
    go together."""
    table = await make_table()
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    sent = watch_statements(db, monkeypatch, {})
    trips = count_trips(db, monkeypatch)
    assert await db.records.append_move(table.id, 0, "N trump H", NOW) == (0, table.version + 1)
    assert len(trips) == 1
    assert sent[:2] == ["BEGIN IMMEDIATE", "SAVEPOINT alone"] and sent[-2:] == ["RELEASE alone", "COMMIT"]
    assert len(sent) == 6
    assert not db.core._conn.in_transaction  # type: ignore[attr-defined]


async def test_without_a_shared_trip_the_statements_go_one_by_one_in_the_same_order(
    db: Database, path: Path, make_table: MakeTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An aiosqlite without ``Connection._execute``: the framing statements and a move's chain are sent alone."""
    monkeypatch.setattr(sqlite_core, "TRIPS_SHARED", False)
    table = await make_table()
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    sent = watch_statements(db, monkeypatch, {})
    assert await db.records.append_move(table.id, 0, "N trump H", NOW) == (0, table.version + 1)
    assert sent[0] == "BEGIN IMMEDIATE" and sent[-1] == "COMMIT" and len(sent) == 4
    keys = ["first", "second", "third"]
    assert await write_behind(db, asyncio.Event(), path, keys) == [True] * 3
    insert = "INSERT INTO meta (key, value) VALUES (?, 'x')"
    assert sent[4:] == [
        "BEGIN IMMEDIATE", insert,
        "SAVEPOINT member", insert,
        "RELEASE member", "SAVEPOINT member", insert,
        "RELEASE member", "COMMIT",
    ]  # fmt: skip


async def test_a_transaction_that_sends_no_statement_costs_no_trip(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = watch_statements(db, monkeypatch, {})
    async with db.transaction():
        pass
    assert sent == []


async def test_a_member_whose_first_statement_fails_with_its_savepoint_undoes_only_itself(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The savepoint went with the failing statement: the block's error is its task's, and the batch goes on."""
    watch_statements(db, monkeypatch, {})

    async def failing() -> None:
        async with db.transaction():
            await db.core.execute("INSERT INTO meta (key, value) VALUES ('first', 'again')")  # a duplicate key

    results = await behind_a_held_write(db, failing(), db.meta.set("last", "1"))
    assert isinstance(results[1], sqlite3.IntegrityError) and results[0] is None and results[2] is None
    assert committed_rows(path) == {"first": "1", "last": "1"}


async def test_a_member_that_sends_no_statement_leaves_the_batch_as_it_was(db: Database, path: Path) -> None:
    async def empty() -> None:
        async with db.transaction():
            pass

    assert await behind_a_held_write(db, empty(), empty()) == [None, None, None]
    assert committed_rows(path) == {"first": "1"}
    assert not db.core._conn.in_transaction  # type: ignore[attr-defined]


async def test_a_failing_transaction_in_a_batch_undoes_only_its_own_writes(db: Database, path: Path) -> None:
    async def failing() -> None:
        async with db.transaction():
            await db.meta.set("failing", "1")
            raise ValueError("checked and refused")

    results = await behind_a_held_write(db, failing(), db.meta.set("last", "1"))
    assert isinstance(results[1], ValueError) and results[0] is None and results[2] is None
    assert committed_rows(path) == {"first": "1", "last": "1"}


async def test_a_failed_commit_fails_every_transaction_of_its_batch_and_the_next_write_works(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    watch_statements(db, monkeypatch, {"COMMIT": sqlite3.OperationalError("disk I/O error")})
    may_end = asyncio.Event()
    with pytest.raises(sqlite3.OperationalError, match="I/O"):
        await write_behind(db, may_end, path, ["a", "b", "c"])
    assert committed_rows(path) == {}
    assert not db.core._conn.in_transaction  # type: ignore[attr-defined]
    await db.meta.set("next", "1")
    assert committed_rows(path) == {"next": "1"}


async def test_a_release_that_fails_on_its_way_with_the_next_member_fails_the_whole_batch(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member's RELEASE goes with the next member's first statement. When it fails there, which savepoint is
    open is no longer known: undoing only the next member could undo the earlier one's writes, which were
    kept. The whole batch is rolled back and every member is told, and the next write works."""
    sent = watch_statements(db, monkeypatch, {"RELEASE member": sqlite3.OperationalError("disk I/O error")})
    results = await behind_a_held_write(db, db.meta.set("second", "1"), db.meta.set("third", "1"))
    assert [type(result) for result in results] == [sqlite3.OperationalError] * 3
    assert sent[-2:] == ["RELEASE member", "ROLLBACK"]  # the third's SAVEPOINT and statement never ran
    assert committed_rows(path) == {}
    await db.meta.set("next", "1")
    assert committed_rows(path) == {"next": "1"}


async def test_a_member_cancelled_while_its_trip_runs_undoes_only_its_own_writes(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The earlier member's RELEASE, this one's SAVEPOINT and its statement are in aiosqlite's thread when its task
    is cancelled: what it wrote is undone once the trip has run, the others' writes are committed."""
    entered, release = threading.Event(), threading.Event()
    slow = "INSERT INTO meta (key, value) VALUES ('cancelled', 'x')"

    def held_in_the_thread() -> None:
        entered.set()
        release.wait(10)

    watch_statements(db, monkeypatch, {slow: held_in_the_thread})

    async def cancelled() -> None:
        async with db.transaction():
            await db.core.execute(slow)

    first = hold_a_write(db, "first")
    await first.holding.wait()
    second, third = asyncio.create_task(db.meta.set("second", "1")), asyncio.create_task(cancelled())
    await until_writers_wait(db, 2)
    first.may_end.set()
    assert await asyncio.to_thread(entered.wait, 10)
    third.cancel()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await third
    await asyncio.gather(first.task, second)
    assert committed_rows(path) == {"first": "1", "second": "1"}
    await db.meta.set("next", "1")
    assert committed_rows(path) == {"first": "1", "second": "1", "next": "1"}


async def test_a_batch_left_open_for_a_writer_cancelled_before_its_turn_is_committed_all_the_same(
    db: Database, path: Path
) -> None:
    first = hold_a_write(db, "first")
    await first.holding.wait()
    waiter = asyncio.create_task(db.meta.set("cancelled", "1"))
    await until_writers_wait(db, 1)
    first.may_end.set()
    while not db.core._flush_queued:  # type: ignore[attr-defined]  # the first left the batch open for the waiter
        await asyncio.sleep(0)
    waiter.cancel()
    await asyncio.wait_for(first.task, 10)
    assert committed_rows(path) == {"first": "1"}
    with pytest.raises(asyncio.CancelledError):
        await waiter


async def test_reads_outside_a_transaction_see_only_committed_data(db: Database) -> None:
    """A batch left open for a writer still at work is not visible to a read of another task."""
    first = hold_a_write(db, "first")
    await first.holding.wait()
    second = hold_a_write(db, "second")
    await until_writers_wait(db, 1)
    first.may_end.set()
    await second.holding.wait()  # the first's block ended; its batch is open while the second writes
    assert await db.meta.get("first") is None
    async with db.core.reading():
        assert await db.meta.get("first") is None
    second.may_end.set()
    await asyncio.gather(first.task, second.task)
    assert await db.meta.get("first") == "1" and await db.meta.get("second") == "1"


async def test_without_a_read_connection_a_read_commits_the_open_batch_first() -> None:
    db = await Database.open(":memory:")
    try:
        assert db.core._reader is None  # type: ignore[attr-defined]
        first = hold_a_write(db, "first")
        await first.holding.wait()
        reads = asyncio.create_task(db.meta.get("first"))  # queues for the connection behind the writer
        writes = asyncio.create_task(db.meta.set("second", "1"))
        await until_writers_wait(db, 1)
        first.may_end.set()
        assert await reads == "1"
        await asyncio.gather(first.task, writes)
        assert await db.meta.get("second") == "1"
    finally:
        await db.close()


# A write known in full before it starts (a click's move): `fetch_chain_alone`, one trip with its batch's COMMIT.

ALONE = "INSERT INTO meta (key, value) VALUES ('alone', 'x') RETURNING key"


def write_alone(db: Database) -> Coroutine[Any, Any, list[list[Any]]]:
    return db.core.fetch_chain_alone([(ALONE, ())])


def held_in_the_thread() -> tuple[threading.Event, threading.Event, Any]:
    """A fault that holds its statement in aiosqlite's thread: (entered, release, the fault)."""
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        entered.set()
        release.wait(10)

    return entered, release, hold


async def test_a_write_known_in_full_holds_the_write_connection_only_while_its_trip_is_queued(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While its trip runs in the thread, the next writer takes the connection and queues its own trip behind it:
    no turn of the event loop between them, and the statements still run in the order they were queued."""
    entered, release, hold = held_in_the_thread()
    sent = watch_statements(db, monkeypatch, {ALONE: hold})
    alone = asyncio.create_task(write_alone(db))
    assert await asyncio.to_thread(entered.wait, 10)
    assert not db.core._lock.locked()  # type: ignore[attr-defined]
    after = asyncio.create_task(db.meta.set("after", "1"))
    while db.core._conn._tx.empty():  # type: ignore[attr-defined]  # the next writer's trip is queued
        await asyncio.sleep(0)
    release.set()
    assert [[row["key"] for row in rows] for rows in await alone] == [["alone"]]
    await after
    assert sent[:6] == ["BEGIN IMMEDIATE", "SAVEPOINT alone", ALONE, "RELEASE alone", "COMMIT", "BEGIN IMMEDIATE"]
    assert sent[-1] == "COMMIT" and len(sent) == 8
    assert committed_rows(path) == {"alone": "x", "after": "1"}


async def test_a_write_known_in_full_joins_the_open_batch_and_commits_it(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = watch_statements(db, monkeypatch, {})
    first, alone = await behind_a_held_write(db, write_alone(db))  # type: ignore[arg-type]
    assert first is None and isinstance(alone, list)
    assert sent.count("COMMIT") == 1 and sent.count("BEGIN IMMEDIATE") == 1
    assert committed_rows(path) == {"first": "1", "alone": "x"}


async def test_a_write_known_in_full_that_fails_undoes_only_itself(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    watch_statements(db, monkeypatch, {ALONE: sqlite3.IntegrityError("UNIQUE constraint failed")})
    first, alone = await behind_a_held_write(db, write_alone(db))  # type: ignore[arg-type]
    assert first is None and isinstance(alone, sqlite3.IntegrityError)
    assert committed_rows(path) == {"first": "1"}
    assert not db.core._conn.in_transaction  # type: ignore[attr-defined]


async def test_a_failed_commit_of_a_write_known_in_full_fails_its_whole_batch_and_the_next_write_works(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    watch_statements(db, monkeypatch, {"COMMIT": sqlite3.OperationalError("disk I/O error")})
    results = await behind_a_held_write(db, write_alone(db))  # type: ignore[arg-type]
    assert [type(result) for result in results] == [sqlite3.OperationalError] * 2
    assert committed_rows(path) == {}
    assert not db.core._conn.in_transaction  # type: ignore[attr-defined]
    await db.meta.set("next", "1")
    assert committed_rows(path) == {"next": "1"}


async def test_a_write_known_in_full_cancelled_while_its_trip_runs_is_stored_all_the_same(
    db: Database, path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """As with any transaction cancelled after its block ran: its caller gets CancelledError, the write is stored."""
    entered, release, hold = held_in_the_thread()
    watch_statements(db, monkeypatch, {ALONE: hold})
    alone = asyncio.create_task(write_alone(db))
    assert await asyncio.to_thread(entered.wait, 10)
    alone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await alone
    release.set()
    await db.meta.set("next", "1")  # its trip runs behind the cancelled one's
    assert committed_rows(path) == {"alone": "x", "next": "1"}
    assert db.core._alone_in_flight == 0  # type: ignore[attr-defined]
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


async def test_a_write_known_in_full_rolls_back_a_transaction_a_fault_left_open_before_it_begins(
    db: Database, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    conn = db.core._conn  # type: ignore[attr-defined]
    await conn.execute("BEGIN IMMEDIATE")
    await conn.execute("INSERT INTO meta (key, value) VALUES ('stray', 'x')")
    await write_alone(db)
    assert committed_rows(path) == {"alone": "x"}
    assert any("left open by an earlier fault" in record.getMessage() for record in caplog.records)


async def test_a_read_after_a_read_block_left_open_sees_what_was_committed_since(db: Database) -> None:
    """A read block cancelled while its BEGIN ran leaves the read connection in that old view: the next read of
    one statement must not see the database as it was then."""
    reader = db.core._reader  # type: ignore[attr-defined]
    await reader.execute("BEGIN")
    await reader.execute("SELECT * FROM meta")  # the view is taken
    await db.meta.set("later", "1")
    assert await db.meta.get("later") == "1"
