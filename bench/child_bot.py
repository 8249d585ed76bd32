"""The real bot as a bench's child process runs it: pointed at the fake Discord its parent serves."""

from __future__ import annotations

import discord
import yarl

from bot.client import SchnapsenBot, make_bot
from bot.settings import Settings
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
) -> SchnapsenBot:
    """A bot whose REST and gateway calls go to the fake, with nobody throttled (the bench clicks fast);
    with ``shards``, a sharded bot on that range (no wait between its IDENTIFYs: the fake does not limit)."""
    discord.http.Route.BASE = api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    settings = Settings(
        token=token,
        database_path=database,
        log_level=log_level,
        edit_interval=edit_interval,
        throttle_actions=1_000_000,
        shards=shards,
        identify_interval=0.0,
    )
    bot = make_bot(settings)
    bot._connection.guild_ready_timeout = 0.2  # discord.py's default waits 2 s before `ready`
    return bot
