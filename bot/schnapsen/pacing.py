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

Discord counts a request when it arrives, which is some time after the process let it go and before its answer
came back; on a loaded machine or a slow network that time varies from request to request, so requests let go
a second apart can arrive closer together. A request seen through the trace therefore holds its place in the
window until a second after its answer came back (``until_answered``): whatever the delays, no second at
Discord then holds more than ``per_second`` of them. It costs a little of the pace (a round trip per second).

A process that starts again at once (after a crash or ``kill -9``; systemd restarts after 100 ms) cannot know
what its predecessor sent in its last second, which Discord still counts: its first requests (the login's) could
fill that second past the limit. The bot's pacer therefore holds its window full for the first second after the
process started (``held_since``): a restart's first request waits at most that long.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
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
# A request whose answer has not come back holds its place at most this long (one cancelled on its way, whose
# trace never ends, must not hold it for ever); while the window is full of such requests, the pacer looks
# again this often.
ANSWER_AT_MOST = 30.0
ANSWER_POLL = 0.01
# When this process started, as near as Python can tell: the bot imports this module within moments of starting.
PROCESS_STARTED = time.monotonic()


@dataclass(eq=False)
class Slot:
    """A request's place in the window: from ``at`` (when it went, or, for one that waits for its answer, when
    the answer came back) until a second later."""

    at: float
    waiting_answer: bool = False

    def frees_at(self) -> float:
        return self.at + (ANSWER_AT_MOST if self.waiting_answer else 1.0)


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
        held_since: float | None = None,
    ) -> None:
        """``held_since``: the window counts as full from then for a second (a predecessor's requests)."""
        self.per_second = per_second
        self.clock = clock
        self.sleep = sleep
        self._sent: collections.deque[Slot] = collections.deque()  # the last requests' places in the window
        if held_since is not None:
            self._sent.extend(Slot(held_since) for _ in range(per_second))
        self._turn = asyncio.Lock()  # first come, first served
        self.waited = 0  # requests that had to wait (a figure for the benches)
        self._urgent_waiting = 0
        self.asked = 0  # requests that asked for a turn: the demand tokenshare.py shares the budget by

    async def wait_turn(self, urgent: bool = False, *, until_answered: bool = False) -> Slot:
        """Wait for a place in the window. ``until_answered``: it is held until ``answered`` (plus a second)."""
        self.asked += 1
        asked = self.clock()
        if urgent:
            self._urgent_waiting += 1
            try:
                return await self._take_slot(asked, urgent=True, until_answered=until_answered)
            finally:
                self._urgent_waiting -= 1
        async with self._turn:
            return await self._take_slot(asked, urgent=False, until_answered=until_answered)

    def answered(self, slot: Slot) -> None:
        """The request's answer came back (or it failed): its place is free a second from now."""
        slot.at = max(slot.at, self.clock())
        slot.waiting_answer = False

    async def _take_slot(self, asked: float, *, urgent: bool, until_answered: bool) -> Slot:
        while True:
            now = self.clock()
            if any(slot.frees_at() <= now for slot in self._sent):
                self._sent = collections.deque(slot for slot in self._sent if slot.frees_at() > now)
            if len(self._sent) < self.per_second and (urgent or not self._urgent_waiting):
                slot = Slot(now, until_answered)
                self._sent.append(slot)
                self.waited += now > asked
                return slot
            if len(self._sent) < self.per_second:
                await self.sleep(YIELD_SECONDS)
                continue
            first_free = min(slot.frees_at() for slot in self._sent) - now
            if any(slot.waiting_answer for slot in self._sent):
                first_free = min(first_free, ANSWER_POLL)  # an answer may come back any moment
            await self.sleep(first_free)


def pacing_trace(pacer: GlobalPacer, config: aiohttp.TraceConfig) -> aiohttp.TraceConfig:
    """Add the pacer to ``config``: each request on the bot token's global limit waits its turn first."""

    async def on_request_start(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestStartParams
    ) -> None:
        if counts_globally(params.url.path):
            context.pacing_slot = await pacer.wait_turn(urgent=URGENT.get(), until_answered=True)

    async def on_request_done(session: aiohttp.ClientSession, context: SimpleNamespace, params: object) -> None:
        slot = getattr(context, "pacing_slot", None)
        if slot is not None:
            pacer.answered(slot)

    config.on_request_start.append(on_request_start)
    config.on_request_end.append(on_request_done)
    config.on_request_exception.append(on_request_done)
    return config
