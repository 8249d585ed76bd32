"""The bot's AI worker: decisions come from separate processes; any failure of one falls back to greedy, and an
overrun or a dead worker ends only that worker.

Faults are injected with the test-only search in ``tests/bot/ai_worker_faults.py`` (the player name picks the
fault). The ``hold:`` player reports its pid to a local server and waits for the test's word, so a test knows
that a search is running, and in which process, without sleeping.
"""

from __future__ import annotations

import asyncio
import os
import signal
from types import TracebackType

import pytest

import bot.ai_worker
from bot.ai_worker import AiWorker
from bot.game.ai import AiPlayers
from engine import STANDARD, apply_unchecked, deal_hands, legal_actions, new_deal, view_for
from engine.ai import choose_action
from tests.bot.ai_worker_faults import SEARCH, not_greedy

GUARD = 60  # seconds: only so that a broken test fails instead of hanging; never a claim about speed
CAP = 60_000  # a hard cap no healthy decision reaches


def _position():  # type: ignore[no-untyped-def]
    state = new_deal(STANDARD, 0, deal_hands(21, 0))
    while state.phase != "play" or len(legal_actions(state)) < 2:
        state, _ = apply_unchecked(state, state.to_act, legal_actions(state)[0])
    return state


def _view():  # type: ignore[no-untyped-def]
    state = _position()
    return view_for(state, state.to_act)


async def _kill(pid: int) -> None:
    """SIGKILL the process and wait until it has ended (not reaped: that stays with its parent)."""
    ended = os.pidfd_open(pid)
    try:
        os.kill(pid, signal.SIGKILL)
        loop = asyncio.get_running_loop()
        readable = loop.create_future()
        loop.add_reader(ended, readable.set_result, None)
        try:
            await asyncio.wait_for(readable, GUARD)
        finally:
            loop.remove_reader(ended)
    finally:
        os.close(ended)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


class Holds:
    """Where ``hold:`` searches report: ``held()`` gives the pid of the worker holding one, ``release`` ends it."""

    async def __aenter__(self) -> Holds:
        self._arrivals: asyncio.Queue[tuple[int, asyncio.StreamWriter]] = asyncio.Queue()
        self._lines: list[asyncio.StreamWriter] = []
        self._server = await asyncio.start_server(self._arrived, "127.0.0.1", 0)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.player = f"hold:{host}:{port}"
        return self

    async def _arrived(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._lines.append(writer)
        await self._arrivals.put((int(await reader.readline()), writer))

    async def held(self) -> tuple[int, asyncio.StreamWriter]:
        return await asyncio.wait_for(self._arrivals.get(), GUARD)

    @staticmethod
    async def release(line: asyncio.StreamWriter) -> None:
        line.write(b"go")
        await line.drain()

    async def __aexit__(
        self, kind: type | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        for line in self._lines:
            line.close()
        self._server.close()


async def test_decision_comes_from_the_worker_process_and_matches_in_process() -> None:
    view = _view()
    worker = AiWorker()
    try:
        action = await worker.decide(view, "pimc", seed=4, budget_ms=20, hard_cap_ms=30_000)
        assert action == choose_action(view, "pimc", 4, 20)
        assert worker.fallbacks == 0
        pids = worker.worker_pids()
        assert pids and os.getpid() not in pids
    finally:
        await worker.close()


async def test_start_warms_every_worker_before_any_decision() -> None:
    worker = AiWorker(workers=2)
    try:
        await worker.start()
        pids = worker.worker_pids()
        assert len(pids) == 2 and not any(_gone(pid) for pid in pids)
        await worker.start()  # nothing missing: nothing new
        assert worker.worker_pids() == pids
        action = await worker.decide(_view(), "pimc", seed=4, budget_ms=20, hard_cap_ms=CAP)
        assert action == choose_action(_view(), "pimc", 4, 20)
        assert worker.worker_pids() == pids and worker.fallbacks == 0
    finally:
        await worker.close()


async def test_a_decision_before_any_worker_is_up_falls_back_to_greedy() -> None:
    view = _view()
    worker = AiWorker()
    try:
        # 1 ms is too little to start a worker process: greedy answers, and the workers still come up.
        action = await worker.decide(view, "pimc", seed=1, budget_ms=60_000, hard_cap_ms=1)
        assert action == choose_action(view, "greedy")
        assert worker.fallbacks == 1
        again = await worker.decide(view, "pimc", seed=1, budget_ms=10, hard_cap_ms=CAP)
        assert again == choose_action(view, "pimc", 1, 10) and worker.fallbacks == 1
    finally:
        await worker.close()


async def test_an_overrun_ends_only_its_own_worker_and_a_concurrent_search_completes() -> None:
    view = _view()
    worker = AiWorker(workers=2, search=SEARCH)
    try:
        await worker.start()
        async with Holds() as holds:
            healthy = asyncio.create_task(
                worker.decide(view, holds.player, seed=5, budget_ms=20, hard_cap_ms=CAP)
            )
            busy_pid, line = await holds.held()  # the healthy search is running in busy_pid
            [overrun_pid] = [pid for pid in worker.worker_pids() if pid != busy_pid]
            stuck = await worker.decide(view, "overrun", seed=6, budget_ms=20, hard_cap_ms=300)
            assert stuck == choose_action(view, "greedy")
            assert worker.fallbacks == 1
            assert busy_pid in worker.worker_pids() and overrun_pid not in worker.worker_pids()
            await holds.release(line)
            assert await healthy == not_greedy(view)  # the search's own answer, not a fallback
        assert worker.fallbacks == 1
        # The overrun worker was replaced: the next decision is a search again.
        again = await worker.decide(view, "contrary", seed=7, budget_ms=10, hard_cap_ms=CAP)
        assert again == not_greedy(view) and worker.fallbacks == 1
        await worker.settled()  # the overrun worker is reaped in the background
        assert _gone(overrun_pid)
    finally:
        await worker.close()


@pytest.mark.parametrize("fault", ["raise", "unpicklable", "illegal", "exit", "sigkill"])
async def test_any_worker_failure_falls_back_to_greedy_and_the_next_decision_is_searched(fault: str) -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH)
    try:
        await worker.start()
        action = await worker.decide(view, fault, seed=8, budget_ms=20, hard_cap_ms=CAP)
        assert action == choose_action(view, "greedy")
        assert worker.fallbacks == 1
        again = await worker.decide(view, "contrary", seed=8, budget_ms=10, hard_cap_ms=CAP)
        assert again == not_greedy(view) and worker.fallbacks == 1
    finally:
        await worker.close()


async def test_a_worker_killed_mid_search_falls_back_to_greedy_and_is_replaced() -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH)
    try:
        await worker.start()
        async with Holds() as holds:
            deciding = asyncio.create_task(
                worker.decide(view, holds.player, seed=2, budget_ms=5, hard_cap_ms=CAP)
            )
            pid, _ = await holds.held()
            assert worker.worker_pids() == [pid]  # what a fault-injection harness kills
            os.kill(pid, signal.SIGKILL)
            assert await deciding == choose_action(view, "greedy")
        assert worker.fallbacks == 1
        again = await worker.decide(view, "contrary", seed=2, budget_ms=5, hard_cap_ms=CAP)
        assert again == not_greedy(view) and worker.fallbacks == 1
        await worker.settled()
        assert pid not in worker.worker_pids() and _gone(pid)
    finally:
        await worker.close()


async def test_a_worker_that_died_while_idle_is_replaced_before_the_decision() -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH)
    try:
        await worker.start()
        [pid] = worker.worker_pids()
        await _kill(pid)
        action = await worker.decide(view, "contrary", seed=2, budget_ms=5, hard_cap_ms=CAP)
        assert action == not_greedy(view) and worker.fallbacks == 0
        await worker.settled()
        assert pid not in worker.worker_pids() and _gone(pid)
    finally:
        await worker.close()


async def test_a_busy_worker_answers_greedy_without_dropping_the_running_search() -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH)
    try:
        await worker.start()
        async with Holds() as holds:
            running = asyncio.create_task(
                worker.decide(view, holds.player, seed=3, budget_ms=5, hard_cap_ms=CAP)
            )
            pid, line = await holds.held()
            busy = await worker.decide(view, "pimc", seed=9, budget_ms=400, hard_cap_ms=50)
            assert busy == choose_action(view, "greedy")
            assert worker.fallbacks == 1
            await holds.release(line)
            assert await running == not_greedy(view)  # finished by the search, not replaced
        assert worker.fallbacks == 1 and worker.worker_pids() == [pid]
    finally:
        await worker.close()


async def test_a_cancelled_decision_leaves_its_worker_usable() -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH)
    try:
        await worker.start()
        async with Holds() as holds:
            deciding = asyncio.create_task(
                worker.decide(view, holds.player, seed=3, budget_ms=5, hard_cap_ms=CAP)
            )
            pid, line = await holds.held()
            deciding.cancel()
            with pytest.raises(asyncio.CancelledError):
                await deciding
            await holds.release(line)  # the abandoned search's answer is read and dropped
            action = await worker.decide(view, "contrary", seed=3, budget_ms=5, hard_cap_ms=CAP)
        assert action == not_greedy(view)
        assert worker.worker_pids() == [pid] and worker.fallbacks == 0
    finally:
        await worker.close()


async def test_close_is_idempotent_and_leaves_no_child_process() -> None:
    view = _view()
    worker = AiWorker(workers=2, search=SEARCH)
    await worker.start()
    pids = worker.worker_pids()
    async with Holds() as holds:
        stuck = asyncio.create_task(worker.decide(view, holds.player, seed=1, budget_ms=5, hard_cap_ms=CAP))
        await holds.held()
        await worker.close()
        assert await stuck == choose_action(view, "greedy")  # a search cut short by closing still answers
    await worker.close()
    assert worker.worker_pids() == []
    assert all(_gone(pid) for pid in pids)
    # Closed: greedy answers, nothing is started again.
    assert await worker.decide(view, "pimc", seed=1, budget_ms=5, hard_cap_ms=CAP) == choose_action(
        view, "greedy"
    )
    assert worker.worker_pids() == []


async def test_when_greedy_fails_too_a_legal_action_is_played(monkeypatch: pytest.MonkeyPatch) -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH)

    def broken(*args: object) -> None:
        raise RuntimeError("greedy is broken")

    try:
        await worker.start()
        monkeypatch.setattr(bot.ai_worker, "choose_action", broken)  # the parent's greedy only
        assert await worker.decide(view, "raise", seed=1, budget_ms=5, hard_cap_ms=CAP) in view.legal
        assert await worker.decide(view, "greedy", seed=1, budget_ms=5, hard_cap_ms=CAP) in view.legal
    finally:
        await worker.close()


async def test_ai_players_start_decide_and_close_never_raise() -> None:
    view = _view()
    players = AiPlayers(budget_ms=5, hard_cap_ms=CAP, worker=AiWorker(workers=1, search=SEARCH))
    await players.start()
    assert await players.decide(view, "raise", seed=1) == choose_action(view, "greedy")
    assert await players.decide(view, "contrary", seed=1) == not_greedy(view)
    await players.close()
    await players.close()
