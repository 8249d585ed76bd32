"""Live pages across processes: with PostgreSQL, a process's web pages follow a table another process serves
through that process's NOTIFY (each change within 2 s while the pages would look in storage only once a
minute), the server page's kept boards are dropped when the other process's tables change or someone is
forgotten there, and a lost listening connection is listened again. Without notifications (SQLite) the pages
look in storage themselves."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any

import asyncpg
import pytest_asyncio
from aiohttp.test_utils import TestClient

from bot.db import Database
from bot.game.service import TableService
from bot.web.app import WebContext, make_app
from bot.web.live import LiveHub
from bot.web.notices import TableNews, WebNotices, decode, encode
from bot.web.security import RateLimiter
from tests.bot.conftest import TwoProcesses
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import BOB, GUILD, act_once, four_at_play, play_deal
from tests.bot.web.conftest import QuietServer

LATENCY = 2.0  # seconds from a stored change to its event on another process's page, at most


@dataclass
class Process:
    """One bot process's table service and web app (pages served only where ``client`` is set)."""

    service: TableService
    context: WebContext
    notices: WebNotices
    listening: list[asyncio.Event]  # set each time the process (again) listens
    stops: list[Callable[[], None]]
    client: TestClient | None = None

    async def heard_from_start(self) -> None:
        await asyncio.wait_for(self.listening[-1].wait(), 10)


async def process(db: Database, clock: Clock, cards: dict[tuple[str, str], bytes], *, serve: bool) -> Process:
    service = TableService(db, clock=clock, seed_source=count(1).__next__)
    hub = LiveHub(db, service.held, poll_seconds=60.0, safety_seconds=60.0, keepalive_seconds=5.0)
    context = WebContext(db, service, cards, hub, clock=clock, limiter=RateLimiter(rate=1000, burst=1000))
    app = make_app(context)
    listening = [asyncio.Event()]

    def on_listening(on: bool) -> None:
        hub.set_listening(on)
        if on:
            listening[-1].set()
        else:
            listening.append(asyncio.Event())

    notices = WebNotices(db, context.heard, context.heard_forgotten, on_listening, retry_seconds=0.2)
    context.notices = notices
    notices.start()
    stops = [service.listen(context.table_changed), service.prefs.on_forget(context.forgotten)]
    client = None
    if serve:
        client = TestClient(QuietServer(app))
        await client.start_server()
    return Process(service, context, notices, listening, stops, client)


async def stop(proc: Process) -> None:
    for unlisten in proc.stops:
        unlisten()
    proc.context.hub.close()
    await proc.notices.close()
    if proc.client is not None:
        await proc.client.close()


@pytest_asyncio.fixture
async def two(two_pg_processes: TwoProcesses, cards: dict[tuple[str, str], bytes]) -> AsyncIterator[tuple[Process, Process]]:
    """Process A serves the tables, process B the pages; both listen."""
    clock = Clock()
    a = await process(two_pg_processes.first, clock, cards, serve=False)
    b = await process(two_pg_processes.second, clock, cards, serve=True)
    await a.heard_from_start()
    await b.heard_from_start()
    try:
        yield a, b
    finally:
        await stop(b)
        await stop(a)


class Stream:
    """A live page's events as they arrive."""

    def __init__(self) -> None:
        self.states: list[tuple[float, dict[str, Any]]] = []
        self.arrived = asyncio.Event()

    async def read(self, client: TestClient, path: str) -> None:
        async with client.get(path) as response:
            assert response.status == 200
            async for raw in response.content:
                if raw.startswith(b"data: "):
                    self.states.append((time.monotonic(), json.loads(raw[6:])))
                    self.arrived.set()

    async def version(self, version: int, timeout: float) -> float:
        """When the state of ``version`` (or a later one) arrived."""
        async with asyncio.timeout(timeout):
            while True:
                for arrived, state in self.states:
                    if state["version"] >= version:
                        return arrived
                self.arrived.clear()
                await self.arrived.wait()


async def test_a_live_page_follows_another_processs_table_through_its_notices(two: tuple[Process, Process]) -> None:
    a, b = two
    assert b.client is not None
    token = (await a.service.guilds.update_guild_settings(GUILD, web_pages=True)).web_token
    table = await four_at_play(a.service)
    stream = Stream()
    reader = asyncio.create_task(stream.read(b.client, f"/s/{token}/table/{table.id}/events"))
    try:
        await stream.version(table.version, 10)  # the page as it stands
        for _ in range(12):
            outcome = await act_once(a.service, table)
            table = outcome.table
            stored = time.monotonic()
            arrived = await stream.version(table.version, LATENCY)
            assert arrived - stored < LATENCY
        assert b.context.hub.reads >= 12 and a.notices.sent >= 12
    finally:
        reader.cancel()


async def test_the_server_pages_boards_follow_another_processs_changes_and_forget_me(
    two: tuple[Process, Process],
) -> None:
    a, b = two
    assert b.client is not None
    token = (await a.service.guilds.update_guild_settings(GUILD, web_pages=True)).web_token
    # B drops its kept boards on each of A's news that may show on them: the boards are read once all of A's
    # news is in, not while some may still be on its way (a NOTIFY heard between two reads drops what the first
    # read kept).
    told, heard = [0], [0]
    all_heard = asyncio.Event()
    tell, on_table = a.notices.table_changed, b.notices.on_table

    def counted_tell(table_id: int, version: int, guild_id: int, boards: bool) -> None:
        told[0] += boards
        tell(table_id, version, guild_id, boards)

    def counted_heard(news: TableNews) -> None:
        on_table(news)
        heard[0] += news.boards
        if heard[0] >= told[0]:
            all_heard.set()

    a.notices.table_changed = counted_tell  # type: ignore[method-assign]
    b.notices.on_table = counted_heard
    outcome = await play_deal(a.service, await four_at_play(a.service))
    await a.service.close(outcome.table.id)
    if heard[0] < told[0]:
        all_heard.clear()
        await asyncio.wait_for(all_heard.wait(), LATENCY)
    boards = b.context.boards

    async def board() -> str:
        assert b.client is not None
        async with b.client.get(f"/s/{token}/") as response:
            return await response.text()

    assert ">bob<" in await board()
    reads = boards.reads
    await board()
    assert boards.reads == reads  # kept
    dropped = asyncio.Event()
    clear = boards.clear
    boards.clear = lambda: (clear(), dropped.set())  # type: ignore[method-assign]
    await a.service.prefs.forget_person(BOB)
    await asyncio.wait_for(dropped.wait(), LATENCY)  # A's notice reached B
    text = await board()
    assert ">bob<" not in text and f"/player/{BOB}" not in text


async def test_a_lost_listening_connection_is_listened_again(
    two: tuple[Process, Process], two_pg_processes: TwoProcesses
) -> None:
    a, b = two
    assert b.client is not None
    token = (await a.service.guilds.update_guild_settings(GUILD, web_pages=True)).web_token
    table = await four_at_play(a.service)
    stream = Stream()
    reader = asyncio.create_task(stream.read(b.client, f"/s/{token}/table/{table.id}/events"))
    try:
        await stream.version(table.version, 10)
        watcher: asyncpg.Connection = two_pg_processes.watcher
        killed = await watcher.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'"
        )
        assert killed == 2  # both processes' listening connections
        await b.heard_from_start()  # listening again
        await a.heard_from_start()
        outcome = await act_once(a.service, table)
        await stream.version(outcome.table.version, LATENCY)
    finally:
        reader.cancel()


async def test_without_notifications_the_pages_look_in_storage(
    tmp_path: Path, cards: dict[tuple[str, str], bytes]
) -> None:
    """Two services on one SQLite file stand for a table served elsewhere: no notice is sent or heard, and
    the page looks in storage every ``poll_seconds``."""
    clock = Clock()
    first, second = await Database.open(tmp_path / "bot.db"), await Database.open(tmp_path / "bot.db")
    a = await process(first, clock, cards, serve=False)
    b = await process(second, clock, cards, serve=True)
    b.context.hub.poll_seconds = 0.2
    try:
        assert b.client is not None
        token = (await a.service.guilds.update_guild_settings(GUILD, web_pages=True)).web_token
        table = await four_at_play(a.service)
        stream = Stream()
        reader = asyncio.create_task(stream.read(b.client, f"/s/{token}/table/{table.id}/events"))
        await stream.version(table.version, 10)
        outcome = await act_once(a.service, table)
        await stream.version(outcome.table.version, LATENCY)
        reader.cancel()
        assert a.notices.sent == 0 and not b.notices.listening
    finally:
        await stop(b)
        await stop(a)
        await second.close()
        await first.close()


def test_a_notice_round_trips_and_a_forged_one_names_nothing() -> None:
    payloads = encode("me", [f"t,{n},{n + 1},7,{n % 2}" for n in range(2000)] + ["f"])
    assert len(payloads) > 1 and all(len(p) <= 7000 for p in payloads)
    tables = [news for payload in payloads for news in decode(payload)[1]]
    assert [news.table_id for news in tables] == list(range(2000))
    assert any(decode(payload)[2] for payload in payloads)
    assert decode("x|t,1,2;t,-1,2,3,1;t,1,2,3,2;ff;t,99999999999999999999,1,1,1") == ("x", [], False)
