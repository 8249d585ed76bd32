"""Where a click on a table's button is applied: the seam between the process a click reaches and the process
that serves the table.

Discord delivers a guild's interactions on the guild's shard, so a click in a channel always reaches the
process serving its table. Interactions in DMs all arrive on shard 0: a click on a hand DM reaches shard 0's
process whoever serves the table. ``ClickRouter`` decides as the click arrives, before discord.py parses it:
apply it here, or hand it to the owner through storage's click inbox. The receiver stores Discord's payload of
the click for the owner's shard (the commit wakes the owner: PostgreSQL's NOTIFY) and only then acknowledges it
(a deferred update, within Discord's three seconds): a click the person saw accepted is never lost, and one
that could not be stored is answered here as the failure it is, unacknowledged before. The owner's
``ClickInbox`` rebuilds the interaction from that payload and runs the button exactly as if Discord had sent
the click there: the same checks, the same single transaction under the table's lock, and the answer through
the interaction's token (valid 15 minutes, from any process); should the owner answer before the receiver's
acknowledgement has reached Discord, it answers in the interaction's callback instead (``replies``). An owner
that was down takes its inbox when it starts. One process (no shards) applies every click here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import discord

from bot.cache import Lru
from bot.db.inbox import InboxClick
from bot.game.errors import UserError
from bot.game.inbox import HandedClick

from . import discord_internals
from .components import COMPONENTS, GameActionButton, TableButton, log_repeat
from .ids import ButtonId
from .replies import acknowledge_raw, clicker_id, refuse_raw

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

log = logging.getLogger(__name__)

COMPONENT_INTERACTION = 3
INBOX_BATCH = 100  # handed clicks taken per look
KEPT_NOT_HANDED = 512  # clicks that could not be stored, remembered until their button's route sees them


class ClickRouter:
    """Sees every click before discord.py parses it: answers at once a move whose position has moved on, applies
    a click here, or hands it to the process serving its table.

    A click on a position left (from a hand not updated yet: a deferred answer whose edit has not come, an
    answer lost, another device) is answered at once, from Discord's payload, without discord.py building an
    interaction, a message and a view for it: a repeat of the move its person made there with a deferred update
    that shows nothing (the first click's answer shows the move), any other click on a position left as out of
    date. A click on a hand in the channel, which the click alone is sure to reach, is handed to its button to be
    answered with the hand as it stands.
    In a process with shards, a table button's click for a table not in memory here is handed on as Discord
    sent it (a DM click for another process's table costs this process one insert and its acknowledgement)."""

    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.service = bot.service
        # Why the router could not store a click, by interaction id, until discord.py's run of it reaches route.
        self._not_handed = Lru[int, Exception](KEPT_NOT_HANDED)
        self._running: set[asyncio.Task[None]] = set()
        self._parser: Callable[[Any], None] | None = None
        self._see_clicks_before_parsing()

    def _see_clicks_before_parsing(self) -> None:
        parse = self._parser = discord_internals.interaction_parser(self.bot)

        def refuse_hand_on_or_parse(data: Any) -> None:
            button = button_of_click(data)
            table = None if button is None else self.service.snapshot(button.table)
            if button is not None and table is not None and GameActionButton.moved_on(button, table):
                if on_ephemeral_message(data):
                    parse(data)  # answered with the hand as it stands, which only the click can edit for sure
                elif not self._repeats_move(button, data):
                    self._run(
                        refuse_raw(self.bot, data, UserError("error.stale")),
                        f"refuse a click, table {button.table}",
                    )
                else:
                    self._run(
                        self._acknowledge_repeat(button, data), f"acknowledge a repeated click, table {button.table}"
                    )
            elif button is not None and table is None and self.service.sharded:
                self._run(self._hand_on(data, button.table, parse), f"hand on a click, table {button.table}")
            else:
                parse(data)

        discord_internals.replace_interaction_parser(self.bot, refuse_hand_on_or_parse)

    def _repeats_move(self, button: ButtonId, data: dict[str, Any]) -> bool:
        user_id = clicker_id(data)
        if user_id is None:
            return False
        action = GameActionButton.action_of(button)
        return self.bot.runtime.answers.repeats_move(button.table, button.version, user_id, action)

    async def _acknowledge_repeat(self, button: ButtonId, data: dict[str, Any]) -> None:
        log_repeat(button, data.get("id"))
        # Nothing depends on it: the move was stored and its own click's answer shows it.
        try:
            await acknowledge_raw(self.bot, data)
        except Exception as error:
            log.warning("could not acknowledge a repeated click (interaction %s): %s", data.get("id"), error)

    def _run(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _hand_on(self, data: dict[str, Any], table_id: int, parse: Callable[[Any], None]) -> None:
        # Stored first, acknowledged only after the commit (issue 35): a click the person saw accepted waits in
        # the inbox whatever happens to this process next. A click that cannot be stored is run here
        # unacknowledged, and its error path tells the person so.
        try:
            handed = await self.service.clicks.hand_click_to_owner(table_id, data)
        except Exception as error:
            # Bounded: discord.py drops a click whose button is not on its message, so route may never see it.
            self._not_handed[int(data["id"])] = error
            parse(data)
            return
        if not handed:  # ours after all, closed or unknown: the usual checks answer it, as any click here
            parse(data)
            return
        log.debug("table %s: a click (interaction %s) handed to the process serving it", table_id, data.get("id"))
        try:
            await acknowledge_raw(self.bot, data)
        except Exception:
            # Stored all the same, and its owner applies it: the person saw "interaction failed", then the move
            # done (the honest order; never a click acknowledged and lost).
            log.warning(
                "table %s: acknowledging a click handed on (interaction %s) failed; its owner applies it",
                table_id, data.get("id"), exc_info=True,
            )  # fmt: skip

    def close(self) -> None:
        if self._parser is not None:
            discord_internals.replace_interaction_parser(self.bot, self._parser)
            self._parser = None
        for task in self._running:
            task.cancel()

    async def route(self, interaction: discord.Interaction[Any], table_id: int) -> bool:
        """True: apply the click here (its checks and answer follow as always). A click that reaches route was
        not handed on; for one the router could not store, what stopped it is raised to the click's error
        path, which answers the person (nothing was acknowledged, nothing stored)."""
        error = self._not_handed.pop(interaction.id, None)
        if error is not None:
            raise error
        return True


def on_ephemeral_message(data: dict[str, Any]) -> bool:
    """Whether the click is on an ephemeral message (a hand shown in the channel), by Discord's payload."""
    flags = (data.get("message") or {}).get("flags") or 0
    return isinstance(flags, int) and bool(flags & discord.MessageFlags.ephemeral.flag)


def button_of_click(data: Any) -> ButtonId | None:
    """The table button of a click (Discord's INTERACTION_CREATE payload), else None."""
    if not isinstance(data, dict) or data.get("type") != COMPONENT_INTERACTION:
        return None
    custom_id = (data.get("data") or {}).get("custom_id")
    return ButtonId.parse(custom_id) if isinstance(custom_id, str) else None


class ClickInbox:
    """The owner's side: takes the clicks handed to this process's shards, oldest first (one at a time per
    table, tables side by side), runs each, then deletes it. Woken by the database's notifications; looks
    every ``settings.click_inbox_poll`` seconds besides."""

    def __init__(self, bot: SchnapsenBot) -> None:
        self.bot = bot
        self.service = bot.service
        self._wake = asyncio.Event()
        self._stop_listening: Callable[[], Awaitable[None]] | None = None
        self._listening = False
        # Clicks being run, and clicks run whose deletion failed (retried): never run twice.
        self._running: set[int] = set()
        self._handled: set[int] = set()
        self._task: asyncio.Task[None] | None = None
        self._batch_full = False

    def start(self) -> None:
        if self.service.sharded and self._task is None:
            self._task = asyncio.create_task(self._serve(), name="click inbox")

    def wake(self) -> None:
        self._wake.set()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self._stop()

    async def _serve(self) -> None:
        poll = self.bot.settings.click_inbox_poll
        while True:
            self._wake.clear()  # before looking: a click stored while we look wakes the next round
            try:
                await self._listen()
                await self.take_waiting()
                if self._batch_full:
                    self._wake.set()  # more may wait than one look takes: look again at once
            except Exception:
                log.exception("taking the clicks handed to this process failed; looking again in %s s", poll)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), poll)

    async def _listen(self) -> None:
        if self._listening:
            return
        await self._stop()
        self._stop_listening = await self.service.clicks.listen_for_clicks(self.wake, self._lost)
        self._listening = True

    def _lost(self) -> None:
        log.error("the database connection listening for handed clicks was lost; listening again")
        self._listening = False
        self.wake()

    async def _stop(self) -> None:
        stop, self._stop_listening, self._listening = self._stop_listening, None, False
        if stop is not None:
            try:
                await stop()
            except Exception:
                log.warning("closing the connection listening for handed clicks failed", exc_info=True)

    async def take_waiting(self) -> int:
        """Run every click waiting for us now; returns how many ran."""
        for click_id in list(self._handled):
            await self._delete(click_id)
        taken = self._running | self._handled
        waiting = await self.service.clicks.clicks_handed_to_us(limit=INBOX_BATCH)
        # Fewer than a batch: every click stored before this look is in it; a later one notifies (or is found
        # at the next poll).
        self._batch_full = len(waiting) >= INBOX_BATCH
        clicks = [click for click in waiting if click.id not in taken]
        self._running.update(click.id for click in clicks)
        by_table: defaultdict[int, list[InboxClick]] = defaultdict(list)
        for click in clicks:
            by_table[click.table_id].append(click)
        await asyncio.gather(*(self._run_in_order(table_clicks) for table_clicks in by_table.values()))
        return len(clicks)

    async def _run_in_order(self, clicks: list[InboxClick]) -> None:
        for click in clicks:
            running = HandedClick(click.id)
            try:
                await run_handed_click(self.bot, click, running)
            except Exception:  # the buttons answer their own errors; this is a payload nobody can run
                log.exception("table %s: a handed click (inbox %s) could not be run; dropped", click.table_id, click.id)
            self._running.discard(click.id)
            if not running.deleted:  # a refusal, or a click that made no move
                self._handled.add(click.id)
                await self._delete(click.id)

    async def _delete(self, click_id: int) -> None:
        try:
            await self.service.clicks.click_handled(click_id)
        except Exception:
            log.error("deleting handed click %s failed; trying again at the next look", click_id, exc_info=True)
        else:
            self._handled.discard(click_id)


async def run_handed_click(bot: SchnapsenBot, click: InboxClick, handed: HandedClick) -> None:
    """Run a click another process received, as discord.py runs a dynamic item's click: the button built from
    its custom id, its check, then its callback. The receiver acknowledged it once stored, so every answer goes
    through the interaction's token (or its callback, where that acknowledgement has not reached Discord yet).
    A move it makes deletes it from the inbox in the move's own transaction and marks ``handed`` deleted (the
    caller deletes a click that made no move)."""
    interaction = discord_internals.interaction_from_payload(bot, click.interaction)
    discord_internals.mark_acknowledged(interaction)
    data = click.interaction.get("data") or {}
    custom_id = str(data.get("custom_id", ""))
    for factory in COMPONENTS:
        match = discord_internals.compiled_template(factory).fullmatch(custom_id)
        if match is None:
            continue
        base = discord.ui.Button[Any](custom_id=custom_id)
        item = await factory.from_custom_id(interaction, base, match)
        if isinstance(item, TableButton):
            item.handed = handed
        if await item.interaction_check(interaction):
            await item.callback(interaction)
