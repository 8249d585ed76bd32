"""Keeping Discord's messages in step with the tables: the table message, each player's private hand
(``hands.py``: a DM, or ephemeral in the channel, in the language they were last seen using) and delivery of
what a stored change owes (results, last words of finished hands, notices). What they remember of a table is
one ``TableMemory`` (``tablememory.py``), dropped as a whole when the table closes.

Every job here runs after the service stored the change, as a supervised job (`coalesce.py`), and reads the
table's snapshot when it runs: the service's current one, or for a closed table the last one it was given.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.cache import Lru
from bot.db import SeatRow
from bot.game.announcements import DealResult, FinalHand, Notice, Owed, SetAside
from bot.game.table import TableSnapshot
from bot.i18n import t

from . import answers, payloads, repost, threads
from .clickanswers import ClickAnswers
from .closing import ClosedTables
from .coalesce import Coalescer
from .hands import Hands
from .tablememory import ChannelHand, TableMemory, forget_refused_click

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

log = logging.getLogger(__name__)
NO_MENTIONS = discord.AllowedMentions.none()
# How long a closing table's thread waits for its message to show the table closed before it is archived
# anyway (an edit that keeps failing must not keep the thread open).
CLOSED_MESSAGE_WAIT = 30.0
REMEMBERED_TABLE_CLICKS = 10_000  # table messages whose latest click's token we keep (used only while fresh)


class Messages:
    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.service = bot.service
        retry = {"first_retry": bot.settings.retry_first, "max_retry": bot.settings.retry_max}
        gate = bot.channel_gate  # a channel that answered 403 is not tried again until it changes
        self.edits = Coalescer(bot.settings.edit_interval, gate=gate, **retry)  # edits, rate limited per message
        self.sends = Coalescer(0.0, gate=gate, **retry)  # hand sends and deliveries of the outbox
        self._tables: dict[int, TableMemory] = {}  # open tables only: dropped as a whole by ``forget``
        self.reposts = repost.Reposts(bot.settings.repost_after)  # messages too old to edit (repost.py)
        self.hands = Hands(self)
        self.answers = ClickAnswers(self)  # clicks answered with what their stored change made
        self.closed = ClosedTables(self)  # a closed table's messages: their last edits, a stale one clicked
        # Two facts about a table which outlive its memory (the close is what forgets it): a posted table
        # message no snapshot knows yet (the table closed meanwhile, or storing the message's id failed: the
        # retry stores this one instead of posting a second), and, once a closed table's message shows it
        # closed, the event its thread's archiving waits for.
        self._posted_as_it_closed: dict[int, int] = {}
        self._shown_closed: dict[int, asyncio.Event] = {}
        # Table message id -> the latest click on it answered with a deferred update (Start, Add AI, Rematch):
        # its token edits that message, off the bot token's global limit, while it lasts.
        self.table_clicks = Lru[int, ChannelHand](REMEMBERED_TABLE_CLICKS)

    def current(self, table: TableSnapshot) -> TableSnapshot:
        """The table as it stands now: the service's snapshot, or (the table closed) the one given."""
        return self.service.snapshot(table.id) or table

    def memory(self, table_id: int) -> TableMemory:
        """What the messages remember of the table; for a table no longer held (closed, or another
        process's), a fresh memory that is not kept, so that nothing outlives a table's ``forget``."""
        memory = self._tables.get(table_id)
        if memory is None:
            memory = TableMemory()
            if self.service.snapshot(table_id) is not None:
                self._tables[table_id] = memory
        return memory

    # --- after a change --------------------------------------------------------------------------------

    def show(self, table: TableSnapshot, *, owes: bool = True) -> None:
        """Deliver what a stored change owes and show the table as it stands: its message and the hands.
        ``owes``: False for a change whose events owe no announcement (`deliver`)."""
        self.deliver(table.id, owes=owes)
        self.refresh_table_message(table)
        self.hands.refresh_all(table)

    def forget(self, table_id: int) -> None:
        """A closed table's memory goes, as a whole (what it still owes is delivered; its ephemeral hands wait
        for their last edit, closing.py)."""
        memory = self._tables.pop(table_id, None)
        if memory is not None:
            self.closed.keep_channel_hands(table_id, memory.channel_hands)

    # --- what the drivers ask of the hands ---------------------------------------------------------------

    def hand_in_channel(self, occupant: SeatRow) -> bool:
        return self.hands.hand_in_channel(occupant)

    def send_hands(self, table: TableSnapshot) -> None:
        self.hands.send_all(table)

    def sending_hands(self, table_id: int) -> bool:
        return self.hands.sending(table_id)

    # --- the table message -------------------------------------------------------------------------------

    def channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    def refresh_table_message(self, table: TableSnapshot, *, posted: int | None = None) -> None:
        """Show the table as it stands now (posting the table message when it has none or it was deleted, and
        in place of one too old to edit, ``repost.py``). ``posted``: its message, posted already, whose id could
        not be stored: stored here, not posted again."""
        if self.service.daily.keeps_private(table.channel_id):
            return  # a daily attempt played in a channel has no table message: its ephemeral hand shows the table
        if posted is None and self.answers.table_wanted(table):
            return  # the click being answered shows it, or asks again
        if posted is not None:
            self._posted_as_it_closed.setdefault(table.id, posted)

        async def edit() -> None:
            now = self.current(table)
            payload = await payloads.table_payload(now, now.language)
            # One posted but not stored yet is the newest (a first post, or a re-post, whose store failed).
            message_id = self._posted_as_it_closed.get(now.id) or now.table_message_id
            replaced = None
            if message_id is not None and now.status != "closed" and self.reposts.due(message_id):
                replaced, message_id = message_id, None  # too old to edit: a new one takes its place
            if message_id is not None:
                message = self.channel(now.channel_id).get_partial_message(message_id)
                try:
                    if not await self._edit_table_through_click(message_id, payload):
                        await threads.edit_in_thread(self.bot, now, message, payload)
                    if now.table_message_id != message_id and now.status != "closed":  # its store had failed
                        await self._store_table_message(now, message_id)
                    self._posted_as_it_closed.pop(now.id, None)
                    self.shown(now)
                    return
                except discord.NotFound:  # somebody deleted it: put a new one up
                    replaced = message_id
            # A post repeated after a lost answer (by discord.py after a 500, or by this job after a 503) gets
            # back the message it made: the nonce names the message it replaces, or the table for its first.
            nonce = f"m{replaced}" if replaced is not None else f"l{now.id}"
            sent = await self.channel(now.channel_id).send(
                nonce=nonce, allowed_mentions=NO_MENTIONS, **payload.send_kwargs()
            )
            self.shown(now)
            await self._store_table_message(now, sent.id)

        # A new deal's first picture is urgent too: the table message leaves the lobby (or the last deal) at once.
        urgent = table.status != "playing" or self.memory(table.id).table_deal_shown != table.deal_no
        self.edits.request(("table message", table.id), edit, urgent=urgent, interval=self._table_interval(table))

    def _table_interval(self, table: TableSnapshot) -> float:
        """How often a table message is edited at most. The lobby's and a finished Bummerl's buttons are what
        people wait for (urgent: at once). While a deal runs, every card should show within a second: through
        a fresh click's token (exempt from the global limit; 5 edits per 2 s per token) at the edit interval, so
        a card after a pause shows at once and quick cards once a second (each edit is a table image drawn:
        a tenth of a quick click's CPU at half the interval); with the bot token, the table message waits out its
        longer interval (only the latest is drawn; the hands show each move)."""
        settings = self.bot.settings
        click = None if table.table_message_id is None else self.table_clicks.peek(table.table_message_id)
        if click is not None and click.fresh(asyncio.get_running_loop().time()):
            return settings.edit_interval
        return settings.edit_interval * settings.table_edit_intervals

    def remember_table_click(self, table: TableSnapshot, interaction: discord.Interaction[Any]) -> None:
        """A click on the table message answered with a deferred update: its original response is that
        message, so its token edits it for the next 15 minutes."""
        message = interaction.message
        updated = interaction.response.type in (
            discord.InteractionResponseType.deferred_message_update,
            discord.InteractionResponseType.message_update,
        )
        if message is None or message.flags.ephemeral or not updated:
            return
        click = ChannelHand.of_click(table.id, interaction)
        latest = self.table_clicks.get(message.id)
        if latest is None or latest.since <= click.since:
            self.table_clicks[message.id] = click

    async def _edit_table_through_click(self, message_id: int, payload: payloads.Payload) -> bool:
        """Edit the table message through its latest click's token; False when there is none fresh or Discord
        refused it (expired, unknown, an archived thread: forgotten, and the caller edits with the bot token)."""
        click = self.table_clicks.get(message_id)
        if click is None or not click.fresh(asyncio.get_running_loop().time()):
            return False
        try:
            await click.edit(payload)
        except discord.HTTPException as err:
            if err.status == 429 or err.status >= 500:
                raise  # the job waits as badanswers.py says and tries the token again
            forget_refused_click(self.table_clicks, message_id, click, "editing its message", err)
            return False
        return True

    async def _store_table_message(self, table: TableSnapshot, message_id: int) -> None:
        self._posted_as_it_closed[table.id] = message_id  # until stored: a retry must not post another
        stored = await self.service.seating.set_table_message(table.id, message_id)
        if stored is not None or table.status == "closed":
            self._posted_as_it_closed.pop(table.id, None)
        # Else the table closed while its message was posted: the closed snapshot, which the edit queued after
        # this one shows, was published before the message existed.
        replaced = table.table_message_id
        if replaced is not None and replaced != message_id and self.reposts.due(replaced):
            self._point_to(table, replaced, message_id)  # stored first: the old message points to the new

    def _point_to(self, table: TableSnapshot, old_id: int, new_id: int) -> None:
        """The replaced table message says where the table went, once."""
        title = t(table.language, "table.title", id=table.id)
        link = repost.jump_link(table.guild_id, table.channel_id, new_id)
        old = self.channel(table.channel_id).get_partial_message(old_id)
        repost.point_to_new(self.edits, table.id, old, repost.moved_payload(title, table.language, link))

    def shown(self, table: TableSnapshot) -> None:
        """The table message shows ``table`` (its thread may be archived once it shows the table closed)."""
        if table.status == "playing":
            self.memory(table.id).table_deal_shown = table.deal_no
        if table.status == "closed" and table.thread_parent_id is not None:  # its thread is archived next
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

    # --- what a stored change owes ---------------------------------------------------------------------

    def deliver(self, table_id: int, *, owes: bool = True) -> None:
        """Deliver what the table's stored changes owe, oldest first, until every item has arrived. ``owes``:
        False for a change whose events owe nothing (most moves): the outbox is looked at only if it was not
        found empty since the last change that owed something (a look at storage saved per move)."""
        memory = self.memory(table_id)
        if owes:
            memory.owing_changes += 1
        elif memory.outbox_empty:
            return
        self.sends.request(("outbox", table_id), lambda: self._deliver(table_id))

    def delivering(self, table_id: int) -> bool:
        return self.sends.busy(("outbox", table_id))

    async def _deliver(self, table_id: int) -> None:
        memory = self.memory(table_id)
        owing_changes = memory.owing_changes  # what this look can have seen
        pending = await self.service.outbox.pending_announcements(table_id)
        # With shards, a table's changes may be published in another process: then every change looks.
        if not pending and not self.service.sharded:
            memory.outbox_empty_at = owing_changes
        for entry in pending:
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
            await self.service.outbox.announcement_delivered(entry.id)

    async def _deliver_one(self, entry: Owed) -> None:
        closing = entry.announcement
        if isinstance(closing, SetAside) or (isinstance(closing, Notice) and closing.closes_table):
            await self.closed.show_closed(entry.table_id)  # the table message shows the close before its notice
        await self._deliver_message(entry)
        if isinstance(closing, Notice | SetAside) and (thread_id := closing.archive_thread) is not None:
            # The table closed: its message shows that first (no edit reaches an archived thread).
            await self._show_closed_first(entry.table_id)
            await threads.archive_thread(self.bot, thread_id)

    async def _deliver_message(self, entry: Owed) -> None:
        owed = entry.announcement
        if isinstance(owed, DealResult | Notice | SetAside) and await self.service.daily.played_in_channel(entry.table_id):
            await self._deliver_privately(entry)
            return
        match entry.announcement:
            case DealResult() as result:
                table = await self._deal_end(entry.table_id, result.deal_no)
                deal = table.deal
                assert deal is not None
                review = (await self.service.guilds.guild_settings(table.guild_id)).deal_review
                message = await payloads.result_payload(
                    table, result.lang, deal, table.last_bummerl, result.tally, result.rating_changes(), review=review
                )
                await self.channel(result.channel_id).send(
                    nonce=f"r{entry.table_id}.{result.deal_no}",
                    allowed_mentions=NO_MENTIONS,
                    **message.send_kwargs(),
                )
            case FinalHand() as hand:
                if hand.user_id is None or (
                    (await self.service.prefs.player_prefs(hand.user_id)).hand_place == "channel"
                    and not self.service.daily.known_attempt(entry.table_id)  # an attempt's hand is in the DM
                ):
                    # She moved her hand to the channel during the deal: the DM keeps saying so (no next
                    # hand will come there).
                    return
                try:
                    table = await self._deal_end(entry.table_id, hand.deal_no)
                except Exception:
                    stored = await self.service.queries.closed_table(entry.table_id)
                    if stored is None or stored.status != "closed" or stored.deal is not None:
                        raise
                    table = stored  # set aside, its record no longer replays: its hand says only that it closed
                seat, message_id = hand.seat, hand.message_id
                model = self.hands.model(table, seat, hand.user_id, table.deal)
                message = await payloads.hand_message(model)
                self.edits.cancel(("hand", entry.table_id, message_id))  # no older edit may follow this one
                await self.hands.edit_dm(entry.table_id, hand.channel_id, message_id, message)
                self.memory(entry.table_id).forget_dm(message_id)  # a finished deal's message is never edited again
            case Notice() as notice:
                values: dict[str, object] = dict(notice.values)
                mention = notice.mention
                if mention is not None:
                    values["mention"] = f"<@{mention}>"
                allowed = (
                    discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(mention)])
                    if mention is not None
                    else NO_MENTIONS
                )
                await self.channel(notice.channel_id).send(
                    t(notice.lang, notice.key, **values),
                    nonce=f"n{entry.id}",
                    allowed_mentions=allowed,
                )
            case SetAside() as set_aside:
                try:
                    record = await self.service.queries.export_record(entry.table_id)
                except Exception:  # the record itself cannot be read: say so without it
                    log.error("table %s: its record cannot be exported", entry.table_id, exc_info=True)
                    files = []
                else:
                    files = [answers.record_file(entry.table_id, record)]
                await self.channel(set_aside.channel_id).send(
                    t(set_aside.lang, "notice.set_aside", id=entry.table_id),
                    files=files,
                    nonce=f"s{entry.table_id}",
                    allowed_mentions=NO_MENTIONS,
                )

    async def _deliver_privately(self, entry: Owed) -> None:
        """A daily attempt played in a channel: its deal results and notices go to its player alone, as ephemeral
        follow-ups of their latest click while its token lasts (else they are not shown: the boards and
        `/schnapsen daily show` have them)."""
        hand = self.hands.private_hands.get(entry.table_id)
        if hand is None or not hand.fresh(asyncio.get_running_loop().time()):
            log.info("table %s: %s not shown (the daily attempt's ephemeral token expired)", entry.table_id, entry.kind)
            return
        match entry.announcement:
            case DealResult() as result:
                table = await self._deal_end(entry.table_id, result.deal_no)
                assert table.deal is not None
                review = (await self.service.guilds.guild_settings(table.guild_id)).deal_review
                message = await payloads.result_payload(
                    table, result.lang, table.deal, table.last_bummerl, result.tally, result.rating_changes(), review=review
                )
                await hand.followup.send(ephemeral=True, **message.send_kwargs())
            case Notice() as notice:
                await hand.followup.send(t(notice.lang, notice.key, **dict(notice.values)), ephemeral=True)

    async def _deal_end(self, table_id: int, deal_no: int) -> TableSnapshot:
        """The table as it stood when the deal ended: remembered from the action, else rebuilt from storage."""
        remembered = self.memory(table_id).deal_ends.get(deal_no)
        if remembered is not None:
            return remembered
        table = await self.service.queries.table_at_deal_end(table_id, deal_no)
        self.remember_deal_end(table)
        return table

    def remember_deal_end(self, table: TableSnapshot) -> None:
        """Keep the table as it stood when its deal ended, for the deal's result message."""
        self.memory(table.id).deal_ends[table.deal_no] = table
