"""Deal accounting: a finished deal's result and statistics, and a finished Bummerl's record, tally and
ratings, written in the transaction of the deal's last action. A practice table counts for none of it but the
deal's result, and neither does a daily attempt (bot/game/daily.py): its deals are the day's fixed cards, scored
on the daily boards against par, and a person playing every day with three AI seats would otherwise fill their
statistics with the same solo deals everyone else played."""

from __future__ import annotations

from collections.abc import Sequence

import engine
from bot.db import BummerlRow, Database, DealResultRow, Player, PlayerDealStats
from bot.game import ratings
from bot.game.events import BummerlEnded, BummerlRated, Change, DealEnded, TableEvent
from bot.game.table import TableSnapshot
from engine.events import BummerlWon


class DealAccounting:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(self, change: Change) -> Sequence[TableEvent]:
        answered: list[TableEvent] = []
        for event in change.events:
            match event:
                case DealEnded(table):
                    await self._deal_ended(table, change.now)
                case BummerlEnded(table, bummerl) if not table.row.practice:
                    answered.append(await self._bummerl_ended(table, bummerl, change.now))
        return answered

    async def _deal_ended(self, table: TableSnapshot, now: int) -> None:
        deal = table.deal
        assert deal is not None and deal.result is not None
        result = deal.result
        assert deal.contract is not None and deal.declarer is not None
        await self.db.records.record_deal_result(
            DealResultRow(
                table.id,
                table.deal_no,
                deal.contract.id,
                deal.declarer,
                result.winner,
                result.game_points,
                result.multiplier,
                result.reason,
                now,
            )
        )
        if table.row.practice:  # a practice deal counts for no statistic, tally or rating
            return
        if await self.db.daily.attempt_of_table(table.id) is not None:  # a daily deal counts on the daily boards
            return
        declared = deal.contract is not engine.Contract.NORMAL
        players = [
            PlayerDealStats(
                s.user_id,
                s.display_name,
                won=(s.seat & 1) == result.winner,
                game_points=result.game_points if (s.seat & 1) == result.winner else 0,
                declared=s.seat == deal.declarer and declared,
                made=s.seat == deal.declarer and declared and result.made,
            )
            for s in table.humans()
            if s.user_id is not None and not s.ai_takeover  # humans() has a user id; said again for the types
        ]
        await self.db.stats.add_deal_stats(table.row.guild_id, players)

    async def _bummerl_ended(self, table: TableSnapshot, bummerl: BummerlWon, now: int) -> BummerlRated:
        def pair(team: int) -> tuple[Player, Player]:
            a, b = table.seats[team], table.seats[team + 2]
            assert a is not None and b is not None
            return (Player(a.user_id, a.display_name), Player(b.user_id, b.display_name))

        settings = await self.db.settings.get_guild_settings(table.row.guild_id)
        row = BummerlRow(
            table.row.guild_id,
            table.id,
            pair(bummerl.winner),
            pair(1 - bummerl.winner),
            bummerl.kind,
            bummerl.count,
            bummerl.score[bummerl.winner],
            bummerl.score[1 - bummerl.winner],
            now,
            ai_strength=settings.ai_strength,
        )
        bummerl_id = await self.db.stats.record_bummerl(row)
        by_person = {c.player_id: c for c in await ratings.rate_bummerl(self.db, row, bummerl_id, settings)}
        changes = tuple(  # every person's change in seat order, for the result message
            (s.display_name, change.delta, change.after.shown)
            for s in table.humans()
            if s.user_id is not None and (change := by_person.get(s.user_id)) is not None
        )
        tally = await self.db.stats.get_tally(
            table.row.guild_id, table.team_key(bummerl.winner), table.team_key(1 - bummerl.winner)
        )
        return BummerlRated(tally, changes)
