"""Reviews of a person's play kept for the deal's replay (docs/web.md): "Review my play" judges each decision
of the asker's seat (bot/game/coach.py); the judgement is kept under a token of its own, and the replay shows
its marks at those decisions only to whoever opens it with that token (the link in the asker's own answer)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.db import Database
from bot.db.reviews import KeptReview
from engine.actions import format_action
from engine.ai.analysis import COSTLY, Judged

TOKEN_BYTES = 16  # 128 bits, as the server's own token


@dataclass(frozen=True, slots=True)
class Mark:
    """The AI's judgement of one decision: after action ``index`` of the deal (its record notation)."""

    index: int
    played: str
    best: str
    played_value: float
    best_value: float
    loss: float

    @property
    def costly(self) -> bool:
        return self.loss >= COSTLY


@dataclass(frozen=True, slots=True)
class Review:
    user_id: int
    table_id: int
    deal_no: int
    seat: int
    marks: tuple[Mark, ...]


def marks_of(decisions: list[Judged]) -> list[dict[str, Any]]:
    marks = []
    for decision in decisions:
        seat = decision.moment.view.seat
        assert seat is not None
        marks.append(
            {
                "index": decision.moment.index,
                "played": format_action(seat, decision.moment.played),
                "best": format_action(seat, decision.best),
                "played_value": round(decision.played_value, 3),
                "best_value": round(decision.best_value, 3),
                "loss": round(decision.loss, 3),
            }
        )
    return marks


class ReviewStore:
    def __init__(self, db: Database, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    async def keep(self, user_id: int, table_id: int, deal_no: int, seat: int, decisions: list[Judged]) -> str:
        """Keep a review just made; its token."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        marks = json.dumps(marks_of(decisions), separators=(",", ":"))
        await self.db.reviews.keep(KeptReview(token, user_id, table_id, deal_no, seat, marks, int(self.clock())))
        return token

    async def review(self, token: str, table_id: int, deal_no: int) -> Review | None:
        """The review kept under ``token``, if it is of that deal (else None: the token opens nothing else)."""
        kept = await self.db.reviews.review(token)
        if kept is None or (kept.table_id, kept.deal_no) != (table_id, deal_no):
            return None
        marks = tuple(Mark(**mark) for mark in json.loads(kept.marks_json))
        return Review(kept.user_id, kept.table_id, kept.deal_no, kept.seat, marks)
