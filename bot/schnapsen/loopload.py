"""How far behind the event loop runs, for the work that can wait when it does (issue 35).

One process serves every table on one event loop. When clicks come faster than the core can answer them, every
answer waits its turn behind whatever else is queued, and the table messages are much of that: one picture drawn
and sent per card at each table. A person who clicked waits for their own hand and the next person for their
buttons; the table message in the channel is what they and onlookers glance at, and the hands show each move
anyway. So the table message's pace stretches with the loop's lag (``stretch``), up to three times, and comes
back as the lag falls.

The lag is that of a timer due every ``PERIOD``, smoothed: a timer fires only once the callbacks queued before
it have run, so its lateness is how long anything queued now waits.
"""

from __future__ import annotations

import asyncio

PERIOD = 0.1
SMOOTHING = 0.2  # the weight of a new reading in the smoothed lag (about the last second counts)
CALM = 0.005  # a lag up to this is an idle loop's noise: no stretch
SPAN = 0.02  # each such lag beyond CALM stretches the pace by one more time its own
MOST = 3.0


class LoopLoad:
    def __init__(self) -> None:
        self.lag = 0.0  # seconds, smoothed
        self._watcher: asyncio.Task[None] | None = None

    def note(self, late: float) -> None:
        self.lag += (max(0.0, late) - self.lag) * SMOOTHING

    def stretch(self) -> float:
        """How many times its own pace cosmetic work keeps now: 1 on an idle loop, up to ``MOST``. The watcher
        starts with the first question (it needs the running loop)."""
        if self._watcher is None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="loop load")
        return min(MOST, 1.0 + max(0.0, self.lag - CALM) / SPAN)

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + PERIOD
            await asyncio.sleep(PERIOD)
            self.note(loop.time() - due)

    def stop(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
