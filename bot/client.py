"""The Discord client: opens the database, starts the AI workers, loads the extensions (the game: its commands,
buttons and the restoring of every open table) and syncs the slash commands only when their definitions
changed, to one development server or globally, removing the copy in the other place.

`run` is what `python -m bot` runs: it opens the database before logging in, so that a wrong database is one
line before anything talks to Discord. A fault that may pass by itself (no network or DNS yet, Discord's 5xx,
a database server still starting) is waited out with a WARNING per try (`bot.connect.patiently`); a refused
token is a `StartError` of one sentence. Once connected, discord.py reconnects by itself."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import os
import socket
import time
from typing import Any

import aiohttp
import discord
from discord.ext import commands

from bot.connect import Patience, StartError, Unreachable, open_database, patiently
from bot.db import Database
from bot.game.ai import AiPlayers
from bot.game.coach import Coach
from bot.game.service import TableService
from bot.schnapsen import content
from bot.schnapsen.badanswers import BadAnswers, ChannelGate, locator, trace_config, watch_permissions
from bot.schnapsen.checks import Throttle
from bot.schnapsen.pacing import PROCESS_STARTED, GlobalPacer, pacing_trace
from bot.schnapsen.runtime import Runtime
from bot.schnapsen.tokenshare import DatabaseAnnouncer, TokenShare
from bot.settings import Settings
from bot.version import version
from bot.web import WebServer
from engine.ai import solver as ai_solver

log = logging.getLogger(__name__)
# The tournaments and the status extend /schnapsen: after it.
EXTENSIONS = ("bot.schnapsen.cog", "bot.schnapsen.tournaments", "bot.schnapsen.status")
# Where the slash commands were last synced (meta key): a server id, or "global". A switch of DEV_GUILD_ID
# removes the copy left in the place named here, so no server ever shows the commands twice.
COMMAND_SCOPE_KEY = "command_scope"
GLOBAL_SCOPE = "global"


__all__ = ["EXTENSIONS", "SchnapsenBot", "StartError", "login", "make_bot", "run"]


class SchnapsenBot(commands.Bot):
    def __init__(
        self, settings: Settings, *, force_sync: bool = False, db: Database | None = None, **options: Any
    ) -> None:
        # The bot never joins voice: discord.py's warnings about missing voice libraries are noise at start.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        # Slash commands and buttons only: no privileged intents, no message content.
        intents = discord.Intents.none()
        intents.guilds = True
        # No message pings anybody unless it says so itself (a player named "@everyone" stays a name).
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # Every answer of a REST call is counted against Discord's budget for bad answers (badanswers.py).
        bad_answers = BadAnswers()
        # And the bot token's requests are spaced within Discord's global limit (pacing.py), counting a
        # predecessor's last second as full.
        self.pacer = GlobalPacer(held_since=PROCESS_STARTED)
        options.setdefault("http_trace", pacing_trace(self.pacer, trace_config(bad_answers)))
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents, help_command=None, **options
        )
        self.bad_answers = bad_answers
        # Channels that answered 403: nothing is sent there until their permissions change (or 10 minutes).
        self.channel_gate = ChannelGate(locate=locator(self))
        watch_permissions(self, self.channel_gate)
        self.settings = settings
        self.force_sync = force_sync
        self._closing: asyncio.Future[None] | None = None
        self.started_at = time.monotonic()  # for the uptime /schnapsen status shows
        self.setup_started = False  # a login that failed after setup_hook began cannot be tried again
        self.db: Database
        if db is not None:  # opened by `run` before logging in; closed with the bot
            self.db = db
        self.service: TableService
        # One AI queue for the process: table moves, then the coach's hints and reviews (bot/ai_worker.py).
        # Its worker processes start in setup_hook; made here, so the start-up line can count them.
        self.ai = AiPlayers(
            settings.ai_budget_ms,
            settings.ai_hard_cap_ms,
            workers=settings.ai_workers or None,
            evaluate=settings.coach_search,
        )
        self.coach: Coach
        # Bot-wide, made in setup_hook before any extension loads (so none depends on another's load order):
        # what keeps Discord in step with the tables, and the per-user flood check of commands and buttons.
        self.runtime: Runtime
        self.throttle: Throttle
        self.token_share: TokenShare | None = None  # sharded on PostgreSQL: the token's budget is shared
        self.web: WebServer | None = None  # the web companion, when WEB_PORT and WEB_BASE_URL are set (docs/web.md)

    async def setup_hook(self) -> None:
        self.setup_started = True
        content.share_the_gil_with_the_drawings()
        if not hasattr(self, "db"):
            self.db = await Database.open(self.settings.database_path, synchronous=self.settings.db_synchronous)
        shards = self.settings.shards
        self.service = TableService(self.db, shards=shards)
        if shards is not None:
            log.info("serving the guilds of %s", shards)
            if self.db.dialect == "postgresql":
                # Other processes use the same token: each paces at its share of the budget (tokenshare.py).
                processes = -(-shards.count // len(shards.ids))  # as many as this one's range fits, rounded up
                self.token_share = TokenShare(self.pacer, DatabaseAnnouncer(self.db), expected_processes=processes)
                self.token_share.start()
        settings = self.settings
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
        self.runtime = Runtime(self)
        self.throttle = Throttle()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.sync_commands_if_changed()
        if settings.web is not None:
            self.web = WebServer(self.service, settings.web)
            await self.web.start()
        # Loading card art takes a second or two per deck: do it now, off the event loop, not on a first click.
        self._preload = asyncio.create_task(self._preload_then_freeze(), name="preload card art")

    async def _preload_then_freeze(self) -> None:
        await asyncio.to_thread(_preload_decks)
        if self.settings.freeze_start_heap:
            freeze_start_heap()

    async def sync_commands_if_changed(self) -> None:
        """Sync the slash commands to DEV_GUILD_ID's server when set, else globally, when they or that choice
        changed since the last sync (or with --sync); then remove the copy the previous choice left: the
        global commands when syncing to a server, the previous server's when syncing elsewhere. A failed
        sync is logged and tried again at the next start (nothing is stored until it succeeded)."""
        dev_guild_id = self.settings.dev_guild_id
        guild = discord.Object(dev_guild_id) if dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = [command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(json.dumps([payload, dev_guild_id], sort_keys=True).encode()).hexdigest()
        scope = str(dev_guild_id) if dev_guild_id else GLOBAL_SCOPE
        previous = await self.db.meta.get(COMMAND_SCOPE_KEY)
        if not self.force_sync and await self.service.housekeeping.command_hash() == digest and previous == scope:
            log.info("slash commands unchanged; not syncing")
            return
        try:
            await self.tree.sync(guild=guild)
            log.info("slash commands synced%s", f" to guild {dev_guild_id}" if guild else " globally")
            await self._remove_other_commands(scope, previous)
        except discord.HTTPException as err:
            log.error("syncing the slash commands failed (%s); trying again at the next start", err)
            return
        except (aiohttp.ClientError, OSError, TimeoutError) as err:  # the network went between login and here
            log.warning("syncing the slash commands failed (%s); trying again at the next start", _network_reason(err))
            return
        async with self.db.transaction():
            await self.db.meta.set(COMMAND_SCOPE_KEY, scope)
            await self.service.housekeeping.set_command_hash(digest)

    async def _remove_other_commands(self, scope: str, previous: str | None) -> None:
        """Remove the commands from wherever else they were synced, so that no server lists them twice."""
        assert self.application_id is not None  # known once logged in, before setup_hook
        if scope != GLOBAL_SCOPE:
            # A development server's copy replaces the global one (which Discord would show beside it).
            await self.http.bulk_upsert_global_commands(self.application_id, payload=[])
            log.info("global slash commands removed (DEV_GUILD_ID is set)")
        if previous is not None and previous not in (scope, GLOBAL_SCOPE) and previous.isdigit():
            try:
                await self.http.bulk_upsert_guild_commands(self.application_id, int(previous), payload=[])
            except (discord.Forbidden, discord.NotFound):  # the bot has left that server: nothing to remove
                log.info("guild %s's slash commands could not be removed: the bot is no longer there", previous)
            else:
                log.info("slash commands of the previous development guild %s removed", previous)

    async def on_ready(self) -> None:
        # The one start-up fact known only once connected (the rest is logged before logging in).
        log.info("connected to Discord as %s: %d server(s)", self.user, len(self.guilds))

    async def on_resumed(self) -> None:
        # After a lost connection (logged at WARNING by bot.logs) or Discord's routine request to reconnect.
        log.info("the session with Discord resumed")

    async def close(self) -> None:
        # Closed once: discord.py's connect() closes the client itself when the gateway ends the session for
        # good, and run()'s `async with` closes it again on the way out (that call waits for the first).
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close_once())
        await asyncio.shield(self._closing)

    async def _close_once(self) -> None:
        if self.web is not None:  # its live pages end first: they watch the tables that are stopping
            await self.web.stop()
        # The extensions first (their loops stop), then the runtime's queued messages drain while the HTTP
        # session is still open; discord.py's close unloads nothing more, then closes the connection.
        for extension in tuple(self.extensions):
            try:
                await self.unload_extension(extension)
            except Exception:
                log.exception("unloading %s failed", extension)
        if hasattr(self, "runtime"):
            await self.runtime.shutdown()
        await super().close()
        if self.token_share is not None:
            await self.token_share.close()
        if hasattr(self, "ai"):
            await self.ai.close()
        if hasattr(self, "coach"):
            await self.coach.close()
        if hasattr(self, "db"):
            await self.db.close()


class ShardedSchnapsenBot(SchnapsenBot, commands.AutoShardedBot):
    """The bot on a range of Discord's shards (``SHARD_COUNT``, ``SHARD_IDS``): it serves only the guilds on
    them (``bot.shards``); other processes serve the rest from the same database."""

    def __init__(
        self, settings: Settings, *, force_sync: bool = False, db: Database | None = None, **options: Any
    ) -> None:
        shards = settings.shards
        assert shards is not None, "a sharded bot needs its shard range"
        super().__init__(
            settings, force_sync=force_sync, db=db, shard_count=shards.count, shard_ids=list(shards.ids),
            **options,
        )

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        if not initial:  # Discord refuses a second IDENTIFY within 5 s (max_concurrency 1)
            await asyncio.sleep(self.settings.identify_interval)


def make_bot(
    settings: Settings, *, force_sync: bool = False, db: Database | None = None, **options: Any
) -> SchnapsenBot:
    """One process serving every guild (no shard settings, as before), or a sharded one on its range."""
    if settings.shards is None:
        return SchnapsenBot(settings, force_sync=force_sync, db=db, **options)
    return ShardedSchnapsenBot(settings, force_sync=force_sync, db=db, **options)


def freeze_start_heap() -> None:
    """Take what the start made (modules, fonts, card tiles, caches: about 75,000 objects) out of the garbage
    collector's full scans, which hold the GIL and so every click in flight: each took 124 ms instead of 88
    (quick clickers, 40 tables). The start's garbage is collected first, so nothing dead is kept."""
    gc.collect()
    gc.freeze()


def _preload_decks() -> None:
    from bot import render

    for deck in render.DECK_STYLES:
        render.preload(deck)


async def run(settings: Settings, *, force_sync: bool = False, patience: Patience | None = None) -> None:
    """Open the database, log in, and serve until closed, waiting out transient faults of either (`patience`;
    by default the settings' retry pauses, for up to 10 minutes). Raises `SettingsError` (bot.settings) for a
    database that cannot be used and `StartError` for a login that fails or a fault not gone in time."""
    if patience is None:
        patience = Patience(first=settings.retry_first, longest=settings.retry_max)
    if settings.database_ignored:
        log.warning("DATABASE_URL is used; DATABASE_PATH=%s is ignored (unset one of them)", settings.database_ignored)

    async def open_it() -> Database:
        return await open_database(settings.database_path, synchronous=settings.db_synchronous)

    db = await patiently("opening the database", open_it, patience)
    try:
        bot = make_bot(settings, force_sync=force_sync, db=db)
    except BaseException:
        await db.close()
        raise
    # Which solver the AI searches with: "compiled" unless the install found no C compiler (docs/deploy.md).
    log.info(
        "starting Bauernschnapsen %s: %s; %d AI worker(s), %s solver",
        version(), settings.describe(), bot.ai.worker_count, ai_solver.KIND,
    )
    async with bot:
        await patiently("logging in to Discord", lambda: login(bot, settings.token), patience)
        await bot.connect()


async def login(bot: SchnapsenBot, token: str) -> None:
    """Log in (which runs setup_hook). A refused token is a `StartError`; no way to reach Discord, or Discord's
    5xx, is `Unreachable` (worth trying again: the failed try's HTTP session is closed first)."""
    try:
        await bot.login(token)
    except discord.LoginFailure:
        raise StartError(
            "cannot log in: Discord refused DISCORD_TOKEN (mistyped, or reset since); put the bot's current "
            "token in .env (Developer Portal > your application > Bot > Reset Token)."
        ) from None
    except (discord.DiscordServerError, TimeoutError, aiohttp.ClientError, socket.gaierror, OSError) as err:
        if bot.setup_started:  # setup_hook ran partly: it cannot run again in this process
            raise
        # discord.py makes a new HTTP session for each login on the connector it keeps: close both, so that
        # the next try starts afresh and nothing is left open.
        await bot.http.close()
        bot.http.connector = discord.utils.MISSING
        if isinstance(err, discord.DiscordServerError):
            raise Unreachable(f"cannot log in: Discord answered {err.status} (Discord is down or busy).") from None
        raise Unreachable(f"cannot log in: no network connection to Discord ({_network_reason(err)}).") from None


def _network_reason(err: BaseException) -> str:
    if isinstance(err, aiohttp.ClientConnectorDNSError) or isinstance(err.__cause__, socket.gaierror):
        return "discord.com cannot be looked up: no DNS"
    if isinstance(err, aiohttp.ClientConnectorError):
        # asyncio words a refused connection "Connect call failed (address)": the errno's own words say more.
        errno = err.os_error.errno
        return f"cannot connect to {err.host}:{err.port}: {os.strerror(errno) if errno else err.os_error}"
    if isinstance(err, TimeoutError):
        return "no answer in time"
    return str(err) or type(err).__name__
