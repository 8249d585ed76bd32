"""AI players for Bauernschnapsen. Each sees only its seat's ``PlayerView`` (``engine.view_for``).

Players: ``random`` (uniform over legal actions), ``greedy`` (documented rules, see ``greedy.py``) and
``pimc`` (the default: Perfect-Information Monte Carlo with an exact alpha-beta solver, see ``pimc.py``).

Usage: ``choose_action(view_for(state, seat), "pimc", seed=0, budget_ms=150)`` returns one of
``view.legal``; ``evaluate_actions`` also returns the value of every legal action. See docs/ai.md.
"""

from __future__ import annotations

import random

from ..actions import Action
from ..ruleset import Ruleset
from ..views import PlayerView
from . import greedy, pimc
from .pimc import Evaluation

PLAYERS = ("random", "greedy", "pimc")
DEFAULT_PLAYER = "pimc"


def choose_action(
    view: PlayerView,
    player: str = DEFAULT_PLAYER,
    seed: int = 0,
    budget_ms: int = 150,
    rules: Ruleset | None = None,
) -> Action:
    """The action ``player`` takes for the view's seat. The same view, player, seed and budget always give
    the same action. ``rules`` defaults to a ``rules`` field of the view, else the standard rules."""
    _check(view, player)
    if len(view.legal) == 1:
        return view.legal[0]
    if player == "random":
        return _random_choice(view, seed)
    if player == "greedy":
        return greedy.choose(view, rules)
    return pimc.choose(view, rules, seed, budget_ms)


def evaluate_actions(
    view: PlayerView,
    player: str = DEFAULT_PLAYER,
    seed: int = 0,
    budget_ms: int = 150,
    rules: Ruleset | None = None,
) -> tuple[Action, list[Evaluation]]:
    """The chosen action and the value of each legal action (expected game points for the seat's team;
    ``random`` and ``greedy`` do not evaluate, so their values are 0 with 0 worlds)."""
    _check(view, player)
    if player == "pimc":
        evaluations = pimc.evaluate(view, rules, seed, budget_ms)
        return pimc.best_action(view, evaluations, rules), evaluations
    action = choose_action(view, player, seed, budget_ms, rules)
    return action, [Evaluation(a, 0.0, 0) for a in view.legal]


def _check(view: PlayerView, player: str) -> None:
    if player not in PLAYERS:
        raise ValueError(f"unknown player {player!r} (one of {', '.join(PLAYERS)})")
    if view.seat is None or not view.legal:
        raise ValueError("the view's seat has no legal action now")


def _random_choice(view: PlayerView, seed: int) -> Action:
    rng = random.Random(pimc.decision_key(view, seed))
    return rng.choice(view.legal)


__all__ = ["DEFAULT_PLAYER", "PLAYERS", "Evaluation", "choose_action", "evaluate_actions"]
