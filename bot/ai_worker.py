"""Runs every AI search of the bot off the event loop: one queue, served by worker processes, one per usable core.

Table moves (cards, trump, bids, Kontra), a person's hint and the coach's reviews all go through one priority
queue of ``AiWorker``: work someone waits for (``Priority.URGENT``) before the coach's reviews
(``Priority.BACKGROUND``), first come first served within a priority. It is served by ``workers`` processes at
a time, by default one per core this process may run on, so searches never share a core with each other and
the same view, seed and budget give the same action however long the queue is. A search's hard cap counts from
when its worker starts it, not from when it was queued: waiting behind other searches never turns a search
into greedy's answer. Reviews hold at most all workers but one (when there are two or more), so a table's move
finds a worker after at most one search.

Under real overload (a decision waited more than ``overload_wait`` seconds) the decision searches with a
smaller budget, in proportion to the wait, never below ``BUDGET_FLOOR`` of it; the queue's depth past a
threshold and every search cut to the floor are logged at WARNING, at most once a minute each.

The bot awaits ``AiWorker.decide``; ``decide`` never raises (except ``asyncio.CancelledError``, which takes the
request out of the queue, or lets a running search finish and drops its answer): whatever goes wrong with a
search (an exception in it, a result that cannot be sent back or is not a legal action, a worker that exits or
is killed, the hard cap passed, no worker ready in time or none that can be started, arguments that cannot be
pickled) is answered by ``greedy`` computed in a thread, and if greedy fails too by a random legal action.
Every fallback is logged at WARNING with its reason.

Each worker is a separate process (``multiprocessing`` with the "spawn" start method; its loop and the bot's
handle on it are in ``ai_processes.py``) with a pipe of its own, so a worker that overruns its hard cap is
terminated alone: the searches of other workers go on. A worker that is terminated or dies is replaced at
once in the background. ``start`` brings every worker up (engine imported, one tiny decision made) before the
first table needs one. A failed start (logged at ERROR) is tried again by a timer until the pool has its size
(``first_retry_seconds``, doubling up to ``retry_seconds``). A move or a hint never waits for a worker that may
not come: with no worker left greedy answers at once, and after ``worker_wait`` seconds with none searching.

This module may import the engine but never discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import heapq
import itertools
import logging
import math
import multiprocessing
import pickle
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from bot.ai_processes import WorkerProcess, exit_reason, serve, usable_cores  # usable_cores: re-exported
from engine import Action, PlayerView, Ruleset
from engine.ai import Evaluation, choose_action

log = logging.getLogger(__name__)

ENGINE_SEARCH = "engine.ai:choose_action"  # a decision: (view, player, seed, budget_ms, rules) -> action
ENGINE_EVALUATE = "engine.ai:evaluate_actions"  # the coach's: the same arguments -> (action, evaluations)

# A decision that waited longer than this in the queue is overloaded: it searches with a smaller budget, in
# proportion (twice the wait, half the budget), so that a backlog drains faster the longer it gets. A second
# is about what the table's AI pause (1.2 s by default) hides anyway.
OVERLOAD_WAIT_SECONDS = 1.0
# ... but never with less than this share of its budget. One fifth because issue 25's duplicate match against
# an independent PIMC player (1000 deals) found today's AI at 30 ms (1/5 of the shipped 150 ms) within
# +1.0 game points per 100 deals (95% CI -2.4 ... +4.4) of the full budget: the floor keeps most of the
# strength while a search costs a fifth. To be replaced by the engine's measured floor when there is one.
BUDGET_FLOOR = 0.2
# Searches waiting per worker beyond which the queue's depth is logged at WARNING.
QUEUE_WARNING_PER_WORKER = 8
# Each kind of overload WARNING is logged at most once per this many seconds (with a count of the others).
WARNING_INTERVAL_SECONDS = 60.0
# How long an urgent request waits for a worker while none is searching (every worker starting, or none left)
# before greedy answers it: a started worker is ready in about half a second on a quiet machine, a few on a
# loaded one, and the table's AI pause (1.2 s by default) hides most of this wait.
WORKER_WAIT_SECONDS = 3.0
# The pause after a failed worker start before the next, doubled after each failure in a row up to
# ``retry_seconds``: a worker killed while it started comes back at once, a start that keeps failing (a broken
# install) is not tried again and again.
FIRST_RETRY_SECONDS = 0.25


class Priority(enum.IntEnum):
    """Which work a free worker takes first (lower first)."""

    URGENT = 0  # someone waits for it: a table's move, bid or Kontra, a person's hint
    BACKGROUND = 1  # nobody at a table waits: the coach's reviews (later: the daily deal's par)


class _Fallback(Exception):
    """Why a decision was not answered by the search (the message is logged)."""


class AnalysisFailed(Exception):
    """An evaluation (``AiWorker.evaluate``) got no answer: the message says why."""


def _greedy_or_random(view: PlayerView, rules: Ruleset | None, seed: int) -> Action:
    """Greedy's action; a random legal action when greedy fails or gives no legal action (runs in a thread)."""
    try:
        action = choose_action(view, "greedy", 0, 0, rules)
    except Exception as err:
        log.warning("greedy failed (%r); a random legal action is played", err)
    else:
        if action in view.legal:
            return action
        log.warning("greedy gave %r, not a legal action; a random legal action is played", action)
    return random.Random(seed).choice(view.legal)


async def _fallback(view: PlayerView, rules: Ruleset | None, seed: int) -> Action:
    """Greedy's action computed in a thread (never on the event loop); a random legal action if that fails."""
    try:
        return await asyncio.to_thread(_greedy_or_random, view, rules, seed)
    except Exception as err:  # no thread to be had (the interpreter is shutting down)
        log.warning("greedy could not run (%r); a random legal action is played", err)
        return random.Random(seed).choice(view.legal)


@dataclass(eq=False, slots=True)
class _Request:
    """One search waiting in the queue or running; ``answer`` gets the search's value or a ``_Fallback``."""

    priority: Priority
    search: str
    view: PlayerView
    player: str
    seed: int
    budget_ms: int
    hard_cap_ms: int
    rules: Ruleset | None
    may_shrink: bool  # a decision may search with less under overload; an evaluation's values may not change
    queued_at: float
    answer: asyncio.Future[Any]
    no_worker_timer: asyncio.TimerHandle | None = None  # urgent only: greedy answers when no worker comes


class AiWorker:
    """One queue for every AI search of the process, served by worker processes, one search per worker.

    ``search`` is the ``module:function`` a decision calls and ``evaluate`` the one an evaluation (the coach's)
    calls, each with ``(view, player, seed, budget_ms, rules)``; tests and fault-injection harnesses may name
    their own. ``workers`` is how many searches run at a time (default: the cores this process may use).
    ``worker_wait`` is how long an urgent request waits while no worker is searching before greedy answers it.
    """

    def __init__(
        self,
        workers: int | None = None,
        search: str = ENGINE_SEARCH,
        evaluate: str = ENGINE_EVALUATE,
        start_timeout: float = 60.0,
        retry_seconds: float = 5.0,
        *,
        first_retry_seconds: float = FIRST_RETRY_SECONDS,
        worker_wait: float = WORKER_WAIT_SECONDS,
        overload_wait: float = OVERLOAD_WAIT_SECONDS,
        budget_floor: float = BUDGET_FLOOR,
        queue_warning: int | None = None,
        warning_interval: float = WARNING_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._context = multiprocessing.get_context("spawn")
        self.workers = workers or usable_cores()
        self.search = search
        self.evaluate_search = evaluate
        self.start_timeout = start_timeout  # a worker not ready by then is given up (and logged)
        self.first_retry_seconds = first_retry_seconds  # the pause after a failed start ...
        self.retry_seconds = retry_seconds  # ... doubled after each failure in a row, up to this
        self.worker_wait = worker_wait
        self.overload_wait = overload_wait
        self.budget_floor = budget_floor
        self.queue_warning = queue_warning or QUEUE_WARNING_PER_WORKER * self.workers
        self.warning_interval = warning_interval
        self.clock = clock  # measures time spent in the queue (tests advance their own)
        # Counters for logs, benches and tests.
        self.fallbacks = 0  # decisions not answered by the search
        self.reduced = 0  # decisions searched with less than their budget (overload)
        self.floor_hits = 0  # ... of them, those cut down to the floor
        self._workers: set[WorkerProcess] = set()  # every worker not yet retired: starting, idle or busy
        self._idle: list[WorkerProcess] = []
        self._running: dict[WorkerProcess, _Request] = {}
        self._queue: list[tuple[int, int, _Request]] = []  # a heap: (priority, arrival number, request)
        self._arrivals = itertools.count()
        self._starting: set[asyncio.Task[bool]] = set()
        self._background: set[asyncio.Future[Any]] = set()
        self._retry_at = 0.0  # no start before this (loop time) after a failed one
        self._failed_starts = 0  # failed starts in a row (the pause doubles with each)
        self._refill: asyncio.TimerHandle | None = None  # starts the missing workers when the pause ends
        self._closed = False
        self._all_retired: asyncio.Event | None = None
        self._warned_at: dict[str, float] = {}
        self._unwarned: dict[str, int] = {}  # warnings held back since the last one of their kind

    # -- public interface ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every missing worker and wait until each has loaded the engine (or failed to). Never raises."""
        try:
            self._fill(force=True)
            results = await asyncio.gather(*self._starting, return_exceptions=True)
        except Exception:
            log.exception("AI workers could not be started; AI seats play greedy")
            return
        if self._closed:
            return
        ready = len(self._workers)
        if ready < self.workers:
            log.error("only %d of %d AI workers started; the others are retried later", ready, self.workers)
        elif any(result is True for result in results):
            log.info("AI workers ready: pids %s", self.worker_pids())

    def worker_pids(self) -> list[int]:
        """The pids of the worker processes (starting, idle or busy), for logs and fault injection."""
        return sorted(pid for worker in self._workers if (pid := worker.pid) is not None)

    def waiting(self) -> int:
        """How many searches wait in the queue (not yet running)."""
        return sum(1 for _, _, request in self._queue if not request.answer.done())

    async def decide(
        self,
        view: PlayerView,
        player: str = "pimc",
        seed: int = 0,
        budget_ms: int = 150,
        hard_cap_ms: int = 2000,
        rules: Ruleset | None = None,
        *,
        priority: Priority = Priority.URGENT,
        may_shrink: bool = True,
    ) -> Action:
        """The AI's action for the view's seat; greedy's when the search fails or passes ``hard_cap_ms`` (counted
        from when the search starts). ``may_shrink`` False: the full budget even under overload (the daily
        deal's par, background work whose result must not depend on the load)."""
        if len(view.legal) == 1:
            return view.legal[0]
        if player == "greedy":
            return await _fallback(view, rules, seed)
        try:
            value = await self._call(
                self.search, view, player, seed, budget_ms, hard_cap_ms, rules, priority, may_shrink=may_shrink
            )
            if value not in view.legal:
                raise _Fallback(f"the search gave {value!r}, not a legal action")
            return view.legal[view.legal.index(value)]  # the legal action itself, typed
        except _Fallback as err:
            reason = str(err)
        except Exception as err:  # whatever else went wrong, the table gets an answer
            reason = f"unexpected {err!r}"
            log.debug("AI decision failed", exc_info=True)
        self.fallbacks += 1
        log.warning("AI %s fell back to greedy: %s", player, reason)
        return await _fallback(view, rules, seed)

    async def evaluate(
        self,
        view: PlayerView,
        seed: int = 0,
        budget_ms: int = 150,
        hard_cap_ms: int = 2000,
        rules: Ruleset | None = None,
        *,
        priority: Priority = Priority.URGENT,
        player: str = "pimc",
    ) -> tuple[Action, list[Evaluation]]:
        """The AI's choice and its value of every legal action (``engine.ai.evaluate_actions``, the ``evaluate``
        search), always with the full budget. Raises ``AnalysisFailed`` saying why there is none: unlike a
        move, an analysis has no stand-in answer."""
        try:
            best, evaluations = await self._call(
                self.evaluate_search,
                view,
                player,
                seed,
                budget_ms,
                hard_cap_ms,
                rules,
                priority,
                may_shrink=False,
            )
        except _Fallback as err:
            raise AnalysisFailed(str(err)) from None
        if best not in view.legal:
            raise AnalysisFailed(f"the search gave {best!r}, not a legal action")
        return best, evaluations

    async def settled(self) -> None:
        """Wait until the housekeeping under way has finished: retired workers reaped, answers read off."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def close(self) -> None:
        """Stop every worker and wait for the processes to end. Idempotent; decisions under way or waiting get
        greedy."""
        self._closed = True
        if self._refill is not None:
            self._refill.cancel()
            self._refill = None
        self._fail_waiting("the AI workers are closing")
        for worker in list(self._idle):
            self._retire(worker)
        for worker in list(self._workers):
            worker.stop()  # whoever runs a request on it sees the pipe close and retires it
        if self._workers:
            self._all_retired = self._all_retired or asyncio.Event()
            try:
                await asyncio.wait_for(self._all_retired.wait(), 10)
            except TimeoutError:
                log.error("AI workers %s did not stop; killing them", self.worker_pids())
                for worker in list(self._workers):
                    worker.kill()
                    self._retire(worker)
        await self.settled()

    # -- the queue -----------------------------------------------------------------------------------------

    async def _call(
        self,
        search: str,
        view: PlayerView,
        player: str,
        seed: int,
        budget_ms: int,
        hard_cap_ms: int,
        rules: Ruleset | None,
        priority: Priority,
        *,
        may_shrink: bool,
    ) -> Any:
        """What a worker's ``search`` returns for these arguments once the queue gets to it; ``_Fallback`` says
        why there is no answer. Cancelling it takes the request out of the queue (or drops a running search's
        answer when it comes)."""
        if self._closed:
            raise _Fallback("the AI workers are closed")
        self._fill()
        if not self._workers:
            raise _Fallback("no AI worker is running (the last start failed; retried later)")
        request = _Request(
            priority, search, view, player, seed, budget_ms, hard_cap_ms, rules, may_shrink,
            self.clock(), asyncio.get_running_loop().create_future(),
        )  # fmt: skip
        heapq.heappush(self._queue, (priority, next(self._arrivals), request))
        if (waiting := self.waiting()) >= self.queue_warning:
            urgent = sum(1 for p, _, r in self._queue if p == Priority.URGENT and not r.answer.done())
            self._warn(
                "depth",
                "AI queue: %d searches waiting (%d for tables or hints) for %d workers; the oldest has waited %.1f s",
                waiting, urgent, self.workers, self._oldest_wait(),
            )  # fmt: skip
        self._dispatch()
        if priority == Priority.URGENT and not request.answer.done():
            self._wait_for_a_worker(request)
        try:
            return await request.answer
        finally:
            if request.no_worker_timer is not None:
                request.no_worker_timer.cancel()

    def _wait_for_a_worker(self, request: _Request) -> None:
        """Look again in ``worker_wait`` seconds whether the request has a worker coming."""
        loop = asyncio.get_running_loop()
        request.no_worker_timer = loop.call_later(self.worker_wait, self._no_worker_came, request)

    def _no_worker_came(self, request: _Request) -> None:
        """``worker_wait`` after an urgent request was queued (or last looked at): while a worker searches, the
        queue moves (each search ends by its hard cap), so look again later; with none searching, the workers
        are all starting or gone and the request gets greedy's answer now."""
        request.no_worker_timer = None
        if request.answer.done() or any(running is request for running in self._running.values()):
            return
        if self._running:
            self._wait_for_a_worker(request)
            return
        _settle(
            request,
            _Fallback(
                f"no AI worker was ready within {self.worker_wait:g} s "
                f"({len(self._workers)} starting, {self.workers} wanted)"
            ),
        )

    def _dispatch(self) -> None:
        """Hand the first requests of the queue to idle workers (reviews to all but one of them)."""
        background_limit = max(1, self.workers - 1)
        while self._queue and self._idle and not self._closed:
            priority, _, request = self._queue[0]
            if request.answer.done():  # cancelled while waiting
                heapq.heappop(self._queue)
                continue
            if priority == Priority.BACKGROUND:
                running = sum(1 for r in self._running.values() if r.priority == Priority.BACKGROUND)
                if running >= background_limit:
                    return  # only background work waits (urgent work sorts first): the kept worker stays idle
            worker = self._idle.pop()
            if not worker.alive():
                log.warning(
                    "AI worker %s %s while idle; replacing it",
                    worker.pid,
                    exit_reason(worker.process.exitcode),
                )
                self._retire(worker)
                continue
            heapq.heappop(self._queue)
            self._running[worker] = request
            self._in_background(self._run(worker, request))

    def _budget(self, request: _Request) -> int:
        """The request's budget, smaller when it waited past ``overload_wait`` (a decision only)."""
        waited = self.clock() - request.queued_at
        if not request.may_shrink or waited <= self.overload_wait:
            return request.budget_ms
        floor = max(1, math.ceil(request.budget_ms * self.budget_floor))
        budget = max(floor, round(request.budget_ms * self.overload_wait / waited))
        if budget >= request.budget_ms:
            return request.budget_ms
        self.reduced += 1
        if budget == floor:
            self.floor_hits += 1
            self._warn(
                "floor",
                "AI overloaded: a decision waited %.1f s in the queue (%d still waiting); it searches with the "
                "floor of %d ms instead of %d ms",
                waited, self.waiting(), budget, request.budget_ms,
            )  # fmt: skip
        return budget

    async def _run(self, worker: WorkerProcess, request: _Request) -> None:
        """Run one request on ``worker`` (which it owns until it releases or retires it) and settle its answer."""
        loop = asyncio.get_running_loop()
        outcome: Any
        if request.answer.done():  # cancelled between its dispatch and now: nobody wants the search
            self._running.pop(worker, None)
            self._release(worker)
            return
        try:
            args = (request.view, request.player, request.seed, self._budget(request), request.rules)
            message = pickle.dumps((request.search, args), pickle.HIGHEST_PROTOCOL)
        except Exception as err:
            self._running.pop(worker, None)
            self._release(worker)
            _settle(request, _Fallback(f"the request cannot be sent to a worker ({err!r})"))
            return
        deadline = loop.time() + request.hard_cap_ms / 1000  # the hard cap counts from the search's start
        try:
            worker.conn.send_bytes(message)
            status, value = await worker.receive(deadline - loop.time())
        except TimeoutError:
            self._running.pop(worker, None)
            self._retire(worker)
            outcome = _Fallback(
                f"passed the hard cap of {request.hard_cap_ms} ms; worker {worker.pid} terminated"
            )
        except (EOFError, OSError, pickle.UnpicklingError) as err:
            self._running.pop(worker, None)
            code = await asyncio.shield(self._retire(worker))
            outcome = _Fallback(f"worker {worker.pid} {exit_reason(code)} ({err!r})")
        except BaseException:  # cancelled (the event loop is ending): the worker's state is unknown
            self._running.pop(worker, None)
            self._retire(worker)
            _settle(request, _Fallback("the search was cut short"))
            raise
        else:
            self._running.pop(worker, None)
            self._release(worker)
            outcome = value if status == "ok" else _Fallback(f"the search raised {value}")
        _settle(request, outcome)

    def _fail_waiting(self, reason: str) -> None:
        """Every request still in the queue gets ``reason`` as its fallback."""
        queue, self._queue = self._queue, []
        for _, _, request in queue:
            _settle(request, _Fallback(reason))

    def _oldest_wait(self) -> float:
        now = self.clock()
        return max((now - r.queued_at for _, _, r in self._queue if not r.answer.done()), default=0.0)

    def _warn(self, kind: str, message: str, *args: Any) -> None:
        """A WARNING of this kind, unless one was logged less than ``warning_interval`` ago (then counted)."""
        now = self.clock()
        last = self._warned_at.get(kind)
        if last is not None and now - last < self.warning_interval:
            self._unwarned[kind] = self._unwarned.get(kind, 0) + 1
            return
        self._warned_at[kind] = now
        if held_back := self._unwarned.pop(kind, 0):
            message += " (and %d times more since the last such warning)"
            args = (*args, held_back)
        log.warning(message, *args)

    # -- the workers ---------------------------------------------------------------------------------------

    def _release(self, worker: WorkerProcess) -> None:
        """A worker that is free again: to the first request of the queue, else idle."""
        if self._closed:
            self._retire(worker)
            return
        self._idle.append(worker)
        self._dispatch()

    def _retire(self, worker: WorkerProcess) -> asyncio.Future[int | None]:
        """Stop a worker for good and start a replacement; the result is the process's exit code, once reaped."""
        if worker.reaping is not None:  # retired already
            return worker.reaping
        self._workers.discard(worker)
        with contextlib.suppress(ValueError):
            self._idle.remove(worker)
        worker.stop()
        worker.conn.close()
        worker.reaping = self._in_background(asyncio.to_thread(worker.reap))
        if not self._workers and self._all_retired is not None:
            self._all_retired.set()
        self._fill()
        if not self._workers and not self._closed:  # none may start yet (a failed start's pause)
            self._fail_waiting("no AI worker is running (the last start failed; retried shortly)")
        return worker.reaping

    def _fill(self, force: bool = False) -> None:
        """Start workers until there are ``self.workers`` of them; in the pause after a failed start, make sure a
        timer starts them when it ends."""
        if self._closed or len(self._workers) >= self.workers:
            return
        loop = asyncio.get_running_loop()
        if not force and loop.time() < self._retry_at:
            if self._refill is None:
                self._refill = loop.call_at(self._retry_at, self._refilled)
            return
        for _ in range(self.workers - len(self._workers)):
            parent, child = self._context.Pipe()
            process = self._context.Process(
                target=serve, args=(child, self.search), name="ai-worker", daemon=True
            )
            worker = WorkerProcess(process, parent)
            self._workers.add(worker)
            task = asyncio.create_task(self._start_worker(worker, child), name="start AI worker")
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    def _refilled(self) -> None:
        self._refill = None
        self._fill()  # a later failure may have moved the retry on: then this sets the timer again

    async def _start_worker(self, worker: WorkerProcess, child: Connection) -> bool:
        """Start the process and wait for it to be ready; True when it joined the idle workers."""
        try:
            try:
                await asyncio.to_thread(worker.process.start)
            finally:
                child.close()  # the worker's end: only the worker holds it now, so its death closes the pipe
            if self._closed:
                self._retire(worker)
                return False
            status, note = await worker.receive(self.start_timeout)
            if status != "ready":
                raise RuntimeError(note)
        except Exception as err:
            if isinstance(err, EOFError | OSError) and self._closed:
                self._retire(worker)
                return False
            pause = min(self.retry_seconds, self.first_retry_seconds * 2 ** min(self._failed_starts, 30))
            self._failed_starts += 1
            self._retry_at = asyncio.get_running_loop().time() + pause
            log.error("AI worker could not start (%r); retrying in %g s", err, pause)
            if self._workers <= {worker}:  # nobody left to serve the queue until the retry: greedy answers now
                self._fail_waiting(f"no AI worker could be started ({err!r})")
            self._retire(worker)  # its replacement is started by a timer once the pause is over
            return False
        except BaseException:
            self._retire(worker)
            raise
        if note:
            log.warning("AI worker %s: %s", worker.pid, note)
        self._failed_starts = 0
        self._release(worker)
        return True

    def _in_background(self, awaitable: Any) -> asyncio.Future[Any]:
        task: asyncio.Future[Any] = asyncio.ensure_future(awaitable)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(_log_failure)
        return task


def _settle(request: _Request, outcome: Any) -> None:
    """Give the request its answer (a value, or the ``_Fallback`` it raises), unless it was cancelled."""
    if request.answer.done():
        return
    if isinstance(outcome, _Fallback):
        request.answer.set_exception(outcome)
    else:
        request.answer.set_result(outcome)


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and (err := task.exception()) is not None and not isinstance(err, TimeoutError):
        log.debug("AI worker housekeeping: %r", err)
