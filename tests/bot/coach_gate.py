"""A coach search that answers only once the test opens its gate: ``Settings(coach_search=SEARCH)`` with the
environment variable ``COACH_GATE`` naming a file; each evaluation waits (in the worker process) until that
file exists, then answers as the engine does. It stands for a review that takes as long as the test wants."""

from __future__ import annotations

import os
import time
from typing import Any

from engine.ai import evaluate_actions

SEARCH = "tests.bot.coach_gate:evaluate"


def evaluate(view: Any, player: str, seed: int, budget_ms: int, rules: Any) -> Any:
    gate = os.environ.get("COACH_GATE")
    if gate and budget_ms > 1:  # the worker's warm-up (budget 1) goes through
        while not os.path.exists(gate):
            time.sleep(0.02)
    return evaluate_actions(view, player, seed, budget_ms, rules)
