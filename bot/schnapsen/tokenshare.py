"""The bot token's global limit shared by every process of the bot (issue 28).

Discord's global limit is per bot token, however many processes use the token. Each process paces its own
requests (``pacing.GlobalPacer``); with several processes on one PostgreSQL each would take the whole budget,
so together they would send twice the limit and meet Discord's global 429s. ``TokenShare`` makes each
process's pacer keep to its share of the budget instead.

Every second each process announces how many requests it asked its pacer for (its demand) on a PostgreSQL
notification channel, and hears the others' announcements. From the latest demand of every live process,
each computes the same split (``split_budget``: the quiet get what they ask plus some headroom, the busy
share the rest, and what nobody asks for is spread evenly, so a burst finds room at once) and sets its own
pacer to its part. A process not heard from for ``lapse`` seconds (killed, or its database connection lost)
counts as gone and its share returns to the others; one closing announces so, and its share returns at once.

Nothing on a request's path touches the database: a request waits only for the local pacer. When this
process cannot announce or cannot listen, it falls back to an even split among the processes it last knew
of, logs at WARNING, and goes back to the shared split once storage answers again. If only this process
lost the database while the others kept it, they count it gone after ``lapse`` and the token may briefly go
over the budget by this process's fallback share; Discord then answers global 429s, which discord.py waits
out. With one process, or on SQLite (one process per database), none of this runs and the pacer keeps the
whole budget as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from bot.db import Database

from .pacing import GlobalPacer

log = logging.getLogger(__name__)

PACE_CHANNEL = "schnapsen_token_pace"  # the notification channel; payload "<process> <demand>" or "<process> gone"
GONE = "gone"


class Announcer(Protocol):
    """How processes hear each other: ``send`` one payload to every listener (this one included), and
    ``listen`` until the returned function is awaited (``on_lost`` when the listening connection drops; None:
    storage has no notifications)."""

    async def send(self, payload: str) -> None: ...

    async def listen(
        self, on_notice: Callable[[str], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None: ...


class DatabaseAnnouncer:
    """Announcements as PostgreSQL notifications on ``PACE_CHANNEL``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def send(self, payload: str) -> None:
        async with self.db.core.unordered_write():  # a notification checks nothing: no write lock
            await self.db.core.notify(PACE_CHANNEL, payload)

    async def listen(
        self, on_notice: Callable[[str], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None:
        return await self.db.listen(PACE_CHANNEL, on_notice, on_lost)


def split_budget(budget: float, demands: Mapping[str, float]) -> dict[str, float]:
    """Each process's requests per second out of ``budget``, from its recent demand (requests per second).
    Max-min fair: processes are served from the least demanding up, each getting what it asks plus a
    headroom of a quarter of an even share, but never more than an even share of what is left; what nobody
    asks for is then spread evenly. The parts add up to ``budget``, and every process computes the same split
    from the same demands.

    >>> split_budget(45, {"a": 30, "b": 30})
    {'a': 22.5, 'b': 22.5}
    >>> {key: round(part, 2) for key, part in split_budget(45, {"a": 40, "b": 5}).items()}
    {'a': 34.38, 'b': 10.62}
    >>> split_budget(45, {"a": 0, "b": 0, "c": 0})
    {'a': 15.0, 'b': 15.0, 'c': 15.0}
    """
    count = len(demands)
    headroom = budget / (4 * count)
    left = float(budget)
    parts: dict[str, float] = {}
    for served, (key, demand) in enumerate(sorted(demands.items(), key=lambda item: (item[1], item[0]))):
        parts[key] = min(demand + headroom, left / (count - served))
        left -= parts[key]
    return {key: parts[key] + left / count for key in sorted(demands)}


class TokenShare:
    """Keeps ``pacer`` at this process's share of the token's budget (the pacer's ``per_second`` when made).
    ``expected_processes``: how many processes share the token until they are heard (the shard layout's
    guess); ``tick`` runs every ``interval`` seconds once started."""

    def __init__(
        self,
        pacer: GlobalPacer,
        announcer: Announcer,
        *,
        expected_processes: int,
        interval: float = 1.0,
        lapse: float = 3.0,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
    ) -> None:
        self.pacer = pacer
        self.announcer = announcer
        self.budget = float(pacer.per_second)
        self.interval = interval
        self.lapse = lapse
        self.clock = clock
        # Unique per run, readable in a log: the host and pid, and a random part for a reused pid.
        self.name = name or f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(3)}"
        self.known_processes = max(1, expected_processes)  # live processes, this one included, last we knew
        self.demand = 0.0  # this process's, as last announced (requests per second)
        self._peers: dict[str, tuple[float, float]] = {}  # another process -> (its demand, when heard)
        self._asked_at_tick = pacer.asked
        self._last_tick = clock()
        self._listening_since: float | None = None
        self._stop_listening: Callable[[], Awaitable[None]] | None = None
        self._healthy = True  # False from a failed announcement or a lost listener until one succeeds
        self._logged_count = 0  # the number of processes last logged
        self._task: asyncio.Task[None] | None = None
        self.heard = asyncio.Event()  # set whenever another process's announcement arrives (tests await it)
        self._fall_back()

    @property
    def share(self) -> int:
        """This process's requests in any second now."""
        return self.pacer.per_second

    def start(self) -> None:
        """Announce this process now and every ``interval`` seconds until ``close``, in a task of its own:
        nothing waits for storage here, and a failure is the fallback share and a WARNING."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="token share")

    async def close(self) -> None:
        """Stop, and tell the others this process's share is theirs now (best effort: otherwise it lapses)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.announcer.send(f"{self.name} {GONE}"), self.lapse)
        await self._stop()

    async def _run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # a bug, not storage: keep the safe share and keep going
                log.exception("sharing the bot token's budget failed; pacing at an even share")
                self._fall_back()
            await asyncio.sleep(self.interval)

    async def tick(self) -> None:
        """Measure this process's demand since the last tick, announce it, and take this process's share."""
        now = self.clock()
        asked = self.pacer.asked
        rate = (asked - self._asked_at_tick) / max(now - self._last_tick, 1e-3)
        self._asked_at_tick, self._last_tick = asked, now
        # A burst is remembered for a few seconds (halving each tick): deals start in bursts.
        self.demand = max(rate, self.demand / 2)
        try:
            if self._listening_since is None:
                await self._stop()  # a lost listener's connection, if any
                self._stop_listening = await asyncio.wait_for(
                    self.announcer.listen(self._on_notice, self._on_lost), self.lapse
                )
                self._listening_since = self.clock()
            await asyncio.wait_for(self.announcer.send(f"{self.name} {self.demand:.2f}"), self.lapse)
        except Exception as err:
            self._set_healthy(False, err)
        else:
            self._set_healthy(True)
        self._rebalance()

    def _on_notice(self, payload: str) -> None:
        name, _, text = payload.strip().rpartition(" ")
        if not name or name == self.name:
            return
        if text == GONE:
            self._peers.pop(name, None)
        else:
            try:
                demand = float(text)
            except ValueError:
                log.warning("ignoring a malformed announcement on %s: %.80r", PACE_CHANNEL, payload)
                return
            if not 0 <= demand < 1e6:  # also refuses nan
                return
            self._peers[name] = (demand, self.clock())
        self.heard.set()
        self._rebalance()

    def _on_lost(self) -> None:
        self._listening_since = None
        self._set_healthy(False, "the listening connection was lost")
        self._rebalance()

    def _set_healthy(self, healthy: bool, reason: object = None) -> None:
        if healthy and not self._healthy:
            log.info("sharing the bot token's budget with the other processes again")
        elif not healthy and self._healthy:
            log.warning(
                "cannot share the bot token's budget through the database (%s); pacing at an even share of "
                "%d processes until it answers", reason or "no reason given", self.known_processes,
            )
        self._healthy = healthy

    def _rebalance(self) -> None:
        now = self.clock()
        for name, (_, heard_at) in list(self._peers.items()):
            if now - heard_at > self.lapse:
                del self._peers[name]
        if not self._healthy or self._listening_since is None or now - self._listening_since < self.lapse:
            # Not yet heard every live process (just started or reconnected), or cannot be heard: even share.
            self._fall_back()
            return
        demands = {name: demand for name, (demand, _) in self._peers.items()}
        demands[self.name] = self.demand
        if len(demands) != self._logged_count:
            log.info("the bot token's budget is shared by %d process(es)", len(demands))
            self._logged_count = len(demands)
        self.known_processes = len(demands)
        self._pace_at(split_budget(self.budget, demands)[self.name])

    def _fall_back(self) -> None:
        # Every process heard recently still counts; a larger last-known count is kept (safer).
        self.known_processes = max(self.known_processes, len(self._peers) + 1)
        self._pace_at(self.budget / self.known_processes)

    def _pace_at(self, share: float) -> None:
        # Whole requests: the pacer lets a request go while fewer than per_second went in the last second, so
        # a fractional share would round up and the shares together could exceed the budget.
        self.pacer.per_second = max(1, math.floor(share))

    async def _stop(self) -> None:
        stop, self._stop_listening, self._listening_since = self._stop_listening, None, None
        if stop is not None:
            with contextlib.suppress(Exception):
                await stop()
