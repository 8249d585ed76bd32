"""The coach's rate limit, without Discord: a few reviews per person per window, one at a time each, and
a window that moves on with the clock."""

from __future__ import annotations

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
