"""The AI's worker processes, as ``ai_worker.AiWorker`` runs them: the loop each worker process serves (load a
search, warm it up, then one pickled request, one reply), and the bot's handle on one process and its pipe
(waited on without blocking the event loop, stopped, killed and reaped).

This module may import the engine but never discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import pickle
import signal
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

# ----------------------------------------------------------------------------------------------------------
# The worker process

def load_search(search: str) -> Callable[..., Any]:
    module, _, name = search.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


def _warm_up(search: Callable[..., Any]) -> None:
    """One tiny decision, so that every module and code path of a search is loaded before the first table."""
    from engine import STANDARD, deal_hands, new_deal, view_for

    state = new_deal(STANDARD, 0, deal_hands(0, 0))
    search(view_for(state, state.to_act), "pimc", 0, 1, None)


def serve(conn: Connection, search_path: str) -> None:
    """A worker's main loop: one pickled request ``(search, (view, player, seed, budget_ms, rules))``, one reply.

    ``search_path`` is loaded and warmed up at once (a worker that cannot load it never starts); any other
    search a request names is loaded at its first request and kept."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal is for the bot, which stops us
    searches: dict[str, Callable[..., Any]] = {}
    try:
        searches[search_path] = load_search(search_path)
    except BaseException as err:
        conn.send(("failed", f"cannot load {search_path}: {err!r}"))
        return
    try:
        _warm_up(searches[search_path])
        conn.send(("ready", ""))
    except Exception as err:  # a worker that cannot warm up may still search
        conn.send(("ready", f"warm-up failed: {err!r}"))
    while True:
        try:
            path, args = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):  # the bot closed the pipe or is gone
            return
        try:
            search = searches.get(path)
            if search is None:
                search = searches[path] = load_search(path)
            reply = pickle.dumps(("ok", search(*args)), pickle.HIGHEST_PROTOCOL)
        except Exception as err:
            reply = pickle.dumps(("error", f"{type(err).__name__}: {err}"), pickle.HIGHEST_PROTOCOL)
        try:
            conn.send_bytes(reply)
        except OSError:  # the bot is gone
            return


# ----------------------------------------------------------------------------------------------------------
# The bot's side


class WorkerProcess:
    """One worker process and the bot's end of its pipe.

    At any moment exactly one party owns a worker and must either hand it on or retire it: the task starting
    it, the idle list, or the task running a request on it.
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


def exit_reason(code: int | None) -> str:
    if code is None:
        return "ended"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return max(1, os.cpu_count() or 1)
