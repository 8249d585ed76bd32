"""A closed table's messages tell the truth: none of them may still offer a move.

Closing a table, for whatever reason, stores in the outbox the last edit of every hand message it has (as
``FinalHand``) and the closing notice (``Notice.closes_table``, or ``SetAside``), whose delivery first shows the
table message closed, without buttons (``show_closed``). The outbox delivers until it arrives, so a close
stored just before a kill is shown after the restart. A message the close left behind anyway (an older
version's close, an edit that could not be made) is corrected when someone clicks it (``correct``): the click
is answered that the table is closed, and the message is brought up to date.

The table message's and the DMs' last edits are bot-token calls: a close happens once per table, and after a
restart no click's token is known. A hand shown ephemerally in the channel can only be edited through the token
of the click that showed it: the table's memory hands those over when it is dropped (``keep_channel_hands``),
and the closing notice edits the ones still fresh (an ephemeral message does not outlive a restart anyway).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.cache import Lru
from bot.game.table import TableSnapshot
from bot.i18n import t

from . import payloads, threads
from .handmodel import HandModel
from .tablememory import ChannelHand

if TYPE_CHECKING:
    from .messages import Messages

log = logging.getLogger(__name__)
REMEMBERED_CLOSING = 1_000  # closed tables whose ephemeral hands wait for their closing notice


class ClosedTables:
    def __init__(self, messages: Messages) -> None:
        self.messages = messages
        self.bot, self.service = messages.bot, messages.service
        # Closed table -> its ephemeral hands in the channel, by person, until its closing notice edits them.
        self._channel_hands = Lru[int, dict[int, ChannelHand]](REMEMBERED_CLOSING)

    def keep_channel_hands(self, table_id: int, hands: dict[int, ChannelHand]) -> None:
        """The closed table's memory is dropped: its ephemeral hands wait for their last edit."""
        if hands:
            self._channel_hands[table_id] = dict(hands)

    async def show_closed(self, table_id: int) -> None:
        """The closed table's message shows it closed, without buttons: the closing notice's first step. After
        the edits the close itself asked for (this one comes last); a message that is gone, or that the bot may
        not edit any more, is left as it is (the notice goes out all the same)."""
        await self.messages.edits.settled(("table message", table_id))
        table = await self.service.queries.closed_table(table_id)
        if table is None or table.status != "closed":
            return
        if table.table_message_id is not None:  # (a daily attempt played in a channel has none)
            await self._edit_table_message(table)
        await self._edit_channel_hands(table)

    async def _edit_table_message(self, table: TableSnapshot) -> None:
        assert table.table_message_id is not None
        payload = await payloads.table_payload(table, table.language)
        message = self.messages.channel(table.channel_id).get_partial_message(table.table_message_id)
        try:
            await threads.edit_closed(self.bot, table, message, **payload.edit_kwargs())
        except (discord.NotFound, discord.Forbidden) as err:
            log.warning("table %s: its table message cannot show the table closed: %s", table.id, err)

    async def _edit_channel_hands(self, table: TableSnapshot) -> None:
        """Each ephemeral hand still editable shows the table closed, without buttons (best effort: a token
        Discord refuses leaves that hand as it is, and its buttons answer that the table is closed)."""
        hands = self._channel_hands.pop(table.id, None) or {}
        now = asyncio.get_running_loop().time()
        for user_id, hand in hands.items():
            seat = table.seat_of(user_id)
            if seat is None or not hand.fresh(now):
                continue
            payload = await payloads.hand_message(self.messages.hands.model(table, seat, user_id))
            try:
                await hand.edit(payload)
            except discord.HTTPException as err:
                log.info("table %s: the ephemeral hand of seat %s cannot show the close (%s)", table.id, seat, err.code)

    # --- a click on a closed table's message ---------------------------------------------------------

    def correct(self, table_id: int, interaction: discord.Interaction[Any]) -> None:
        """Someone clicked a button of a table that is not open here: when storage has it closed, the message
        clicked is corrected (the table message shows the table closed; a hand its cards without buttons; any
        other message of the table loses its buttons). An ephemeral message only its own interaction's token
        may edit: it is left to the click's answer."""
        message = interaction.message
        if message is None or message.flags.ephemeral:
            return
        channel_id, message_id, user_id = message.channel.id, message.id, interaction.user.id
        in_dm = interaction.guild_id is None

        async def correct() -> None:
            table = await self.service.queries.closed_table(table_id)
            if table is None or table.status != "closed":
                return  # open after all (served by another process, or it was never closed)
            try:
                if message_id == table.table_message_id:  # (a daily attempt's is in its player's DM)
                    await self._edit_table_message(table)
                elif in_dm:
                    await self._correct_hand(table, channel_id, message_id, user_id)
                else:
                    partial = self.messages.channel(channel_id).get_partial_message(message_id)
                    await threads.edit_closed(self.bot, table, partial, view=None)
            except (discord.NotFound, discord.Forbidden) as err:
                log.info("table %s: message %s of the closed table cannot be corrected: %s", table.id, message_id, err)
            else:
                log.info("table %s: a click on message %s of the closed table corrected it", table.id, message_id)

        self.messages.sends.request(("closed message", table_id, message_id), correct)

    async def _correct_hand(self, table: TableSnapshot, channel_id: int, message_id: int, user_id: int) -> None:
        hands = self.messages.hands
        seat = table.seat_of(user_id)
        occupant = None if seat is None else table.seats[seat]
        if seat is not None and occupant is not None and occupant.dm_message_id == message_id:
            model = hands.model(table, seat, user_id)  # the hand as the table left it
        else:  # a hand of an earlier deal, or of a seat they left: only that the table closed
            lang = hands.user_lang(table, user_id)
            title = t(lang, "hand.title", id=table.id, where=hands.where(table))
            model = HandModel(table.id, title, t(lang, "hand.table_closed"))
        await hands.edit_dm(table.id, channel_id, message_id, await payloads.hand_message(model))
