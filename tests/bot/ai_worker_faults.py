"""Faults on demand inside an AI worker process, for tests (and fault-injection harnesses).

``AiWorker(search="tests.bot.ai_worker_faults:search")`` makes every worker run :func:`search` instead of the
engine's ``choose_action`` (and ``evaluate=EVALUATE`` :func:`evaluate` for the coach's evaluations). The spawned
worker imports this module by its path, so the fault is chosen by the player name passed to ``decide``; any
other name is the engine's player of that name.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from typing import Any

from engine.ai import choose_action

SEARCH = "tests.bot.ai_worker_faults:search"
EVALUATE = "tests.bot.ai_worker_faults:evaluate"
# ``search``, in workers whose start asks the test's start gate first (tests/bot/ai_worker_start_gate.py) ...
GATED = "tests.bot.ai_worker_start_gate:search"
# ... at the address in this environment variable (a spawned worker inherits the test's environment).
START_GATE = "SCHNAPSEN_TEST_AI_START_GATE"


class InjectedFault(LookupError):
    """An exception type the worker code knows nothing about."""


def search(view: Any, player: str, seed: int, budget_ms: int, rules: Any) -> Any:
    if player == "contrary":  # a sound search whose answer is never greedy's
        return not_greedy(view, rules)
    if player == "overrun":  # never answers: only terminating the process ends it
        while True:
            time.sleep(3600)
    if player == "raise":
        raise InjectedFault("injected by the test")
    if player == "unpicklable":  # the result cannot be sent back
        return lambda: None
    if player == "illegal":  # a value that is no legal action
        return "not an action"
    if player == "exit":  # the worker process exits in the middle of the search
        sys.exit(3)
    if player == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if player.startswith(
        "hold:"
    ):  # hold:HOST:PORT: tell the test our pid, seed and budget, wait for its word
        host, port = player.removeprefix("hold:").rsplit(":", 1)
        with socket.create_connection((host, int(port))) as line:
            line.sendall(f"{os.getpid()} {seed} {budget_ms}\n".encode())
            line.recv(16)
        return not_greedy(view, rules)
    return choose_action(view, player, seed, budget_ms, rules)


def evaluate(view: Any, player: str, seed: int, budget_ms: int, rules: Any) -> Any:
    """An evaluation as ``engine.ai.evaluate_actions`` gives it: ``search``'s action, with no values."""
    return search(view, player, seed, budget_ms, rules), []


def not_greedy(view: Any, rules: Any = None) -> Any:
    """The held search's answer: a legal action greedy would not choose, so a fallback cannot pass for it."""
    greedy = choose_action(view, "greedy", 0, 0, rules)
    return next(action for action in view.legal if action != greedy)
