"""The real bot as a bench's child process runs it: pointed at the fake Discord its parent serves."""

from __future__ import annotations

import argparse
import asyncio
import signal
import time
from collections.abc import Callable

import discord
import yarl

from bot.client import SchnapsenBot, make_bot
from bot.settings import Settings, WebSettings
from bot.shards import ShardRange


def bot_for_fake_discord(
    *,
    api: str,
    gateway: str,
    token: str,
    database: str,
    edit_interval: float,
    log_level: str,
    shards: ShardRange | None = None,
    web: WebSettings | None = None,
) -> SchnapsenBot:
    """A bot whose REST and gateway calls go to the fake, with nobody throttled (the bench clicks fast);
    with ``shards``, a sharded bot on that range (no wait between its IDENTIFYs: the fake does not limit);
    with ``web``, serving its web pages."""
    point_at_fake_discord(api, gateway)
    settings = Settings(
        token=token,
        database_path=database,
        log_level=log_level,
        edit_interval=edit_interval,
        throttle_actions=1_000_000,
        shards=shards,
        identify_interval=0.0,
        web=web,
    )
    bot = make_bot(settings)
    bot._connection.guild_ready_timeout = 0.2  # discord.py's default waits 2 s before `ready`
    return bot


def add_fake_discord_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the parent's fake Discord listens, its bot token, and the database: every child takes these."""
    parser.add_argument("--api", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--database", required=True)


def point_at_fake_discord(api: str, gateway: str) -> None:
    discord.http.Route.BASE = api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)


async def run_until_sigterm(bot: SchnapsenBot, *, before_close: Callable[[], None] | None = None) -> None:
    """Run ``bot``, print ``READY`` when it is first connected, and close it cleanly at SIGTERM (calling
    ``before_close`` first); a client that failed on its own is raised."""
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    ready_once = False

    @bot.event
    async def on_ready() -> None:
        nonlocal ready_once
        if not ready_once:
            ready_once = True
            print("READY", flush=True)

    async with bot:
        runner = asyncio.create_task(bot.start(bot.settings.token))
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({runner, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if before_close is not None:
            before_close()
        await bot.close()
        if runner.done() and runner.exception() is not None:
            raise runner.exception()  # type: ignore[misc]


async def watch_lateness(lateness: list[tuple[float, float]]) -> None:
    """Until cancelled: how late this process's event loop wakes a task that sleeps 10 ms, as (monotonic time, ms
    late). Every wait of the process (an answer from Discord or the database) waits as long again."""
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time()
        await asyncio.sleep(0.01)
        lateness.append((time.monotonic(), (loop.time() - asked - 0.01) * 1000))
