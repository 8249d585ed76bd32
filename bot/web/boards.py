"""The server page's boards (leaderboard, daily boards, league, tournaments, tables, latest Bummerl), read from
storage once and kept a short while, so that many viewers of a server's page cost one read between changes.

What is kept is dropped at once when it may have changed: a table of the server changed seats, status or deal
(``changes_boards``, from the table core's changes of this process and, with shards, the other processes'
notices: ``bot/web/notices.py``), and forget-me (``clear``: nobody's name may outlive it on a page). What no
such event announces (a tournament's sign-up, a rating rebuilt by the operator) shows within ``seconds``. A
read that overlaps a drop is not kept: it may have read what was before."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.game.table import TableSnapshot

BOARDS_SECONDS = 10.0
BOARDS_KEPT = 256  # (server, sort, page) entries at most

Key = tuple[int, str | None, int]  # guild, sort (None: the server's default), page


@dataclass(frozen=True, slots=True)
class ServerBoards:
    """What the server page shows, as read at ``read_at`` (monotonic)."""

    values: dict[str, Any]  # the template's values (sort, board, today, week, league, tournaments, ...)
    read_at: float


class BoardsCache:
    def __init__(
        self,
        read: Callable[[int, str | None, int], Awaitable[dict[str, Any]]],
        *,
        seconds: float = BOARDS_SECONDS,
        entries: int = BOARDS_KEPT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self.seconds = seconds
        self.entries = entries
        self.clock = clock
        self._kept: OrderedDict[Key, ServerBoards] = OrderedDict()
        self._reading: dict[Key, asyncio.Task[dict[str, Any]]] = {}
        self._generation: dict[int, int] = {}  # per guild: bumped by each drop
        self._epoch = 0  # bumped by clear()
        self.reads = 0  # reads of storage done (tests and the bench count them)

    async def get(self, guild_id: int, sort: str | None, page: int) -> dict[str, Any]:
        key = (guild_id, sort, page)
        kept = self._kept.get(key)
        if kept is not None and self.clock() - kept.read_at < self.seconds:
            self._kept.move_to_end(key)
            return kept.values
        task = self._reading.get(key)
        if task is None:  # one read for every viewer asking meanwhile
            since = (self._generation.get(guild_id, 0), self._epoch)  # now, not when the task first runs
            task = asyncio.create_task(self._read_and_keep(key, since), name="web boards")
            self._reading[key] = task
            task.add_done_callback(lambda _: self._reading.pop(key, None) if self._reading.get(key) is task else None)
        return await asyncio.shield(task)  # a viewer who leaves does not stop the read the others wait for

    async def _read_and_keep(self, key: Key, since: tuple[int, int]) -> dict[str, Any]:
        started = self.clock()
        self.reads += 1
        values = await self._read(*key)
        if (self._generation.get(key[0], 0), self._epoch) == since:
            self._kept[key] = ServerBoards(values, started)
            self._kept.move_to_end(key)
            while len(self._kept) > self.entries:
                self._kept.popitem(last=False)
        return values

    def invalidate(self, guild_id: int) -> None:
        """Drop what is kept of the server; a read under way is not kept."""
        self._generation[guild_id] = self._generation.get(guild_id, 0) + 1
        for key in [key for key in self._kept if key[0] == guild_id]:
            del self._kept[key]
        self._reading = {key: task for key, task in self._reading.items() if key[0] != guild_id}

    def clear(self) -> None:
        """Drop everything (forget-me: the person's name may be on any server's boards)."""
        self._epoch += 1
        self._kept.clear()
        self._reading.clear()


def changes_boards(before: TableSnapshot | None, after: TableSnapshot) -> bool:
    """Whether a table's change may change its server's boards: a table opened, closed or started, a seat
    taken or left, a deal over or a new one (results, statistics and the daily boards move then)."""
    if before is None or before.status != after.status or before.deal_no != after.deal_no:
        return True
    if before.names() != after.names():
        return True
    was_over = before.deal is not None and before.deal.finished
    return after.deal is not None and after.deal.finished and not was_over
