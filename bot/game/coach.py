"""The coach: "Review my play" after a deal and the hints of a practice table, answered by the AI.

Its searches go through the process's one AI queue (``bot.ai_worker.AiWorker``, shared with the tables): a
review's are background work, which waits for every table move and hint queued and never holds all workers
(when there are two or more); a hint is urgent, as a table's move, since its person waits for it. A review is
one request per decision (the seat's ``PlayerView`` then, as ``engine.ai.analysis`` cuts the deal up), all
within one time budget counting the time in the queue; a hint is one request within ``hint_cap_ms``. The
values are ``engine.ai.evaluate_actions``' with a fixed seed and node budget (never cut down under load), so
they are those ``python -m engine.ai`` prints for the same position (``--review`` for a deal). Reviews are
rate-limited per person. Never imports discord.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import engine
from bot.cache import Lru
from engine.ai import Evaluation, analysis

from .errors import UserError

if TYPE_CHECKING:
    from bot.ai_worker import AiWorker, Priority

log = logging.getLogger(__name__)

COACH_SEED = 0  # every review and hint searches with this seed: the same position, the same values
HINTS_KEPT = 256  # hints remembered per position, so a second click is answered at once
REVIEWERS_KEPT = 1024  # people whose recent reviews are remembered for the rate limit


@dataclass(frozen=True, slots=True)
class ReviewSubject:
    """A finished deal and the seat whose decisions are judged, as the service hands it out."""

    record: engine.GameRecord  # the table's finished deals up to and including this one
    deal: int  # index of the deal in ``record``
    seat: int
    deck: str  # the table's deck, for the names of the cards in the answer


@dataclass(frozen=True, slots=True)
class Hint:
    seat: int
    best: engine.Action
    evaluations: tuple[Evaluation, ...]


class Coach:
    def __init__(
        self,
        worker: AiWorker | None,
        *,
        budget_ms: int = 150,
        hint_cap_ms: int = 10_000,
        review_seconds: float = 60.0,
        reviews_per_window: int = 3,
        review_window: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._worker = worker
        self.budget_ms = budget_ms
        self.hint_cap_ms = hint_cap_ms
        self.review_seconds = review_seconds
        self.reviews_per_window = reviews_per_window
        self.review_window = review_window
        self.clock = clock
        self._reviews: Lru[int, deque[float]] = Lru(REVIEWERS_KEPT)  # user -> start times in the window
        self._reviewing: set[int] = set()  # users with a review under way (one at a time each)
        self._hints: Lru[tuple[int, int, int], Hint] = Lru(HINTS_KEPT)

    async def close(self) -> None:
        """Stop the worker (idempotent: the AI players sharing it may have stopped it already)."""
        if self._worker is not None:
            await self._worker.close()

    # --- Review my play ------------------------------------------------------------------------------

    def admit_review(self, user_id: int) -> None:
        """Count a review for ``user_id`` now, or refuse it (one at a time, a few per window each)."""
        if user_id in self._reviewing:
            raise UserError("coach.review_running")
        now = self.clock()
        started = self._reviews.get(user_id) or deque()
        while started and started[0] <= now - self.review_window:
            started.popleft()
        if len(started) >= self.reviews_per_window:
            wait = max(1, round(started[0] + self.review_window - now))
            raise UserError("coach.review_limited", count=self.reviews_per_window, seconds=wait)
        started.append(now)
        self._reviews[user_id] = started

    async def review(self, user_id: int, subject: ReviewSubject) -> list[analysis.Judged]:
        """Every decision of the subject's seat with a choice, judged (in the order made); the caller admitted
        the review first (``admit_review``). A decision the worker cannot judge in the time left ends the
        review with the user's error ``coach.review_failed``, as does a review not done within
        ``review_seconds``, time in the AI queue included."""
        from bot.ai_worker import Priority

        self._reviewing.add(user_id)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.review_seconds
            judged = []
            async with asyncio.timeout_at(deadline):
                for moment in analysis.moments(subject.record, subject.deal, subject.seat):
                    left_ms = int((deadline - loop.time()) * 1000)
                    best, evaluations = await self._evaluate(
                        moment.view, subject.record.rules, left_ms, "coach.review_failed", Priority.BACKGROUND
                    )
                    judged.append(analysis.judged(moment, best, evaluations))
            return judged
        except TimeoutError:
            log.warning("coach: a review was not done within %g s", self.review_seconds)
            raise UserError("coach.review_failed") from None
        finally:
            self._reviewing.discard(user_id)

    # --- hints ---------------------------------------------------------------------------------------

    async def hint(self, table_id: int, version: int, view: engine.PlayerView, rules: engine.Ruleset) -> Hint:
        """The AI's choice for the view's seat and the value of every legal action (remembered per position)."""
        assert view.seat is not None
        key = (table_id, version, view.seat)
        if (known := self._hints.get(key)) is not None:
            return known
        from bot.ai_worker import Priority

        try:
            async with asyncio.timeout(self.hint_cap_ms / 1000):  # the queue's wait counts too: someone waits
                best, evaluations = await self._evaluate(
                    view, rules, self.hint_cap_ms, "coach.hint_failed", Priority.URGENT
                )
        except TimeoutError:
            log.warning("coach: a hint was not found within %d ms", self.hint_cap_ms)
            raise UserError("coach.hint_failed") from None
        hint = Hint(view.seat, best, tuple(evaluations))
        self._hints[key] = hint
        return hint

    async def _evaluate(
        self, view: engine.PlayerView, rules: engine.Ruleset, cap_ms: int, failed_key: str, priority: Priority
    ) -> tuple[engine.Action, list[Evaluation]]:
        """The worker's evaluation, its search within ``cap_ms``; the user's error ``failed_key`` when there is
        none."""
        if self._worker is None or cap_ms <= 0:
            raise UserError(failed_key)
        from bot.ai_worker import AnalysisFailed

        try:
            return await self._worker.evaluate(view, COACH_SEED, self.budget_ms, cap_ms, rules, priority=priority)
        except AnalysisFailed as err:
            log.warning("coach: no evaluation (%s)", err)
            raise UserError(failed_key) from None
