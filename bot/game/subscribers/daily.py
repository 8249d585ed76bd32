"""The daily deal's score: each finished deal of an attempt stores the person's team's signed game points (its
score is those minus par, bot/game/daily.py); the attempt is over when its table closes, after its last deal or
abandoned, with what was played."""

from __future__ import annotations

from collections.abc import Sequence

from bot.db import Database
from bot.game.daily import PERSON_SEAT, signed_points
from bot.game.events import Change, DealEnded, TableClosed, TableEvent


class DailyScore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(self, change: Change) -> Sequence[TableEvent]:
        ours = [event for event in change.events if isinstance(event, DealEnded | TableClosed)]
        if not ours or await self.db.daily.attempt_of_table(change.row.id) is None:
            return ()
        for event in ours:
            if isinstance(event, DealEnded):
                deal = event.table.deal
                assert deal is not None and deal.result is not None
                points = signed_points(deal.result, PERSON_SEAT % 2)
                await self.db.daily.record_deal(change.row.id, event.table.deal_no, points)
            else:
                await self.db.daily.finish_attempt(change.row.id, change.now)
        return ()
