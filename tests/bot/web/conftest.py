"""The web companion's tests: the app on a real SQLite database and a table service with a hand-moved clock,
driven by aiohttp's test client; ``web_world``: the bot with its pages on, through the fake Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.db import Database
from bot.game.service import TableService
from bot.settings import WebSettings
from bot.web.app import WebContext, make_app
from bot.web.cards import build_cards
from bot.web.live import LiveHub
from bot.web.security import RateLimiter
from bot.web.server import RUNNER_OPTIONS
from devtools.fakediscord import FakeDiscord
from tests.bot.game.conftest import Clock
from tests.bot.schnapsen.harness import Table

GUILD = 1


@pytest.fixture(params=["sqlite"])
def database_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def cards() -> dict[tuple[str, str], bytes]:
    return build_cards()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(db: Database, clock: Clock) -> TableService:
    return TableService(db, clock=clock, seed_source=count(1).__next__)


class QuietServer(TestServer):
    """The test server with the runner options the bot uses (no access log)."""

    async def _make_runner(self, **kwargs: Any) -> web.AppRunner:
        return web.AppRunner(self.app, **(kwargs | RUNNER_OPTIONS))


@dataclass
class Site:
    client: TestClient
    service: TableService
    hub: LiveHub
    token: str
    context: WebContext

    async def get(self, path: str) -> tuple[int, str]:
        async with self.client.get(path) as response:
            return response.status, await response.text()


@pytest_asyncio.fixture
async def site(service: TableService, clock: Clock, cards: dict[tuple[str, str], bytes]) -> AsyncIterator[Site]:
    """The app with GUILD's pages on; a generous rate limit (the limit has tests of its own)."""
    settings = await service.guilds.update_guild_settings(GUILD, web_pages=True)
    assert settings.web_token is not None
    hub = LiveHub(service.db, service.held, poll_seconds=0.2, keepalive_seconds=0.5)
    context = WebContext(service.db, service, cards, hub, clock=clock, limiter=RateLimiter(rate=1000, burst=1000))
    client = TestClient(QuietServer(make_app(context)))
    unlisten = [service.listen(context.table_changed), service.prefs.on_forget(context.forgotten)]
    await client.start_server()
    try:
        yield Site(client, service, hub, settings.web_token, context)
    finally:
        hub.close()
        for stop in unlisten:
            stop()
        await client.close()


@pytest_asyncio.fixture
async def web_world(fake_discord: FakeDiscord, tmp_path: Path, unused_tcp_port: int) -> AsyncIterator[Table]:
    """The bot through the fake Discord with its web pages served on a loopback port (a server turns its own
    pages on with ``/schnapsen settings web_pages:True``)."""
    base = f"http://127.0.0.1:{unused_tcp_port}"
    world = Table(fake_discord, tmp_path / "bot.sqlite3", web=WebSettings(unused_tcp_port, base))
    yield world
    if world.bot is not None:
        await world.stop_bot()
