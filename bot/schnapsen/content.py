"""A Discord message's content as the shell builds it: embeds, view, and the PNGs it attaches (``Payload``),
and the small pool the images are drawn in, off the event loop."""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.cache import Lru

from .pacing import URGENT

log = logging.getLogger(__name__)

# Three kinds of drawing, by who waits for it, each on threads of its own and at its own priority for the
# operating system's scheduler (Linux nice steps below the process's own). On a busy core the event loop and the
# drawing threads take turns: a drawing that held the core while the loop had a click ready delayed that click
# by the drawing's time slice, and a click's answer queued behind a turn's drawing waited for it. So a click's
# own answer is drawn beside the loop at its priority (``DRAW_FIRST``: the clicker is looking at a pending
# button); a hand that gives someone their turn, or any urgent job's (``pacing.URGENT``), a little below the
# loop that stores the moves; the rest (table images, hands whose turn did not come, results, reviews) when the
# core has time left. Measured in docs/performance.md (quick clickers, 40 tables on one core).
# Not 19 for the rest: nice counts against every process on the machine (the AI workers, a database server: at
# nice 0), and at 19 a table image would get a sixtieth of a core beside one of them, at 10 a tenth.
ANSWER_NICE = 0
FIRST_NICE = 5
BACKGROUND_NICE = 10


def lower_thread_priority(steps: int) -> None:
    """Run the calling thread ``steps`` nice steps below the process (Linux, where nice is a thread's own;
    elsewhere it would lower the whole process, so nothing is done). Never raises: a drawing thread that keeps
    the loop's priority draws the same images."""
    if sys.platform != "linux" or steps == 0:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0) + steps)
    except OSError as err:  # a sandbox that forbids it: the threads keep their priority
        log.warning("drawing threads keep the event loop's priority: %s", err)


# The drawing threads also share the GIL with the loop. Each time the loop lets it go (a socket's send, discord.py's
# `os.urandom` for a view) a drawing thread waiting for it takes it, and the loop waits for it back until the
# switch interval ends: 5 ms by default, a tenth of that here. Measured in docs/performance.md (a click's
# "stored" and "answer drawn" a few ms sooner at p95, no more CPU).
GIL_SWITCH_SECONDS = 0.0005


def share_the_gil_with_the_drawings() -> None:
    """Set the interpreter's switch interval for the bot's process (it serves the event loop, not a script)."""
    sys.setswitchinterval(GIL_SWITCH_SECONDS)


def _drawing_pool(threads: int, name: str, nice: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(threads, name, initializer=lower_thread_priority, initargs=(nice,))


# Few threads: bounded concurrency, and few malloc arenas (each thread that allocates gets one, which inflated
# memory with the default executor).
ANSWER_POOL = _drawing_pool(1, "render-answer", ANSWER_NICE)
FIRST_POOL = _drawing_pool(1, "render-first", FIRST_NICE)
RENDER_POOL = _drawing_pool(2, "render", BACKGROUND_NICE)
_URGENCY = {RENDER_POOL: 0, FIRST_POOL: 1, ANSWER_POOL: 2}
DRAW_FIRST: contextvars.ContextVar[bool] = contextvars.ContextVar("draw_first", default=False)


class Kept:
    """A drawing function whose last ``size`` drawings are kept by their arguments: `rendered` hands a kept one
    back on the event loop, with no trip to a drawing thread (where it would queue behind the drawings in
    progress: the hand of a person whose cards did not change is most hand edits), and one in progress is
    awaited, not drawn twice. Only the event loop reads and stores them."""

    def __init__(self, draw: Callable[..., bytes], size: int) -> None:
        self.draw = draw
        self.kept = Lru[tuple[Any, ...], bytes](size)
        self._drawing: dict[tuple[Any, ...], tuple[asyncio.Future[bytes], ThreadPoolExecutor]] = {}

    def __call__(self, *args: Any) -> bytes:
        """Draw (or hand back) at once, where no event loop runs (a script, a test)."""
        if (png := self.kept.get(args)) is None:
            self.kept[args] = png = self.draw(*args)
        return png

    def clear(self) -> None:
        self.kept = Lru[tuple[Any, ...], bytes](self.kept.size)

    def drawing(self, args: tuple[Any, ...], pool: ThreadPoolExecutor) -> asyncio.Future[bytes]:
        """The drawing of ``args``, begun now on ``pool`` unless it is in progress on a pool as urgent (one in
        progress on a pool behind it is not waited for, or a click's answer would wait for the background's
        turn at the core); kept once done."""
        if (progress := self._drawing.get(args)) is not None:
            future, begun_on = progress
            if _URGENCY.get(begun_on, 0) >= _URGENCY.get(pool, 0):
                return future
        future = asyncio.get_running_loop().run_in_executor(pool, self.draw, *args)
        self._drawing[args] = (future, pool)

        def done(finished: asyncio.Future[bytes]) -> None:
            if (latest := self._drawing.get(args)) is not None and latest[0] is finished:
                del self._drawing[args]
            if not finished.cancelled() and finished.exception() is None:  # a failure is its awaiters' to see
                self.kept[args] = finished.result()

        future.add_done_callback(done)
        return future


def _pool() -> ThreadPoolExecutor:
    if DRAW_FIRST.get():
        return ANSWER_POOL
    return FIRST_POOL if URGENT.get() else RENDER_POOL


async def rendered(function: Callable[..., bytes] | Kept, *args: Any) -> bytes:
    """``function(*args)`` drawn off the event loop (a `Kept` drawing made before: at once)."""
    if not isinstance(function, Kept):
        return await asyncio.get_running_loop().run_in_executor(_pool(), function, *args)
    if (png := function.kept.get(args)) is not None:
        return png
    # Shielded: an awaiter that gives up (a click's answer out of time) must not cancel it for the others.
    return await asyncio.shield(function.drawing(args, _pool()))


@dataclass
class Payload:
    """Message content plus PNGs; ``discord.File`` objects are made fresh for every send (they are consumed)."""

    embeds: list[discord.Embed]
    images: dict[str, bytes] = field(default_factory=dict)  # filename -> PNG
    alt: dict[str, str] = field(default_factory=dict)  # filename -> alt text
    view: discord.ui.View | None = None
    content: str | None = None

    def files(self) -> list[discord.File]:
        return [
            discord.File(
                io.BytesIO(png),
                filename=name,
                description=(self.alt.get(name) or "")[:1000] or None,
            )
            for name, png in self.images.items()
        ]

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"embeds": self.embeds, "files": self.files()}
        if self.view is not None:
            kwargs["view"] = self.view
        if self.content is not None:
            kwargs["content"] = self.content
        return kwargs

    def edit_kwargs(self, *, keep_attachments: bool = False) -> dict[str, Any]:
        """``keep_attachments``: the images are unchanged, so the message keeps the ones it has (no upload)."""
        kwargs: dict[str, Any] = {"content": self.content, "embeds": self.embeds, "view": self.view}
        if not keep_attachments:
            kwargs["attachments"] = self.files()
        return kwargs
