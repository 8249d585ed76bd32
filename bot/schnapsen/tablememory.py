"""What the messages remember of one open table, as one object: made when the table first needs it, dropped
as a whole when the table closes (``Messages.forget``), so that no cache of a closed table is left behind."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, cast

import discord

import engine
from bot.cache import Lru
from bot.game.table import TableSnapshot

from .content import Payload
from .handmodel import HandModel

log = logging.getLogger(__name__)

# An interaction's token edits its ephemeral messages for 15 minutes; a minute's margin for a slow edit.
CHANNEL_HAND_WINDOW = 14 * 60.0
# Finished deals of one table kept for their result messages and last hand edits (else rebuilt from storage).
REMEMBERED_DEAL_ENDS = 4
# The people's latest moves kept per table, to recognise a repeated click: a trick's four and then some.
REMEMBERED_MOVES = 8


# The interaction's own message, as the edit of a webhook message names it: the interaction's token makes a
# webhook (``Interaction.followup``) whose "@original" message is the one the interaction answered.
ORIGINAL_RESPONSE = cast(int, "@original")


@dataclass(frozen=True)
class ChannelHand:
    """A person's hand shown ephemerally in their table's channel, or a message a click was made on, editable
    through the click's token (``message_id`` None: its original response) until the token expires. Only the
    token's webhook is kept, not the interaction: thousands of them are kept, and an interaction brings its
    message, user and channel along (all scanned by every full collection of the garbage collector)."""

    table_id: int
    followup: discord.Webhook
    message_id: int | None
    since: float  # the event loop's time when the interaction arrived

    def fresh(self, now: float) -> bool:
        return now - self.since < CHANNEL_HAND_WINDOW

    @classmethod
    def of_click(cls, table_id: int, interaction: discord.Interaction[Any], message_id: int | None = None) -> ChannelHand:
        """An acknowledged click's token, its 15 minutes counted from when Discord made it (a click handed over
        late has less of them left)."""
        age = max(0.0, (discord.utils.utcnow() - interaction.created_at).total_seconds())
        return cls(table_id, interaction.followup, message_id, asyncio.get_running_loop().time() - age)

    async def edit(self, payload: Payload, *, keep_attachments: bool = False) -> None:
        kwargs = payload.edit_kwargs(keep_attachments=keep_attachments)
        await self.followup.edit_message(ORIGINAL_RESPONSE if self.message_id is None else self.message_id, **kwargs)


def forget_refused_click(
    clicks: Lru[Any, ChannelHand], key: Hashable, click: ChannelHand, doing: str, err: discord.HTTPException
) -> None:
    """Discord refused a click's token (expired, unknown): forget it, unless a newer click took its place, and
    say so; the caller uses the bot token instead."""
    if clicks.peek(key) is click:
        clicks.pop(key)
    log.info(
        "table %s: %s through a click's token failed (%s %s); using the bot token",
        click.table_id, doing, err.status, err.code,
    )  # fmt: skip


@dataclass(eq=False)
class TableMemory:
    """One table's hand messages as last shown, its finished deals, its hand sends that may have arrived, its
    ephemeral hands and turn notices."""

    # DM hands, by message id: what each shows, and the digest of its image (an unchanged one is not uploaded).
    dm_shown: dict[int, HandModel] = field(default_factory=dict)
    dm_images: dict[int, int] = field(default_factory=dict)
    # (deal, seat) of hand sends that failed or may have arrived before a restart: a send repeated gets back
    # that message (same nonce), showing an older position, so it is edited rather than trusted.
    sends_tried: set[tuple[int, int]] = field(default_factory=set)
    # Hand DMs sent, by (deal, seat, user): a send repeated in this process (the watchdog found no stored message)
    # takes this message again, as the nonce would, which a follow-up of a click has not.
    hand_sends: dict[tuple[int, int, int], discord.Message] = field(default_factory=dict)
    # Hand DMs re-posted (repost.py) whose new message is not stored yet, old id -> new id: a retry stores
    # that one instead of sending another.
    reposted: dict[int, int] = field(default_factory=dict)
    # The table as it stood when a deal ended, by deal number (its result and the last word of its hands).
    deal_ends: Lru[int, TableSnapshot] = field(default_factory=lambda: Lru(REMEMBERED_DEAL_ENDS))
    # Hands in the channel (the person chose so, or their DMs are closed), by user id: the interaction that
    # edits each, what each shows, and the turn notice (version, message id) that offered a fresh one.
    channel_hands: dict[int, ChannelHand] = field(default_factory=dict)
    channel_shown: dict[int, HandModel] = field(default_factory=dict)
    turn_notices: dict[int, tuple[int, int]] = field(default_factory=dict)
    # Clicks answered with their hand, by hand (("dm", message id) or ("channel", table, user)): an edit of the
    # hand that was on its way meanwhile may land after the answer, showing an older position, so it is redone.
    clicks_answered: Counter[Hashable] = field(default_factory=Counter)
    # The deal the table message last showed while playing: a new deal's first picture goes at once.
    table_deal_shown: int | None = None
    # The latest moves people made, by the version of the position they were made at: who, what and when (the
    # event loop's time). A quick second click on a hand not updated yet repeats one (``ClickAnswers``).
    moves_made: Lru[int, tuple[int, engine.Action, float]] = field(default_factory=lambda: Lru(REMEMBERED_MOVES))
    # The changes that owed an announcement so far, and how many of them there were when a look found the outbox
    # empty (one process): a look that a later one overtook proves nothing.
    owing_changes: int = 0
    outbox_empty_at: int | None = None

    @property
    def outbox_empty(self) -> bool:
        """Nothing waits in the outbox: found empty, and no change since owed anything. A change that owes
        nothing then does not look again."""
        return self.outbox_empty_at == self.owing_changes

    def forget_dm(self, message_id: int) -> None:
        """Forget what a DM shows: the next change edits it again instead of trusting it."""
        self.dm_shown.pop(message_id, None)
        self.dm_images.pop(message_id, None)
