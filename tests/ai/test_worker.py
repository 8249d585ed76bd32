"""The bot's AI worker: decisions come from a separate process; overruns and crashes fall back to greedy."""

from __future__ import annotations

import asyncio
import os

from bot.ai_worker import AiWorker
from engine import STANDARD, apply_unchecked, deal_hands, legal_actions, new_deal, view_for
from engine.ai import choose_action


def _position():  # type: ignore[no-untyped-def]
    state = new_deal(STANDARD, 0, deal_hands(21, 0))
    while state.phase != "play" or len(legal_actions(state)) < 2:
        state, _ = apply_unchecked(state, state.to_act, legal_actions(state)[0])
    return state


async def test_decision_comes_from_the_worker_process_and_matches_in_process() -> None:
    state = _position()
    view = view_for(state, state.to_act)
    worker = AiWorker()
    try:
        action = await worker.decide(view, "pimc", seed=4, budget_ms=20, hard_cap_ms=30_000)
        assert action == choose_action(view, "pimc", 4, 20)
        assert worker.fallbacks == 0
        pids = [p.pid for p in worker._executor()._processes.values()]  # type: ignore[attr-defined]
        assert pids and os.getpid() not in pids
    finally:
        await worker.close()


async def test_overrunning_the_hard_cap_falls_back_to_greedy() -> None:
    state = _position()
    view = view_for(state, state.to_act)
    worker = AiWorker()
    try:
        # A huge budget cannot finish within 1 ms (the worker process is not even started by then).
        action = await worker.decide(view, "pimc", seed=1, budget_ms=60_000, hard_cap_ms=1)
        assert action == choose_action(view, "greedy")
        assert worker.fallbacks == 1
        # The stuck worker was replaced: the next decision works normally.
        again = await worker.decide(view, "pimc", seed=1, budget_ms=10, hard_cap_ms=30_000)
        assert again in view.legal and worker.fallbacks == 1
    finally:
        await worker.close()


async def test_a_dead_worker_falls_back_to_greedy() -> None:
    state = _position()
    view = view_for(state, state.to_act)
    worker = AiWorker()
    try:
        await worker.decide(view, "pimc", seed=2, budget_ms=5, hard_cap_ms=30_000)
        for process in worker._executor()._processes.values():  # type: ignore[attr-defined]
            process.kill()
            process.join()
        action = await worker.decide(view, "pimc", seed=2, budget_ms=5, hard_cap_ms=30_000)
        assert action == choose_action(view, "greedy")
        assert worker.fallbacks == 1
    finally:
        await worker.close()


async def test_a_busy_worker_answers_greedy_without_dropping_the_running_search() -> None:
    state = _position()
    view = view_for(state, state.to_act)
    worker = AiWorker(workers=1)
    try:
        await worker.decide(view, "pimc", seed=3, budget_ms=5, hard_cap_ms=30_000)  # the worker is up
        running = asyncio.create_task(worker.decide(view, "pimc", seed=3, budget_ms=400, hard_cap_ms=30_000))
        await asyncio.sleep(0)  # let it take the only worker
        busy = await worker.decide(view, "pimc", seed=9, budget_ms=400, hard_cap_ms=50)
        assert busy == choose_action(view, "greedy")
        assert worker.fallbacks == 1
        assert await running == choose_action(view, "pimc", 3, 400)  # finished by the search, not replaced
        assert worker.fallbacks == 1
    finally:
        await worker.close()
