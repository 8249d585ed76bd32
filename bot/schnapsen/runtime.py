"""Keeping Discord in step with the tables, after the service has stored a change: ``Runtime`` owns the
messages (`messages.py`: the table message and the outbox; `hands.py`: the hands and people's languages) and
the drivers (`drivers.py`: AI moves, idle timers, the watchdog, the sweeper), and is what the cog and the
client call. The client builds it in ``setup_hook``, before any extension loads. It listens to the table core:
what a change redraws is decided in ``table_changed`` alone, from the change's events.

Everything runs as supervised jobs (`coalesce.py`) that read the table's snapshot when they run: a failing
Discord call, write or AI decision is logged at ERROR with the table id and retried with a growing pause
until it succeeds, and the watchdog restarts any table that has someone to act and nothing scheduled.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import discord

from bot.db import PlayerPrefs
from bot.game import events as ev
from bot.game.subscribers.announcing import owed
from bot.game.table import TableSnapshot

from .content import Payload
from .drivers import Drivers
from .messages import Messages
from .routing import ClickInbox, ClickRouter

if TYPE_CHECKING:
    from bot.client import SchnapsenBot


# A change of only these redraws the lobby's table message (nothing is owed, nobody holds a hand).
LOBBY_CHANGES = frozenset({ev.TableOpened, ev.SeatTaken, ev.LobbyChanged})


class Runtime:
    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.messages = Messages(bot)
        # Clicks answered with what their stored change made (components.py calls it directly).
        self.answers = self.messages.answers
        self.drivers = Drivers(bot, self.messages)
        # Where a click for a table is applied, and the clicks other processes hand to ours (routing.py).
        self.clicks = ClickRouter(bot)
        self.inbox = ClickInbox(bot)
        self._stop_listening = bot.service.listen(self.table_changed)

    def table_changed(
        self, before: TableSnapshot | None, after: TableSnapshot, events: tuple[ev.TableEvent, ...]
    ) -> None:
        """The one place that decides what a stored change redraws: the table core tells it of every change
        (bot/game/core.py); cogs may listen for ``on_table_changed`` (discord.py's dispatch)."""
        kinds = {type(event) for event in events}
        if kinds == {ev.MessageStored}:  # the shell's own bookkeeping of a message it made
            return
        self.bot.dispatch("table_changed", before, after, events)
        for event in events:
            match event:
                case ev.SeatLeft(occupant) if occupant.dm_channel_id is not None and occupant.dm_message_id is not None:
                    if occupant.user_id is not None:  # their hand message says they left
                        hand = (occupant.dm_channel_id, occupant.dm_message_id)
                        self.messages.hands.retire(after, occupant.user_id, hand)
                case ev.ActionTaken(seat, action) if before is not None:
                    self.answers.moved(before, seat, action)  # a quick second click repeats it
                case ev.SeatReclaimed():
                    self.drivers.turn_clock_reset(after.id)  # their turn time starts afresh
                case ev.DealEnded(table):
                    self.messages.remember_deal_end(table)  # for its result message
        if kinds <= LOBBY_CHANGES:
            if ev.TableOpened not in kinds or after.thread_parent_id is None:  # threads.py posts its own
                self.messages.refresh_table_message(after)
        elif kinds == {ev.PlayerWarned}:
            self.messages.deliver(after.id)  # the warning; the table shows nothing new
        elif kinds == {ev.DmsClosed}:
            self.messages.deliver(after.id)
            self.messages.refresh_table_message(after)
        else:
            self.after_change(after, owes=bool(owed(after.row, events)))

    def after_change(self, table: TableSnapshot, *, owes: bool = True) -> None:
        """Announce a stored change: what it owes, the table message and the hands; then drive the table.
        ``owes``: False for a change whose events owe no announcement (most moves)."""
        table = self.messages.current(table)  # a newer change may have been published since ``table``
        self.messages.show(table, owes=owes)
        self.drivers.drive(table)
        if table.status == "closed":
            self.forget(table.id)

    def resume(self, table: TableSnapshot) -> None:
        """After a restart: show every table as it stands and pick up where it stopped."""
        self.messages.hands.expect_resent(table)
        self.after_change(table)

    def forget(self, table_id: int) -> None:
        """A closed table leaves memory: its timers, caches and retries (what it still owes is delivered)."""
        self.drivers.forget(table_id)
        self.messages.forget(table_id)

    def deliver(self, table_id: int) -> None:
        self.messages.deliver(table_id)

    def refresh_table_message(self, table: TableSnapshot, *, posted: int | None = None) -> None:
        self.messages.refresh_table_message(table, posted=posted)

    def remember_channel_hand(
        self, table: TableSnapshot, user_id: int, interaction: discord.Interaction[Any], message_id: int | None,
        *, shows_now: bool,
    ) -> None:  # fmt: skip
        self.messages.hands.remember_channel_hand(table, user_id, interaction, message_id, shows_now=shows_now)

    def prefs_changed(self, table: TableSnapshot, user_id: int, before: PlayerPrefs) -> None:
        self.messages.hands.prefs_changed(table, user_id, before)

    def where(self, table: TableSnapshot) -> str:
        return self.messages.hands.where(table)

    async def hand_payload(self, table: TableSnapshot, seat: int, lang: str, user_id: int) -> Payload:
        """The seat's hand as ``user_id`` sees it (in ``lang``, their order), for an answer to their click."""
        return await self.messages.hands.payload(table, seat, lang, user_id)

    def remember_lang(self, user_id: int, lang: str) -> None:
        self.messages.hands.remember_lang(user_id, lang)

    async def watch(self) -> None:
        await self.drivers.watch()

    async def sweep(self) -> None:
        await self.drivers.sweep()

    async def shutdown(self) -> None:
        self._stop_listening()
        await self.inbox.close()
        self.clicks.close()
        self.drivers.halt()
        self.messages.edits.close()
        self.messages.sends.close()
        await asyncio.gather(
            self.messages.edits.drain(timeout=2.0),
            self.messages.sends.drain(timeout=2.0),
            self.drivers.drives.drain(timeout=2.0),
        )
