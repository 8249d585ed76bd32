"""Runs AI decisions off the event loop: each search in a worker process of its own, greedy as the fallback.

The bot awaits ``AiWorker.decide``; the event loop never waits on a search, and ``decide`` never raises (except
``asyncio.CancelledError``): whatever goes wrong with a search (an exception in it, a result that cannot be sent
back or is not a legal action, a worker that exits or is killed, the hard cap passed, no worker free in time,
arguments that cannot be pickled) is answered by ``greedy`` computed in a thread, and if greedy fails too by a
random legal action. Every fallback is logged at WARNING with its reason.

Each worker is a separate process (``multiprocessing`` with the "spawn" start method) with a pipe of its own,
so a worker that overruns its hard cap is terminated alone: the searches of other workers go on. A worker that
is terminated or dies is replaced at once in the background. ``start`` brings every worker up (engine imported,
one tiny decision made) before the first table needs one.

This module may import the engine but never discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import os
import pickle
import random
import signal
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from engine import Action, PlayerView, Ruleset
from engine.ai import Evaluation, choose_action

log = logging.getLogger(__name__)

ENGINE_SEARCH = "engine.ai:choose_action"


class _Fallback(Exception):
    """Why a decision was not answered by the search (the message is logged)."""


class AnalysisFailed(Exception):
    """An evaluation (``AiWorker.evaluate``) got no answer: the message says why."""


# ----------------------------------------------------------------------------------------------------------
# The worker process


def _load(search: str) -> Callable[..., Any]:
    module, _, name = search.partition(":")
    return getattr(importlib.import_module(module), name)


def _warm_up(search: Callable[..., Any]) -> None:
    """One tiny decision, so that every module and code path of a search is loaded before the first table."""
    from engine import STANDARD, deal_hands, new_deal, view_for

    state = new_deal(STANDARD, 0, deal_hands(0, 0))
    search(view_for(state, state.to_act), "pimc", 0, 1, None)


def _serve(conn: Connection, search_path: str, niceness: int = 0) -> None:
    """A worker's main loop: one pickled request ``(view, player, seed, budget_ms, rules)``, one reply."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal is for the bot, which stops us
    if niceness > 0:  # a low-priority pool (the coach's) yields the cores to the tables' searches
        with contextlib.suppress(OSError):
            os.nice(niceness)
    try:
        search = _load(search_path)
    except BaseException as err:
        conn.send(("failed", f"cannot load {search_path}: {err!r}"))
        return
    try:
        _warm_up(search)
        conn.send(("ready", ""))
    except Exception as err:  # a worker that cannot warm up may still search
        conn.send(("ready", f"warm-up failed: {err!r}"))
    while True:
        try:
            args = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):  # the bot closed the pipe or is gone
            return
        try:
            reply = pickle.dumps(("ok", search(*args)), pickle.HIGHEST_PROTOCOL)
        except Exception as err:
            reply = pickle.dumps(("error", f"{type(err).__name__}: {err}"), pickle.HIGHEST_PROTOCOL)
        try:
            conn.send_bytes(reply)
        except OSError:  # the bot is gone
            return


# ----------------------------------------------------------------------------------------------------------
# The bot's side


class _Worker:
    """One worker process and the bot's end of its pipe.

    At any moment exactly one party owns a worker and must either hand it on or retire it: the task starting
    it, the idle list, the decision using it, or the task reading the answer of a cancelled decision.
    """

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.reaping: asyncio.Future[int | None] | None = None  # set once retired

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.pid is not None and self.process.is_alive()

    def stop(self) -> None:
        """Terminate the process (no wait); its pipe then reads as closed."""
        if self.alive():
            with contextlib.suppress(OSError):  # already gone
                self.process.terminate()

    async def receive(self, timeout: float) -> Any:
        """The next message from the worker, waited for without blocking the event loop.

        Raises TimeoutError when none arrives in time, EOFError or OSError when the worker is gone.
        """
        if not self.conn.poll():
            await self._readable(timeout)
        return pickle.loads(self.conn.recv_bytes())  # a whole message (or the end of the pipe) is there

    async def _readable(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        readable = loop.create_future()
        fd = self.conn.fileno()

        def wake() -> None:
            if not readable.done():
                readable.set_result(None)

        try:
            loop.add_reader(fd, wake)
        except NotImplementedError:  # an event loop without add_reader: wait in a thread instead
            if not await asyncio.to_thread(self.conn.poll, max(timeout, 0)):
                raise TimeoutError from None
            return
        try:
            async with asyncio.timeout(max(timeout, 0)):
                await readable
        finally:
            loop.remove_reader(fd)

    def kill(self) -> None:
        if self.alive():
            with contextlib.suppress(OSError):
                self.process.kill()

    def reap(self, grace: float = 2.0) -> int | None:
        """Wait (in a thread) for the stopped process to end; kill it if it does not. Returns its exit code."""
        if self.process.pid is None:
            return None
        self.process.join(grace)
        if self.process.is_alive():
            self.kill()
            self.process.join()
        return self.process.exitcode


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "ended"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


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


class AiWorker:
    """Worker processes for AI searches: one search per worker, each worker a process of its own.

    Nothing queues inside a worker: a decision waits for a free worker within its hard cap, so many tables at
    once degrade to greedy answers instead of a growing queue of searches that would all time out.
    ``search`` is the ``module:function`` each worker calls with ``(view, player, seed, budget_ms, rules)``;
    tests and fault-injection harnesses may name their own.
    """

    def __init__(
        self,
        workers: int | None = None,
        search: str = ENGINE_SEARCH,
        start_timeout: float = 60.0,
        retry_seconds: float = 5.0,
        niceness: int = 0,
    ) -> None:
        self._context = multiprocessing.get_context("spawn")
        self.niceness = niceness  # added to each worker process's nice value (lower CPU priority)
        self.workers = workers or max(1, min(2, os.cpu_count() or 1))
        self.search = search
        self.start_timeout = start_timeout  # a worker not ready by then is given up (and logged)
        self.retry_seconds = retry_seconds  # after a failed start, decisions wait this long to retry
        self.fallbacks = 0  # decisions not answered by the search (for logs and tests)
        self._workers: set[_Worker] = set()  # every worker not yet retired: starting, idle or busy
        self._idle: list[_Worker] = []
        self._waiters: deque[asyncio.Future[_Worker]] = deque()
        self._starting: set[asyncio.Task[bool]] = set()
        self._background: set[asyncio.Future[Any]] = set()
        self._retry_at = 0.0
        self._closed = False
        self._all_retired: asyncio.Event | None = None

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
        if len(view.legal) == 1:
            return view.legal[0]
        if player == "greedy":
            return await _fallback(view, rules, seed)
        try:
            return await self._search(view, player, seed, budget_ms, hard_cap_ms, rules)
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
    ) -> tuple[Action, list[Evaluation]]:
        """The AI's choice and its value of every legal action (``engine.ai.evaluate_actions`` with pimc), for
        workers whose ``search`` is that function. Raises ``AnalysisFailed`` saying why there is none: unlike
        a move, an analysis has no stand-in answer."""
        try:
            best, evaluations = await self._call((view, "pimc", seed, budget_ms, rules), hard_cap_ms)
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
        """Stop every worker and wait for the processes to end. Idempotent; decisions under way get greedy."""
        self._closed = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_exception(_Fallback("the AI workers are closing"))
        self._waiters.clear()
        for worker in self._idle:
            self._retire(worker)
        self._idle.clear()
        for worker in list(self._workers):
            worker.stop()  # its owner sees the pipe close and retires it
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

    # -- one decision --------------------------------------------------------------------------------------

    async def _search(
        self,
        view: PlayerView,
        player: str,
        seed: int,
        budget_ms: int,
        hard_cap_ms: int,
        rules: Ruleset | None,
    ) -> Action:
        value = await self._call((view, player, seed, budget_ms, rules), hard_cap_ms)
        if value not in view.legal:
            raise _Fallback(f"the search gave {value!r}, not a legal action")
        return value

    async def _call(self, args: tuple[Any, ...], hard_cap_ms: int) -> Any:
        """What a worker's search returns for ``args``; ``_Fallback`` says why there is no answer."""
        if self._closed:
            raise _Fallback("the AI workers are closed")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + hard_cap_ms / 1000
        request = pickle.dumps(args, pickle.HIGHEST_PROTOCOL)
        worker = await self._acquire(deadline)
        owned = True  # until handed on, this decision must release or retire the worker
        try:
            try:
                worker.conn.send_bytes(request)
                reply = await worker.receive(deadline - loop.time())
            except asyncio.CancelledError:  # the table no longer needs it: read the answer off, then reuse
                owned = False
                self._in_background(self._drain(worker, deadline))
                raise
            except TimeoutError:
                owned = False
                self._retire(worker)
                raise _Fallback(
                    f"passed the hard cap of {hard_cap_ms} ms; worker {worker.pid} terminated"
                ) from None
            except (EOFError, OSError, pickle.UnpicklingError) as err:
                owned = False
                code = await asyncio.shield(self._retire(worker))
                raise _Fallback(f"worker {worker.pid} {_exit_reason(code)} ({err!r})") from None
            owned = False
            self._release(worker)
        finally:
            if owned:
                self._retire(worker)
        status, value = reply
        if status != "ok":
            raise _Fallback(f"the search raised {value}")
        return value

    async def _acquire(self, deadline: float) -> _Worker:
        """An idle, living worker, waited for until ``deadline``; a dead idle worker is replaced."""
        loop = asyncio.get_running_loop()
        while True:
            self._fill()
            if self._idle and not self._waiters:
                worker = self._idle.pop()
            else:
                waiter: asyncio.Future[_Worker] = loop.create_future()
                self._waiters.append(waiter)
                taken = False
                try:
                    async with asyncio.timeout_at(deadline):
                        worker = await waiter
                    taken = True
                except TimeoutError:
                    raise _Fallback("no AI worker was free within the hard cap") from None
                finally:
                    if waiter in self._waiters:
                        self._waiters.remove(waiter)
                    # Handed a worker just as the wait ended (timeout or cancellation): pass it on.
                    if not taken and waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                        self._release(waiter.result())
            if worker.alive():
                return worker
            log.warning(
                "AI worker %s %s while idle; replacing it", worker.pid, _exit_reason(worker.process.exitcode)
            )
            self._retire(worker)

    async def _drain(self, worker: _Worker, deadline: float) -> None:
        """After a cancelled decision: wait for its answer (within its hard cap), drop it, free the worker."""
        try:
            await worker.receive(deadline - asyncio.get_running_loop().time())
        except BaseException:  # too late, or gone: replace the worker
            self._retire(worker)
            raise
        self._release(worker)

    # -- the workers ---------------------------------------------------------------------------------------

    def _release(self, worker: _Worker) -> None:
        """A worker that is free again: to the first waiting decision, else idle."""
        if self._closed:
            self._retire(worker)
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._idle.append(worker)

    def _retire(self, worker: _Worker) -> asyncio.Future[int | None]:
        """Stop a worker for good and start a replacement; the result is the process's exit code, once reaped."""
        if worker.reaping is not None:  # retired already
            return worker.reaping
        self._workers.discard(worker)
        worker.stop()
        worker.conn.close()
        worker.reaping = self._in_background(asyncio.to_thread(worker.reap))
        if not self._workers and self._all_retired is not None:
            self._all_retired.set()
        self._fill()
        return worker.reaping

    def _fill(self, force: bool = False) -> None:
        """Start workers until there are ``self.workers`` of them (not again soon after a failed start)."""
        if self._closed:
            return
        loop = asyncio.get_running_loop()
        if not force and loop.time() < self._retry_at:
            return
        for _ in range(self.workers - len(self._workers)):
            parent, child = self._context.Pipe()
            process = self._context.Process(
                target=_serve, args=(child, self.search, self.niceness), name="ai-worker", daemon=True
            )
            worker = _Worker(process, parent)
            self._workers.add(worker)
            task = asyncio.create_task(self._start_worker(worker, child), name="start AI worker")
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    async def _start_worker(self, worker: _Worker, child: Connection) -> bool:
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
            self._retry_at = asyncio.get_running_loop().time() + self.retry_seconds
            log.error(
                "AI worker could not start (%r); retrying in %g s at the earliest", err, self.retry_seconds
            )
            self._retire(worker)
            return False
        except BaseException:
            self._retire(worker)
            raise
        if note:
            log.warning("AI worker %s: %s", worker.pid, note)
        self._release(worker)
        return True

    def _in_background(self, awaitable: Any) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(awaitable)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(_log_failure)
        return task


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and (err := task.exception()) is not None and not isinstance(err, TimeoutError):
        log.debug("AI worker housekeeping: %r", err)
