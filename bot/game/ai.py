"""AI decisions for the bot: the engine's AI in a worker process when available, else a legal-move player.

The caller passes only the seat's PlayerView, so an AI never sees a card its seat may not see.
"""

from __future__ import annotations

import logging
import random

import engine

log = logging.getLogger(__name__)


class AiPlayers:
    def __init__(self, budget_ms: int = 150, hard_cap_ms: int = 1000) -> None:
        self.budget_ms = budget_ms
        self.hard_cap_ms = hard_cap_ms
        self._worker = None
        try:
            from bot.ai_worker import AiWorker
        except ImportError:  # the engine's AI is not installed: play legal moves
            log.info("engine AI unavailable; AI seats play random legal moves")
        else:
            self._worker = AiWorker()

    async def decide(self, view: engine.PlayerView, strength: str, seed: int) -> engine.Action:
        if len(view.legal) == 1:
            return view.legal[0]
        if self._worker is not None:
            return await self._worker.decide(view, strength, seed, self.budget_ms, self.hard_cap_ms)
        return random.Random(seed).choice(view.legal)

    async def close(self) -> None:
        if self._worker is not None:
            await self._worker.close()
