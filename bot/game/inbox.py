"""Clicks handed between processes: a click for a table another process serves is stored for it (its owner
is woken by PostgreSQL's NOTIFY, or finds it at its next look) and run there (bot/schnapsen/routing.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.db import Database
from bot.db.inbox import CLICKS_CHANNEL, InboxClick

from .directory import ShardDirectory


@dataclass(slots=True)
class HandedClick:
    """A click taken from the click inbox (bot/schnapsen/routing.py), handed to ``TableCore.act``: the move it
    makes deletes it from the inbox in the move's own transaction (a crash never runs it twice) and marks it
    ``deleted``."""

    id: int
    deleted: bool = False


class HandedClicks:
    def __init__(self, db: Database, directory: ShardDirectory, clock: Callable[[], float]) -> None:
        self.db = db
        self.directory = directory
        self.clock = clock

    async def hand_click_to_owner(self, table_id: int, interaction: dict[str, object]) -> bool:
        """Store a click (Discord's interaction payload) for the process serving its table, and wake that
        process; False when no other process serves the table (it is ours, or unknown, or found closed)."""
        shard = await self.directory.foreign_shard(table_id)
        if shard is None:
            return False
        # A remembered table may be closed by now: its owner runs the click, and the usual checks answer it.
        await self.db.inbox.post_click(table_id, shard, interaction, int(self.clock()))
        return True

    async def clicks_handed_to_us(self, limit: int = 100) -> list[InboxClick]:
        """Clicks other processes received for our tables, oldest first (at most ``limit``)."""
        shards = self.directory.shards
        return [] if shards is None else await self.db.inbox.clicks_for(shards.ids, limit=limit)

    async def click_handled(self, click_id: int) -> None:
        await self.db.inbox.click_done(click_id)

    async def listen_for_clicks(
        self, on_click: Callable[[], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None:
        """Call ``on_click`` whenever a click is handed to one of our shards (PostgreSQL's NOTIFY), until the
        returned function is awaited; ``on_lost`` when the listening connection fails. None where storage
        cannot notify: the caller looks for clicks now and then instead."""
        shards = self.directory.shards
        if shards is None:
            return None
        ours = {str(shard) for shard in shards.ids}

        def on_notice(shard: str) -> None:
            if shard in ours:
                on_click()

        return await self.db.listen(CLICKS_CHANNEL, on_notice, on_lost)
