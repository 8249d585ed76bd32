"""What moves a table on by itself: AI moves, the idle timer of a person to act, the watchdog that restarts
a table nothing is moving, and the sweeper that closes abandoned tables.

Each table has one supervised driver job (`coalesce.py`) that reads the table's current snapshot when it
runs: a failing AI decision or write is logged at ERROR with the table id and retried with a growing pause.
Every change goes through the service; its listener (runtime.py) redraws what the change shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

import engine
from bot.game.errors import UserError
from bot.game.table import TableSnapshot

from .coalesce import Coalescer
from .messages import Messages

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

log = logging.getLogger(__name__)

class Drivers:
    def __init__(self, bot: SchnapsenBot, messages: Messages) -> None:
        self.bot = bot
        self.service = bot.service
        self.settings = bot.settings
        self.messages = messages
        self.drives = Coalescer(0.0, first_retry=bot.settings.retry_first, max_retry=bot.settings.retry_max)
        self._wake: dict[int, asyncio.Event] = {}  # table id -> set when its driver should look again
        self._turn_clock: dict[int, tuple[int, float]] = {}  # table id -> (version, when that turn began)
        # (table id, version) of tables the watchdog's last look found short of a hand message with no send
        # scheduled: only a table found so at the same version twice in a row is a stall.
        self._hand_missing_at: set[tuple[int, int]] = set()

    def drive(self, table: TableSnapshot) -> None:
        """Make sure the one job that moves this table on runs: an AI move, or the idle timer of a person."""
        waiting = self._wake.get(table.id)
        if waiting is not None:
            waiting.set()  # a timer waiting on the table's last turn ends now, also when the Bummerl just ended
        if table.status != "playing" or not self.serves(table):
            return
        self._wake.setdefault(table.id, asyncio.Event()).set()
        self.drives.request(("drive", table.id), lambda: self._drive(table.id))

    def serves(self, table: TableSnapshot) -> bool:
        """Only the process holding the table's guild's shard moves it (bot/shards.py)."""
        return self.service.directory.owns_guild(table.guild_id)

    def turn_clock_reset(self, table_id: int) -> None:
        """A player took their seat back: their turn time starts afresh."""
        self._turn_clock.pop(table_id, None)

    def forget(self, table_id: int) -> None:
        """A closed table's driver and timers go."""
        self.drives.cancel(("drive", table_id))
        self._wake.pop(table_id, None)
        self._turn_clock.pop(table_id, None)

    @staticmethod
    def awaits_a_move(table: TableSnapshot) -> bool:
        """Someone is to act at a running deal with people at the table (with nobody left to play with, the
        table stands still until the sweeper closes it)."""
        deal = table.deal
        return (
            table.status == "playing"
            and deal is not None
            and not deal.finished
            and deal.to_act is not None
            and bool(table.humans())
        )

    async def _drive(self, table_id: int) -> None:
        wake = self._wake.setdefault(table_id, asyncio.Event())
        wake.clear()
        table = self.service.snapshot(table_id)
        if table is None or not self.awaits_a_move(table):
            return
        if table.is_ai_turn():
            await self._ai_move(table, wake)
        else:
            await self._idle_timer(table, wake)

    async def _woken(self, wake: asyncio.Event, seconds: float) -> bool:
        """Wait ``seconds``; True when the table changed meanwhile (then the new request takes over)."""
        try:
            await asyncio.wait_for(wake.wait(), max(seconds, 0))
        except TimeoutError:
            return False
        return True

    async def _ai_move(self, table: TableSnapshot, wake: asyncio.Event) -> None:
        version, deal = table.version, table.deal
        assert deal is not None and deal.to_act is not None
        seat = deal.to_act
        guild = await self.service.guilds.guild_settings(table.guild_id)
        # A daily attempt's AI seats play as the day's par does (bot/game/daily.py).
        strength, seed = await self.service.daily.ai_player(table, guild.ai_strength, table.id * 1_000_003 + version)
        view = engine.view_for(deal, seat)
        # Asked at once, shown when both the pause and the decision are done: the pause hides the decision's
        # time in the AI queue and its search instead of adding to them.
        deciding = asyncio.ensure_future(
            self.bot.ai.decide(view, strength, seed=seed)
        )
        try:
            if guild.ai_delay_ms and await self._woken(wake, guild.ai_delay_ms / 1000):
                return  # the table changed: the new request asks again
            action = await deciding
        finally:
            if not deciding.done():
                deciding.cancel()  # out of the AI queue, or its answer dropped when it comes
            elif not deciding.cancelled():
                deciding.exception()  # retrieved: a failure already raised here, or not needed any more
        try:
            await self.service.act(table.id, seat, action, version, user_id=None)
        except UserError as err:  # somebody acted first, or the table closed: whoever moved it drives it
            log.debug("table %s: AI move dropped (%s)", table.id, err.key)

    async def _idle_timer(self, table: TableSnapshot, wake: asyncio.Event) -> None:
        version, deal = table.version, table.deal
        assert deal is not None and deal.to_act is not None
        seat = deal.to_act
        loop = asyncio.get_running_loop()
        clock = self._turn_clock.get(table.id)
        if clock is None or clock[0] != version:
            clock = self._turn_clock[table.id] = (version, loop.time())
        began, turn = clock[1], table.turn_seconds
        occupant = table.seats[seat]
        if occupant is None:
            return
        if not occupant.warned:
            if await self._woken(wake, began + turn * 2 / 3 - loop.time()):
                return
            if await self.service.seating.mark_warned(table.id, seat, version) is None:
                return
        if await self._woken(wake, began + turn - loop.time()):
            return
        await self.service.seating.take_over(table.id, seat, version)

    # --- the watchdog and the sweeper ----------------------------------------------------------------------

    async def watch(self) -> None:
        """Notice any table that should be moving and is not, and restart what it needs."""
        hand_missing_now: set[tuple[int, int]] = set()
        for table in self.service.open_tables():
            if not self.serves(table):
                continue
            if self.awaits_a_move(table) and not self.drives.busy(("drive", table.id)):
                to_act = table.deal.to_act  # type: ignore[union-attr]
                log.error(
                    "table %s: seat %s is to act and nothing was scheduled; restarting", table.id, to_act
                )
                self.drive(table)
            missing_hand = table.status == "playing" and any(
                s.dm_message_id is None and not self.messages.hand_in_channel(s) for s in table.humans()
            )
            if missing_hand and not self.messages.sending_hands(table.id):
                # A new deal is published a moment before its hands' send is asked for: not yet a stall.
                hand_missing_now.add((table.id, table.version))
                if (table.id, table.version) in self._hand_missing_at:
                    log.error("table %s: a hand message is missing and no send was scheduled; sending", table.id)
                    self.messages.send_hands(table)
        self._hand_missing_at = hand_missing_now
        # An announcement stored a moment ago is about to be delivered by whoever stored it: only one owed
        # for a whole watchdog interval with no delivery scheduled is a stall.
        owed_since = self.service.now() - self.settings.watchdog_interval
        pending = await self.service.outbox.pending_announcements()
        for table_id in sorted({entry.table_id for entry in pending if entry.created_at <= owed_since}):
            if not self.messages.delivering(table_id):
                log.error("table %s: announcements are owed and none was scheduled; delivering", table_id)
                self.messages.deliver(table_id)

    async def sweep(self) -> None:
        """Close lobbies that never start and tables everybody left (and finished ones left lying)."""
        now = self.service.now()
        for table in self.service.open_tables():
            if not self.serves(table):
                continue
            idle_for = now - table.updated_at
            reason = None
            if table.status in ("lobby", "finished") and idle_for >= self.settings.lobby_timeout:
                reason = "notice.closed_idle_lobby" if table.status == "lobby" else "notice.closed_finished"
            elif (
                table.status == "playing"
                and not table.humans()
                and idle_for >= self.settings.abandoned_timeout
            ):
                reason = "notice.closed_abandoned"
            if reason is not None:
                with contextlib.suppress(UserError):  # closed meanwhile
                    await self.service.close(table.id, reason_key=reason)

    def halt(self) -> None:
        """Shutting down: no table is moved any more, and a failed drive is not retried."""
        for key in self.drives.running():
            self.drives.cancel(key)
        self.drives.close()
