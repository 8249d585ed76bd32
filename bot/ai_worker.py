"""Runs AI decisions off the event loop: the search in a separate worker process, greedy as the fallback.

The bot awaits ``AiWorker.decide``; the event loop never waits on a search. A decision that overruns its hard
cap, or a worker that dies, is answered by ``greedy`` (computed in a thread) and the worker is replaced.
This module may import the engine but never discord.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine import Action, PlayerView, Ruleset
from engine.ai import choose_action

log = logging.getLogger(__name__)


def _decide_in_worker(
    view: PlayerView, player: str, seed: int, budget_ms: int, rules: Ruleset | None
) -> Action:
    return choose_action(view, player, seed, budget_ms, rules)


def _greedy(view: PlayerView, rules: Ruleset | None) -> Action:
    return choose_action(view, "greedy", 0, 0, rules)


class AiWorker:
    """Worker processes for AI searches (spawned lazily, replaced after an overrun or a crash).

    Each worker takes one decision at a time and nothing queues inside the pool: a decision waits for a free
    worker within its hard cap, so many tables at once degrade to greedy answers instead of a growing queue
    of searches that would all time out.
    """

    def __init__(self, start_method: str = "spawn", workers: int | None = None) -> None:
        self._context = multiprocessing.get_context(start_method)
        self._pool: ProcessPoolExecutor | None = None
        self.workers = workers or max(1, min(2, os.cpu_count() or 1))
        self._free = asyncio.Semaphore(self.workers)
        self.fallbacks = 0  # decisions answered by greedy (for logs and tests)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self._context)
        return self._pool

    async def decide(
        self,
        view: PlayerView,
        player: str = "pimc",
        seed: int = 0,
        budget_ms: int = 150,
        hard_cap_ms: int = 2000,
        rules: Ruleset | None = None,
    ) -> Action:
        """The AI's action for the view's seat; greedy's when the search fails or passes ``hard_cap_ms``."""
        if player == "greedy" or len(view.legal) == 1:
            return await asyncio.to_thread(choose_action, view, player, seed, budget_ms, rules)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + hard_cap_ms / 1000
        try:
            await asyncio.wait_for(self._free.acquire(), hard_cap_ms / 1000)
        except TimeoutError:  # every worker is busy: a quick answer now beats a strong one too late
            log.info("AI workers busy; greedy answers")
            self.fallbacks += 1
            return await asyncio.to_thread(_greedy, view, rules)
        try:
            future = loop.run_in_executor(
                self._executor(), _decide_in_worker, view, player, seed, budget_ms, rules
            )
            return await asyncio.wait_for(future, max(deadline - loop.time(), 0.001))
        except (TimeoutError, BrokenProcessPool, OSError) as err:
            log.warning("AI %s fell back to greedy: %r", player, err)
            self._discard_worker()
            self.fallbacks += 1
            return await asyncio.to_thread(_greedy, view, rules)
        finally:
            self._free.release()

    def _discard_worker(self) -> None:
        """Stop a stuck or dead worker without waiting for it; the next decision starts a fresh one."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(getattr(pool, "_processes", {}).values()):
            if process.is_alive():
                process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
