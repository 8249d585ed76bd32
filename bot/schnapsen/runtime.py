"""Keeping Discord in step with the tables, after the service has stored a change: ``Runtime`` owns the
messages (`messages.py`: the table message, the hands, the outbox, languages) and the drivers (`drivers.py`:
AI moves, idle timers, the watchdog, the sweeper), and is what the cog and the client call.

Everything runs as supervised jobs (`coalesce.py`) that read the table's snapshot when they run: a failing
Discord call, write or AI decision is logged at ERROR with the table id and retried with a growing pause
until it succeeds, and the watchdog restarts any table that has someone to act and nothing scheduled.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import discord

from bot.db import PlayerPrefs
from bot.game.service import Outcome
from bot.game.table import TableSnapshot

from .drivers import Drivers
from .messages import Messages
from .routing import ClickInbox, ClickRouter

if TYPE_CHECKING:
    from bot.client import SchnapsenBot


class Runtime:
    def __init__(self, bot: SchnapsenBot) -> None:
        self.messages = Messages(bot)
        self.drivers = Drivers(bot, self.messages, self.after_change)
        # Where a click for a table is applied, and the clicks other processes hand to ours (routing.py).
        self.clicks = ClickRouter(bot)
        self.inbox = ClickInbox(bot)

    def after_change(self, table: TableSnapshot, outcome: Outcome | None = None) -> None:
        """Announce a stored change: what it owes, the table message and the hands; then drive the table."""
        table = self.messages.current(table)  # a newer change may have been published since ``table``
        self.messages.show(table, outcome)
        self.drivers.drive(table)
        if table.status == "closed":
            self.forget(table.id)

    def resume(self, table: TableSnapshot) -> None:
        """After a restart: show every table as it stands and pick up where it stopped."""
        self.messages.expect_resent_hands(table)
        self.after_change(table)

    def forget(self, table_id: int) -> None:
        """A closed table leaves memory: its timers, caches and retries (what it still owes is delivered)."""
        self.drivers.forget(table_id)
        self.messages.forget(table_id)

    def deliver(self, table_id: int) -> None:
        self.messages.deliver(table_id)

    def refresh_table_message(self, table: TableSnapshot, *, posted: int | None = None) -> None:
        self.messages.refresh_table_message(table, posted=posted)

    def retire_hand(self, table: TableSnapshot, user_id: int, message: tuple[int, int]) -> None:
        self.messages.retire_hand(table, user_id, message)

    def remember_channel_hand(
        self, table: TableSnapshot, user_id: int, interaction: discord.Interaction[Any], message_id: int | None,
        *, shows_now: bool,
    ) -> None:  # fmt: skip
        self.messages.remember_channel_hand(table, user_id, interaction, message_id, shows_now=shows_now)

    def hand_in_channel(self, table: TableSnapshot, seat: int) -> bool:
        occupant = table.seats[seat]
        return occupant is not None and self.messages.hand_in_channel(occupant)

    def prefs_changed(self, table: TableSnapshot, user_id: int, before: PlayerPrefs) -> None:
        self.messages.prefs_changed(table, user_id, before)

    def where(self, table: TableSnapshot) -> str:
        return self.messages.where(table)

    def remember_lang(self, user_id: int, lang: str) -> None:
        self.messages.remember_lang(user_id, lang)

    def turn_clock_reset(self, table: TableSnapshot) -> None:
        self.drivers.turn_clock_reset(table.id)

    async def watch(self) -> None:
        await self.drivers.watch()

    async def sweep(self) -> None:
        await self.drivers.sweep()

    async def shutdown(self) -> None:
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
