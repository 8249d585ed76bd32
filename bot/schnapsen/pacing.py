"""The bot token's global limit, kept before Discord has to say so (issue 28).

Discord allows a bot token about 50 requests a second in all (interaction callbacks and the edits made with an
interaction's token do not count). discord.py learns of that limit only from a 429 with the global scope, and
then holds every request of the process until the second is over: tables that deal at the same moment send a
burst, meet the 429, and every click of every table waits. ``GlobalPacer`` spaces the bot token's requests so
that no second holds more than ``per_second`` of them (a sliding window, so it also holds for any window
Discord counts in); a request past that waits its turn here, a few milliseconds, instead of the whole process
waiting out a 429. It sees the requests through discord.py's public ``http_trace`` hook (aiohttp awaits a
trace's request-start handlers before sending).

A request made by an urgent job (coalesce.py: one that shows a person their turn) is marked by ``URGENT`` and
goes before the others waiting here, so that a burst of cosmetic edits (table messages, a deal's last word) does
not hold a person's next buttons back.

Several processes on one token share Discord's 50: with them, ``tokenshare.TokenShare`` keeps each process's
pacer at its share (``per_second`` changes while it runs).
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import time
from collections.abc import Awaitable, Callable
from types import SimpleNamespace

import aiohttp

# Paths whose requests Discord does not count against the global limit: the interaction callback and
# everything done with an interaction's token (follow-ups, edits and deletes of its messages).
EXEMPT_PATH_PARTS = ("/interactions/", "/webhooks/")


# Whether the requests made in this context show a person their turn: set by coalesce.py for urgent jobs.
URGENT: contextvars.ContextVar[bool] = contextvars.ContextVar("pacing_urgent", default=False)
# How long a request that is not urgent waits for an urgent one that is due in the same instant to go first.
YIELD_SECONDS = 0.001
TOKEN_PACE = 45  # the bot token's requests a second the bot keeps to, under Discord's 50


def counts_globally(path: str) -> bool:
    return not any(part in path for part in EXEMPT_PATH_PARTS)


class GlobalPacer:
    """At most ``per_second`` requests in any second; the others wait, in the order they came, the urgent ones
    first."""

    def __init__(
        self,
        per_second: int = TOKEN_PACE,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.per_second = per_second
        self.clock = clock
        self.sleep = sleep
        self._sent: collections.deque[float] = collections.deque()  # when each of the last requests went
        self._turn = asyncio.Lock()  # first come, first served
        self.waited = 0  # requests that had to wait (a figure for the benches)
        self._urgent_waiting = 0
        self.asked = 0  # requests that asked for a turn: the demand tokenshare.py shares the budget by

    async def wait_turn(self, urgent: bool = False) -> None:
        self.asked += 1
        asked = self.clock()
        if urgent:
            self._urgent_waiting += 1
            try:
                await self._take_slot(asked, urgent=True)
            finally:
                self._urgent_waiting -= 1
            return
        async with self._turn:
            await self._take_slot(asked, urgent=False)

    async def _take_slot(self, asked: float, *, urgent: bool) -> None:
        while True:
            now = self.clock()
            while self._sent and self._sent[0] <= now - 1.0:
                self._sent.popleft()
            if len(self._sent) < self.per_second and (urgent or not self._urgent_waiting):
                self._sent.append(now)
                self.waited += now > asked
                return
            await self.sleep(self._sent[0] + 1.0 - now if len(self._sent) >= self.per_second else YIELD_SECONDS)


def pacing_trace(pacer: GlobalPacer, config: aiohttp.TraceConfig) -> aiohttp.TraceConfig:
    """Add the pacer to ``config``: each request on the bot token's global limit waits its turn first."""

    async def on_request_start(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestStartParams
    ) -> None:
        if counts_globally(params.url.path):
            await pacer.wait_turn(urgent=URGENT.get())

    config.on_request_start.append(on_request_start)
    return config
