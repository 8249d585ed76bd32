"""The bot's AI worker: decisions come from separate processes through one queue; any failure of a search falls
back to greedy, and an overrun or a dead worker ends only that worker.

Faults are injected with the test-only search in ``tests/bot/ai_worker_faults.py`` (the player name picks the
fault). The ``hold:`` player reports its pid, seed and budget to a local server and waits for the test's word,
so a test knows that a search is running, which one, in which process and with what budget, without sleeping.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import pytest

import bot.ai_worker
from bot.ai_worker import AiWorker, Priority, usable_cores
from bot.game.ai import AiPlayers
from engine import STANDARD, apply_unchecked, deal_hands, legal_actions, new_deal, view_for
from engine.ai import choose_action
from tests.bot.ai_worker_faults import EVALUATE, GATED, SEARCH, START_GATE, not_greedy

GUARD = 60  # seconds: only so that a broken test fails instead of hanging; never a claim about speed
CAP = 60_000  # a hard cap no healthy decision reaches
# A test that asserts a decision is searched while its worker (or a replacement) is still starting waits for
# the start as long as it takes: on a loaded machine a start may take longer than the product's WORKER_WAIT.
PATIENT = GUARD


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

        def wake() -> None:  # the pidfd stays readable: the reader may run again before it is removed
            if not readable.done():
                readable.set_result(None)

        loop.add_reader(ended, wake)
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


@dataclass(frozen=True)
class Held:
    """A ``hold:`` search that has started: in which worker, for which seed, with what budget."""

    pid: int
    seed: int
    budget_ms: int
    line: asyncio.StreamWriter


class Holds:
    """Where ``hold:`` searches report: ``held()`` gives the next one that started, ``release`` ends it."""

    async def __aenter__(self) -> Holds:
        self._arrivals: asyncio.Queue[Held] = asyncio.Queue()
        self._lines: list[asyncio.StreamWriter] = []
        self._server = await asyncio.start_server(self._arrived, "127.0.0.1", 0)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.player = f"hold:{host}:{port}"
        return self

    async def _arrived(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._lines.append(writer)
        pid, seed, budget = (int(word) for word in (await reader.readline()).split())
        await self._arrivals.put(Held(pid, seed, budget, writer))

    async def held(self) -> Held:
        return await asyncio.wait_for(self._arrivals.get(), GUARD)

    @staticmethod
    async def release(held: Held) -> None:
        held.line.write(b"go")
        await held.line.drain()

    async def __aexit__(
        self, kind: type | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        for line in self._lines:
            line.close()
        self._server.close()


async def test_decision_comes_from_the_worker_process_and_matches_in_process() -> None:
    view = _view()
    worker = AiWorker(worker_wait=PATIENT)
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


async def test_a_decision_before_any_worker_is_up_waits_for_one_and_is_searched() -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH, worker_wait=PATIENT)
    try:
        # The hard cap (1 s) counts from the search's start: starting the worker process first does not eat it.
        action = await worker.decide(view, "contrary", seed=1, budget_ms=10, hard_cap_ms=1000)
        assert action == not_greedy(view) and worker.fallbacks == 0
    finally:
        await worker.close()


async def test_when_no_worker_can_start_a_decision_gets_greedy_at_once() -> None:
    view = _view()
    worker = AiWorker(
        workers=1, search="tests.bot.no_such_module:search", first_retry_seconds=GUARD, retry_seconds=GUARD
    )
    try:
        assert await worker.decide(view, "pimc", seed=1, budget_ms=10, hard_cap_ms=CAP) == choose_action(
            view, "greedy"
        )
        # Until the retry is due nothing is started, and a decision does not wait for a worker.
        assert await worker.decide(view, "pimc", seed=1, budget_ms=10, hard_cap_ms=CAP) == choose_action(
            view, "greedy"
        )
        assert worker.fallbacks == 2 and worker.worker_pids() == []
    finally:
        await worker.close()


async def test_an_overrun_ends_only_its_own_worker_and_a_concurrent_search_completes() -> None:
    view = _view()
    worker = AiWorker(workers=2, search=SEARCH, worker_wait=PATIENT)
    try:
        await worker.start()
        async with Holds() as holds:
            healthy = asyncio.create_task(
                worker.decide(view, holds.player, seed=5, budget_ms=20, hard_cap_ms=CAP)
            )
            running = await holds.held()  # the healthy search is running in running.pid
            busy_pid = running.pid
            [overrun_pid] = [pid for pid in worker.worker_pids() if pid != busy_pid]
            stuck = await worker.decide(view, "overrun", seed=6, budget_ms=20, hard_cap_ms=300)
            assert stuck == choose_action(view, "greedy")
            assert worker.fallbacks == 1
            assert busy_pid in worker.worker_pids() and overrun_pid not in worker.worker_pids()
            await holds.release(running)
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
    worker = AiWorker(workers=1, search=SEARCH, worker_wait=PATIENT)
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
    worker = AiWorker(workers=1, search=SEARCH, worker_wait=PATIENT)
    try:
        await worker.start()
        async with Holds() as holds:
            deciding = asyncio.create_task(
                worker.decide(view, holds.player, seed=2, budget_ms=5, hard_cap_ms=CAP)
            )
            pid = (await holds.held()).pid
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
    worker = AiWorker(workers=1, search=SEARCH, worker_wait=PATIENT)
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


class StartGate:
    """Where a ``GATED`` worker's start asks whether it may go on (tests/bot/ai_worker_start_gate.py): each goes
    on, except the next ``dying`` ones, killed before they are ready, and, once ``holding``, those after them,
    which wait starting until ``open``."""

    async def __aenter__(self) -> StartGate:
        self.dying = 0
        self.holding = False
        self.asked = 0  # starts that reached the gate
        self._held: list[asyncio.StreamWriter] = []
        self._changed = asyncio.Condition()
        self._server = await asyncio.start_server(self._arrived, "127.0.0.1", 0)
        host, port = self._server.sockets[0].getsockname()[:2]
        self.address = f"{host}:{port}"
        return self

    async def _arrived(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()  # the starting worker's pid
        self.asked += 1
        if self.dying:
            self.dying -= 1
            writer.write(b"die\n")
        elif self.holding:
            async with self._changed:
                self._held.append(writer)
                self._changed.notify_all()
            return
        else:
            writer.write(b"go\n")
        await writer.drain()
        writer.close()

    async def held(self, count: int) -> None:
        """Wait until ``count`` starts are held at the gate."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: len(self._held) >= count), GUARD)

    async def open(self) -> None:
        """Every held start goes on, and so does every later one."""
        self.holding = False
        held, self._held = self._held, []
        for writer in held:
            writer.write(b"go\n")
            await writer.drain()
            writer.close()

    async def __aexit__(
        self, kind: type | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        for writer in self._held:
            writer.close()
        self._server.close()


async def test_when_every_worker_is_killed_and_the_replacements_die_starting_tables_still_get_moves_and_the_pool_recovers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The short chaos run's stall: both workers were killed, a replacement was killed while it started
    (EOFError), and until a decision came along after the retry pause nothing started a worker again; the
    decision already queued waited with no worker at all, and its table with it, for 76 s."""
    view = _view()
    caplog.set_level(logging.WARNING, logger="bot.ai_worker")
    async with StartGate() as gate:
        monkeypatch.setenv(START_GATE, gate.address)  # the spawned workers inherit it
        worker = AiWorker(
            workers=2, search=GATED, first_retry_seconds=0.05, retry_seconds=GUARD, worker_wait=0.2
        )
        try:
            await worker.start()
            killed = worker.worker_pids()
            assert len(killed) == 2 and gate.asked == 2
            gate.dying, gate.holding = 3, True  # the next three starts are killed, the ones after them held
            for pid in killed:
                await _kill(pid)
            # The next move: both idle workers are found dead, both replacements die starting. The move gets
            # greedy's answer, not a wait for a worker nobody starts.
            assert await asyncio.wait_for(
                worker.decide(view, "contrary", seed=1, budget_ms=5, hard_cap_ms=CAP), GUARD
            ) == choose_action(view, "greedy")
            # With no decision asking, the failed starts are tried again after a pause that doubles each time,
            # until two starts are under way again (after the first two: 3 killed + 2 held at the gate).
            await gate.held(2)
            assert gate.asked == 2 + 5
            failures = [r for r in caplog.records if r.getMessage().startswith("AI worker could not start")]
            assert [r.levelno for r in failures] == [logging.ERROR] * 3
            pauses = [r.getMessage().rsplit("retrying in ", 1)[1] for r in failures]
            assert pauses == ["0.05 s", "0.1 s", "0.2 s"]
            # A move while every worker is still starting is answered by greedy once it waited `worker_wait`
            # (nothing else could answer it: the gate holds both starts).
            assert await asyncio.wait_for(
                worker.decide(view, "contrary", seed=2, budget_ms=5, hard_cap_ms=CAP), GUARD
            ) == choose_action(view, "greedy")
            assert worker.fallbacks == 2
            assert "no AI worker was ready within 0.2 s (2 starting, 2 wanted)" in caplog.text
            # The starts go on: the pool is back to its size, two searches run at once in two new processes.
            await gate.open()
            worker.worker_wait = PATIENT  # from here on the new workers answer, however slowly they start
            async with Holds() as holds:
                searches = [
                    asyncio.create_task(
                        worker.decide(view, holds.player, seed=seed, budget_ms=5, hard_cap_ms=CAP)
                    )
                    for seed in (3, 4)
                ]
                running = [await holds.held(), await holds.held()]
                pids = {held.pid for held in running}
                assert len(pids) == 2 and sorted(pids) == worker.worker_pids()
                assert not pids & set(killed)
                for held in running:
                    await holds.release(held)
                assert await asyncio.gather(*searches) == [not_greedy(view)] * 2
            assert worker.fallbacks == 2
        finally:
            await worker.close()


async def test_a_decision_finding_the_last_worker_dead_in_the_pause_after_a_failed_start_gets_greedy_at_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The chaos run's sequence exactly: of the two replacements of killed workers one dies starting (a long
    pause before the next start), the other serves a move and is killed too. The next move finds it dead and no
    worker may start: it must not wait in a queue nobody serves (it did, 76 s, until the bot restarted)."""
    view = _view()
    caplog.set_level(logging.WARNING, logger="bot.ai_worker")
    async with StartGate() as gate:
        monkeypatch.setenv(START_GATE, gate.address)
        # Patient: only the fix under test, not the wait for a starting worker, may answer the move.
        worker = AiWorker(workers=2, search=GATED, first_retry_seconds=GUARD, worker_wait=PATIENT)
        try:
            await worker.start()
            for pid in worker.worker_pids():
                await _kill(pid)
            gate.dying = 1
            served = await worker.decide(view, "contrary", seed=1, budget_ms=5, hard_cap_ms=CAP)
            assert served == not_greedy(view) and gate.asked == 4  # one replacement died, one searched
            # The dying replacement's start has ended (its process may outlive the search by a moment).
            await asyncio.gather(*worker._starting, return_exceptions=True)
            [last] = worker.worker_pids()
            await _kill(last)
            assert await asyncio.wait_for(
                worker.decide(view, "contrary", seed=2, budget_ms=5, hard_cap_ms=CAP), GUARD
            ) == choose_action(view, "greedy")
            assert worker.worker_pids() == [] and worker.fallbacks == 1
            assert "no AI worker is running (the last start failed; retried shortly)" in caplog.text
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
            held = await holds.held()
            deciding.cancel()
            with pytest.raises(asyncio.CancelledError):
                await deciding
            await holds.release(held)  # the abandoned search's answer is read and dropped
            action = await worker.decide(view, "contrary", seed=3, budget_ms=5, hard_cap_ms=CAP)
        assert action == not_greedy(view)
        assert worker.worker_pids() == [held.pid] and worker.fallbacks == 0
    finally:
        await worker.close()


async def test_close_is_idempotent_and_leaves_no_child_process(caplog: pytest.LogCaptureFixture) -> None:
    view = _view()
    worker = AiWorker(workers=3, search=SEARCH)
    await worker.start()
    pids = worker.worker_pids()
    async with Holds() as holds:
        stuck = asyncio.create_task(worker.decide(view, holds.player, seed=1, budget_ms=5, hard_cap_ms=CAP))
        await holds.held()
        await worker.close()
        # Every worker, idle or busy, stopped when told to: none had to be killed.
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
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


# --- the queue ----------------------------------------------------------------------------------------------


class FakeClock:
    """The time the AI queue measures waits by, moved on by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _queued(worker: AiWorker, count: int) -> None:
    """Let the tasks just created run up to their wait in the queue (event-loop turns, no timed sleep)."""
    for _ in range(1000):
        if worker.waiting() == count:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{worker.waiting()} searches queued, not {count}")


async def test_table_moves_go_before_coach_work_and_each_priority_is_first_come_first_served() -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH, evaluate=EVALUATE)
    try:
        await worker.start()
        async with Holds() as holds:
            first = asyncio.create_task(worker.decide(view, holds.player, seed=1, hard_cap_ms=CAP))
            occupying = await holds.held()

            def review(seed: int) -> asyncio.Task[object]:
                return asyncio.create_task(
                    worker.evaluate(
                        view, seed, hard_cap_ms=CAP, priority=Priority.BACKGROUND, player=holds.player
                    )
                )

            def move(seed: int) -> asyncio.Task[object]:
                return asyncio.create_task(worker.decide(view, holds.player, seed=seed, hard_cap_ms=CAP))

            def hint(seed: int) -> asyncio.Task[object]:
                return asyncio.create_task(worker.evaluate(view, seed, hard_cap_ms=CAP, player=holds.player))

            waiting = [review(11), move(21), review(12), hint(22), move(23)]
            await _queued(worker, 5)
            await holds.release(occupying)
            order = []
            for _ in waiting:
                started = await holds.held()
                order.append(started.seed)
                await holds.release(started)
            assert order == [21, 22, 23, 11, 12]
            await asyncio.gather(first, *waiting)
        assert worker.fallbacks == 0
    finally:
        await worker.close()


async def test_reviews_never_take_the_last_free_worker() -> None:
    view = _view()
    worker = AiWorker(workers=2, search=SEARCH, evaluate=EVALUATE)
    try:
        await worker.start()
        async with Holds() as holds:
            reviews = [
                asyncio.create_task(
                    worker.evaluate(
                        view, seed, hard_cap_ms=CAP, priority=Priority.BACKGROUND, player=holds.player
                    )
                )
                for seed in (1, 2)
            ]
            running = await holds.held()
            await _queued(worker, 1)  # the second review waits although a worker is free ...
            # ... which a table's move then gets at once.
            assert await worker.decide(view, "contrary", seed=3, hard_cap_ms=CAP) == not_greedy(view)
            await holds.release(running)
            await holds.release(await holds.held())
            await asyncio.gather(*reviews)
    finally:
        await worker.close()


async def test_a_cancelled_decision_leaves_the_queue() -> None:
    view = _view()
    worker = AiWorker(workers=1, search=SEARCH)
    try:
        await worker.start()
        async with Holds() as holds:
            first = asyncio.create_task(worker.decide(view, holds.player, seed=1, hard_cap_ms=CAP))
            occupying = await holds.held()
            abandoned = asyncio.create_task(worker.decide(view, holds.player, seed=2, hard_cap_ms=CAP))
            await _queued(worker, 1)
            abandoned.cancel()
            with pytest.raises(asyncio.CancelledError):
                await abandoned
            assert worker.waiting() == 0
            after = asyncio.create_task(worker.decide(view, holds.player, seed=3, hard_cap_ms=CAP))
            await holds.release(occupying)
            started = await holds.held()
            assert started.seed == 3  # the cancelled decision never ran
            await holds.release(started)
            assert await after == not_greedy(view) and await first == not_greedy(view)
    finally:
        await worker.close()


async def test_a_search_cap_counts_from_its_start_so_a_decision_queued_behind_a_long_one_is_searched() -> (
    None
):
    view = _view()
    # No budget cut for the wait: this test is about the cap alone.
    worker = AiWorker(workers=1, search=SEARCH, overload_wait=GUARD, worker_wait=PATIENT)
    try:
        await worker.start()
        async with Holds() as holds:
            # The only worker is held until its 1.5 s cap, then terminated and replaced ...
            long = asyncio.create_task(worker.decide(view, "overrun", seed=1, hard_cap_ms=1500))
            # ... and this decision, with a 1 s cap, waits all that time in the queue.
            queued = asyncio.create_task(
                worker.decide(view, holds.player, seed=2, budget_ms=150, hard_cap_ms=1000)
            )
            await _queued(worker, 1)
            assert await long == choose_action(view, "greedy")
            started = await holds.held()
            assert started.budget_ms == 150  # its full search
            await holds.release(started)
            assert await queued == not_greedy(view)
        assert worker.fallbacks == 1  # the overrun only
    finally:
        await worker.close()


async def test_overload_lowers_a_decisions_budget_never_below_the_floor_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    view = _view()
    clock = FakeClock()
    worker = AiWorker(
        workers=1,
        search=SEARCH,
        evaluate=EVALUATE,
        overload_wait=1.0,
        budget_floor=0.2,
        warning_interval=600.0,
        clock=clock,
    )
    caplog.set_level(logging.WARNING, logger="bot.ai_worker")

    def floor_warnings() -> list[str]:
        return [r.getMessage() for r in caplog.records if "floor" in r.getMessage()]

    try:
        await worker.start()
        async with Holds() as holds:

            async def behind(running: Held, wait: float, **kind: object) -> tuple[asyncio.Task[Any], Held]:
                """A request queued behind ``running`` that waits ``wait`` seconds (by the queue's clock)."""
                task: asyncio.Task[Any]
                if kind.get("evaluation"):
                    task = asyncio.create_task(
                        worker.evaluate(view, 9, budget_ms=100, hard_cap_ms=CAP, player=holds.player)
                    )
                else:
                    task = asyncio.create_task(
                        worker.decide(view, holds.player, seed=9, budget_ms=100, hard_cap_ms=CAP)
                    )
                await _queued(worker, 1)
                clock.now += wait
                await holds.release(running)
                return task, await holds.held()

            first = asyncio.create_task(
                worker.decide(view, holds.player, seed=1, budget_ms=100, hard_cap_ms=CAP)
            )
            running = await holds.held()
            assert running.budget_ms == 100
            tasks: list[asyncio.Task[Any]] = [first]
            # Within the overload wait: the full budget.
            task, running = await behind(running, 0.9)
            tasks.append(task)
            assert running.budget_ms == 100
            # Twice the overload wait: half the budget; no floor reached, nothing logged.
            task, running = await behind(running, 2.0)
            tasks.append(task)
            assert running.budget_ms == 50 and floor_warnings() == []
            # Far beyond: the floor (a fifth), logged at WARNING.
            task, running = await behind(running, 100.0)
            tasks.append(task)
            assert running.budget_ms == 20
            [warning] = floor_warnings()
            assert "waited 100.0 s" in warning and "20 ms instead of 100 ms" in warning
            # A second floor hit within the warning interval is counted, not logged ...
            task, running = await behind(running, 100.0)
            tasks.append(task)
            assert running.budget_ms == 20 and len(floor_warnings()) == 1
            # ... and mentioned by the next warning once the interval has passed.
            task, running = await behind(running, 600.0)
            tasks.append(task)
            assert running.budget_ms == 20 and len(floor_warnings()) == 2
            assert "1 times more" in floor_warnings()[-1]
            # An evaluation (the coach's values) is never cut down, however long it waited.
            task, running = await behind(running, 100.0, evaluation=True)
            tasks.append(task)
            assert running.budget_ms == 100
            await holds.release(running)
            await asyncio.gather(*tasks)
        assert worker.reduced == 4 and worker.floor_hits == 3 and worker.fallbacks == 0
        assert all(r.levelno == logging.WARNING for r in caplog.records if "floor" in r.getMessage())
    finally:
        await worker.close()


async def test_a_deep_queue_is_logged_at_warning_once_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    view = _view()
    clock = FakeClock()
    worker = AiWorker(workers=1, search=SEARCH, queue_warning=3, warning_interval=60.0, clock=clock)
    caplog.set_level(logging.WARNING, logger="bot.ai_worker")

    def depth_warnings() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.getMessage().startswith("AI queue:")]

    try:
        await worker.start()
        async with Holds() as holds:
            first = asyncio.create_task(worker.decide(view, holds.player, seed=1, hard_cap_ms=CAP))
            occupying = await holds.held()
            waiting = [
                asyncio.create_task(worker.decide(view, "contrary", seed=s, hard_cap_ms=CAP)) for s in (2, 3)
            ]
            await _queued(worker, 2)
            assert depth_warnings() == []
            clock.now += 5
            waiting.append(asyncio.create_task(worker.decide(view, "contrary", seed=4, hard_cap_ms=CAP)))
            await _queued(worker, 3)
            [warning] = depth_warnings()
            assert warning.levelno == logging.WARNING
            assert warning.getMessage().startswith(
                "AI queue: 3 searches waiting (3 for tables or hints) for 1 workers"
            )
            assert "oldest has waited 5.0 s" in warning.getMessage()
            waiting.append(asyncio.create_task(worker.decide(view, "contrary", seed=5, hard_cap_ms=CAP)))
            await _queued(worker, 4)
            assert len(depth_warnings()) == 1  # within the interval: not again
            await holds.release(occupying)
            assert await asyncio.gather(first, *waiting) == [not_greedy(view)] * 5
    finally:
        await worker.close()


HOG = """
import sys, time
sys.stdout.write("busy\\n")
sys.stdout.flush()
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    pass
"""


async def test_a_decision_under_a_cpu_hog_gives_the_same_action_as_on_a_quiet_machine() -> None:
    view = _view()
    cores = os.sched_getaffinity(0)  # the AI workers inherit this CPU set
    worker = AiWorker(workers=usable_cores())
    hogs: list[subprocess.Popen[bytes]] = []
    try:
        await worker.start()
        quiet = await worker.decide(view, "pimc", seed=11, budget_ms=40, hard_cap_ms=CAP)
        for _ in cores:  # one busy process for every core of the set, each allowed only on that set
            hog = subprocess.Popen(
                [sys.executable, "-c", HOG, str(GUARD)],
                stdout=subprocess.PIPE,
                preexec_fn=lambda: os.sched_setaffinity(0, cores),
            )
            hogs.append(hog)
            assert hog.stdout is not None
            assert await asyncio.wait_for(asyncio.to_thread(hog.stdout.readline), GUARD) == b"busy\n"
        loaded = await worker.decide(view, "pimc", seed=11, budget_ms=40, hard_cap_ms=CAP)
        assert all(hog.poll() is None for hog in hogs), "a hog ended before the decision was made"
        assert loaded == quiet == choose_action(view, "pimc", 11, 40)
        assert worker.fallbacks == 0
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
        await worker.close()
