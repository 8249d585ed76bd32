"""On PostgreSQL a game's moves are transactions of their guild: another process writing in another guild
does not hold them up, and one writing in the same guild does."""

from __future__ import annotations

import asyncio
from itertools import count

from bot.db import Database
from bot.game.service import TableService
from tests.bot.conftest import TwoProcesses
from tests.bot.db.test_guild_transactions import holding
from tests.bot.db.test_pg_faults import waits_for_a_lock
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import GUILD, act_once, four_at_play, play_deal


def service_on(db: Database, clock: Clock) -> TableService:
    return TableService(db, clock=clock, seed_source=count(1).__next__)


async def test_a_whole_deal_is_played_while_another_process_writes_in_another_guild(
    two_pg_processes: TwoProcesses, clock: Clock
) -> None:
    service, other = service_on(two_pg_processes.first, clock), two_pg_processes.second
    table = await four_at_play(service)
    async with holding(other, guild_id=GUILD + 1):
        # Every move, the result with its statistics and tallies, and the next deal: none waits (or it
        # would wait for ever).
        last = await asyncio.wait_for(play_deal(service, table), timeout=30)
    assert last.finished_deal is not None and last.new_deal


async def test_a_move_waits_while_another_process_writes_in_the_same_guild(
    two_pg_processes: TwoProcesses, clock: Clock
) -> None:
    service, (_, other, watcher) = service_on(two_pg_processes.first, clock), two_pg_processes
    table = await four_at_play(service)
    async with holding(other, guild_id=GUILD):
        move = asyncio.create_task(act_once(service, table))
        assert await waits_for_a_lock(watcher, move), "the move did not wait for the guild's other writer"
    assert (await move).table.version == table.version + 1
