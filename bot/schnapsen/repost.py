"""Re-posting instead of editing old messages. Discord limits edits of messages older than an hour (a bucket
far tighter than the ordinary edit bucket, answered with error 30046), so a table message or a hand DM older
than ``repost_after`` (50 minutes) is not edited again: what it would show goes out as a fresh message, whose
id is stored before anything relies on it, and the old message is edited once to point to it (its buttons
and image removed). A long Bummerl thus never meets the old-message limit.

A message's age is read from its id (a snowflake carries when it was made). Nothing about a replacement has
to outlive a restart: the stored id is the new message's, and a click on any older one (its pointing edit
lost, or clicked before it landed) is answered as stale by ``check_not_replaced`` and changes nothing.
A failure between posting the new message and storing its id leaves the new message remembered, and the
retry stores it instead of posting another (the table message: ``Messages._posted_as_it_closed``; a hand:
``TableMemory.reposted``).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import discord

from bot.game.errors import UserError
from bot.game.table import TableSnapshot
from bot.i18n import t

from .content import Payload
from .handmodel import HandModel

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    from .coalesce import Coalescer
    from .hands import Hands

    Interaction = discord.Interaction[SchnapsenBot]

DISCORD_EPOCH_MS = 1_420_070_400_000  # the first second of 2015, where snowflake time starts
NO_MENTIONS = discord.AllowedMentions.none()


def created_at(message_id: int) -> float:
    """When a message was made (unix seconds), from its snowflake id."""
    return ((message_id >> 22) + DISCORD_EPOCH_MS) / 1000.0


def jump_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """Discord's link to a message (``@me`` for a DM)."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


class Reposts:
    """Which messages are too old to edit: made at least ``after`` seconds ago by ``clock`` (unix seconds;
    tests give it the fake Discord's clock, which they move on instead of waiting an hour)."""

    def __init__(self, after: float, clock: Callable[[], float] = time.time) -> None:
        self.after = after
        self.clock = clock

    def due(self, message_id: int) -> bool:
        return self.clock() - created_at(message_id) >= self.after


def moved_payload(title: str, lang: str, link: str) -> Payload:
    """What a replaced message shows from then on: where its content went, no image, no buttons."""
    return Payload([discord.Embed(title=title, description=t(lang, "message.moved", link=link))])


def check_not_replaced(interaction: Interaction, table: TableSnapshot, *, on_table_message: bool) -> None:
    """Refuse a click on a table message or hand DM that a newer one replaced (the stored id is newer than
    the clicked message's): its buttons may still show a position that is current, but only the newest
    message's act. ``on_table_message``: the button lives on the table message (not a turn notice's "My
    hand", which shows nothing but the hand). Ephemeral hands are never replaced."""
    message = interaction.message
    if message is None or message.flags.ephemeral:
        return
    if interaction.guild_id is None:  # a hand DM
        seat = table.seat_of(interaction.user.id)
        occupant = None if seat is None else table.seats[seat]
        current = None if occupant is None else occupant.dm_message_id
    elif on_table_message:
        current = table.table_message_id
    else:
        return
    if current is not None and message.id < current:
        raise UserError("error.stale")


# --- hand DMs ----------------------------------------------------------------------------------------------


async def repost_dm(
    hands: Hands, table: TableSnapshot, seat: int, user_id: int, message: tuple[int, int],
    shown: HandModel, payload: Payload,
) -> None:  # fmt: skip
    """Show the seat's hand (``shown``, drawn as ``payload``) in a new DM in place of ``message`` (channel id,
    message id), which is too old to edit: send, store the new id, then point the old one to it. Raises
    what Discord or storage raised (the caller's job is retried; a new message sent is not sent again)."""
    channel_id, old_id = message
    memory = hands.messages.memory(table.id)
    new_id = memory.reposted.get(old_id)
    if new_id is None:
        sent = await hands.dm_channel(channel_id).send(
            nonce=f"d{old_id}", allowed_mentions=NO_MENTIONS, **payload.send_kwargs()
        )
        new_id = memory.reposted[old_id] = sent.id
        memory.dm_images[new_id] = hash(payload.images.get("hand.png"))
        memory.dm_shown[new_id] = shown
    stored = await hands.service.seating.set_dm(table.id, seat, user_id, table.deal_no, channel_id, new_id)
    memory.reposted.pop(old_id, None)
    if stored is None:  # the deal ended or they left meanwhile: the old message keeps the last word
        memory.forget_dm(new_id)
        _delete_later(hands, table.id, channel_id, new_id)
        return
    memory.forget_dm(old_id)
    lang = hands.user_lang(stored, user_id)
    title = t(lang, "hand.title", id=table.id, where=hands.where(stored))
    point_to_new(hands.edits, table.id, hands.dm_channel(channel_id).get_partial_message(old_id),
                 moved_payload(title, lang, jump_link(None, channel_id, new_id)))
    hands.refresh_if_changed(stored, seat)  # the position may have moved on while it was sent


def point_to_new(edits: Coalescer, table_id: int, old: discord.PartialMessage, payload: Payload) -> None:
    """Edit a replaced message once to ``payload`` (retried until it lands; gone already is as good)."""

    async def edit() -> None:
        with contextlib.suppress(discord.NotFound):
            await old.edit(**payload.edit_kwargs())

    edits.request(("moved", table_id, old.id), edit)


def _delete_later(hands: Hands, table_id: int, channel_id: int, message_id: int) -> None:
    """Take back a new hand DM that was never stored (its deal ended while it was sent)."""

    async def delete() -> None:
        with contextlib.suppress(discord.NotFound, discord.Forbidden):
            await hands.dm_channel(channel_id).get_partial_message(message_id).delete()

    hands.edits.request(("delete", table_id, message_id), delete)
