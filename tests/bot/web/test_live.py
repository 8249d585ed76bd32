"""The web companion in the running bot, through the fake Discord: the server's pages turned on by a command,
a deal played while the live page's events are read (no card a player has not shown ever reaches it, and each
change arrives promptly), and the result message's Replay link opens the deal's replay."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest_asyncio

from bot.game.table import TableSnapshot
from bot.settings import WebSettings
from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.conftest import warm_renderer  # noqa: F401 (a fixture)
from tests.bot.schnapsen.harness import Table, first_deal_over

CARD = re.compile(r"\b[HDCS][ATKQJ]\b")
EVENT_LATENCY = 2.0  # seconds from a published change to its event on the page, at most


@pytest_asyncio.fixture
async def web_world(fake_discord: FakeDiscord, tmp_path: Path, unused_tcp_port: int) -> AsyncIterator[Table]:
    base = f"http://127.0.0.1:{unused_tcp_port}"
    world = Table(fake_discord, tmp_path / "bot.sqlite3", web=WebSettings(unused_tcp_port, base))
    yield world
    if world.bot is not None:
        await world.stop_bot()


def shown_cards(deal: Any) -> set[str]:
    """What a spectator has seen of the deal as the table stands: the cards played (the turned-up one too)."""
    if deal is None:
        return set()
    played = {card for trick in deal.tricks for _, card in trick.plays} | {card for _, card in deal.trick}
    return played | ({deal.aufschlag_card} if deal.aufschlag_card else set())


class Events:
    """The live page's events as they arrive, with a way to await the one that makes something true."""

    def __init__(self) -> None:
        self.received: list[tuple[float, dict[str, Any]]] = []
        self.arrived = asyncio.Event()

    def add(self, state: dict[str, Any]) -> None:
        self.received.append((time.monotonic(), state))
        self.arrived.set()

    async def until(self, predicate: Any, timeout: float = 20.0) -> None:
        async with asyncio.timeout(timeout):
            while not any(predicate(state) for _, state in self.received):
                self.arrived.clear()
                await self.arrived.wait()


async def read_events(url: str, events: Events) -> None:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        data: list[str] = []
        async for raw in response.content:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                data.append(line[6:])
            elif not line and data:
                events.add(json.loads("\n".join(data)))
                data = []


async def test_the_live_page_shows_no_hidden_card_and_the_replay_link_opens_the_deal(web_world: Table) -> None:
    world = web_world
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    settings_answer = await world.command(world.admin, "settings", web_pages=True)
    said = " ".join(m.visible_text for m in settings_answer.messages)
    base = bot.settings.web.base_url  # type: ignore[union-attr]
    server_url = re.search(re.escape(base) + r"/s/[A-Za-z0-9_-]+/", said)
    assert server_url is not None, said

    # What the table showed at each version, as the core published it: the only cards a page may name.
    allowed: dict[int, set[str]] = {}
    published: dict[int, float] = {}

    def changed(before: TableSnapshot | None, after: TableSnapshot, events: tuple[object, ...]) -> None:
        allowed[after.version] = shown_cards(after.deal)
        published.setdefault(after.version, time.monotonic())

    bot.service.listen(changed)
    table = await world.open_table(alice, [None, None, None], start=False)
    events = Events()
    reader = asyncio.create_task(read_events(f"{server_url[0]}table/{table.id}/events", events))
    await events.until(lambda state: True)
    click = await world.fake.click(alice, await world.table_message(), label="Start")
    await click.wait_response()
    await world.play([alice], until=first_deal_over)
    await events.until(lambda state: state["deal_no"] >= 1 or bool(state["deal"] and state["deal"]["finished"]))
    reader.cancel()

    assert len(events.received) > 5
    for received, state in events.received:
        text = json.dumps(state)
        version = state["version"]
        if version in allowed:  # published after the listener was added (the first event may be older)
            assert set(CARD.findall(text)) <= allowed[version], (version, text)
            assert received - published[version] < EVENT_LATENCY
        assert state["deal"] is None or "hand" not in state["deal"]

    result = await world.fake.wait_for(
        lambda: next((m for m in world.channel.messages if any(b.get("label") == "Replay" for b in m.buttons)), None),
        what="a result message with a Replay link",
    )
    link = next(b for b in result.buttons if b.get("label") == "Replay")
    assert link["url"].startswith(server_url[0]) and link["url"].endswith(f"/table/{table.id}/deal/1")
    async with aiohttp.ClientSession() as session, session.get(link["url"]) as response:
        assert response.status == 200
        assert 'id="replay-data"' in await response.text()
