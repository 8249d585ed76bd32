"""The Discord client: opens the database, restores every open table, registers the persistent buttons and
syncs the slash commands only when their definitions changed."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from typing import Any

import discord
from discord.ext import commands

from bot.db import Database
from bot.db.retention import retention_cutoff
from bot.game.ai import AiPlayers
from bot.game.service import TableService
from bot.settings import Settings

log = logging.getLogger(__name__)
COMMAND_HASH_KEY = "command_hash"


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
        self._maintenance: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        from bot.schnapsen.cog import SchnapsenCog
        from bot.schnapsen.components import GameButton, LeaderboardButton

        self.db = await Database.open(self.settings.database_path, synchronous=self.settings.db_synchronous)
        self.service = TableService(self.db)
        self.ai = AiPlayers(self.settings.ai_budget_ms, self.settings.ai_hard_cap_ms)
        # The AI worker processes are started (engine loaded) before any restored table asks for a move.
        await self.ai.start()
        try:
            from bot.i18n.translator import CatalogueTranslator
        except ImportError:
            pass
        else:
            await self.tree.set_translator(CatalogueTranslator())
        cog = SchnapsenCog(self)
        await self.add_cog(cog)
        self.add_dynamic_items(GameButton, LeaderboardButton)
        await self.sync_commands_if_changed()
        restored = await self.service.restore_all()
        for table in restored.tables:
            # Edits still pending when the bot stopped were lost: show every table as it stands, deliver what
            # it still owes, then let AI seats and idle timers pick up where they stopped.
            cog.runtime.resume(table)
        for table_id in {entry.table_id for entry in await self.service.pending_announcements()}:
            cog.runtime.deliver(table_id)  # closed and set-aside tables too
        log.info(
            "restored %d open table(s); repaired %d; set aside %d",
            len(restored.tables),
            len(restored.repaired),
            len(restored.set_aside),
        )
        self._maintenance = asyncio.create_task(self._maintain_forever(cog), name="maintenance")
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
        if not self.force_sync and await self.db.get_meta(COMMAND_HASH_KEY) == digest:
            log.info("slash commands unchanged; not syncing")
            return
        await self.tree.sync(guild=guild)
        await self.db.set_meta(COMMAND_HASH_KEY, digest)
        log.info("slash commands synced%s", f" to guild {guild.id}" if guild else " globally")

    async def _maintain_forever(self, cog: Any) -> None:
        """The watchdog (often), the sweeper and the pruning of old action logs (every sweep_interval); a
        failure is logged and tried again."""
        loop = asyncio.get_running_loop()
        next_sweep = loop.time() + self.settings.sweep_interval
        while True:
            await asyncio.sleep(min(self.settings.watchdog_interval, max(next_sweep - loop.time(), 0)))
            try:
                await cog.runtime.watch()
            except Exception:
                log.exception("the watchdog failed; it looks again in %s s", self.settings.watchdog_interval)
            if loop.time() >= next_sweep:
                next_sweep = loop.time() + self.settings.sweep_interval
                try:
                    await cog.runtime.sweep()
                except Exception:
                    log.exception("sweeping idle tables failed")
                await self._prune_old_action_logs()

    async def _prune_old_action_logs(self) -> None:
        cutoff = retention_cutoff(int(time.time()), self.settings.retention_days)
        if cutoff is None:
            return
        try:
            pruned = await self.db.prune_closed_tables(cutoff)
        except Exception:
            log.exception("pruning closed tables' action logs failed; tried again at the next sweep")
        else:
            if pruned:
                log.info("pruned the action logs of %d closed table(s)", pruned)

    async def close(self) -> None:
        if self._maintenance is not None:
            self._maintenance.cancel()
        cog = self.get_cog("schnapsen")
        if cog is not None:
            await cog.runtime.shutdown()  # type: ignore[attr-defined]
        await super().close()
        if hasattr(self, "ai"):
            await self.ai.close()
        if hasattr(self, "db"):
            await self.db.close()


def _preload_decks() -> None:
    from bot import render

    for deck in render.DECK_STYLES:
        render.preload(deck)


async def run(settings: Settings, *, force_sync: bool = False) -> None:
    async with SchnapsenBot(settings, force_sync=force_sync) as bot:
        await bot.start(settings.token)
