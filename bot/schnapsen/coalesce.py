"""Supervised, coalesced jobs: whatever keeps Discord in step with a table runs here.

Many requests for one key in a burst become one run (the latest job wins), and one key runs at most once per
interval, so a fast trick never runs into Discord's rate limits: a burst of AI moves is drawn and sent once,
showing the latest position. An urgent request (the change that gives a person their buttons) need not wait
out the interval: it runs at once unless the key ran ``BURST`` times in the last ``BURST`` intervals (other
requests leave the last of those runs to it), so a person's turn is not held back by the edits that showed
the moves before it, and its bot-token requests go before the others the token's pacer holds (pacing.py). A
job that fails is logged at ERROR with its
key (which names the table) and retried with a growing pause until it succeeds, is replaced by a newer
request, or its key is dropped (the table closed). Nothing that moves a table is ever left to chance.

Failing must not make things worse with Discord (badanswers.py): after a 429 raised to the bot, the job
waits at least the answer's retry-after, plus a random share of it so that the jobs a global limit stopped
do not all go out again in the same instant; after a 403 in a channel, the job waits until the channel gate
opens it again (its permissions changed, or a long pause passed) instead of retrying into the refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections import deque
from collections.abc import Awaitable, Callable, Hashable

from .badanswers import ChannelGate, is_global_limit, refused_channel, retry_after
from .pacing import URGENT

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]
BURST = 5  # runs of one key within BURST intervals: about what Discord allows for edits in one channel
PRUNE_AT = 4096  # keys with a remembered last run before the old ones are forgotten
MAX_SPREAD = 5.0  # seconds over which the retries after one 429 are spread at most (a ban asks for a day)


class Coalescer:
    def __init__(
        self,
        interval: float,
        *,
        first_retry: float = 0.5,
        max_retry: float = 10.0,
        gate: ChannelGate | None = None,
    ) -> None:
        self.interval = interval
        self.first_retry = first_retry
        self.max_retry = max_retry
        self.gate = gate  # channels that answered 403 (None: a refusal is retried like any failure)
        self.jitter: Callable[[], float] = random.random  # a share in [0, 1) of a 429's wait added to it
        self._pending: dict[Hashable, Job] = {}
        self._workers: dict[Hashable, asyncio.Task[None]] = {}
        self._dropped: set[Hashable] = set()
        self._urgent: set[Hashable] = set()  # keys whose waiting job should not wait out the interval
        self._intervals: dict[Hashable, float] = {}  # keys with a job to run that asked for their own interval
        self._runs: dict[Hashable, deque[float]] = {}  # key -> when its last BURST runs started
        self._wakes: dict[Hashable, asyncio.Event] = {}  # set when a waiting key's request became urgent
        self._closing = False  # shutting down: a failure is not retried (what it owed is stored)
        self.failures = 0  # failed runs, retried (for logs and tests)

    def request(self, key: Hashable, job: Job, *, urgent: bool = False, interval: float | None = None) -> None:
        """Run ``job`` soon; a later request for the same key before it starts replaces it. ``urgent``: a
        person waits for what it shows, so it skips the interval (not the burst limit). ``interval``: the
        key's own instead of the coalescer's (for this request and those that replace it)."""
        self._dropped.discard(key)
        self._pending[key] = job
        if interval is not None:
            self._intervals[key] = interval
        if urgent:
            self._urgent.add(key)
            if (wake := self._wakes.get(key)) is not None:
                wake.set()
        else:
            self._urgent.discard(key)
        if len(self._runs) > PRUNE_AT:
            self._forget_old_runs()
        if not self.busy(key):  # none, or one that ended or is being cancelled: it runs no more jobs
            worker = asyncio.create_task(self._work(key), name=f"job {key}")
            self._workers[key] = worker
            # A worker cancelled before its first step (``cancel``, or a shutdown, in the same instant as the
            # request) never runs ``_work``, so its ``finally`` never forgets it: this does.
            worker.add_done_callback(functools.partial(self._worker_ended, key))

    def busy(self, key: Hashable) -> bool:
        """Is a job for ``key`` running or waiting to run (or waiting to be retried)?"""
        worker = self._workers.get(key)
        return worker is not None and not worker.done() and not worker.cancelling()

    def drop(self, key: Hashable) -> None:
        """Forget the key's waiting job and stop retrying it (its table closed); a running job finishes."""
        self._pending.pop(key, None)
        self._runs.pop(key, None)
        if key in self._workers:
            self._dropped.add(key)
        if (wake := self._wakes.get(key)) is not None:  # a job waiting out the interval goes now
            wake.set()

    async def _work(self, key: Hashable) -> None:
        loop = asyncio.get_running_loop()
        try:
            while key in self._pending:
                pause = self._pause_before(key, loop.time())
                if pause > 0:
                    wake = self._wakes.setdefault(key, asyncio.Event())
                    wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), pause)
                    continue  # look again: the request may have become urgent, or been dropped
                job = self._pending.pop(key)
                urgent = key in self._urgent
                self._urgent.discard(key)
                if self._intervals.get(key, self.interval):
                    self._runs.setdefault(key, deque(maxlen=BURST)).append(loop.time())
                URGENT.set(urgent)  # its bot-token requests go before the others the pacer holds (this task's own)
                await self._run_until_done(key, job)
        finally:
            if self._workers.get(key) is asyncio.current_task():  # (a cancelled one may have been replaced)
                self._forget_worker(key)  # at once: a request right after the last job starts a new worker

    def _worker_ended(self, key: Hashable, worker: asyncio.Task[None]) -> None:
        if self._workers.get(key) is worker:  # never ran: forgotten here (a worker that ran forgot itself)
            self._forget_worker(key)

    def _forget_worker(self, key: Hashable) -> None:
        del self._workers[key]
        self._wakes.pop(key, None)
        self._intervals.pop(key, None)
        self._dropped.discard(key)

    def _pause_before(self, key: Hashable, now: float) -> float:
        """How long the key's waiting job waits: an interval after its last run (not when urgent), and never a
        run more than BURST times in BURST intervals."""
        runs = self._runs.get(key)
        interval = self._intervals.get(key, self.interval)
        if not runs or not interval:
            return 0.0
        urgent = key in self._urgent
        pause = 0.0 if urgent else runs[-1] + interval - now
        # The last run of a burst is kept for an urgent job: the moves before a person's turn must not use up
        # what the turn itself needs.
        limit = BURST if urgent else BURST - 1
        if len(runs) >= limit:
            # An urgent run keeps to Discord's burst (about 5 edits of a channel per 5 s, 5 per 2 s through a click's
            # token), which a key's longer interval of its own (the table message with the bot token) does not
            # stretch: a lobby's quick edits must not hold a deal's first picture back for 5 of those intervals.
            # The others keep to the key's own pace, bursts included (what the bot token can afford).
            window = BURST * (min(interval, self.interval or interval) if urgent else interval)
            pause = max(pause, runs[-limit] + window - now)
        return pause

    def _forget_old_runs(self) -> None:
        """Keys that last ran more than BURST intervals ago wait for nothing: forget them."""
        horizon = asyncio.get_running_loop().time() - BURST * self.interval
        for key in [key for key, runs in self._runs.items() if runs[-1] < horizon]:
            del self._runs[key]

    async def _run_until_done(self, key: Hashable, job: Job) -> None:
        pause = self.first_retry
        attempt = 1
        while True:
            try:
                await job()
                return
            except asyncio.CancelledError:
                raise
            except Exception as err:
                self.failures += 1
                if key in self._dropped or self._closing:
                    log.error("%s failed; not retried (closed)", describe(key), exc_info=True)
                    return
                channel_id = None if self.gate is None else refused_channel(err)
                if channel_id is not None and self.gate is not None:
                    # Retrying into a 403 only spends the invalid-request budget: wait for the channel to open.
                    self.gate.refuse(channel_id, getattr(err, "code", 0), describe(key))
                    await self._wait_for_channel(key, channel_id)
                    if key in self._dropped or self._closing or key in self._pending:  # a newer request runs
                        return
                    pause, attempt = self.first_retry, 1
                    continue
                wait = self._wait_after(err, pause)
                if wait is not None:  # a 429: Discord said how long; the next attempt, old or newer, waits it
                    log.warning(
                        "%s rate limited (429%s); retrying in %.1f s",
                        describe(key), ", global" if is_global_limit(err) else "", wait,
                    )
                elif key in self._pending:  # a newer request replaces this one: run that instead
                    log.error("%s failed; a newer request replaces it", describe(key), exc_info=True)
                    return
                else:
                    log.error(
                        "%s failed (attempt %d); retrying in %.1f s", describe(key), attempt, pause, exc_info=True
                    )
            await asyncio.sleep(pause if wait is None else wait)
            if key in self._dropped:
                return
            if key in self._pending:  # superseded while waiting
                return
            pause = min(pause * 2, self.max_retry)
            attempt += 1

    def _wait_after(self, err: Exception, pause: float) -> float | None:
        """After a 429: at least its retry-after (and the pause the attempts so far earned), plus a random
        share of it (at most ``MAX_SPREAD``), so that the jobs one global limit stopped spread out again. None
        for other failures."""
        asked = retry_after(err)
        if asked is None:
            return None
        spread = min(max(asked, self.first_retry), MAX_SPREAD)
        return max(asked, pause) + self.jitter() * spread

    async def _wait_for_channel(self, key: Hashable, channel_id: int) -> None:
        """Until the gate opens the refused channel again (or the key is dropped, or the bot stops)."""
        assert self.gate is not None
        while key not in self._dropped and not self._closing and (left := self.gate.blocked_for(channel_id)) > 0:
            wake = self._wakes.setdefault(key, asyncio.Event())
            wake.clear()
            waiters = {
                asyncio.ensure_future(self.gate.reopened(channel_id).wait()),
                asyncio.ensure_future(wake.wait()),
            }
            try:
                await asyncio.wait(waiters, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()

    def cancel(self, key: Hashable) -> None:
        """Stop the key's job now (shutdown, or a closed table's timer); what it owed is stored."""
        self._pending.pop(key, None)
        self._runs.pop(key, None)
        worker = self._workers.get(key)
        if worker is not None and worker is not asyncio.current_task():
            worker.cancel()

    async def settled(self, key: Hashable) -> None:
        """Wait until nothing is requested or running for ``key`` (what must come after its last run)."""
        while (worker := self._workers.get(key)) is not None and worker is not asyncio.current_task():
            await asyncio.wait({worker})

    def running(self) -> list[Hashable]:
        return list(self._workers)

    def close(self) -> None:
        """From now on a failed job is not retried (the bot is stopping)."""
        self._closing = True
        for wake in self._wakes.values():  # a job parked on a refused channel gives up now
            wake.set()

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until every requested job has run (used on shutdown and by tests); a job still failing
        when ``timeout`` passes is cancelled, since what it owes is stored and a restart delivers it."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while self._workers:
            workers = list(self._workers.values())
            remaining = None if deadline is None else max(deadline - loop.time(), 0)
            _, pending = await asyncio.wait(workers, timeout=remaining)
            if pending and deadline is not None and loop.time() >= deadline:
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                return


def describe(key: Hashable) -> str:
    """A job key as the log shows it: ``("hand", 12, 345)`` -> ``table 12: hand 345``."""
    if isinstance(key, tuple) and len(key) >= 2 and isinstance(key[1], int):
        rest = " ".join(str(part) for part in key[2:])
        return f"table {key[1]}: {key[0]}{' ' + rest if rest else ''}"
    return str(key)
