"""The Discord client: opens the database, starts the AI workers, loads the extensions (the game: its commands,
buttons and the restoring of every open table) and syncs the slash commands only when their definitions
changed."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.db import Database
from bot.game.ai import AiPlayers
from bot.game.coach import Coach
from bot.game.service import TableService
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.schnapsen.checks import Throttle
    from bot.schnapsen.runtime import Runtime

log = logging.getLogger(__name__)
EXTENSIONS = ("bot.schnapsen.cog",)


class SchnapsenBot(commands.Bot):
    def __init__(self, settings: Settings, *, force_sync: bool = False, **options: Any) -> None:
        # Slash commands and buttons only: no privileged intents, no message content.
        intents = discord.Intents.none()
        intents.guilds = True
        # No message pings anybody unless it says so itself (a player named "@everyone" stays a name).
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents, help_command=None, **options
        )
        self.settings = settings
        self.force_sync = force_sync
        self.db: Database
        self.service: TableService
        self.ai: AiPlayers
        self.coach: Coach
        # Set by the schnapsen extension while it is loaded (bot/schnapsen/cog.py, cog_load).
        self.runtime: Runtime
        self.throttle: Throttle

    async def setup_hook(self) -> None:
        self.db = await Database.open(self.settings.database_path, synchronous=self.settings.db_synchronous)
        shards = self.settings.shards
        self.service = TableService(self.db, shards=shards)
        if shards is not None:
            log.info("serving the guilds of %s", shards)
        settings = self.settings
        # One AI queue for the process: table moves, then the coach's hints and reviews (bot/ai_worker.py).
        self.ai = AiPlayers(
            settings.ai_budget_ms,
            settings.ai_hard_cap_ms,
            workers=settings.ai_workers or None,
            evaluate=settings.coach_search,
        )
        # The AI worker processes are started (engine loaded) before any restored table asks for a move.
        await self.ai.start()
        self.coach = Coach(
            self.ai.worker,
            budget_ms=settings.coach_budget_ms,
            hint_cap_ms=settings.hint_cap_ms,
            review_seconds=settings.review_seconds,
            reviews_per_window=settings.reviews_per_window,
            review_window=settings.review_window,
        )
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.sync_commands_if_changed()
        # Loading card art takes a second or two per deck: do it now, off the event loop, not on a first click.
        self._preload = asyncio.create_task(asyncio.to_thread(_preload_decks), name="preload card art")

    async def sync_commands_if_changed(self) -> None:
        guild = discord.Object(self.settings.dev_guild_id) if self.settings.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(
            json.dumps([payload, self.settings.dev_guild_id], sort_keys=True).encode()
        ).hexdigest()
        if not self.force_sync and await self.service.command_hash() == digest:
            log.info("slash commands unchanged; not syncing")
            return
        await self.tree.sync(guild=guild)
        await self.service.set_command_hash(digest)
        log.info("slash commands synced%s", f" to guild {guild.id}" if guild else " globally")

    async def close(self) -> None:
        await super().close()  # unloads the extensions first: their loops stop and their messages drain
        if hasattr(self, "ai"):
            await self.ai.close()
        if hasattr(self, "coach"):
            await self.coach.close()
        if hasattr(self, "db"):
            await self.db.close()


class ShardedSchnapsenBot(SchnapsenBot, commands.AutoShardedBot):
    """The bot on a range of Discord's shards (``SHARD_COUNT``, ``SHARD_IDS``): it serves only the guilds on
    them (``bot.shards``); other processes serve the rest from the same database."""

    def __init__(self, settings: Settings, *, force_sync: bool = False, **options: Any) -> None:
        shards = settings.shards
        assert shards is not None, "a sharded bot needs its shard range"
        super().__init__(
            settings, force_sync=force_sync, shard_count=shards.count, shard_ids=list(shards.ids), **options
        )

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        if not initial:  # Discord refuses a second IDENTIFY within 5 s (max_concurrency 1)
            await asyncio.sleep(self.settings.identify_interval)


def make_bot(settings: Settings, *, force_sync: bool = False, **options: Any) -> SchnapsenBot:
    """One process serving every guild (no shard settings, as before), or a sharded one on its range."""
    if settings.shards is None:
        return SchnapsenBot(settings, force_sync=force_sync, **options)
    return ShardedSchnapsenBot(settings, force_sync=force_sync, **options)


def _preload_decks() -> None:
    from bot import render

    for deck in render.DECK_STYLES:
        render.preload(deck)


async def run(settings: Settings, *, force_sync: bool = False) -> None:
    async with make_bot(settings, force_sync=force_sync) as bot:
        await bot.start(settings.token)
