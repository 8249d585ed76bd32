"""A Discord message's content as the shell builds it: embeds, view, and the PNGs it attaches (``Payload``),
and the small pool the images are drawn in, off the event loop."""

from __future__ import annotations

import asyncio
import contextvars
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.cache import Lru

from .pacing import URGENT

# Rendering runs off the event loop in a small pool of its own: bounded concurrency, and few threads means
# few malloc arenas (each thread that allocates gets one, which inflated memory with the default executor).
RENDER_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="render")
# What a person is waiting for (a click's own answer, the hand that gives someone their turn: ``DRAW_FIRST``, or
# an urgent job's, ``pacing.URGENT``) is drawn on a thread of its own, never queued behind the others.
FIRST_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-first")
DRAW_FIRST: contextvars.ContextVar[bool] = contextvars.ContextVar("draw_first", default=False)


class Kept:
    """A drawing function whose last ``size`` drawings are kept by their arguments: `rendered` hands a kept one
    back on the event loop, with no trip to a drawing thread (where it would queue behind the drawings in
    progress: the hand of a person whose cards did not change is most hand edits), and one in progress is
    awaited, not drawn twice. Only the event loop reads and stores them."""

    def __init__(self, draw: Callable[..., bytes], size: int) -> None:
        self.draw = draw
        self.kept = Lru[tuple[Any, ...], bytes](size)
        self._drawing: dict[tuple[Any, ...], asyncio.Future[bytes]] = {}

    def __call__(self, *args: Any) -> bytes:
        """Draw (or hand back) at once, where no event loop runs (a script, a test)."""
        if (png := self.kept.get(args)) is None:
            self.kept[args] = png = self.draw(*args)
        return png

    def clear(self) -> None:
        self.kept = Lru[tuple[Any, ...], bytes](self.kept.size)

    def drawing(self, args: tuple[Any, ...], pool: ThreadPoolExecutor) -> asyncio.Future[bytes]:
        """The drawing of ``args``, begun now on ``pool`` unless it is in progress; kept once done."""
        if (future := self._drawing.get(args)) is not None:
            return future
        future = asyncio.get_running_loop().run_in_executor(pool, self.draw, *args)
        self._drawing[args] = future

        def done(finished: asyncio.Future[bytes]) -> None:
            self._drawing.pop(args, None)
            if not finished.cancelled() and finished.exception() is None:  # a failure is its awaiters' to see
                self.kept[args] = finished.result()

        future.add_done_callback(done)
        return future


def _pool() -> ThreadPoolExecutor:
    return FIRST_POOL if DRAW_FIRST.get() or URGENT.get() else RENDER_POOL


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
