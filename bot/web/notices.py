"""News between the processes of a sharded bot for their web pages, over PostgreSQL's LISTEN/NOTIFY (as the
click inbox's, bot/schnapsen/routing.py): each process tells the others when a table it serves changed
(``NOTIFY schnapsen_web``, after the change is stored) and when a person was forgotten; each listens, so a
live page served by any process follows any table at once, and the server page's kept boards are dropped
everywhere.

Without notifications (SQLite: one process; or while the listening connection is down) nothing is sent or
heard, and the live pages of other processes' tables look in storage every ``LiveHub.poll_seconds`` instead.
A notice is news, never a command: what it names is read from storage, so a forged or late one costs a read.

The payload is the sender's name (random, per process: a process skips its own news, which it has already
acted on) and ``|``, then items separated by ``;``: ``t,<table>,<version>,<guild>,<0|1>`` (a table's new
version; 1: its server's boards may have changed) and ``f`` (someone was forgotten). The changes of one turn of
the event loop go out in one notification."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.db import Database

log = logging.getLogger(__name__)

WEB_CHANNEL = "schnapsen_web"
MAX_PAYLOAD = 7000  # PostgreSQL allows 8000 bytes a notification
RETRY_SECONDS = 5.0
TABLE_ITEM = re.compile(r"^t,([0-9]{1,18}),([0-9]{1,18}),([0-9]{1,20}),([01])$")


@dataclass(frozen=True, slots=True)
class TableNews:
    table_id: int
    version: int
    guild_id: int
    boards: bool  # the change may show on the server page's boards


def encode(sender: str, items: list[str]) -> list[str]:
    """The items in as few payloads as fit.

    >>> encode("ab", ["t,1,2,3,0", "f"])
    ['ab|t,1,2,3,0;f']
    """
    payloads: list[str] = []
    current = ""
    for item in items:
        if current and len(sender) + len(current) + 2 + len(item) > MAX_PAYLOAD:
            payloads.append(f"{sender}|{current}")
            current = ""
        current = f"{current};{item}" if current else item
    if current:
        payloads.append(f"{sender}|{current}")
    return payloads


def decode(payload: str) -> tuple[str, list[TableNews], bool]:
    """Who sent it, the tables' news and whether someone was forgotten; anything malformed is left out.

    >>> decode("ab|t,5,12,99,1;f;junk")
    ('ab', [TableNews(table_id=5, version=12, guild_id=99, boards=True)], True)
    """
    sender, _, items = payload[: MAX_PAYLOAD + 1000].partition("|")
    tables: list[TableNews] = []
    forgotten = False
    for item in items.split(";"):
        if item == "f":
            forgotten = True
        elif (found := TABLE_ITEM.match(item)) is not None:
            table_id, version, guild_id, boards = found.groups()
            tables.append(TableNews(int(table_id), int(version), int(guild_id), boards == "1"))
    return sender, tables, forgotten


class WebNotices:
    """This process's side: sends its news (batched per turn of the loop) and listens for everyone's."""

    def __init__(
        self,
        db: Database,
        on_table: Callable[[TableNews], None],
        on_forgotten: Callable[[], None],
        on_listening: Callable[[bool], None],
        *,
        retry_seconds: float = RETRY_SECONDS,
    ) -> None:
        self.db = db
        self.on_table = on_table
        self.on_forgotten = on_forgotten
        self.on_listening = on_listening  # told when listening starts (True) and stops (False)
        self.retry_seconds = retry_seconds
        self.sends = db.dialect == "postgresql"
        self.name = secrets.token_hex(6)  # this process, in its payloads
        self._pending: list[str] = []
        self._flush: asyncio.Task[None] | None = None
        self._serving: asyncio.Task[None] | None = None
        self._lost = asyncio.Event()
        self._stop_listening: Callable[[], Awaitable[None]] | None = None
        self.listening = False
        self.sent = 0  # notifications sent (tests, the bench)

    # --- sending --------------------------------------------------------------------------------------

    def table_changed(self, table_id: int, version: int, guild_id: int, boards: bool) -> None:
        self._queue(f"t,{table_id},{version},{guild_id},{int(boards)}")

    def forgotten(self) -> None:
        self._queue("f")

    def _queue(self, item: str) -> None:
        if not self.sends:
            return
        self._pending.append(item)
        if self._flush is None or self._flush.done():
            self._flush = asyncio.get_running_loop().create_task(self._send(), name="web notices")

    async def _send(self) -> None:
        await asyncio.sleep(0)  # the rest of this turn's changes join the same notification
        while self._pending:
            items, self._pending = self._pending, []
            for payload in encode(self.name, items):
                try:
                    await self.db.notify_now(WEB_CHANNEL, payload)
                    self.sent += 1
                except Exception as err:  # the others' pages catch up at their next look in storage
                    log.warning("telling the other processes' web pages of a change failed: %s", err)

    # --- listening ------------------------------------------------------------------------------------

    def start(self) -> None:
        if self.sends and self._serving is None:
            self._serving = asyncio.get_running_loop().create_task(self._serve(), name="web notices listener")

    async def _serve(self) -> None:
        while True:
            try:
                self._lost.clear()
                stop = await self.db.listen(WEB_CHANNEL, self._heard, self._lost.set)
            except Exception as err:
                log.warning("listening for the other processes' web news failed (%s); trying again in %g s", err, self.retry_seconds)
                await asyncio.sleep(self.retry_seconds)
                continue
            if stop is None:
                return  # storage without notifications: the pages look in storage themselves
            self._stop_listening = stop
            self._listening(True)
            await self._lost.wait()
            log.warning("the connection listening for the other processes' web news was lost; listening again")
            self._listening(False)
            await self._close_listener()

    def _listening(self, on: bool) -> None:
        self.listening = on
        self.on_listening(on)

    def _heard(self, payload: str) -> None:
        sender, tables, forgotten = decode(payload)
        if sender == self.name:
            return  # our own news: acted on when it happened
        if forgotten:
            self.on_forgotten()
        for news in tables:
            self.on_table(news)

    async def _close_listener(self) -> None:
        stop, self._stop_listening = self._stop_listening, None
        if stop is not None:
            with contextlib.suppress(Exception):
                await stop()

    async def close(self) -> None:
        if self._serving is not None:
            self._serving.cancel()
            await asyncio.gather(self._serving, return_exceptions=True)
            self._serving = None
        if self.listening:
            self._listening(False)
        await self._close_listener()
        if self._flush is not None:
            await asyncio.gather(self._flush, return_exceptions=True)
