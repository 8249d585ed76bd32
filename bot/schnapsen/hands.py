"""Each player's private hand, where it lives: one DM per player per deal, edited in place, or, when they
chose so or their DMs are closed, an ephemeral message in the table's channel, edited through the interaction
that showed it while its token lasts (on their turn without one, a notice in the channel offers a fresh one).

A hand DM is edited through the token of its owner's latest click on it while that lasts (Discord does not
count interaction-token calls against the bot token's global limit), else, or when that edit fails, with the
bot token. A deal's DM goes as a follow-up of its owner's latest click in their DM while that token has
``FOLLOWUP_TOKEN_LEFT`` to go (it then edits that message too, until they click it), else with the bot token to
the DM channel known for its owner (stored with the seat, or remembered from an earlier deal); only a person
with none known costs a ``create_dm`` call.

A hand is edited only when its ``HandModel`` for the table as it stands differs from the one it shows. Every
job runs as a supervised job of the messages' queues (``coalesce.py``) and reads the table when it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import discord

import engine
from bot.cache import Lru
from bot.db import PlayerPrefs, SeatRow
from bot.game.table import TableSnapshot
from bot.i18n import t
from bot.vocabulary import HandOrder

from . import payloads, repost
from .content import Payload
from .handmodel import HandModel, hand_model
from .tablememory import ChannelHand, forget_refused_click

if TYPE_CHECKING:
    from .messages import Messages

log = logging.getLogger(__name__)
DMS_CLOSED = 50007
NO_MENTIONS = discord.AllowedMentions.none()
REMEMBERED_LANGUAGES = 10_000  # people whose Discord language we remember (least recently seen forgotten)
REMEMBERED_DM_CHANNELS = 10_000  # people whose DM channel with the bot we remember (it never changes)
REMEMBERED_DM_CLICKS = 10_000  # hand DMs whose latest click's token we keep (each is used only while fresh)
# Hand models of the latest positions: one change asks for each seat's model several times (is it changed, its
# edit, the click's answer), all of the same snapshot.
KEPT_MODELS = 512
UNKNOWN_MESSAGE = 10008
# The token expired (Invalid Webhook Token, Unknown Webhook) or the ephemeral message is gone.
CHANNEL_HAND_GONE = frozenset({50027, 10015, UNKNOWN_MESSAGE})
TOKEN_REFUSED = frozenset({401, 403, 404})  # an interaction's token Discord no longer takes (expired, unknown)
# A deal's DM is sent through its owner's latest DM click only while that token has this long to go: it also
# edits the new message until they click it (a deal at human pace takes about a minute).
FOLLOWUP_TOKEN_LEFT = 5 * 60.0


class Hands:
    def __init__(self, messages: Messages) -> None:
        self.messages = messages
        self.bot, self.service = messages.bot, messages.service
        self.edits, self.sends = messages.edits, messages.sends
        self.user_langs = Lru[int, str](REMEMBERED_LANGUAGES)
        self.dm_channels = Lru[int, int](REMEMBERED_DM_CHANNELS)  # user id -> their DM channel's id
        # Hand DM message id -> the latest click on it (acknowledged), or the click whose follow-up it is: its
        # token edits that message.
        self.dm_clicks = Lru[int, ChannelHand](REMEMBERED_DM_CLICKS)
        # User id -> their latest acknowledged click in their DM with the bot: it sends their next deal's hand.
        self.latest_dm_click = Lru[int, ChannelHand](REMEMBERED_DM_CLICKS)
        # Hand DMs sent as follow-ups: a bot-token edit Discord refuses once the token expired sends it afresh.
        self.followup_dms = Lru[int, None](REMEMBERED_DM_CLICKS)
        # People whose hand a command is showing in the channel right now (`shown_by_command`).
        self.shown_by_command: Counter[int] = Counter()
        # Daily attempt played in a channel -> its player's latest ephemeral hand (outlives the table's memory, for
        # the last deal's result and the closing notice, delivered once the table is closed).
        self.private_hands = Lru[int, ChannelHand](REMEMBERED_DM_CLICKS)
        # (snapshot's id, seat, language, place, deal's id, order) -> the model and the objects it was made of.
        self._models = Lru[tuple[object, ...], tuple[TableSnapshot, engine.DealState | None, HandModel]](KEPT_MODELS)

    # --- whose hand, where, in which language ----------------------------------------------------------

    def user_lang(self, table: TableSnapshot, user_id: int | None) -> str:
        """The language of what only this person sees: their Discord client's when known, else the table's."""
        return self.user_langs.get(user_id or 0, table.language)

    def remember_lang(self, user_id: int, lang: str) -> None:
        self.user_langs[user_id] = lang

    def where(self, table: TableSnapshot) -> str:
        """The table's place as a hand's title names it: server · #channel (a daily attempt: the server alone,
        its channel being the person's DM)."""
        guild = self.bot.get_guild(table.guild_id)
        if self.service.daily.known_attempt(table.id):
            return guild.name if guild else str(table.guild_id)
        channel = guild.get_channel_or_thread(table.channel_id) if guild else None
        return f"{guild.name if guild else table.guild_id} · #{channel.name if channel else table.channel_id}"

    def dm_channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    # --- what a hand shows ---------------------------------------------------------------------------

    def model(
        self, table: TableSnapshot, seat: int, user_id: int, deal: engine.DealState | None = None
    ) -> HandModel:
        """The seat's hand as ``user_id`` sees it: in their language and order (``deal``: a finished one). Made
        once per snapshot (snapshots are immutable; one is replaced, never changed, by the next change)."""
        lang, where, order = self.user_lang(table, user_id), self.where(table), self.hand_order(user_id)
        key = (id(table), seat, lang, where, id(deal), order)
        kept = self._models.get(key)
        if kept is not None and kept[0] is table and kept[1] is deal:  # an id is reused only after its object died
            return kept[2]
        model = hand_model(table, seat, lang, where, deal, order)
        self._models[key] = (table, deal, model)
        return model

    async def payload(self, table: TableSnapshot, seat: int, lang: str, user_id: int) -> Payload:
        """The seat's hand in ``lang`` (the language of a click's answer), in ``user_id``'s order."""
        where = self.where(table)
        return await payloads.hand_message(hand_model(table, seat, lang, where, order=self.hand_order(user_id)))

    def hand_order(self, user_id: int) -> HandOrder:
        prefs = self.service.prefs.cached_prefs(user_id)
        return "sorted" if prefs is None else prefs.hand_order

    def hand_in_channel(self, occupant: SeatRow) -> bool:
        """Whether the person's hand is shown ephemerally in the channel: by choice, or their DMs are closed. A
        daily attempt's hand is where its player chose to play it: their DM, or a server channel."""
        if self.service.daily.known_attempt(occupant.table_id):
            return self.service.daily.in_channel(occupant.table_id)
        if occupant.dms_closed:
            return True
        prefs = None if occupant.user_id is None else self.service.prefs.cached_prefs(occupant.user_id)
        return prefs is not None and prefs.hand_place == "channel"

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

    # --- bringing the hands up to date ---------------------------------------------------------------

    def refresh_all(self, table: TableSnapshot) -> None:
        """Bring every person's hand up to date where it lives, once their choices are known (read once)."""
        unknown = [o.user_id for o in table.humans() if o.user_id and self.service.prefs.cached_prefs(o.user_id) is None]
        if unknown:

            async def read_prefs() -> None:
                for user_id in unknown:
                    await self.service.prefs.player_prefs(user_id)
                self.refresh_all(self.messages.current(table))

            self.sends.request(("prefs", table.id), read_prefs)
            return
        for seat in range(4):
            self.refresh_if_changed(table, seat)
        self.send_all(table)  # a new deal's hands, or one whose send was cut short

    def refresh_if_changed(self, table: TableSnapshot, seat: int) -> None:
        """Edit the seat's DM (or ephemeral hand) only when what it shows changed since it was last sent or
        edited."""
        occupant = table.seats[seat]
        if occupant is None or occupant.user_id is None:
            return
        if self.hand_in_channel(occupant):
            self._refresh_channel_hand_if_changed(table, seat, occupant.user_id)
            return
        if occupant.dm_message_id is None or self.messages.answers.holds(("dm", occupant.dm_message_id)):
            return
        memory = self.messages.memory(table.id)
        shown = self.model(table, seat, occupant.user_id)
        if memory.dm_shown.get(occupant.dm_message_id) != shown:
            memory.dm_shown[occupant.dm_message_id] = shown
            self.refresh_dm(table, seat)

    def refresh_dm(self, table: TableSnapshot, seat: int) -> None:
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
            now = self.messages.current(table)
            now_there = now.seats[seat]
            if now.deal_no != deal_no or now_there is None or now_there.dm_message_id != message_id:
                return  # that message no longer shows the running deal: its last word is in the outbox
            if self.hand_in_channel(now_there):
                return  # they moved their hand to the channel meanwhile
            memory = self.messages.memory(now.id)
            shown = self.model(now, seat, user_id)
            payload = await payloads.hand_message(shown)
            answered_before = memory.clicks_answered[("dm", message_id)]
            try:
                if self.messages.reposts.due(message_id):  # too old to edit: a new DM takes its place
                    await repost.repost_dm(self, now, seat, user_id, (channel_id, message_id), shown, payload)
                    return
                await self.edit_dm(now.id, channel_id, message_id, payload)
                if memory.clicks_answered[("dm", message_id)] != answered_before:  # a click's answer may have landed first
                    memory.forget_dm(message_id)
                    self.refresh_if_changed(self.messages.current(now), seat)
            except discord.Forbidden as err:
                memory.forget_dm(message_id)
                if err.code == DMS_CLOSED:
                    await self._dms_closed(now, seat, user_id)
                    return
                if message_id not in self.followup_dms:
                    raise
                # A follow-up the bot token may not edit (its click's token expired): the hand is sent afresh.
                log.info("table %s: hand DM %s (a follow-up) refused the bot token (%s)", now.id, message_id, err.code)
                await self.service.seating.forget_dm(now.id, seat, message_id)
                self.send_all(now)
                return
            except discord.NotFound:  # the message is gone: send the hand again
                memory.forget_dm(message_id)
                await self.service.seating.forget_dm(now.id, seat, message_id)
                self.send_all(now)
                return
            except Exception:
                memory.forget_dm(message_id)  # so that the next change edits it again instead of trusting it
                raise

        self.edits.request(("hand", table.id, message_id), edit, urgent=self.turn_of(table, seat))

    async def edit_dm(self, table_id: int, channel_id: int, message_id: int, payload: Payload) -> None:
        """Edit a hand DM to ``payload``, uploading the hand image only when it changed: through the token of
        the latest click on it while that lasts, else (or when that fails) with the bot token."""
        memory = self.messages.memory(table_id)
        digest = hash(payload.images.get("hand.png"))
        unchanged = memory.dm_images.get(message_id) == digest
        if not await self._edit_dm_through_click(message_id, payload, keep_attachments=unchanged):
            await (
                self.dm_channel(channel_id)
                .get_partial_message(message_id)
                .edit(**payload.edit_kwargs(keep_attachments=unchanged))
            )
        memory.dm_images[message_id] = digest

    def remember_dm_click(self, table: TableSnapshot, interaction: discord.Interaction[Any]) -> None:
        """An acknowledged click on a hand DM: its token edits that message while it lasts (a deferred update's
        original response is the message the button was on, so the token is kept by that message's id and used
        for no other; the seat may not know the message yet, if the click came as it was being stored)."""
        message = interaction.message
        if message is None or interaction.guild_id is not None:
            return
        click = ChannelHand.of_click(table.id, interaction)
        self.dm_clicks[message.id] = click
        latest = self.latest_dm_click.get(interaction.user.id)
        if latest is None or latest.since <= click.since:
            self.latest_dm_click[interaction.user.id] = click

    async def _edit_dm_through_click(
        self, message_id: int, payload: Payload, *, keep_attachments: bool
    ) -> bool:
        """Edit a hand DM through its latest click's token; False when there is none fresh or Discord refused
        it (expired, unknown: the token is forgotten and the caller edits with the bot token instead)."""
        click = self.dm_clicks.get(message_id)
        if click is None or not click.fresh(asyncio.get_running_loop().time()):
            return False
        try:
            await click.edit(payload, keep_attachments=keep_attachments)
        except discord.HTTPException as err:
            if err.status not in TOKEN_REFUSED and err.code not in CHANNEL_HAND_GONE:
                raise  # a 429 or a server error: the job waits as badanswers.py says and tries the token again
            forget_refused_click(self.dm_clicks, message_id, click, f"editing hand DM {message_id}", err)
            return False
        return True

    def retire(
        self, table: TableSnapshot, user_id: int, message: tuple[int, int], why: str = "hand.left"
    ) -> None:
        """A player left (or moved their hand to the channel): their DM says so (``why``) and loses its buttons."""
        channel_id, message_id = message

        async def edit() -> None:
            lang = self.user_lang(table, user_id)
            embed = discord.Embed(title=t(lang, "hand.title", id=table.id, where=self.where(table)))
            embed.description = t(lang, why)
            with contextlib.suppress(discord.NotFound, discord.Forbidden):  # gone or blocked: nothing to take back
                await (
                    self.dm_channel(channel_id)
                    .get_partial_message(message_id)
                    .edit(embeds=[embed], attachments=[], view=None)
                )
            self.messages.memory(table.id).forget_dm(message_id)

        self.edits.request(("hand", table.id, message_id), edit)

    # --- sending a deal's DMs --------------------------------------------------------------------------

    def expect_resent(self, table: TableSnapshot) -> None:
        """After a restart: a hand not stored as sent may have been sent before the stop; a send now gets that
        message back (same nonce), showing the position of then, so it is edited rather than trusted."""
        if table.status == "playing" and table.deal is not None:
            memory = self.messages.memory(table.id)
            for occupant in table.humans():
                if occupant.dm_message_id is None and not occupant.dms_closed:
                    memory.sends_tried.add((table.deal_no, occupant.seat))

    def send_all(self, table: TableSnapshot) -> None:
        """One DM per player per deal, edited in place for the rest of the deal: send it to every person at
        the table who has none for the running deal yet, until it arrives. Safe to request on every change."""

        async def send_one(now: TableSnapshot, occupant: SeatRow) -> None:
            if self.service.daily.known_attempt(now.id):  # an attempt's hand is where it is played
                in_channel = self.service.daily.in_channel(now.id)
            else:
                assert occupant.user_id is not None  # a person's hand to send (`_unsent`)
                in_channel = (await self.service.prefs.player_prefs(occupant.user_id)).hand_place == "channel"
            if not in_channel:
                await self._send(now, occupant.seat)

        async def send() -> None:
            now = self.messages.current(table)
            if now.status != "playing" or now.deal is None:
                return
            # All at once, each a round trip to Discord: one after the other, the fourth person's hand came
            # four round trips after the deal. Whoever acts first is asked first (their drawing goes first).
            to_act = now.deal.to_act
            people = sorted(filter(_unsent, now.humans()), key=lambda occupant: occupant.seat != to_act)
            sent = await asyncio.gather(*(send_one(now, occupant) for occupant in people), return_exceptions=True)
            failures = [result for result in sent if isinstance(result, BaseException)]
            if failures:  # the others got theirs; the failed ones are retried
                raise failures[0]

        standing = self.messages.current(table)  # asked on every change: a job only while a hand is still to go
        if any(_unsent(occupant) and not self.hand_in_channel(occupant) for occupant in standing.humans()):
            # Urgent: one of a new deal's hands shows the first turn (with the bot token, it goes first at the pacer).
            self.sends.request(("send hands", table.id), send, urgent=True)

    def sending(self, table_id: int) -> bool:
        return self.sends.busy(("send hands", table_id))

    async def _send(self, table: TableSnapshot, seat: int) -> None:
        occupant = table.seats[seat]
        assert occupant is not None and occupant.user_id is not None
        user_id, deal_no = occupant.user_id, table.deal_no
        shown = self.model(table, seat, user_id)
        payload = await payloads.hand_message(shown)
        now = self.messages.current(table)
        now_there = now.seats[seat]
        if now_there is None or now_there.user_id != user_id or now.deal_no != deal_no:
            return  # they left, or the deal ended, while it was drawn: the next request sees the new state
        memory = self.messages.memory(table.id)
        attempt = (deal_no, seat)
        # A send repeated after a lost answer may get back the message an earlier attempt created (same
        # nonce), showing that attempt's older position: then it is edited to the present, not trusted.
        repeated = attempt in memory.sends_tried
        memory.sends_tried.add(attempt)
        earlier = memory.hand_sends.get((deal_no, seat, user_id))
        message: discord.Message | None
        try:
            if earlier is not None:  # sent already: that message, edited to the present
                message, repeated = earlier, True
            else:
                # A repeated attempt goes with the bot token: only its nonce can find a message sent before.
                message = None if repeated else await self._send_through_click(table.id, user_id, payload)
            if message is None:
                channel = await self._dm_channel_of(occupant)
                # The nonce makes a send repeated after a crash or a lost answer show one message, not two.
                message = await channel.send(
                    nonce=f"h{table.id}.{deal_no}.{seat}", allowed_mentions=NO_MENTIONS, **payload.send_kwargs()
                )
            if earlier is None:
                memory.hand_sends = {k: m for k, m in memory.hand_sends.items() if k[0] >= deal_no}
                memory.hand_sends[(deal_no, seat, user_id)] = message
        except discord.NotFound:
            self.dm_channels.pop(user_id)  # a channel remembered wrongly: the retry opens it afresh
            raise
        except discord.Forbidden as err:
            if err.code != DMS_CLOSED:
                raise
            memory.sends_tried.discard(attempt)
            await self._dms_closed(table, seat, user_id)
            return
        if not repeated:
            memory.dm_images[message.id] = hash(payload.images.get("hand.png"))
            memory.dm_shown[message.id] = shown
        # The attempt counts as tried until its message is stored: a send repeated after the store failed
        # gets back this message (same nonce), still showing the position it was sent at. Shielded: a message
        # sent is stored even when its job is cancelled now (the shutdown's drain), or the next process would
        # send the hand again beside it (a follow-up has no nonce to find this one by).
        stored = await asyncio.shield(
            self.service.seating.set_dm(table.id, seat, user_id, deal_no, message.channel.id, message.id)
        )
        memory.sends_tried.discard(attempt)
        if stored is None:
            if self.messages.current(table).deal_no == deal_no:  # they left meanwhile
                self.retire(table, user_id, (message.channel.id, message.id))
            return
        there = stored.seats[seat]
        if there is not None and self.hand_in_channel(there):
            # They moved their hand to the channel while it was sent (the move found no DM to retire then):
            # this DM says where it went, as if it had been there already.
            self.retire(stored, user_id, (message.channel.id, message.id), why="hand.moved_to_channel")
        self.refresh_if_changed(stored, seat)  # the position may have moved on while we sent

    async def _send_through_click(self, table_id: int, user_id: int, payload: Payload) -> discord.Message | None:
        """Send a deal's hand as a follow-up of the person's latest click in their DM (a call off the bot token's
        global limit) while its token has ``FOLLOWUP_TOKEN_LEFT`` to go; that token then edits it too. None: no
        such click, or Discord refused its token (forgotten; the caller sends with the bot token)."""
        click = self.latest_dm_click.get(user_id)
        if click is None or not click.fresh(asyncio.get_running_loop().time() + FOLLOWUP_TOKEN_LEFT):
            return None
        try:
            message = await click.followup.send(
                wait=True, allowed_mentions=NO_MENTIONS, **payload.send_kwargs()
            )
        except discord.HTTPException as err:
            if err.status not in TOKEN_REFUSED and err.code not in CHANNEL_HAND_GONE:
                raise  # a 429 or a server error: the retry goes with the bot token and its nonce
            forget_refused_click(self.latest_dm_click, user_id, click, "sending a hand DM", err)
            return None
        self.followup_dms[message.id] = None
        self.dm_clicks[message.id] = ChannelHand(table_id, click.followup, message.id, click.since)
        return message

    async def _dm_channel_of(self, occupant: SeatRow) -> discord.abc.Messageable:
        """The person's DM channel with the bot: the one stored with the seat or remembered from an earlier
        deal, else opened (``create_dm``: a bot-token call, and discord.py's cache of DM channels is small)."""
        assert occupant.user_id is not None
        known = occupant.dm_channel_id or self.dm_channels.get(occupant.user_id)
        if known is not None:
            return self.dm_channel(known)
        channel = await self.bot.create_dm(discord.Object(occupant.user_id))
        self.dm_channels[occupant.user_id] = channel.id
        return channel

    async def _dms_closed(self, table: TableSnapshot, seat: int, user_id: int) -> None:
        """Exactly as at a deal's first send: the player's hand lives in the channel from now on."""
        # The table core tells the runtime, which delivers the notice and shows the flag (runtime.table_changed).
        if await self.service.seating.set_dms_closed(table.id, seat, user_id) is not None:
            log.info(
                "table %s: DMs of seat %s are closed; their hand is shown in the channel", table.id, seat
            )

    # --- hands in the channel (ephemeral) and people's own choices ------------------------------------

    def remember_channel_hand(
        self, table: TableSnapshot, user_id: int, interaction: discord.Interaction[Any], message_id: int | None,
        *, shows_now: bool,
    ) -> None:  # fmt: skip
        """An ephemeral hand of ``user_id`` at ``table``: edited on every change of theirs while its token
        lasts. ``shows_now``: it shows the table as it stands (else the next change edits it)."""
        memory = self.messages.memory(table.id)
        loop_time = asyncio.get_running_loop().time()
        memory.channel_hands[user_id] = ChannelHand(table.id, interaction.followup, message_id, loop_time)
        if self.service.daily.in_channel(table.id):  # its results and last notice come through this token too
            self.private_hands[table.id] = memory.channel_hands[user_id]
        seat = table.seat_of(user_id)
        if shows_now and seat is not None:
            memory.channel_shown[user_id] = self.model(table, seat, user_id)
            occupant = table.seats[seat]
            if occupant is not None and self.hand_in_channel(occupant):  # a move while it was sent shows now
                self._refresh_channel_hand_if_changed(self.messages.current(table), seat, user_id)
        else:
            memory.channel_shown.pop(user_id, None)
        notice = memory.turn_notices.pop(user_id, None)
        if notice is not None:  # the hand is open: the notice that offered it has done its job
            pressed = interaction.message is not None and interaction.message.id == notice[1]
            answered_as_update = interaction.response.type == discord.InteractionResponseType.deferred_message_update
            self._delete_later(table, notice[1], through=interaction if pressed and answered_as_update else None)

    def _refresh_channel_hand_if_changed(self, table: TableSnapshot, seat: int, user_id: int) -> None:
        if self.messages.answers.holds(("channel", table.id, user_id)):
            return  # the click being answered shows it
        memory = self.messages.memory(table.id)
        shown = self.model(table, seat, user_id)
        if memory.channel_shown.get(user_id) != shown:
            memory.channel_shown[user_id] = shown
            self.refresh_channel_hand(table, seat, user_id)

    def refresh_channel_hand(self, table: TableSnapshot, seat: int, user_id: int) -> None:
        """Edit the person's ephemeral hand while its token lasts; on their turn without one, tell them in the
        channel with a button that opens a fresh one (an ephemeral message can only answer a click)."""

        async def edit() -> None:
            now = self.messages.current(table)
            there = now.seats[seat]
            # A finished Bummerl's last deal is shown too: the move that ended it leaves no buttons behind.
            if now.status not in ("playing", "finished") or there is None or there.user_id != user_id:
                return
            memory = self.messages.memory(now.id)
            hand = memory.channel_hands.get(user_id)
            if hand is not None and hand.fresh(asyncio.get_running_loop().time()):
                payload = await payloads.hand_message(self.model(now, seat, user_id))
                answered_before = memory.clicks_answered[("channel", now.id, user_id)]
                try:
                    await hand.edit(payload)
                    if memory.clicks_answered[("channel", now.id, user_id)] != answered_before:  # a click's answer may have landed first
                        memory.channel_shown.pop(user_id, None)
                        self._refresh_channel_hand_if_changed(self.messages.current(now), seat, user_id)
                    return
                except discord.HTTPException as err:
                    if err.code not in CHANNEL_HAND_GONE:
                        raise
                    log.info("table %s: the ephemeral hand of seat %s expired (%s)", now.id, seat, err.code)
            if memory.channel_hands.get(user_id) is hand:
                memory.channel_hands.pop(user_id, None)
            deal = now.deal
            # An attempt played in a channel says nothing there: `/schnapsen daily play` shows it again.
            if deal is not None and deal.to_act == seat and not there.ai_takeover and not self.service.daily.in_channel(now.id):
                await self._turn_notice(now, user_id)

        self.edits.request(("channel hand", table.id, user_id), edit, urgent=self.turn_of(table, seat))

    async def _turn_notice(self, table: TableSnapshot, user_id: int) -> None:
        if self.shown_by_command[user_id]:
            return
        memory = self.messages.memory(table.id)
        earlier = memory.turn_notices.get(user_id)
        if earlier is not None and earlier[0] == table.version:
            return
        lang = table.language
        sent = await self.messages.channel(table.channel_id).send(
            t(lang, "hand.turn_notice", mention=f"<@{user_id}>", id=table.id),
            view=payloads.turn_notice_view(table, lang),
            nonce=f"t{table.id}.{table.version}",
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(user_id)]),
        )
        memory.turn_notices[user_id] = (table.version, sent.id)
        if earlier is not None:
            self._delete_later(table, earlier[1])

    def _delete_later(
        self, table: TableSnapshot, message_id: int, through: discord.Interaction[Any] | None = None
    ) -> None:
        """Take down a turn notice that served its purpose (once; gone already is as good): through the token
        of ``through``, a click on it answered with a deferred update (the notice is its original response),
        else, or when Discord refuses that token, with the bot token."""

        async def delete() -> None:
            if through is not None:
                try:
                    await through.delete_original_response()
                    return
                except discord.HTTPException as err:
                    if err.code == UNKNOWN_MESSAGE:
                        return
                    if err.status not in TOKEN_REFUSED:
                        raise
            with contextlib.suppress(discord.NotFound, discord.Forbidden):
                await self.messages.channel(table.channel_id).get_partial_message(message_id).delete()

        self.edits.request(("delete", table.id, message_id), delete)

    def prefs_changed(self, table: TableSnapshot, user_id: int, before: PlayerPrefs) -> None:
        """Apply a person's new choices to their open table at once: the hand moves to where they want it
        (a DM left behind says where it went) and is shown in their order."""
        seat = table.seat_of(user_id)
        occupant = None if seat is None else table.seats[seat]
        if table.status != "playing" or occupant is None:
            return
        memory = self.messages.memory(table.id)
        hand = memory.channel_hands.get(user_id)
        if hand is None or not hand.fresh(asyncio.get_running_loop().time()):
            # No hand open in the channel that shows what it shows (the command may have just shown one).
            memory.channel_shown.pop(user_id, None)
        if occupant.dm_message_id is not None:
            memory.dm_shown.pop(occupant.dm_message_id, None)
            if self.hand_in_channel(occupant) and before.hand_place == "dm" and occupant.dm_channel_id is not None:
                message = (occupant.dm_channel_id, occupant.dm_message_id)
                self.retire(table, user_id, message, why="hand.moved_to_channel")
        if not self.hand_in_channel(occupant):
            memory.channel_hands.pop(user_id, None)
        self.refresh_all(table)


@contextlib.contextmanager
def shown_by_command(hands: Hands, user_id: int) -> Iterator[None]:
    """A command is about to show the person's hand in the channel (`/schnapsen prefs hand:channel` on their
    turn): meanwhile no turn notice asks them to open it, which that hand would only take down again."""
    hands.shown_by_command[user_id] += 1
    try:
        yield
    finally:
        hands.shown_by_command[user_id] -= 1
        if hands.shown_by_command[user_id] <= 0:
            del hands.shown_by_command[user_id]


def _unsent(occupant: SeatRow) -> bool:
    """A person whose hand for the running deal is still to be sent by DM (unless they want it in the channel)."""
    return not occupant.dms_closed and occupant.dm_message_id is None and occupant.user_id is not None
