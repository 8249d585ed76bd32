"""AI decisions for the bot: the engine's AI in worker processes when available, else a legal-move player.

The caller passes only the seat's PlayerView, so an AI never sees a card its seat may not see. ``decide`` always
answers with a legal action (it raises nothing but ``asyncio.CancelledError``): a failed search is answered by
greedy, and if even that fails, by a random legal action. Table moves are urgent work in the process's one AI
queue (``bot.ai_worker``); the coach shares the same workers (``worker``).
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING, Any

import engine

if TYPE_CHECKING:
    from bot.ai_worker import AiWorker

log = logging.getLogger(__name__)


class AiPlayers:
    def __init__(
        self, budget_ms: int = 150, hard_cap_ms: int = 1000, *, worker: AiWorker | None = None, **options: Any
    ) -> None:
        """``options`` go to the ``AiWorker`` made here when no ``worker`` is given (``workers``, ``evaluate``)."""
        self.budget_ms = budget_ms
        self.hard_cap_ms = hard_cap_ms
        self._worker = worker
        if worker is not None:
            return
        try:
            from bot.ai_worker import AiWorker
        except ImportError:  # the engine's AI is not installed: play legal moves
            log.info("engine AI unavailable; AI seats play random legal moves")
        else:
            self._worker = AiWorker(**options)

    @property
    def worker(self) -> AiWorker | None:
        """The AI queue and its worker processes (None without the engine's AI), for the coach to share."""
        return self._worker

    async def start(self) -> None:
        """Start the worker processes now, so that the first AI move does not wait for them. Never raises."""
        if self._worker is None:
            return
        try:
            await self._worker.start()
        except Exception:
            log.exception("AI workers could not be started")

    async def decide(self, view: engine.PlayerView, strength: str, seed: int) -> engine.Action:
        if len(view.legal) == 1:
            return view.legal[0]
        if self._worker is not None:
            try:
                return await self._worker.decide(view, strength, seed, self.budget_ms, self.hard_cap_ms)
            except asyncio.CancelledError:
                raise
            except Exception:  # the worker promises not to raise; should it, the table still gets a move
                log.exception("AI decision failed; a random legal action is played")
        return random.Random(seed).choice(view.legal)

    async def close(self) -> None:
        if self._worker is not None:
            await self._worker.close()
