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

from .pacing import URGENT

# Rendering runs off the event loop in a small pool of its own: bounded concurrency, and few threads means
# few malloc arenas (each thread that allocates gets one, which inflated memory with the default executor).
RENDER_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="render")
# What a person is waiting for (a click's own answer, the hand that gives someone their turn: ``DRAW_FIRST``, or
# an urgent job's, ``pacing.URGENT``) is drawn on a thread of its own, never queued behind the others.
FIRST_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-first")
DRAW_FIRST: contextvars.ContextVar[bool] = contextvars.ContextVar("draw_first", default=False)


async def rendered(function: Callable[..., bytes], *args: Any) -> bytes:
    pool = FIRST_POOL if DRAW_FIRST.get() or URGENT.get() else RENDER_POOL
    return await asyncio.get_running_loop().run_in_executor(pool, function, *args)


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
