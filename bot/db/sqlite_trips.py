"""What runs in aiosqlite's thread on the write connection (bot/db/sqlite.py queues it): a trip's framing
statements, then one statement of a transaction's block, or a whole write known in full with its batch's COMMIT.
Plain functions of the sqlite3 connection, with nothing of asyncio: each runs to its end in one go, in the
order the trips were queued."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Callable
from typing import Any, Literal

import aiosqlite

log = logging.getLogger(__name__)

StatementKind = Literal["rows", "count", "many", "chain"]
BEGIN, SAVEPOINT, RELEASE = "BEGIN IMMEDIATE", "SAVEPOINT member", "RELEASE member"
ALONE_SAVEPOINT, ALONE_UNDO, ALONE_RELEASE = "SAVEPOINT alone", "ROLLBACK TO alone", "RELEASE alone"


class DueFailed(Exception):
    """A framing statement sent ahead of a statement failed (``err``); the statement did not run."""

    def __init__(self, err: BaseException) -> None:
        super().__init__(err)
        self.err = err


class BatchFailed(Exception):
    """A batch's framing or COMMIT failed in a trip of `fetch_chain_alone` (``err``): the batch is rolled back."""

    def __init__(self, err: BaseException) -> None:
        super().__init__(err)
        self.err = err


def frame(raw: sqlite3.Connection, due: list[str]) -> None:
    """The framing statements ``due``. A batch begins on a connection out of any transaction: one that a fault left
    open (a ROLLBACK that failed) is rolled back first, here in the thread, where it is known for sure."""
    for framing in due:
        if framing == BEGIN and raw.in_transaction:
            log.error("a transaction left open by an earlier fault is rolled back before the next use")
            raw.execute("ROLLBACK")
        raw.execute(framing)


def run_statement(conn: aiosqlite.Connection, due: list[str], kind: StatementKind, sql: str, params: Any) -> Any:
    """The framing statements ``due``, then one statement of a block (see `SqliteCore._statement`)."""
    raw = conn._conn
    try:
        frame(raw, due)
    except BaseException as err:
        raise DueFailed(err) from err
    if kind == "rows":
        return raw.execute(sql, params).fetchall()
    if kind == "count":
        return raw.execute(sql, params).rowcount
    if kind == "chain":
        return run_chain(raw, params)
    raw.executemany(sql, params)
    return None


def run_chain(raw: sqlite3.Connection, chain: list[tuple[str, Any]]) -> list[list[Any]]:
    """Each statement's rows in turn, stopping after the first that returns none (the next ones build on it)."""
    results = []
    for sql, params in chain:
        results.append(rows := raw.execute(sql, params).fetchall())
        if not rows:
            break
    return results


def run_alone(
    conn: aiosqlite.Connection,
    due: list[str],
    chain: list[tuple[str, Any]],
    landed: Callable[[BatchFailed | None], object],
) -> list[list[Any]]:
    """A trip of `SqliteCore.fetch_chain_alone`: the framing due (the open batch's, or BEGIN), the chain in a
    savepoint of its own (undone when a statement returns no row or fails), and the batch's COMMIT; ``landed`` is
    told how the batch ended (None: committed) before the trip returns or raises. The connection is left out of any
    transaction, unless a ROLLBACK fails (then the next BEGIN rolls it back, `frame`)."""
    try:
        results = _alone(conn, due, chain)
    except BatchFailed as failed:
        landed(failed)
        raise
    except BaseException:  # the chain's own error: the batch is committed all the same
        landed(None)
        raise
    landed(None)
    return results


def _alone(conn: aiosqlite.Connection, due: list[str], chain: list[tuple[str, Any]]) -> list[list[Any]]:
    try:
        raw = conn._conn
    except ValueError as closed:  # the connection was closed meanwhile
        raise BatchFailed(closed) from closed
    try:
        frame(raw, due)
        raw.execute(ALONE_SAVEPOINT)
    except BaseException as err:
        roll_back_all(raw)
        raise BatchFailed(err) from err
    results: list[list[Any]] = []
    own_error: BaseException | None = None
    try:
        results = run_chain(raw, chain)
        if results and not results[-1]:
            raw.execute(ALONE_UNDO)  # the chain stopped: none of it is stored
        raw.execute(ALONE_RELEASE)
    except BaseException as err:
        own_error = err
        try:
            raw.execute(ALONE_UNDO)
            raw.execute(ALONE_RELEASE)
        except BaseException as undo_err:
            log.error("undoing a failed write (%r) failed: %r; its batch is rolled back", err, undo_err)
            roll_back_all(raw)
            raise BatchFailed(err) from err
    try:
        raw.execute("COMMIT")
    except BaseException as err:
        roll_back_all(raw)
        raise BatchFailed(err) from err
    if own_error is not None:
        raise own_error
    return results


def roll_back_all(raw: sqlite3.Connection) -> None:
    """After a failure that leaves the batch's savepoints unknown: undo the whole batch, if SQLite has not."""
    if raw.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            raw.execute("ROLLBACK")
