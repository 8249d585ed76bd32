"""Start-up: the open tables this process serves, rebuilt from storage; a table that no longer replays is set
aside, one left where no step leads on is repaired."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.db import TableRow

from . import events as ev
from . import ratings
from .core import TableCore
from .directory import ShardDirectory
from .table import TableSnapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Restored:
    """What start-up found: the tables served again, and those set aside because they no longer replay."""

    tables: list[TableSnapshot]
    set_aside: list[int]
    repaired: list[int]



class Restorer:
    def __init__(self, core: TableCore, directory: ShardDirectory) -> None:
        self.core = core
        self.db = core.db
        self.directory = directory

    async def restore_all(self) -> Restored:
        """Rebuild every open table from the database (on start-up), one by one.

        A table whose record no longer replays is set aside (closed, its channel told with the record
        attached) so that one bad table never keeps the bot from starting. A table left in a state from
        which no step leads on (an older version stored a deal's end and the next deal in two transactions)
        is repaired: the missing next deal is dealt, or the finished Bummerl is marked finished. Ratings a
        migration left to compute are computed first.
        """
        if (rated := await ratings.rebuild_if_pending(self.db)) is not None:
            log.info("ratings computed from the stored results after a migration: %d Bummerl rated", rated)
        restored, set_aside, repaired = [], [], []
        for row in await self.db.tables.list_open_tables():
            if not self.directory.owns_guild(row.guild_id):
                continue  # another process holds this guild's shard: it restores and drives the table
            try:
                table = await self.core.load(row)
            except Exception:
                log.error("table %s: its stored record does not replay; setting it aside", row.id, exc_info=True)
                await self._set_aside(row)
                set_aside.append(row.id)
                continue
            if (fixed := await self._repair(table)) is not None:
                repaired.append(table.id)
                table = fixed
            restored.append(table)
        return Restored(restored, set_aside, repaired)

    async def _set_aside(self, row: TableRow) -> None:
        self.core.forget(row.id)

        async def write() -> list[ev.TableEvent]:
            await self.db.tables.set_status(row.id, "closed", self.core.now())
            return [ev.TableSetAside()]

        await self.core.store(row, write)

    async def _repair(self, table: TableSnapshot) -> TableSnapshot | None:
        """The repaired table, or None when it needed no repair (published without telling the listeners:
        start-up shows every restored table as it stands)."""
        if table.status != "playing" or (table.deal is not None and not table.deal.finished):
            return None
        async with self.core.lock(table.id):
            if table.last_bummerl is not None:
                log.warning("table %s: its Bummerl ended but the table was still playing; marked finished", table.id)
                async with self.db.transaction():
                    await self.db.tables.set_status(table.id, "finished", self.core.now())
                return await self.core.refresh(table)
            log.warning("table %s: its last deal ended but no next deal was stored; dealing it now", table.id)
            dealt = []

            async def deal_or_close() -> list[ev.TableEvent]:
                if (following := await self.core.deal_next(table)) is not None:
                    dealt.append(following)
                    return []
                # Its planned deals are all played (a daily attempt): it is over, and closes as it would have
                # after its last deal, with its notice and the last edits of its messages owed.
                await self.db.tables.set_status(table.id, "closed", self.core.now())
                return [ev.TableClosed("notice.closed_deals_played")]

            await self.core.store(table.row, deal_or_close)
            repaired = await self.core.refresh(dealt[0].applied_to(table) if dealt else table)
            if repaired.status == "closed":
                self.core.forget(table.id)  # shown once more as it stands (start-up), then it leaves memory
            return repaired
