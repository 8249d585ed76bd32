"""The AI as a coach: how much a seat's decisions of a deal cost, judged with what the seat knew then.

Each decision of a finished (or running) deal is the seat's ``PlayerView`` just before it acted; the AI
values every legal action there (``evaluate_actions``, expected game points for the seat's team) and the
decision's cost is the value of the AI's choice minus the value of what was played. The same seed and budget
give the same values as ``python -m engine.ai`` on the record cut off just before that decision (its
``--review`` option prints them all). Built only on the AI's public functions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..actions import Action, format_action, parse_action
from ..cards import SEAT_NAMES
from ..record import GameRecord, replay_steps
from ..views import PlayerView, view_for
from . import DEFAULT_PLAYER, evaluate_actions
from .pimc import Evaluation

# A decision costs something only when it loses at least this much (values are means over sampled worlds:
# smaller differences are noise, not advice).
COSTLY = 0.05


@dataclass(frozen=True, slots=True)
class Moment:
    """One decision of a seat: where it is in the record, what the seat saw, and what it did."""

    deal: int  # index of the deal in the record
    index: int  # index of the action in the deal
    view: PlayerView
    played: Action


@dataclass(frozen=True, slots=True)
class Judged:
    """A decision with the AI's values: ``loss`` is the AI's choice's value minus the played action's."""

    moment: Moment
    best: Action
    evaluations: tuple[Evaluation, ...]

    def value_of(self, action: Action) -> float:
        return next(e.value for e in self.evaluations if e.action == action)

    @property
    def played_value(self) -> float:
        return self.value_of(self.moment.played)

    @property
    def best_value(self) -> float:
        return self.value_of(self.best)

    @property
    def loss(self) -> float:
        return max(0.0, self.best_value - self.played_value)


def moments(record: GameRecord, deal: int, seat: int) -> Iterator[Moment]:
    """Every decision ``seat`` made in deal ``deal`` of the record where it had a choice (more than one legal
    action), in order. An illegal action in the record raises the engine's ``ReplayStopped``."""
    before = None
    for step in replay_steps(record):
        if step.deal > deal:
            return
        if step.deal == deal and step.action is not None and before is not None:
            acting, action = parse_action(record.deals[deal].actions[step.action])
            if acting == seat:
                view = view_for(before, seat)
                if len(view.legal) > 1:
                    yield Moment(deal, step.action, view, action)
        before = step.state


def judge(
    moment: Moment, player: str = DEFAULT_PLAYER, seed: int = 0, budget_ms: int = 150, rules: Any = None
) -> Judged:
    """The AI's values for one decision (the same call ``python -m engine.ai`` makes at that position)."""
    best, evaluations = evaluate_actions(moment.view, player, seed, budget_ms, rules)
    return judged(moment, best, evaluations)


def judged(moment: Moment, best: Action, evaluations: list[Evaluation]) -> Judged:
    """A decision with values computed elsewhere (the bot computes them in its AI worker processes)."""
    return Judged(moment, best, tuple(evaluations))


def review(
    record: GameRecord,
    deal: int,
    seat: int,
    player: str = DEFAULT_PLAYER,
    seed: int = 0,
    budget_ms: int = 150,
) -> list[Judged]:
    """Every decision of ``seat`` in deal ``deal``, judged, in the order they were made."""
    return [judge(m, player, seed, budget_ms, record.rules) for m in moments(record, deal, seat)]


def costly(decisions: list[Judged], threshold: float = COSTLY) -> list[Judged]:
    """The decisions that lost at least ``threshold`` expected game points, the biggest loss first."""
    lost = [d for d in decisions if d.loss >= threshold]
    return sorted(lost, key=lambda d: (-d.loss, d.moment.deal, d.moment.index))


def evaluations_json(
    seat: int, evaluations: tuple[Evaluation, ...] | list[Evaluation]
) -> list[dict[str, Any]]:
    """The evaluations as ``python -m engine.ai`` prints them."""
    return [
        {"action": format_action(seat, e.action), "value": round(e.value, 4), "worlds": e.worlds}
        for e in evaluations
    ]


def judged_json(decision: Judged) -> dict[str, Any]:
    moment = decision.moment
    seat = moment.view.seat
    assert seat is not None
    return {
        "deal": moment.deal,
        "index": moment.index,
        "seat": SEAT_NAMES[seat],
        "phase": moment.view.phase,
        "played": format_action(seat, moment.played),
        "action": format_action(seat, decision.best),
        "loss": round(decision.loss, 4),
        "evaluations": evaluations_json(seat, decision.evaluations),
    }


__all__ = ["COSTLY", "Judged", "Moment", "costly", "judge", "judged", "judged_json", "moments", "review"]
