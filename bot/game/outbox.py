"""The outbox as the game reads it: what stored changes still owe, as typed announcements
(bot/game/announcements.py), for the tables this process serves."""

from __future__ import annotations

from bot.db import Database

from .announcements import Owed
from .directory import ShardDirectory


class Outbox:
    def __init__(self, db: Database, directory: ShardDirectory) -> None:
        self.db = db
        self.directory = directory

    async def pending_announcements(self, table_id: int | None = None) -> list[Owed]:
        """What stored changes still owe, oldest first, for the tables this process serves (all of them
        without shards)."""
        entries = await self.db.outbox.pending_announcements(table_id)
        if self.directory.shards is not None:
            ours = {table: await self.directory.owns_table(table) for table in {entry.table_id for entry in entries}}
            entries = [entry for entry in entries if ours[entry.table_id]]
        return [Owed.of(entry) for entry in entries]

    async def announcement_delivered(self, entry_id: int) -> None:
        await self.db.outbox.announcement_delivered(entry_id)
