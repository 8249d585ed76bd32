"""Which process serves a table: the one holding its guild's Discord shard (bot/shards.py). Tables of other
processes are remembered by their shard (a table never changes guild), so that a click or an outbox entry of
one is passed on or over without asking storage whose it is."""

from __future__ import annotations

from bot.cache import Lru
from bot.db import Database
from bot.shards import ShardRange, shard_of

from .core import TableCore

KNOWN_FOREIGN_TABLES = 10_000  # tables of other processes whose shard is kept in memory (least recently used forgotten)


class ShardDirectory:
    def __init__(self, db: Database, core: TableCore, shards: ShardRange | None) -> None:
        self.db = db
        self.core = core
        # The Discord shards this process holds: it serves their guilds' tables. None: every guild's are ours.
        self.shards = shards
        self._foreign: Lru[int, int] = Lru(KNOWN_FOREIGN_TABLES)  # table id -> its shard, of another process

    def owns_guild(self, guild_id: int) -> bool:
        return self.shards is None or self.shards.owns_guild(guild_id)

    async def owns_table(self, table_id: int) -> bool:
        """Whether this process serves the table (its guild is on our shards); a table that no longer exists
        is nobody's."""
        table = self.core.held(table_id)
        if table is not None:
            return self.owns_guild(table.row.guild_id)
        if table_id in self._foreign:
            return False
        row = await self.db.tables.get_table(table_id)
        if row is None:
            return False
        if self.owns_guild(row.guild_id):
            return True
        self.remember_foreign(table_id, row.guild_id)
        return False

    async def foreign_shard(self, table_id: int) -> int | None:
        """The shard of the process serving the table, when that is another process and the table was open
        when it was first asked about (a remembered table may have closed since: its owner refuses it)."""
        if self.shards is None or self.core.held(table_id) is not None:
            return None
        shard = self._foreign.get(table_id)
        if shard is not None:
            return shard
        row = await self.db.tables.get_table(table_id)
        if row is None or row.status == "closed" or self.owns_guild(row.guild_id):
            return None
        return self.remember_foreign(table_id, row.guild_id)

    def remember_foreign(self, table_id: int, guild_id: int) -> int:
        """Keep the shard of a table another process serves; returns it."""
        assert self.shards is not None
        shard = self._foreign[table_id] = shard_of(guild_id, self.shards.count)
        return shard
