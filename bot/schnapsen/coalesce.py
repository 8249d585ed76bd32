"""Coalesced message edits: many changes in a burst become one edit, and each message is edited at most once
per interval, so a fast trick never runs into Discord's rate limits."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class Coalescer:
    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._pending: dict[Hashable, Job] = {}
        self._workers: dict[Hashable, asyncio.Task[None]] = {}

    def request(self, key: Hashable, job: Job) -> None:
        """Run ``job`` soon; a later request for the same key before it starts replaces it."""
        self._pending[key] = job
        if key not in self._workers:
            self._workers[key] = asyncio.create_task(self._work(key), name=f"edit {key}")

    async def _work(self, key: Hashable) -> None:
        try:
            while (job := self._pending.pop(key, None)) is not None:
                try:
                    await job()
                except Exception:
                    log.exception("message update %s failed", key)
                if self.interval and key in self._pending:
                    await asyncio.sleep(self.interval)
        finally:
            del self._workers[key]

    async def drain(self) -> None:
        """Wait until every requested edit has been made (used on shutdown and by tests)."""
        while self._workers:
            await asyncio.gather(*list(self._workers.values()), return_exceptions=True)
