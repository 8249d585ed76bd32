"""The server page reads storage once for many viewers, writes nothing, and drops what it kept at once when a
table's change may show on it or a person is forgotten."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from bot.web.boards import BoardsCache
from tests.bot.game.test_service import BOB, act_once, four_at_play, play_deal
from tests.bot.web.conftest import Site


@contextlib.asynccontextmanager
async def no_writes(site: Site) -> AsyncIterator[list[str]]:
    """Every write transaction begun meanwhile, by name (a page view must begin none)."""
    core = site.service.db.core
    begun: list[str] = []
    real_transaction, real_unordered = core.transaction, core.unordered_write

    def transaction(**kwargs: object) -> contextlib.AbstractAsyncContextManager[None]:
        begun.append("transaction")
        return real_transaction(**kwargs)  # type: ignore[arg-type]

    def unordered_write() -> contextlib.AbstractAsyncContextManager[None]:
        begun.append("unordered_write")
        return real_unordered()

    core.transaction = transaction  # type: ignore[method-assign]
    core.unordered_write = unordered_write  # type: ignore[method-assign]
    try:
        yield begun
    finally:
        core.transaction = real_transaction  # type: ignore[method-assign]
        core.unordered_write = real_unordered  # type: ignore[method-assign]


async def test_no_page_view_writes(site: Site) -> None:
    table = await four_at_play(site.service)
    outcome = await play_deal(site.service, table)
    table_id = outcome.table.id
    paths = [
        f"/s/{site.token}/",
        f"/s/{site.token}/?sort=points",
        f"/s/{site.token}/table/{table_id}",
        f"/s/{site.token}/table/{table_id}/deal/1",
        f"/s/{site.token}/player/{BOB}",
    ]
    async with no_writes(site) as begun:
        for path in paths:
            assert (await site.get(path))[0] == 200, path
    assert begun == []
    months = await site.service.db.core.fetch_all("SELECT * FROM daily_league_months")
    assert months == []  # the league was worked out without storing this month's ladder


async def test_many_viewers_cost_one_read_until_a_change_shows(site: Site) -> None:
    boards = site.context.boards
    table = await four_at_play(site.service)
    before = boards.reads
    pages = await asyncio.gather(*(site.get(f"/s/{site.token}/") for _ in range(20)))
    assert all(status == 200 for status, _ in pages)
    assert boards.reads == before + 1  # twenty viewers at once: one read
    outcome = await act_once(site.service, table)  # a card played: nothing on the boards changes
    await site.get(f"/s/{site.token}/")
    assert boards.reads == before + 1
    await play_deal(site.service, outcome.table)  # a deal over: its result may show
    await site.get(f"/s/{site.token}/")
    assert boards.reads == before + 2


async def test_forget_me_clears_what_was_kept(site: Site) -> None:
    service = site.service
    outcome = await play_deal(service, await four_at_play(service))
    await service.close(outcome.table.id)
    _, board = await site.get(f"/s/{site.token}/")
    assert "bob" in board
    await service.prefs.forget_person(BOB)
    _, board = await site.get(f"/s/{site.token}/")
    assert ">bob<" not in board and f"/player/{BOB}" not in board


async def test_a_read_that_overlaps_a_drop_is_not_kept() -> None:
    now = [0.0]
    gate = asyncio.Event()
    reads: list[int] = []

    async def read(guild_id: int, sort: str | None, page: int) -> dict[str, object]:
        reads.append(guild_id)
        await gate.wait()
        return {"read": len(reads)}

    cache = BoardsCache(read, seconds=10, clock=lambda: now[0])
    first = asyncio.create_task(cache.get(1, None, 1))
    await asyncio.sleep(0)
    cache.invalidate(1)  # the table changed while the read ran
    gate.set()
    assert await first == {"read": 1}
    assert await cache.get(1, None, 1) == {"read": 2}  # read again: the first was not kept
    assert await cache.get(1, None, 1) == {"read": 2}  # kept now
    now[0] += 10
    assert await cache.get(1, None, 1) == {"read": 3}  # and for ``seconds`` only


@pytest.mark.parametrize("viewers", [1, 5])
async def test_a_viewer_who_leaves_does_not_stop_the_read(viewers: int) -> None:
    gate = asyncio.Event()

    async def read(guild_id: int, sort: str | None, page: int) -> dict[str, object]:
        await gate.wait()
        return {"ok": True}

    cache = BoardsCache(read)
    leaving = asyncio.create_task(cache.get(1, None, 1))
    staying = [asyncio.create_task(cache.get(1, None, 1)) for _ in range(viewers)]
    await asyncio.sleep(0)
    leaving.cancel()
    gate.set()
    assert [await task for task in staying] == [{"ok": True}] * viewers
