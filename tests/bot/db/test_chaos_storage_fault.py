"""The chaos bench's storage fault (bench/chaos_child.py, SIGUSR1) on both engines: while its window is open
every way the core writes is refused with the driver's own "disk full" error, and counted; nothing written in
the window is stored; once it closes, writes work again. Its patch helper refuses a method the class does not
define itself or a subclass overrides (such a patch silently injected nothing before)."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator

import pytest

from bench import chaos_child
from bot.db import Database


@pytest.fixture
def storage_fault() -> Iterator[None]:
    """``patch_storage`` applied for the test, the engine cores' own methods restored after it."""
    saved = [(cls, method, cls.__dict__[method]) for cls, methods in chaos_child.storage_cores().items() for method in methods]
    assert {cls.__name__ for cls, _, _ in saved} == {"SqliteCore", "PostgresCore"}
    chaos_child.patch_storage()
    try:
        yield
    finally:
        chaos_child.storage_failing_until = 0.0
        for cls, method, original in saved:
            setattr(cls, method, original)


@contextlib.contextmanager
def storage_failing() -> Iterator[None]:
    chaos_child.storage_failing_until = time.monotonic() + 3600
    try:
        yield
    finally:
        chaos_child.storage_failing_until = 0.0


def injected(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage().removeprefix(chaos_child.FAULT_TEXT)
        for r in caplog.records
        if r.getMessage().startswith(chaos_child.FAULT_TEXT)
    ]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_every_write_path_of_the_engine_is_refused_in_the_window_and_counted(
    storage_fault: None, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bench.chaos_child")
    disk_full = type(chaos_child.engine_error(db.core))
    with storage_failing():
        with pytest.raises(disk_full):
            await db.meta.set("during", "1")  # a transaction of its own
        with pytest.raises(disk_full):
            await db.inbox.post_click(1, 0, {"id": "1"}, 0)  # insert_notifying
        with pytest.raises(disk_full):
            await db.inbox.click_done(1)  # unordered_write
        with pytest.raises(disk_full):  # a write known in full (a move)
            await db.core.fetch_chain_alone([("INSERT INTO meta (key, value) VALUES ('alone', '1') RETURNING key", ())])
    # SQLite's queue writes are transactions (DatabaseCore's); PostgreSQL has its own of both. SQLite has its own
    # write known in full, PostgreSQL's is DatabaseCore's, a transaction.
    own = db.dialect == "postgresql"
    assert injected(caplog) == [
        "storage-transaction",
        "storage-insert_notifying" if own else "storage-transaction",
        "storage-unordered_write" if own else "storage-transaction",
        "storage-transaction" if own else "storage-fetch_chain_alone",
    ]
    assert await db.meta.get("during") is None and await db.meta.get("alone") is None
    assert await db.inbox.clicks_for([0]) == []
    await db.meta.set("after", "1")
    assert await db.meta.get("after") == "1"


async def test_a_transaction_the_window_opens_in_is_refused_and_rolled_back(
    storage_fault: None, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bench.chaos_child")
    with pytest.raises(type(chaos_child.engine_error(db.core))):
        async with db.transaction():
            await db.meta.set("first", "1")
            with storage_failing():
                await db.core.execute("INSERT INTO meta (key, value) VALUES ('second', '1')")
    with pytest.raises(type(chaos_child.engine_error(db.core))):
        async with db.transaction():
            await db.meta.set("third", "1")  # joins the block
            chaos_child.storage_failing_until = time.monotonic() + 3600  # opens after the last write
    chaos_child.storage_failing_until = 0.0
    assert injected(caplog) == ["storage-execute", "storage-transaction-end"]
    assert [await db.meta.get(key) for key in ("first", "second", "third")] == [None, None, None]


class Base:
    def method(self) -> str:
        return "base"


class Overriding(Base):
    def method(self) -> str:
        return "own"


def test_the_patch_helper_refuses_a_missing_or_overridden_method() -> None:
    with pytest.raises(RuntimeError, match="defines no renamed"):
        chaos_child.replace_method(Base, "renamed", lambda original: original)
    with pytest.raises(RuntimeError, match="overridden by"):
        chaos_child.replace_method(Base, "method", lambda original: original)
    with pytest.raises(RuntimeError, match="defines no"):  # inherited only: patching it would shadow Base's
        chaos_child.replace_method(type("Inheriting", (Base,), {}), "method", lambda original: original)
    chaos_child.replace_method(Overriding, "method", lambda original: lambda self: "patched " + original(self))
    assert Overriding().method() == "patched own"
