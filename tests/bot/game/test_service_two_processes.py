"""On PostgreSQL a game's moves are transactions of their guild: another process writing in another guild
does not hold them up, and one writing in the same guild does."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from itertools import count

import asyncpg
import pytest

from bot.db import Database
from bot.game.service import TableService
from tests.bot.db.test_guild_transactions import holding
from tests.bot.db.test_pg_faults import until_someone_waits_for_a_lock
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import GUILD, act_once, four_at_play, play_deal


@pytest.fixture
async def pg_service(pg_url: str, clock: Clock) -> AsyncIterator[tuple[TableService, Database, asyncpg.Connection]]:
    """A service on PostgreSQL, and another process's database and a watching connection on the same server."""
    db, other = await Database.open(pg_url), await Database.open(pg_url)
    watcher = await asyncpg.connect(pg_url)
    try:
        yield TableService(db, clock=clock, seed_source=count(1).__next__), other, watcher
    finally:
        await watcher.close()
        await other.close()
        await db.close()


async def test_a_whole_deal_is_played_while_another_process_writes_in_another_guild(
    pg_service: tuple[TableService, Database, asyncpg.Connection],
) -> None:
    service, other, _ = pg_service
    table = await four_at_play(service)
    async with holding(other, guild_id=GUILD + 1):
        # Every move, the result with its statistics and tallies, and the next deal: none waits (or it
        # would wait for ever).
        last = await asyncio.wait_for(play_deal(service, table), timeout=30)
    assert last.finished_deal is not None and last.new_deal


async def test_a_move_waits_while_another_process_writes_in_the_same_guild(
    pg_service: tuple[TableService, Database, asyncpg.Connection],
) -> None:
    service, other, watcher = pg_service
    table = await four_at_play(service)
    async with holding(other, guild_id=GUILD):
        move = asyncio.create_task(act_once(service, table))
        blocked = asyncio.create_task(until_someone_waits_for_a_lock(watcher))
        await asyncio.wait({move, blocked}, return_when=asyncio.FIRST_COMPLETED)
        blocked.cancel()
        assert not move.done(), "the move did not wait for the guild's other writer"
    assert (await move).table.version == table.version + 1
