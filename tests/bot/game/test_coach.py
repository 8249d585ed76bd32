"""The coach without Discord: a few reviews per person per window, one at a time each, and a window that moves
on with the clock; reviews are background work in the AI queue, hints urgent, and either one's time limit
counts its wait in the queue."""

from __future__ import annotations

from typing import Any

import pytest

from bot.game.coach import Coach
from bot.game.errors import UserError


def test_reviews_per_window_then_again_once_the_window_moves_on() -> None:
    now = [1000.0]
    coach = Coach(None, reviews_per_window=2, review_window=600.0, clock=lambda: now[0])
    coach.admit_review(1)
    now[0] += 100
    coach.admit_review(1)
    coach.admit_review(2)  # another person has a limit of their own
    with pytest.raises(UserError) as refused:
        coach.admit_review(1)
    assert refused.value.key == "coach.review_limited"
    assert refused.value.values == {"count": 2, "seconds": 500}
    now[0] += 500  # the first review leaves the window
    coach.admit_review(1)


async def test_without_a_worker_a_review_is_refused_and_not_left_running() -> None:
    from bot.game.coach import ReviewSubject
    from engine import STANDARD, DealRecord, GameRecord, deal_hands

    hands = deal_hands(1, 0)
    record = GameRecord(STANDARD, 0, (DealRecord(hands, ("E trump " + hands[1][0][0],)),))
    coach = Coach(None)
    coach.admit_review(1)
    with pytest.raises(UserError) as failed:
        await coach.review(1, ReviewSubject(record, 0, 1, "french"))
    assert failed.value.key == "coach.review_failed"
    coach.admit_review(1)  # nothing is left "under way"


class QueueingWorker:
    """Stands in for ``AiWorker``: records each evaluation's priority, answers at once or (``stuck``) never, as an
    evaluation that waits in a queue nobody serves."""

    def __init__(self, stuck: bool = False) -> None:
        self.stuck = stuck
        self.priorities: list[object] = []

    async def evaluate(
        self, view: Any, seed: int, budget_ms: int, cap_ms: int, rules: Any, *, priority: Any
    ) -> Any:
        import asyncio

        self.priorities.append(priority)
        if self.stuck:
            await asyncio.Event().wait()
        return view.legal[0], []


def _review_subject() -> Any:
    from bot.game.coach import ReviewSubject
    from engine import STANDARD, DealRecord, GameRecord, deal_hands

    hands = deal_hands(1, 0)
    record = GameRecord(STANDARD, 0, (DealRecord(hands, ("E trump " + hands[1][0][0],)),))
    return ReviewSubject(record, 0, 1, "french")


async def test_reviews_queue_as_background_work_and_hints_as_urgent() -> None:
    from bot.ai_worker import Priority
    from engine import STANDARD, deal_hands, new_deal, view_for

    worker = QueueingWorker()
    coach = Coach(worker)  # type: ignore[arg-type]
    coach.admit_review(1)
    assert await coach.review(1, _review_subject())
    assert worker.priorities and set(worker.priorities) == {Priority.BACKGROUND}
    state = new_deal(STANDARD, 0, deal_hands(2, 0))
    await coach.hint(1, 0, view_for(state, state.to_act), STANDARD)
    assert worker.priorities[-1] == Priority.URGENT


async def test_a_review_or_hint_still_waiting_in_the_queue_at_its_time_limit_fails() -> None:
    from engine import STANDARD, deal_hands, new_deal, view_for

    coach = Coach(QueueingWorker(stuck=True), review_seconds=0.05, hint_cap_ms=50)  # type: ignore[arg-type]
    coach.admit_review(1)
    with pytest.raises(UserError) as failed:
        await coach.review(1, _review_subject())
    assert failed.value.key == "coach.review_failed"
    coach.admit_review(1)  # nothing is left "under way"
    state = new_deal(STANDARD, 0, deal_hands(2, 0))
    with pytest.raises(UserError) as no_hint:
        await coach.hint(1, 0, view_for(state, state.to_act), STANDARD)
    assert no_hint.value.key == "coach.hint_failed"
