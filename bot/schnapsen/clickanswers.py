"""Answering a click with what its stored change made (issue 35): only a stored change is acknowledged, and
the person who clicked sees it in the click's own answer.

A click that changes a table (a move on a hand, Start, Add AI, Rematch, Close on the table message) is applied
first; once the change is committed, the click is answered with the message it was made on as the change
left it, in the interaction's own callback (type 7: one round trip, no bot-token call), and its token edits
that message from then on. Meanwhile that message's own edits are held (``hold_hand``, ``hold_table``), so
the answer is not followed by a second edit of the same; what changed after the answer was drawn is shown
when the hold is released. Where the answer cannot be (the message no longer shows the running deal, it is
due to be re-posted, drawing it took too long, Discord refused it), the click is acknowledged with a deferred
update if it still can be, and the message's usual edit shows the change. A process that dies between the
commit and the answer leaves the person an "interaction failed" and the change done: never the opposite.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Awaitable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

import engine
from bot.game.table import TableSnapshot
from bot.i18n import t

from . import payloads
from .content import DRAW_FIRST, Payload
from .handmodel import HandModel
from .replies import acknowledge, update_clicked

if TYPE_CHECKING:
    from .messages import Messages

log = logging.getLogger(__name__)

HandKey = tuple[object, ...]  # a hand message: ("dm", message id) or ("channel", table id, user id)
# A click's own answer must reach Discord within its three seconds: drawing it may take what is left of this
# after the change was stored, else the click is acknowledged with a deferred update and the usual edit follows.
ANSWER_BUDGET = 2.5
# A click repeating its person's move this soon after the move was stored is taken as a repeat, not as out of
# date: the first click's answer (drawn within ANSWER_BUDGET) is on its way to the same message.
REPEAT_WINDOW = 3.0
SHOWN = ("playing", "finished")  # a table whose hands show a deal (the last one, after a Bummerl)


async def drawn_first(drawing: Awaitable[Payload]) -> Payload:
    """A click's answer is drawn before the drawings nobody waits for (``content.DRAW_FIRST``)."""
    first = DRAW_FIRST.set(True)
    try:
        return await drawing
    finally:
        DRAW_FIRST.reset(first)


class ClickAnswers:
    def __init__(self, messages: Messages) -> None:
        self.messages = messages
        self.hands = messages.hands
        # Messages whose click is being stored and answered: hands by ``HandKey``, table messages by
        # ("table", table id); and the latest table asked to be shown while its message was held.
        self._held: Counter[tuple[object, ...]] = Counter()
        self._wanted_while_held: dict[int, TableSnapshot] = {}

    def holds(self, key: tuple[object, ...]) -> bool:
        """Whether the message is being answered by a click (its own edits wait)."""
        return key in self._held

    def table_wanted(self, table: TableSnapshot) -> bool:
        """The table message is asked to show ``table``: True when a click on it holds it (what it shows
        next is decided when the click is answered)."""
        if not self._held[("table", table.id)]:
            return False
        self._wanted_while_held[table.id] = table
        return True

    # --- a click on a hand -----------------------------------------------------------------------------

    def moved(self, before: TableSnapshot, seat: int, action: engine.Action) -> None:
        """A move of ``seat`` was stored at ``before``'s position: remembered as its person's, with when, unless
        the AI made it (an AI seat, or a person it stands in for)."""
        occupant = before.seats[seat]
        if occupant is not None and occupant.user_id is not None and not occupant.ai_takeover:
            made = (occupant.user_id, action, asyncio.get_running_loop().time())
            self.messages.memory(before.id).moves_made[before.version] = made

    def repeats_move(self, table_id: int, version: int, user_id: int, action: engine.Action | None) -> bool:
        """Whether a click asks again, within ``REPEAT_WINDOW``, for the move its person made at that position: a
        quick second click on a hand not updated yet. That move was carried out, so it is not refused as out
        of date: on a DM it is acknowledged with a deferred update that shows nothing (the first click's answer
        shows the move), on a hand in the channel answered with the hand as it stands (``GameActionButton``). A
        click on that button later comes from a message that did not show the move (its answer or edit was
        lost): "out of date" then tells its person to take the newest one."""
        made = self.messages.memory(table_id).moves_made.peek(version)
        if made is None or action is None or made[:2] != (user_id, action):
            return False
        return asyncio.get_running_loop().time() - made[2] <= REPEAT_WINDOW

    def hold_hand(self, table: TableSnapshot, seat: int, interaction: discord.Interaction[Any]) -> HandKey | None:
        """A click on ``seat``'s hand is being stored and answered: until ``release_hand``, the hand's own edits wait,
        since the click's answer shows the move (and a second edit of the same would only cost a call)."""
        occupant, message = table.seats[seat], interaction.message
        if occupant is None or occupant.user_id is None or message is None:
            return None
        if message.flags.ephemeral:
            if not self.hands.hand_in_channel(occupant):
                return None  # a hand shown on request: the DM, not this message, is kept up to date
            key: HandKey = ("channel", table.id, occupant.user_id)
        else:
            key = ("dm", message.id)
        self._held[key] += 1
        return key

    def release_hand(self, table_id: int, seat: int, key: HandKey | None) -> None:
        """The click is answered (or refused): the hand shows whatever changed since the answer was drawn."""
        if key is None:
            return
        self._held[key] -= 1
        if self._held[key] <= 0:
            del self._held[key]
        table = self.messages.service.snapshot(table_id)
        if table is not None:
            self.hands.refresh_if_changed(table, seat)

    def shows_channel_hand(self, table_id: int, seat: int, user_id: int) -> bool:
        """Whether a click of ``user_id`` on their hand in the channel can be answered with the hand as it stands
        (``answer_move``): they hold the seat and a deal is shown."""
        now = self.messages.service.snapshot(table_id)
        occupant = None if now is None else now.seats[seat]
        return now is not None and occupant is not None and occupant.user_id == user_id and now.status in SHOWN

    def draw_ahead(self, table: TableSnapshot, seat: int, interaction: discord.Interaction[Any]) -> None:
        """``table`` is what the click's move will make of the table once stored (``TableCore.act``'s
        ``ahead``): the hand its answer will show begins to be drawn now, so that the answer waits for the commit
        or the drawing, whichever takes longer, not for both. Only a DM's answer (a hand in the channel shows
        the next deal at once after the last card, which is not dealt yet)."""
        occupant, message = table.seats[seat], interaction.message
        if occupant is None or occupant.user_id != interaction.user.id or message is None or message.flags.ephemeral:
            return
        finished = table.deal is not None and table.deal.finished
        # As answer_move makes it: the hand at the new position, or the deal's last word when the move ended it.
        model = self.hands.model(table, seat, occupant.user_id, table.deal if finished else None)
        payloads.draw_answer_ahead(model)

    async def answer_move(
        self,
        interaction: discord.Interaction[Any],
        table_id: int,
        seat: int,
        deal_no: int,
        started: float,
        *,
        note: str | None = None,
    ) -> None:
        """Answer a click whose move is stored: the clicked hand is updated in the click's own callback (type 7)
        with what the move made of it, or, for a click another process acknowledged already (``routing.py``),
        edited at once through its token (in its callback after all while that acknowledgement has not
        reached Discord: ``replies.update_clicked``). Where that cannot be (the message no longer shows the
        running deal, it is due to be re-posted, the drawing is late, Discord refused the answer), the click is
        acknowledged (if it still can be) and the hand's usual edit shows the move. ``note``: an i18n key whose
        text the answer shows above the hand (this once: the hand's next edit drops it)."""
        user_id, message = interaction.user.id, interaction.message
        now = self.messages.service.snapshot(table_id)
        occupant = None if now is None else now.seats[seat]
        model: HandModel | None = None
        key: HandKey | None = None
        if now is not None and occupant is not None and occupant.user_id == user_id and message is not None:
            if message.flags.ephemeral:
                if now.status in SHOWN:  # the same ephemeral hand shows the next deal too
                    model = self.hands.model(now, seat, user_id)
                    key = ("channel", now.id, user_id) if self.hands.hand_in_channel(occupant) else None
            elif self.hands.hand_in_channel(occupant) or self.messages.reposts.due(message.id):
                pass  # the DM is retired, or will be replaced: its own path shows it
            elif now.deal_no == deal_no and occupant.dm_message_id == message.id:
                model, key = self.hands.model(now, seat, user_id), ("dm", message.id)
            elif (ended := self.messages.memory(table_id).deal_ends.get(deal_no)) is not None:
                model = self.hands.model(ended, seat, user_id, ended.deal)  # the move ended the deal: its last word
        answered = False
        if model is not None:
            memory = self.messages.memory(table_id)
            answer = model
            if note is not None and now is not None:
                noted = t(self.hands.user_lang(now, user_id), note)
                answer = replace(model, description=f"{noted}\n\n{model.description}")
            try:
                async with asyncio.timeout_at(started + ANSWER_BUDGET):  # no task of its own: no turn of the loop
                    payload = await drawn_first(payloads.hand_message(answer))
            except TimeoutError:
                log.warning("table %s: drawing the answer to a click took too long; the hand is edited instead", table_id)
            else:
                digest = hash(payload.images.get("hand.png"))
                unchanged = message is not None and memory.dm_images.get(message.id) == digest
                try:
                    await update_clicked(interaction, lambda: payload.edit_kwargs(keep_attachments=unchanged))
                    answered = True
                except discord.HTTPException as err:
                    # Expired (the move took longer than Discord's three seconds), refused, or lost: the move
                    # is stored; the hand's usual edit shows it.
                    log.warning("table %s: answering a click with its hand failed (%s %s)", table_id, err.status, err.code)
                if answered and key is not None and message is not None:
                    memory.clicks_answered[key] += 1
                    if key[0] == "dm":
                        memory.dm_shown[message.id] = model
                        memory.dm_images[message.id] = digest
                    else:
                        memory.channel_shown[user_id] = model
        if not answered:
            if key is not None:  # whatever it shows now, the hand's own edit must not trust it
                memory = self.messages.memory(table_id)
                if key[0] == "dm" and message is not None:
                    memory.forget_dm(message.id)
                else:
                    memory.channel_shown.pop(user_id, None)
            with contextlib.suppress(discord.HTTPException):
                await acknowledge(interaction)
        if now is None or not interaction.response.is_done():
            return
        if message is not None and message.flags.ephemeral:
            if occupant is not None:
                self.hands.remember_channel_hand(now, user_id, interaction, None, shows_now=answered)
        else:
            self.hands.remember_dm_click(now, interaction)

    # --- a click on the table message ------------------------------------------------------------------

    def hold_table(self, table_id: int) -> None:
        """A click on the table message is being stored and answered: its edits wait (``release_table``)."""
        self._held[("table", table_id)] += 1

    def release_table(self, table_id: int, shown: TableSnapshot | None) -> None:
        """The click is answered (``shown``: the table its answer showed) or failed: what changed since is shown."""
        self._held[("table", table_id)] -= 1
        if self._held[("table", table_id)] > 0:
            return
        del self._held[("table", table_id)]
        wanted = self._wanted_while_held.pop(table_id, None)
        if wanted is None:
            return
        if shown is None or self.messages.current(wanted) is not shown:
            self.messages.refresh_table_message(wanted)

    async def answer_table_click(
        self, interaction: discord.Interaction[Any], table_id: int, started: float
    ) -> TableSnapshot | None:
        """Answer a click on the table message whose change is stored: the message is updated in the click's
        own callback (type 7) with the table as it stands, and the click's token edits it from then on. Where
        that cannot be (not the table's current message, one due to be re-posted, drawn too late, refused), the
        click is acknowledged with a deferred update and the usual edit follows. Returns the table shown."""
        table = self.messages.service.snapshot(table_id) or self._wanted_while_held.get(table_id)
        message = interaction.message
        shown = None
        if (
            table is not None
            and message is not None
            and message.id == table.table_message_id
            and not self.messages.reposts.due(message.id)
            and not interaction.response.is_done()
        ):
            try:
                async with asyncio.timeout_at(started + ANSWER_BUDGET):
                    payload = await drawn_first(payloads.table_payload(table, table.language))
                await interaction.response.edit_message(**payload.edit_kwargs())
                shown = table
                self.messages.shown(table)
            except TimeoutError:
                log.warning("table %s: drawing the answer to a click took too long; the message is edited instead", table_id)
            except discord.HTTPException as err:
                log.warning("table %s: answering a click with the table failed (%s %s)", table_id, err.status, err.code)
        if shown is None:
            with contextlib.suppress(discord.HTTPException):
                await acknowledge(interaction)
        if table is not None and interaction.response.is_done():
            self.messages.remember_table_click(table, interaction)
        return shown
