"""Transactions confined to one guild (`transaction(guild_id=...)`): on PostgreSQL two processes' changes in
different guilds overlap, while the same guild's changes and every transaction that is not confined to a
guild still run one at a time. Each "process" here is a Database of its own on the same server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from bot.db import Database, PlayerDealStats
from tests.bot.conftest import TwoProcesses

from .test_pg_faults import waits_for_a_lock

Step = Callable[[Database], Awaitable[None]]


def stats_of(user_id: int) -> list[PlayerDealStats]:
    return [PlayerDealStats(user_id, f"P{user_id}", won=True, game_points=2, declared=False, made=False)]


async def deal_in_guild(guild_id: int, user_id: int, db: Database) -> None:
    """What a move at a table of the guild writes, in the guild's transaction: its players' statistics."""
    async with db.transaction(guild_id=guild_id):
        await db.stats.add_deal_stats(guild_id, stats_of(user_id))


@asynccontextmanager
async def holding(db: Database, guild_id: int | None) -> AsyncIterator[None]:
    """A transaction of `db` (of `guild_id`, or not confined to a guild) that stays open inside the block,
    having written something, and commits when it ends."""
    opened, release = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with db.transaction(guild_id=guild_id):
            if guild_id is None:
                await db.meta.set("held", "1")
            else:
                await db.stats.add_deal_stats(guild_id, stats_of(1))
            opened.set()
            await release.wait()

    holder, held = asyncio.create_task(hold()), asyncio.create_task(opened.wait())
    await asyncio.wait({holder, held}, return_when=asyncio.FIRST_COMPLETED)
    held.cancel()
    if holder.done():
        await holder  # it failed before it held anything: say why
    try:
        yield
    finally:
        release.set()
        await holder


async def test_two_processes_write_in_different_guilds_at_once(
    two_pg_processes: TwoProcesses,
) -> None:
    first, second, _ = two_pg_processes
    async with holding(first, guild_id=1):
        # Finishes while the first process's transaction is still open (it would wait for ever otherwise).
        await asyncio.wait_for(deal_in_guild(2, 7, second), timeout=10)
        assert (await first.stats.get_player_stats(2, 7)) is not None
    assert (await second.stats.get_player_stats(1, 1)) is not None


@pytest.mark.parametrize(
    ("held_guild", "waiting"),
    [
        (1, lambda db: deal_in_guild(1, 7, db)),  # the same guild
        (1, lambda db: db.meta.set("whole", "1")),  # a transaction not confined to a guild waits for guilds'
        (None, lambda db: deal_in_guild(2, 7, db)),  # and every guild's transaction waits for it
    ],
    ids=["same guild", "whole database after a guild", "guild after the whole database"],
)
async def test_transactions_that_may_touch_the_same_rows_wait_for_each_other(
    two_pg_processes: TwoProcesses, held_guild: int | None, waiting: Step
) -> None:
    first, second, watcher = two_pg_processes
    async with holding(first, held_guild):
        later = asyncio.create_task(waiting(second))
        assert await waits_for_a_lock(watcher, later), "it ran while the first transaction was open"
    await later
    assert await second.meta.get("held") == (None if held_guild is not None else "1")
    assert (await second.stats.get_player_stats(1, 1) is not None) == (held_guild is not None)


async def test_a_guild_transaction_joins_the_open_transaction_and_refuses_another_guild(db: Database) -> None:
    async with db.transaction(guild_id=1):
        await db.stats.add_deal_stats(1, stats_of(7))  # the repository's own block joins the guild's
        async with db.transaction(guild_id=1):
            await db.stats.add_deal_stats(1, stats_of(8))
        with pytest.raises(RuntimeError, match="guild 1 cannot write rows of guild 2"):
            async with db.transaction(guild_id=2):
                pass
    assert (await db.stats.get_player_stats(1, 7)) is not None
    assert (await db.stats.get_player_stats(1, 8)) is not None
    # A whole-database transaction may hold any guild's block.
    async with db.transaction(), db.transaction(guild_id=3):
        await db.stats.add_deal_stats(3, stats_of(9))
    assert (await db.stats.get_player_stats(3, 9)) is not None


async def test_a_guild_transaction_takes_its_guild_lock_only_once_it_holds_the_write_lock_shared(
    two_pg_processes: TwoProcesses,
) -> None:
    first, second, watcher = two_pg_processes
    async with holding(first, guild_id=None):
        later = asyncio.create_task(deal_in_guild(2, 7, second))
        assert await waits_for_a_lock(watcher, later), "it ran while the write lock was held alone"
        # Two-key advisory locks (objsubid 2) are guilds' locks: none is held or asked for yet.
        guild_locks = await watcher.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2"
        )
        waiting_mode = await watcher.fetchval(
            "SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        )
        assert (guild_locks, waiting_mode) == (0, "ShareLock")
    await later
