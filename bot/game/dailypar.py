"""Par for the daily deal, computed in the background: the AI plays each of a day's deals in all four seats
(``daily.play_par``) as background work in the process's AI queue, which waits for every table move, hint and
review; each deal's par is stored once (``daily_par``) and never computed again, so neither a slower machine
nor a restart changes it. A day's par is asked for (``ParComputer.request``, one job per day at a time) when an
attempt at it starts, at start-up and ahead of the day (bot/schnapsen/daily.py), never waiting for a timer.

Each decision is the search an attempt's AI seats make (``AiWorker.decide``, the same strength, budget and seed
of the position: ``daily.ai_seed``), but never shrunk under load as a waiting table's move may be; when it fails
(its hard cap passed) or there is no AI worker, greedy decides, with the same seed."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import engine
from bot.db import Database
from engine import Action

from . import daily

if TYPE_CHECKING:
    from bot.ai_worker import AiWorker

log = logging.getLogger(__name__)
PAR_BUDGET_MS = 150  # the tables' AI budget: par is the AI the person plays with
PAR_HARD_CAP_MS = 1000  # the tables' hard cap (settings.ai_hard_cap_ms): par fails over to greedy as they do
JOBS_KEPT_DAYS = 2  # a finished job is kept this many days before the day last asked for (tests await it)

SecretOf = Callable[[str], Awaitable[int]]  # a day's secret seed (``DailyDeals.secret``)


def greedy_decision(view: engine.PlayerView, seed: int) -> Action:
    from engine.ai import choose_action

    return choose_action(view, player="greedy", seed=seed)


class ParComputer:
    def __init__(
        self,
        db: Database,
        worker: AiWorker | None,
        *,
        budget_ms: int = PAR_BUDGET_MS,
        hard_cap_ms: int = PAR_HARD_CAP_MS,
    ) -> None:
        self.db = db
        self.worker = worker
        self.budget_ms = budget_ms
        self.hard_cap_ms = hard_cap_ms
        self.fallbacks = 0
        self._jobs: dict[str, asyncio.Task[int]] = {}  # day -> its latest par job, running or done

    def request(self, day: str, secret_of: SecretOf) -> asyncio.Task[int]:
        """The background job computing and storing the day's par where it is not stored yet: the one already
        running for the day, else a new one (a day whose par is stored finishes at once, having computed none).
        Nobody need await it: a failure is logged, and the next request tries again."""
        running = self._jobs.get(day)
        if running is not None and not running.done():
            return running
        oldest = (dt.date.fromisoformat(day) - dt.timedelta(days=JOBS_KEPT_DAYS)).isoformat()
        for old in [d for d, job in self._jobs.items() if job.done() and d < oldest]:
            del self._jobs[old]
        job = asyncio.get_running_loop().create_task(self._compute(day, secret_of), name=f"daily par {day}")
        job.add_done_callback(lambda done: _log_failure(day, done))
        self._jobs[day] = job
        return job

    def job(self, day: str) -> asyncio.Task[int] | None:
        """The day's latest par job (running or done), if one was asked for here."""
        return self._jobs.get(day)

    def cancel(self) -> None:
        """Stop every running job (the bot closes; par stored so far stays, the rest is computed next time)."""
        for job in self._jobs.values():
            job.cancel()

    async def _compute(self, day: str, secret_of: SecretOf) -> int:
        return await self.ensure_par(day, await secret_of(day))

    async def decide(self, view: engine.PlayerView, seed: int) -> Action:
        if len(view.legal) == 1:
            return view.legal[0]
        if self.worker is None:
            self.fallbacks += 1
            return await asyncio.to_thread(greedy_decision, view, seed)
        from bot.ai_worker import Priority

        # The tables' own search (a failed one is greedy's choice), never shrunk however long it waited.
        return await self.worker.decide(
            view, daily.DAILY_STRENGTH, seed, self.budget_ms, self.hard_cap_ms,
            priority=Priority.BACKGROUND, may_shrink=False,
        )  # fmt: skip

    async def ensure_par(self, day: str, secret: int) -> int:
        """Compute and store the par of each of the day's deals that has none yet; how many were computed."""
        known = {par.deal_no for par in await self.db.daily.par(day)}
        computed = 0
        for deal_no in range(daily.DAILY_DEALS):
            if deal_no in known:
                continue
            started = time.perf_counter()
            par = await daily.play_par(secret, deal_no, self.decide)
            await self.db.daily.store_par(day, par, int(time.time()))
            computed += 1
            log.info("daily par %s deal %d: %+d (%.1f s)", day, deal_no, par.points, time.perf_counter() - started)
        return computed


def _log_failure(day: str, job: asyncio.Task[int]) -> None:
    if not job.cancelled() and (error := job.exception()) is not None:
        log.error("computing the daily par of %s failed; asked for again at the next look", day, exc_info=error)
