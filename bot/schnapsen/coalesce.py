"""Supervised, coalesced jobs: whatever keeps Discord in step with a table runs here.

Many requests for one key in a burst become one run (the latest job wins), and one key runs at most once per
interval, so a fast trick never runs into Discord's rate limits. A job that fails is logged at ERROR with its
key (which names the table) and retried with a growing pause until it succeeds, is replaced by a newer
request, or its key is dropped (the table closed). Nothing that moves a table is ever left to chance.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class Coalescer:
    def __init__(self, interval: float, *, first_retry: float = 0.5, max_retry: float = 10.0) -> None:
        self.interval = interval
        self.first_retry = first_retry
        self.max_retry = max_retry
        self._pending: dict[Hashable, Job] = {}
        self._workers: dict[Hashable, asyncio.Task[None]] = {}
        self._dropped: set[Hashable] = set()
        self._closing = False  # shutting down: a failure is not retried (what it owed is stored)
        self.failures = 0  # failed runs, retried (for logs and tests)

    def request(self, key: Hashable, job: Job) -> None:
        """Run ``job`` soon; a later request for the same key before it starts replaces it."""
        self._dropped.discard(key)
        self._pending[key] = job
        if key not in self._workers:
            self._workers[key] = asyncio.create_task(self._work(key), name=f"job {key}")

    def busy(self, key: Hashable) -> bool:
        """Is a job for ``key`` running or waiting to run (or waiting to be retried)?"""
        return key in self._workers

    def drop(self, key: Hashable) -> None:
        """Forget the key's waiting job and stop retrying it (its table closed); a running job finishes."""
        self._pending.pop(key, None)
        if key in self._workers:
            self._dropped.add(key)

    async def _work(self, key: Hashable) -> None:
        try:
            while (job := self._pending.pop(key, None)) is not None:
                await self._run_until_done(key, job)
                if self.interval and key in self._pending:
                    await asyncio.sleep(self.interval)
        finally:
            del self._workers[key]
            self._dropped.discard(key)

    async def _run_until_done(self, key: Hashable, job: Job) -> None:
        pause = self.first_retry
        attempt = 1
        while True:
            try:
                await job()
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                self.failures += 1
                if key in self._dropped or self._closing:
                    log.error("%s failed; not retried (closed)", describe(key), exc_info=True)
                    return
                if key in self._pending:  # a newer request replaces this one: run that instead
                    log.error("%s failed; a newer request replaces it", describe(key), exc_info=True)
                    return
                log.error("%s failed (attempt %d); retrying in %.1f s", describe(key), attempt, pause, exc_info=True)
            await asyncio.sleep(pause)
            if key in self._dropped:
                return
            if key in self._pending:  # superseded while waiting
                return
            pause = min(pause * 2, self.max_retry)
            attempt += 1

    def cancel(self, key: Hashable) -> None:
        """Stop the key's job now (shutdown, or a closed table's timer); what it owed is stored."""
        self._pending.pop(key, None)
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
