"""Kept "Review my play" results (migration 013, docs/web.md): the AI's marks at the decisions of one person's
seat in one deal, shown on the deal's replay only to whoever has the review's token (the link in the asker's
own answer). forget-me deletes a person's reviews (``PrivacyRepo``); retention deletes them with the deal's
moves (``RetentionRepo``)."""

from __future__ import annotations

from dataclasses import dataclass

from .core import Repository


@dataclass(frozen=True, slots=True)
class KeptReview:
    token: str
    user_id: int
    table_id: int
    deal_no: int
    seat: int
    marks_json: str
    created_at: int


class ReviewsRepo(Repository):
    async def keep(self, review: KeptReview) -> None:
        async with self._core.transaction():
            await self._core.execute(
                """
                INSERT INTO deal_reviews (token, user_id, table_id, deal_no, seat, marks_json, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    review.token, review.user_id, review.table_id, review.deal_no, review.seat, review.marks_json,
                    review.created_at,
                ),
            )

    async def review(self, token: str) -> KeptReview | None:
        row = await self._core.fetch_one(
            "SELECT token, user_id, table_id, deal_no, seat, marks_json, created_at FROM deal_reviews WHERE token = ?",
            (token,),
        )
        if row is None:
            return None
        return KeptReview(
            str(row["token"]), int(row["user_id"]), int(row["table_id"]), int(row["deal_no"]), int(row["seat"]),
            str(row["marks_json"]), int(row["created_at"]),
        )

    async def count_of(self, user_id: int) -> int:
        row = await self._core.fetch_one("SELECT COUNT(*) AS n FROM deal_reviews WHERE user_id = ?", (user_id,))
        return 0 if row is None else int(row["n"])
