"""Keeping Discord in step with the tables: the table message, each player's private hand, results, AI moves,
idle players and abandoned tables. Everything here runs after the service has stored the change."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord

import engine
from bot.db import pair_key
from bot.game.service import Outcome
from bot.game.table import LiveTable
from bot.i18n import t

from . import presenter
from .coalesce import Coalescer

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

log = logging.getLogger(__name__)
DMS_CLOSED = 50007


class Runtime:
    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.service = bot.service
        self.settings = bot.settings
        self.edits = Coalescer(bot.settings.edit_interval)
        self._drivers: dict[int, asyncio.Task[None]] = {}
        self.user_langs: dict[int, str] = {}
        self._hand_images: dict[int, int] = {}  # DM message id -> hash of the hand image it shows
        self._hand_shown: dict[int, tuple[object, ...]] = {}  # DM message id -> what it shows (signature)
        self._sending: set[tuple[int, int, int]] = set()  # (table, deal number, seat) of hands being sent

    # --- languages -----------------------------------------------------------------------------------

    def table_lang(self, table: LiveTable) -> str:
        return table.row.language

    def user_lang(self, table: LiveTable, user_id: int | None) -> str:
        return self.user_langs.get(user_id or 0, self.table_lang(table))

    # --- messages --------------------------------------------------------------------------------------

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    def where(self, table: LiveTable) -> str:
        guild = self.bot.get_guild(table.row.guild_id)
        channel = guild.get_channel(table.row.channel_id) if guild else None
        return f"{guild.name if guild else table.row.guild_id} · #{channel.name if channel else table.row.channel_id}"

    async def post_table_message(self, table: LiveTable) -> None:
        payload = await presenter.table_payload(table, self.table_lang(table))
        message = await self.channel(table.row.channel_id).send(**payload.send_kwargs())
        await self.service.db.set_table_message(table.id, message.id)
        table.row = await self.service.db.get_table(table.id) or table.row

    def refresh_table_message(self, table: LiveTable) -> None:
        async def edit() -> None:
            if table.row.table_message_id is None:
                await self.post_table_message(table)
                return
            payload = await presenter.table_payload(table, self.table_lang(table))
            message = self.channel(table.row.channel_id).get_partial_message(table.row.table_message_id)
            try:
                await message.edit(**payload.edit_kwargs())
            except discord.NotFound:  # somebody deleted it: put a new one up
                await self.post_table_message(table)

        self.edits.request(("table", table.id), edit)

    def refresh_hand(
        self,
        table: LiveTable,
        seat: int,
        deal: engine.DealState | None = None,
        message: tuple[int, int] | None = None,
    ) -> None:
        """Edit the seat's DM (by default the running deal's; or ``message`` showing the finished ``deal``)."""
        occupant = table.seats[seat]
        if occupant is None or occupant.user_id is None:
            return
        if message is None:
            if occupant.dm_channel_id is None or occupant.dm_message_id is None:
                return
            message = (occupant.dm_channel_id, occupant.dm_message_id)
        channel_id, message_id = message
        user_id = occupant.user_id

        async def edit() -> None:
            lang = self.user_lang(table, user_id)
            payload = await presenter.hand_payload(table, seat, lang, self.where(table), deal)
            digest = hash(payload.images.get("hand.png"))
            unchanged = self._hand_images.get(message_id) == digest
            channel = self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)
            try:
                await channel.get_partial_message(message_id).edit(
                    **payload.edit_kwargs(keep_attachments=unchanged)
                )
            except Exception:
                self._forget(message_id)  # so that the next change edits it again instead of trusting it
                raise
            if deal is None:
                self._hand_images[message_id] = digest
            else:  # a finished deal's message is never edited again
                self._forget(message_id)

        self.edits.request(("hand", message_id), edit)

    def refresh_hand_if_changed(self, table: LiveTable, seat: int) -> None:
        """Edit the seat's DM only when something it shows changed since it was last sent or edited."""
        occupant = table.seats[seat]
        if occupant is None or occupant.dm_message_id is None:
            return
        signature = presenter.hand_signature(table, seat)
        if self._hand_shown.get(occupant.dm_message_id) != signature:
            self._hand_shown[occupant.dm_message_id] = signature
            self.refresh_hand(table, seat)

    def _forget(self, message_id: int) -> None:
        self._hand_images.pop(message_id, None)
        self._hand_shown.pop(message_id, None)

    def retire_hand(self, table: LiveTable, user_id: int, message: tuple[int, int]) -> None:
        """A player left: their hand message says so and loses its buttons (an AI plays the seat now)."""
        channel_id, message_id = message

        async def edit() -> None:
            lang = self.user_lang(table, user_id)
            embed = discord.Embed(title=t(lang, "hand.title", id=table.id, where=self.where(table)))
            embed.description = t(lang, "hand.left")
            channel = self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)
            await channel.get_partial_message(message_id).edit(embeds=[embed], attachments=[], view=None)
            self._forget(message_id)

        self.edits.request(("hand", message_id), edit)

    async def send_hands(self, table: LiveTable) -> None:
        """One DM per player per deal, edited in place for the rest of the deal: send it to every person at the
        table who has none for the running deal yet. Safe to call on every change (it heals a send that a
        restart or an error cut short) and never sends the same deal's hand twice at once."""
        if table.status != "playing" or table.deal is None:
            return
        sends = []
        for occupant in table.humans():
            key = (table.id, table.deal_no, occupant.seat)
            if occupant.dms_closed or occupant.dm_message_id is not None or key in self._sending:
                continue
            self._sending.add(key)
            sends.append(self._send_hand(table, occupant.seat, key))
        for failed in await asyncio.gather(*sends, return_exceptions=True):
            if isinstance(failed, Exception):  # the next change tries again; the game goes on meanwhile
                log.error("sending a hand at table %s failed", table.id, exc_info=failed)

    async def _send_hand(self, table: LiveTable, seat: int, key: tuple[int, int, int]) -> None:
        try:
            await self._send_hand_once(table, seat)
        finally:
            self._sending.discard(key)

    async def _send_hand_once(self, table: LiveTable, seat: int) -> None:
        occupant = table.seats[seat]
        assert occupant is not None and occupant.user_id is not None
        deal_no = table.deal_no
        shown = presenter.hand_signature(table, seat)  # what the payload below shows
        payload = await presenter.hand_payload(
            table, seat, self.user_lang(table, occupant.user_id), self.where(table)
        )
        now_there = table.seats[seat]
        if now_there is None or now_there.user_id != occupant.user_id:  # they left while it was drawn
            return
        try:
            data = await self.bot.http.start_private_message(occupant.user_id)
            channel = self.bot.get_partial_messageable(int(data["id"]), type=discord.ChannelType.private)
            message = await channel.send(**payload.send_kwargs())
        except discord.Forbidden as err:
            if err.code == DMS_CLOSED:
                await self._dms_closed(table, seat)
                return
            raise
        self._hand_images[message.id] = hash(payload.images.get("hand.png"))
        self._hand_shown[message.id] = shown
        if table.deal_no != deal_no:
            return
        if not await self.service.set_dm(table.id, seat, occupant.user_id, message.channel.id, message.id):
            self.retire_hand(table, occupant.user_id, (message.channel.id, message.id))  # left meanwhile
            return
        self.refresh_hand_if_changed(table, seat)  # the position may have moved on while we sent

    async def _dms_closed(self, table: LiveTable, seat: int) -> None:
        occupant = table.seats[seat]
        if occupant is None or occupant.dms_closed:
            return
        await self.service.set_dms_closed(table.id, seat)
        lang = self.table_lang(table)
        await self.channel(table.row.channel_id).send(
            t(lang, "notice.dms_closed", mention=f"<@{occupant.user_id}>")
        )

    # --- after every change ----------------------------------------------------------------------------

    async def after_change(self, table: LiveTable, outcome: Outcome | None = None) -> None:
        """Announce a stored change: results first, then the table message and the hands; then drive the table."""
        if outcome is not None and outcome.finished_deal is not None:
            await self._announce_result(table, outcome)
        self.refresh_table_message(table)
        for seat in range(4):
            self.refresh_hand_if_changed(table, seat)
        await self.send_hands(table)  # a new deal's hands, or one whose send was cut short
        self.drive(table)

    async def _announce_result(self, table: LiveTable, outcome: Outcome) -> None:
        deal = outcome.finished_deal
        assert deal is not None
        for seat, channel_id, message_id in outcome.finished_dms:  # the end of that deal, without buttons
            self.refresh_hand(table, seat, deal, (channel_id, message_id))
        tally = None
        if outcome.bummerl is not None:
            win = outcome.bummerl.winner
            seats = table.seats
            winners = pair_key(seats[win].user_id, seats[win + 2].user_id)  # type: ignore[union-attr]
            losers = pair_key(seats[1 - win].user_id, seats[3 - win].user_id)  # type: ignore[union-attr]
            tally = await self.service.db.get_tally(table.row.guild_id, winners, losers)
        payload = await presenter.result_payload(table, self.table_lang(table), deal, outcome.bummerl, tally)
        await self.channel(table.row.channel_id).send(**payload.send_kwargs())

    # --- AI moves and idle players ----------------------------------------------------------------------

    def drive(self, table: LiveTable) -> None:
        """(Re)start the one task that moves this table on: an AI move, or the idle timer of a person."""
        running = self._drivers.pop(table.id, None)
        if running is not None and running is not asyncio.current_task():
            running.cancel()
        if table.status != "playing" or table.deal is None or table.deal.finished:
            return
        if not table.humans():  # nobody left to play with: stand still until the sweeper closes the table
            return
        task = self._ai_move(table) if table.is_ai_turn() else self._idle_timer(table)
        self._drivers[table.id] = asyncio.create_task(task, name=f"drive table {table.id}")

    async def _ai_move(self, table: LiveTable) -> None:
        version, deal = table.version, table.deal
        assert deal is not None and deal.to_act is not None
        seat = deal.to_act
        guild = await self.service.db.get_guild_settings(table.row.guild_id)
        if guild.ai_delay_ms:
            await asyncio.sleep(guild.ai_delay_ms / 1000)
        view = engine.view_for(deal, seat)
        action = await self.bot.ai.decide(view, guild.ai_strength, seed=table.id * 1_000_003 + version)
        try:
            outcome = await self.service.act(table.id, seat, action, version, user_id=None)
        except Exception:  # stale (somebody acted first) or the table closed: the next driver takes over
            log.debug("AI move at table %s dropped", table.id, exc_info=True)
            return
        await self.after_change(outcome.table, outcome)

    async def _idle_timer(self, table: LiveTable) -> None:
        version, deal = table.version, table.deal
        assert deal is not None and deal.to_act is not None
        seat = deal.to_act
        occupant = table.seats[seat]
        turn = table.row.turn_seconds
        await asyncio.sleep(turn * 2 / 3)
        if occupant is None or not await self.service.mark_warned(table.id, seat, version):
            return
        lang = self.table_lang(table)
        await self.channel(table.row.channel_id).send(
            t(lang, "notice.idle_warning", mention=f"<@{occupant.user_id}>", seconds=round(turn / 3))
        )
        await asyncio.sleep(turn / 3)
        if not await self.service.take_over(table.id, seat, version):
            return
        await self.channel(table.row.channel_id).send(
            t(lang, "notice.taken_over", name=occupant.display_name)
        )
        await self.after_change(table)

    # --- closing -----------------------------------------------------------------------------------

    async def announce_closed(self, table: LiveTable, reason_key: str) -> None:
        self.drive(table)  # status is closed now: this just stops the driver
        self.refresh_table_message(table)
        await self.channel(table.row.channel_id).send(t(self.table_lang(table), reason_key))

    async def sweep(self) -> None:
        """Close lobbies that never start and tables everybody left (and finished ones left lying)."""
        now = self.service.now()
        for table in list(self.service.tables.values()):
            idle_for = now - table.row.updated_at
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
                closed = await self.service.close(table.id)
                await self.announce_closed(closed, reason)

    async def shutdown(self) -> None:
        for task in self._drivers.values():
            task.cancel()
        self._drivers.clear()
        await self.edits.drain()
