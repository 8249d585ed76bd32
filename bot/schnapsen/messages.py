"""Keeping Discord's messages in step with the tables: the table message, each player's private hand (a DM,
or ephemeral in the channel when their DMs are closed), delivery of what a stored change owes (results, last
words of finished hands, notices) and the languages people were last seen using.

Every job here runs after the service stored the change, as a supervised job (`coalesce.py`), and reads the
table's snapshot when it runs: the service's current one, or for a closed table the last one it was given.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.db import OutboxEntry, PlayerPrefs, SeatRow
from bot.game.service import Outcome
from bot.game.table import TableSnapshot
from bot.i18n import t
from bot.vocabulary import HandOrder

from . import payloads, texts, threads
from .coalesce import Coalescer

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

log = logging.getLogger(__name__)
DMS_CLOSED = 50007
NO_MENTIONS = discord.AllowedMentions.none()
REMEMBERED_LANGUAGES = 10_000  # people whose Discord language we remember (least recently seen forgotten)
REMEMBERED_DEAL_ENDS = 256  # finished deals kept for their result messages (else rebuilt from storage)
# An interaction's token edits its ephemeral messages for 15 minutes; a minute's margin for a slow edit.
CHANNEL_HAND_WINDOW = 14 * 60.0
# The token expired (Invalid Webhook Token, Unknown Webhook) or the ephemeral message is gone.
CHANNEL_HAND_GONE = frozenset({50027, 10015, 10008})
# How long a closing table's thread waits for its message to show the table closed before it is archived
# anyway (an edit that keeps failing must not keep the thread open).
CLOSED_MESSAGE_WAIT = 30.0


@dataclass(frozen=True)
class ChannelHand:
    """A person's hand shown ephemerally in their table's channel, editable through the interaction that
    showed it (``message_id`` None: its original response) until the token expires."""

    table_id: int
    interaction: discord.Interaction[Any]
    message_id: int | None
    since: float  # the event loop's time when the interaction arrived

    def fresh(self, now: float) -> bool:
        return now - self.since < CHANNEL_HAND_WINDOW

    async def edit(self, payload: payloads.Payload) -> None:
        if self.message_id is None:
            await self.interaction.edit_original_response(**payload.edit_kwargs())
        else:
            await self.interaction.followup.edit_message(self.message_id, **payload.edit_kwargs())


class Messages:
    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.service = bot.service
        retry = {"first_retry": bot.settings.retry_first, "max_retry": bot.settings.retry_max}
        self.edits = Coalescer(bot.settings.edit_interval, **retry)  # message edits, rate limited per message
        self.sends = Coalescer(0.0, **retry)  # hand sends and deliveries of the outbox
        self.user_langs: OrderedDict[int, str] = OrderedDict()
        self._hand_images: dict[int, int] = {}  # DM message id -> hash of the hand image it shows
        self._hand_shown: dict[int, tuple[object, ...]] = {}  # DM message id -> what it shows (signature)
        self._messages_of: dict[int, set[int]] = {}  # table id -> its hand message ids in the caches above
        self._deal_ends: OrderedDict[tuple[int, int], TableSnapshot] = OrderedDict()
        self._sends_tried: set[tuple[int, int, int]] = set()  # (table, deal, seat) hand sends that failed
        # table id -> its posted table message no snapshot knows yet (the table closed meanwhile, or storing the
        # message's id failed: the retry stores this one instead of posting a second)
        self._posted_as_it_closed: dict[int, int] = {}
        # Hands in the channel (the person chose so, or their DMs are closed), keyed by user id / (table, user).
        self._channel_hands: dict[int, ChannelHand] = {}
        self._channel_shown: dict[tuple[int, int], tuple[object, ...]] = {}  # what the ephemeral hand shows
        self._turn_notices: dict[tuple[int, int], tuple[int, int]] = {}  # -> (version, message id) posted
        # Set once a closed table's message shows it closed; its thread is archived only after that.
        self._shown_closed: dict[int, asyncio.Event] = {}

    def current(self, table: TableSnapshot) -> TableSnapshot:
        """The table as it stands now: the service's snapshot, or (the table closed) the one given."""
        return self.service.snapshot(table.id) or table

    # --- languages -----------------------------------------------------------------------------------

    def user_lang(self, table: TableSnapshot, user_id: int | None) -> str:
        return self.user_langs.get(user_id or 0, table.row.language)

    def remember_lang(self, user_id: int, lang: str) -> None:
        self.user_langs[user_id] = lang
        self.user_langs.move_to_end(user_id)
        while len(self.user_langs) > REMEMBERED_LANGUAGES:
            self.user_langs.popitem(last=False)

    # --- after a change --------------------------------------------------------------------------------

    def show(self, table: TableSnapshot, outcome: Outcome | None = None) -> None:
        """Deliver what a stored change owes and show the table as it stands: its message and the hands."""
        if outcome is not None and outcome.deal_end is not None:
            self._remember_deal_end(table.id, outcome.deal_end.deal_no, outcome.deal_end)
        self.deliver(table.id)
        self.refresh_table_message(table)
        self.refresh_hands(table)

    def expect_resent_hands(self, table: TableSnapshot) -> None:
        """After a restart: a hand not stored as sent may have been sent before the stop; a send now gets that
        message back (same nonce), showing the position of then, so it is edited rather than trusted."""
        if table.status == "playing" and table.deal is not None:
            for occupant in table.humans():
                if occupant.dm_message_id is None and not occupant.dms_closed:
                    self._sends_tried.add((table.id, table.deal_no, occupant.seat))

    def forget(self, table_id: int) -> None:
        """A closed table's caches and retries go (what it still owes is delivered)."""
        for message_id in self._messages_of.pop(table_id, set()):
            self._forget_hand(message_id)
        for key in [key for key in self._deal_ends if key[0] == table_id]:
            del self._deal_ends[key]
        self._sends_tried = {attempt for attempt in self._sends_tried if attempt[0] != table_id}
        for user_id in [u for u, hand in self._channel_hands.items() if hand.table_id == table_id]:
            del self._channel_hands[user_id]
        for key in [key for key in self._channel_shown if key[0] == table_id]:
            del self._channel_shown[key]
        for key in [key for key in self._turn_notices if key[0] == table_id]:
            del self._turn_notices[key]

    # --- the table message -------------------------------------------------------------------------------

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    def dm_channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    def where(self, table: TableSnapshot) -> str:
        guild = self.bot.get_guild(table.row.guild_id)
        channel = guild.get_channel_or_thread(table.row.channel_id) if guild else None
        return f"{guild.name if guild else table.row.guild_id} · #{channel.name if channel else table.row.channel_id}"

    def refresh_table_message(self, table: TableSnapshot, *, posted: int | None = None) -> None:
        """Show the table as it stands now (posting the table message when it has none or it was deleted).
        ``posted``: its message, posted already, whose id could not be stored: stored here, not posted again."""
        if posted is not None:
            self._posted_as_it_closed.setdefault(table.id, posted)

        async def edit() -> None:
            now = self.current(table)
            payload = await payloads.table_payload(now, now.row.language)
            message_id = now.row.table_message_id or self._posted_as_it_closed.get(now.id)
            if message_id is not None:
                message = self.channel(now.row.channel_id).get_partial_message(message_id)
                try:
                    await threads.edit_in_thread(self.bot, now, message, payload)
                    if now.row.table_message_id is None and now.status != "closed":  # its store had failed
                        await self._store_table_message(now, message_id)
                    self._posted_as_it_closed.pop(now.id, None)
                    self._shown(now)
                    return
                except discord.NotFound:  # somebody deleted it: put a new one up
                    pass
            sent = await self.channel(now.row.channel_id).send(
                allowed_mentions=NO_MENTIONS, **payload.send_kwargs()
            )
            self._shown(now)
            await self._store_table_message(now, sent.id)

        # The lobby's and a finished Bummerl's buttons are what people wait for; a running deal's moves may
        # wait out the interval (only the latest is drawn).
        self.edits.request(("table message", table.id), edit, urgent=table.status != "playing")

    async def _store_table_message(self, table: TableSnapshot, message_id: int) -> None:
        self._posted_as_it_closed[table.id] = message_id  # until stored: a retry must not post another
        stored = await self.service.set_table_message(table.id, message_id)
        if stored is not None or table.status == "closed":
            self._posted_as_it_closed.pop(table.id, None)
        # Else the table closed while its message was posted: the closed snapshot, which the edit queued after
        # this one shows, was published before the message existed.

    def _shown(self, table: TableSnapshot) -> None:
        if table.status == "closed" and table.row.thread_parent_id is not None:  # its thread is archived next
            self._closed_event(table.id).set()

    def _closed_event(self, table_id: int) -> asyncio.Event:
        return self._shown_closed.setdefault(table_id, asyncio.Event())

    async def _show_closed_first(self, table_id: int) -> None:
        """Let the closed table's message show it closed first. The close is announced by whichever delivery
        runs first: one that another change started may get here while the close is still being published
        (the table still held), before it has asked for that edit; then it waits for the edit (bounded).
        A table no longer held has asked for it already (or, after a restart, never will)."""
        if self.service.snapshot(table_id) is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closed_event(table_id).wait(), CLOSED_MESSAGE_WAIT)
        await self.edits.settled(("table message", table_id))
        self._shown_closed.pop(table_id, None)

    # --- the hands ---------------------------------------------------------------------------------------

    def refresh_hand(self, table: TableSnapshot, seat: int) -> None:
        """Edit the seat's DM for the running deal (a 50007 switches them to the ephemeral hand at once)."""
        occupant = table.seats[seat]
        if occupant is None or occupant.user_id is None:
            return
        if occupant.dm_channel_id is None or occupant.dm_message_id is None:
            return
        channel_id, message_id, user_id, deal_no = (
            occupant.dm_channel_id,
            occupant.dm_message_id,
            occupant.user_id,
            table.deal_no,
        )

        async def edit() -> None:
            now = self.current(table)
            now_there = now.seats[seat]
            if now.deal_no != deal_no or now_there is None or now_there.dm_message_id != message_id:
                return  # that message no longer shows the running deal: its last word is in the outbox
            if self.hand_in_channel(now_there):
                return  # they moved their hand to the channel meanwhile
            lang = self.user_lang(now, user_id)
            payload = await payloads.hand_payload(now, seat, lang, self.where(now), order=self.hand_order(user_id))
            try:
                digest = await self._edit_hand_message(channel_id, message_id, payload)
            except discord.Forbidden as err:
                self._forget_hand(message_id)
                if err.code != DMS_CLOSED:
                    raise
                await self._dms_closed(now, seat, user_id)
                return
            except discord.NotFound:  # the message is gone: send the hand again
                self._forget_hand(message_id)
                await self.service.forget_dm(now.id, seat, message_id)
                self.send_hands(now)
                return
            except Exception:
                self._forget_hand(message_id)  # so that the next change edits it again instead of trusting it
                raise
            self._hand_images[message_id] = digest
            self._messages_of.setdefault(now.id, set()).add(message_id)

        self.edits.request(("hand", table.id, message_id), edit, urgent=self.turn_of(table, seat))

    @staticmethod
    def turn_of(table: TableSnapshot, seat: int) -> bool:
        """Whether the table as given waits for the person in ``seat``: the edit that shows it is urgent."""
        deal, occupant = table.deal, table.seats[seat]
        return (
            deal is not None
            and deal.to_act == seat
            and occupant is not None
            and not occupant.is_ai
            and not occupant.ai_takeover
        )

    def refresh_hands(self, table: TableSnapshot) -> None:
        """Bring every person's hand up to date where it lives, once their choices are known (read once)."""
        unknown = [o.user_id for o in table.humans() if o.user_id and self.service.cached_prefs(o.user_id) is None]
        if unknown:

            async def read_prefs() -> None:
                for user_id in unknown:
                    await self.service.player_prefs(user_id)
                self.refresh_hands(self.current(table))

            self.sends.request(("prefs", table.id), read_prefs)
            return
        for seat in range(4):
            self.refresh_hand_if_changed(table, seat)
        self.send_hands(table)  # a new deal's hands, or one whose send was cut short

    def refresh_hand_if_changed(self, table: TableSnapshot, seat: int) -> None:
        """Edit the seat's DM (or ephemeral hand) only when something it shows changed since it was last
        sent or edited."""
        occupant = table.seats[seat]
        if occupant is not None and occupant.user_id is not None and self.hand_in_channel(occupant):
            self._refresh_channel_hand_if_changed(table, seat, occupant.user_id)
            return
        if occupant is None or occupant.dm_message_id is None:
            return
        signature = texts.hand_signature(table, seat)
        if self._hand_shown.get(occupant.dm_message_id) != signature:
            self._hand_shown[occupant.dm_message_id] = signature
            self._messages_of.setdefault(table.id, set()).add(occupant.dm_message_id)
            self.refresh_hand(table, seat)

    async def _edit_hand_message(self, channel_id: int, message_id: int, payload: payloads.Payload) -> int:
        """Edit a hand message to ``payload``, uploading the hand image only when it changed; returns the
        image's digest."""
        digest = hash(payload.images.get("hand.png"))
        unchanged = self._hand_images.get(message_id) == digest
        await (
            self.dm_channel(channel_id)
            .get_partial_message(message_id)
            .edit(**payload.edit_kwargs(keep_attachments=unchanged))
        )
        return digest

    def _forget_hand(self, message_id: int) -> None:
        self._hand_images.pop(message_id, None)
        self._hand_shown.pop(message_id, None)

    def retire_hand(
        self, table: TableSnapshot, user_id: int, message: tuple[int, int], why: str = "hand.left"
    ) -> None:
        """A player left (or moved their hand to the channel): their DM says so (``why``) and loses its buttons."""
        channel_id, message_id = message

        async def edit() -> None:
            lang = self.user_lang(table, user_id)
            embed = discord.Embed(title=t(lang, "hand.title", id=table.id, where=self.where(table)))
            embed.description = t(lang, why)
            with contextlib.suppress(
                discord.NotFound, discord.Forbidden
            ):  # gone or blocked: nothing to take back
                await (
                    self.dm_channel(channel_id)
                    .get_partial_message(message_id)
                    .edit(embeds=[embed], attachments=[], view=None)
                )
            self._forget_hand(message_id)

        self.edits.request(("hand", table.id, message_id), edit)

    def send_hands(self, table: TableSnapshot) -> None:
        """One DM per player per deal, edited in place for the rest of the deal: send it to every person at
        the table who has none for the running deal yet, until it arrives. Safe to request on every change."""

        async def send() -> None:
            now = self.current(table)
            if now.status != "playing" or now.deal is None:
                return
            failures = []
            for occupant in now.humans():
                if occupant.dms_closed or occupant.dm_message_id is not None or occupant.user_id is None:
                    continue
                if (await self.service.player_prefs(occupant.user_id)).hand_place == "channel":
                    continue
                try:
                    await self._send_hand(now, occupant.seat)
                except Exception as err:  # the others still get theirs; this one is retried
                    failures.append(err)
            if failures:
                raise failures[0]

        self.sends.request(("send hands", table.id), send)

    def sending_hands(self, table_id: int) -> bool:
        return self.sends.busy(("send hands", table_id))

    async def _send_hand(self, table: TableSnapshot, seat: int) -> None:
        occupant = table.seats[seat]
        assert occupant is not None and occupant.user_id is not None
        user_id, deal_no = occupant.user_id, table.deal_no
        shown = texts.hand_signature(table, seat)  # what the payload below shows
        lang, order = self.user_lang(table, user_id), self.hand_order(user_id)
        payload = await payloads.hand_payload(table, seat, lang, self.where(table), order=order)
        now = self.current(table)
        now_there = now.seats[seat]
        if now_there is None or now_there.user_id != user_id or now.deal_no != deal_no:
            return  # they left, or the deal ended, while it was drawn: the next request sees the new state
        attempt = (table.id, deal_no, seat)
        # A send repeated after a lost answer may get back the message an earlier attempt created (same
        # nonce), showing that attempt's older position: then it is edited to the present, not trusted.
        repeated = attempt in self._sends_tried
        self._sends_tried.add(attempt)
        try:
            channel = await self.bot.create_dm(discord.Object(user_id))
            # The nonce makes a send repeated after a crash or a lost answer show one message, not two.
            message = await channel.send(
                nonce=f"h{table.id}.{deal_no}.{seat}", allowed_mentions=NO_MENTIONS, **payload.send_kwargs()
            )
        except discord.Forbidden as err:
            if err.code != DMS_CLOSED:
                raise
            self._sends_tried.discard(attempt)
            await self._dms_closed(table, seat, user_id)
            return
        if not repeated:
            self._hand_images[message.id] = hash(payload.images.get("hand.png"))
            self._hand_shown[message.id] = shown
        self._messages_of.setdefault(table.id, set()).add(message.id)
        # The attempt counts as tried until its message is stored: a send repeated after the store failed
        # gets back this message (same nonce), still showing the position it was sent at.
        stored = await self.service.set_dm(table.id, seat, user_id, deal_no, message.channel.id, message.id)
        self._sends_tried.discard(attempt)
        if stored is None:
            if self.current(table).deal_no == deal_no:  # they left meanwhile
                self.retire_hand(table, user_id, (message.channel.id, message.id))
            return
        there = stored.seats[seat]
        if there is not None and self.hand_in_channel(there):
            # They moved their hand to the channel while it was sent (the move found no DM to retire then):
            # this DM says where it went, as if it had been there already.
            self.retire_hand(stored, user_id, (message.channel.id, message.id), why="hand.moved_to_channel")
        self.refresh_hand_if_changed(stored, seat)  # the position may have moved on while we sent

    async def _dms_closed(self, table: TableSnapshot, seat: int, user_id: int) -> None:
        """Exactly as at a deal's first send: the player's hand lives in the channel from now on."""
        if (changed := await self.service.set_dms_closed(table.id, seat, user_id)) is not None:
            log.info(
                "table %s: DMs of seat %s are closed; their hand is shown in the channel", table.id, seat
            )
            self.deliver(table.id)
            self.refresh_table_message(changed)

    # --- hands in the channel (ephemeral) and people's own choices ------------------------------------

    def hand_order(self, user_id: int) -> HandOrder:
        prefs = self.service.cached_prefs(user_id)
        return "sorted" if prefs is None else prefs.hand_order

    def hand_in_channel(self, occupant: SeatRow) -> bool:
        """Whether the person's hand is shown ephemerally in the channel: by choice, or their DMs are closed."""
        if occupant.dms_closed:
            return True
        prefs = None if occupant.user_id is None else self.service.cached_prefs(occupant.user_id)
        return prefs is not None and prefs.hand_place == "channel"

    def remember_channel_hand(
        self, table: TableSnapshot, user_id: int, interaction: discord.Interaction[Any], message_id: int | None,
        *, shows_now: bool,
    ) -> None:  # fmt: skip
        """An ephemeral hand of ``user_id`` at ``table``: edited on every change of theirs while its token
        lasts. ``shows_now``: it shows the table as it stands (else the next change edits it)."""
        loop_time = asyncio.get_running_loop().time()
        self._channel_hands[user_id] = ChannelHand(table.id, interaction, message_id, loop_time)
        key, seat = (table.id, user_id), table.seat_of(user_id)
        if shows_now and seat is not None:
            self._channel_shown[key] = self._channel_signature(table, seat, user_id)
            occupant = table.seats[seat]
            if occupant is not None and self.hand_in_channel(occupant):  # a move while it was sent shows now
                self._refresh_channel_hand_if_changed(self.current(table), seat, user_id)
        else:
            self._channel_shown.pop(key, None)
        notice = self._turn_notices.pop(key, None)
        if notice is not None:  # the hand is open: the notice that offered it has done its job
            self._delete_later(table, notice[1])

    def _channel_signature(self, table: TableSnapshot, seat: int, user_id: int) -> tuple[object, ...]:
        return (*texts.hand_signature(table, seat), self.hand_order(user_id))

    def _refresh_channel_hand_if_changed(self, table: TableSnapshot, seat: int, user_id: int) -> None:
        key = (table.id, user_id)
        signature = self._channel_signature(table, seat, user_id)
        if self._channel_shown.get(key) != signature:
            self._channel_shown[key] = signature
            self.refresh_channel_hand(table, seat, user_id)

    def refresh_channel_hand(self, table: TableSnapshot, seat: int, user_id: int) -> None:
        """Edit the person's ephemeral hand while its token lasts; on their turn without one, tell them in the
        channel with a button that opens a fresh one (an ephemeral message can only answer a click)."""

        async def edit() -> None:
            now = self.current(table)
            there = now.seats[seat]
            if now.status != "playing" or there is None or there.user_id != user_id:
                return
            hand = self._channel_hands.get(user_id)
            if hand is not None and hand.table_id == now.id and hand.fresh(asyncio.get_running_loop().time()):
                lang, order = self.user_lang(now, user_id), self.hand_order(user_id)
                payload = await payloads.hand_payload(now, seat, lang, self.where(now), order=order)
                try:
                    await hand.edit(payload)
                    return
                except discord.HTTPException as err:
                    if err.code not in CHANNEL_HAND_GONE:
                        raise
                    log.info("table %s: the ephemeral hand of seat %s expired (%s)", now.id, seat, err.code)
            if self._channel_hands.get(user_id) is hand:
                self._channel_hands.pop(user_id, None)
            deal = now.deal
            if deal is not None and deal.to_act == seat and not there.ai_takeover:
                await self._turn_notice(now, user_id)

        self.edits.request(("channel hand", table.id, user_id), edit, urgent=self.turn_of(table, seat))

    async def _turn_notice(self, table: TableSnapshot, user_id: int) -> None:
        key = (table.id, user_id)
        earlier = self._turn_notices.get(key)
        if earlier is not None and earlier[0] == table.version:
            return
        lang = table.row.language
        sent = await self.channel(table.row.channel_id).send(
            t(lang, "hand.turn_notice", mention=f"<@{user_id}>", id=table.id),
            view=payloads.turn_notice_view(table, lang),
            nonce=f"t{table.id}.{table.version}",
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(user_id)]),
        )
        self._turn_notices[key] = (table.version, sent.id)
        if earlier is not None:
            self._delete_later(table, earlier[1])

    def _delete_later(self, table: TableSnapshot, message_id: int) -> None:
        """Take down a turn notice that served its purpose (once; gone already is as good)."""

        async def delete() -> None:
            with contextlib.suppress(discord.NotFound, discord.Forbidden):
                await self.channel(table.row.channel_id).get_partial_message(message_id).delete()

        self.edits.request(("delete", table.id, message_id), delete)

    def prefs_changed(self, table: TableSnapshot, user_id: int, before: PlayerPrefs) -> None:
        """Apply a person's new choices to their open table at once: the hand moves to where they want it
        (a DM left behind says where it went) and is shown in their order."""
        seat = table.seat_of(user_id)
        occupant = None if seat is None else table.seats[seat]
        if table.status != "playing" or occupant is None:
            return
        hand = self._channel_hands.get(user_id)
        if hand is None or hand.table_id != table.id or not hand.fresh(asyncio.get_running_loop().time()):
            # No hand open in the channel that shows what it shows (the command may have just shown one).
            self._channel_shown.pop((table.id, user_id), None)
        if occupant.dm_message_id is not None:
            self._hand_shown.pop(occupant.dm_message_id, None)
            if self.hand_in_channel(occupant) and before.hand_place == "dm" and occupant.dm_channel_id is not None:
                message = (occupant.dm_channel_id, occupant.dm_message_id)
                self.retire_hand(table, user_id, message, why="hand.moved_to_channel")
        if not self.hand_in_channel(occupant):
            self._channel_hands.pop(user_id, None)
        self.refresh_hands(table)

    # --- what a stored change owes ---------------------------------------------------------------------

    def deliver(self, table_id: int) -> None:
        """Deliver what the table's stored changes owe, oldest first, until every item has arrived."""
        self.sends.request(("outbox", table_id), lambda: self._deliver(table_id))

    def delivering(self, table_id: int) -> bool:
        return self.sends.busy(("outbox", table_id))

    async def _deliver(self, table_id: int) -> None:
        for entry in await self.service.pending_announcements(table_id):
            try:
                await self._deliver_one(entry)
            except (discord.NotFound, discord.Forbidden) as err:
                # The channel or message is gone, or the bot may not post there: retrying cannot help.
                log.error(
                    "table %s: announcement %s (%s) cannot be delivered: %s",
                    table_id,
                    entry.id,
                    entry.kind,
                    err,
                )
            await self.service.announcement_delivered(entry.id)

    async def _deliver_one(self, entry: OutboxEntry) -> None:
        await self._deliver_message(entry)
        if (thread_id := entry.payload.get("archive_thread")) is not None:
            # The table closed: its message shows that first (no edit reaches an archived thread).
            await self._show_closed_first(entry.table_id)
            await threads.archive_thread(self.bot, thread_id)

    async def _deliver_message(self, entry: OutboxEntry) -> None:
        payload = entry.payload
        match entry.kind:
            case "result":
                table = await self._deal_end(entry.table_id, payload["deal_no"])
                deal = table.deal
                assert deal is not None
                tally = tuple(payload["tally"]) if payload.get("tally") else None
                review = (await self.service.guild_settings(table.row.guild_id)).deal_review
                message = await payloads.result_payload(
                    table, payload["lang"], deal, table.last_bummerl, tally, payload.get("ratings"), review=review
                )
                await self.channel(payload["channel_id"]).send(
                    nonce=f"r{entry.table_id}.{payload['deal_no']}",
                    allowed_mentions=NO_MENTIONS,
                    **message.send_kwargs(),
                )
            case "final_hand":
                if (await self.service.player_prefs(payload["user_id"])).hand_place == "channel":
                    # She moved her hand to the channel during the deal: the DM keeps saying so (no next
                    # hand will come there).
                    return
                table = await self._deal_end(entry.table_id, payload["deal_no"])
                seat, message_id = payload["seat"], payload["message_id"]
                lang = self.user_lang(table, payload["user_id"])
                order = self.hand_order(payload["user_id"])
                message = await payloads.hand_payload(table, seat, lang, self.where(table), table.deal, order)
                self.edits.cancel(("hand", entry.table_id, message_id))  # no older edit may follow this one
                await self._edit_hand_message(payload["channel_id"], message_id, message)
                self._forget_hand(message_id)  # a finished deal's message is never edited again
            case "notice":
                values = dict(payload.get("values", {}))
                mention = payload.get("mention")
                if mention is not None:
                    values["mention"] = f"<@{mention}>"
                allowed = (
                    discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(mention)])
                    if mention is not None
                    else NO_MENTIONS
                )
                await self.channel(payload["channel_id"]).send(
                    t(payload["lang"], payload["key"], **values),
                    nonce=f"n{entry.id}",
                    allowed_mentions=allowed,
                )
            case "set_aside":
                try:
                    record = await self.service.export_record(entry.table_id)
                except Exception:  # the record itself cannot be read: say so without it
                    log.error("table %s: its record cannot be exported", entry.table_id, exc_info=True)
                    files = []
                else:
                    files = [payloads.record_file(entry.table_id, record)]
                await self.channel(payload["channel_id"]).send(
                    t(payload["lang"], "notice.set_aside", id=entry.table_id),
                    files=files,
                    nonce=f"s{entry.table_id}",
                    allowed_mentions=NO_MENTIONS,
                )

    async def _deal_end(self, table_id: int, deal_no: int) -> TableSnapshot:
        """The table as it stood when the deal ended: remembered from the action, else rebuilt from storage."""
        remembered = self._deal_ends.get((table_id, deal_no))
        if remembered is not None:
            return remembered
        table = await self.service.table_at_deal_end(table_id, deal_no)
        self._remember_deal_end(table_id, deal_no, table)
        return table

    def _remember_deal_end(self, table_id: int, deal_no: int, table: TableSnapshot) -> None:
        self._deal_ends[(table_id, deal_no)] = table
        while len(self._deal_ends) > REMEMBERED_DEAL_ENDS:
            self._deal_ends.popitem(last=False)
