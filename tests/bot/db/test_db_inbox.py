"""The click inbox in storage, on both engines: clicks are kept per owner shard in order until deleted, and on
PostgreSQL storing one wakes the listeners of its shard (NOTIFY in the storing transaction)."""

from __future__ import annotations

import asyncio

from bot.db import Database
from bot.db.inbox import CLICKS_CHANNEL

CLICK = {"id": "1", "type": 3, "token": "t", "data": {"custom_id": "bs:1:2:play:HA", "component_type": 2}}


async def test_clicks_wait_per_shard_in_order_until_deleted(db: Database) -> None:
    first = await db.inbox.post_click(7, 1, CLICK, 100)
    second = await db.inbox.post_click(8, 0, {**CLICK, "id": "2"}, 101)
    third = await db.inbox.post_click(7, 1, {**CLICK, "id": "3"}, 102)

    waiting = await db.inbox.clicks_for((1,))
    assert [click.id for click in waiting] == [first, third]
    assert waiting[0].table_id == 7 and waiting[0].interaction == CLICK and waiting[0].received_at == 100
    assert [click.id for click in await db.inbox.clicks_for((0, 1))] == [first, second, third]
    assert await db.inbox.clicks_for(()) == []

    await db.inbox.click_done(first)
    await db.inbox.click_done(first)  # deleting twice is harmless
    assert [click.id for click in await db.inbox.clicks_for((0, 1))] == [second, third]


async def test_a_click_that_was_rolled_back_was_never_stored(db: Database) -> None:
    try:
        async with db.transaction():
            await db.inbox.post_click(7, 1, CLICK, 100)
            raise RuntimeError("the disk is full")
    except RuntimeError:
        pass
    assert await db.inbox.clicks_for((1,)) == []


async def test_storing_a_click_wakes_the_listeners_on_postgresql(db: Database) -> None:
    heard: asyncio.Queue[str] = asyncio.Queue()
    lost: list[bool] = []
    stop = await db.listen(CLICKS_CHANNEL, heard.put_nowait, lambda: lost.append(True))
    if db.dialect == "sqlite":
        assert stop is None  # no notifications: the owner looks for itself
        return
    assert stop is not None
    try:
        await db.inbox.post_click(7, 1, CLICK, 100)
        assert await asyncio.wait_for(heard.get(), 10) == "1"
        async with db.transaction():
            await db.inbox.post_click(8, 0, CLICK, 101)
            assert heard.empty()  # NOTIFY is delivered at commit, never for a click not yet stored
        assert await asyncio.wait_for(heard.get(), 10) == "0"
    finally:
        await stop()
    assert lost == []  # a listener stopped on purpose is not reported lost


async def test_a_listening_connection_that_dies_is_reported_lost_on_postgresql(db: Database) -> None:
    if db.dialect == "sqlite":
        return  # nothing listens
    lost = asyncio.Event()
    stop = await db.listen(CLICKS_CHANNEL, lambda shard: None, lost.set)
    assert stop is not None
    try:
        async with db.transaction():  # the server ends the listener's session (a restart, an admin, a network)
            await db.core.fetch_all(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()"
            )
        await asyncio.wait_for(lost.wait(), 10)
    finally:
        await stop()
