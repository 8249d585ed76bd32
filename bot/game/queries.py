"""Read-only questions about tables and their records, answered from storage without the table core's lock:
a table at a finished deal (for its result message, "Show the deal" and "Review my play"), the exported
record, the tallies, the leaderboard."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import engine
from bot.db import RATING_MIN_GAMES, Database, LeaderboardEntry, LeaderboardPage, LeaderboardSort, Tally

from .coach import ReviewSubject
from .daily import day_over
from .errors import UserError
from .table import TableSnapshot, restore


class TableQueries:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    async def next_table_id(self) -> int:
        """The id the next table will most likely get (to name its thread before it exists)."""
        return await self.db.tables.next_table_id()

    async def table_at_deal_end(self, table_id: int, deal_no: int) -> TableSnapshot:
        """The table as it stood when deal ``deal_no`` ended, rebuilt from storage (for a result owed since
        before a restart). Works for closed tables too."""
        row = await self.db.tables.get_table(table_id)
        if row is None:
            raise UserError("error.table_gone")
        return restore(row, await self.db.seats.seats_of(table_id), await self.db.records.load_record(table_id), up_to_deal=deal_no)

    async def closed_table(self, table_id: int) -> TableSnapshot | None:
        """The table as storage has it now (None: no such table), for the last edits of a closed table's
        messages: replayed, or, when its record no longer replays (a table set aside), without its deals."""
        row = await self.db.tables.get_table(table_id)
        if row is None:
            return None
        seats = await self.db.seats.seats_of(table_id)
        record = await self.db.records.load_record(table_id)
        try:
            return restore(row, seats, record)
        except Exception:  # whatever the replay raises: the table was set aside for it, and says only that it closed
            return restore(row, seats, replace(record, deals=()))

    async def finished_deal(
        self, guild_id: int | None, table_id: int, deal_no: int, *, viewer: int | None = None
    ) -> TableSnapshot:
        """The table as it stood when deal ``deal_no`` ended, for "Show the deal": only a finished deal of a
        table of ``guild_id``, only while the guild allows deal review; read from the stored record, so it
        works for closed tables and after a restart. Every refusal is the user's error and shows nothing.
        A daily attempt's deals are shown before their day is over only to its player, the ``viewer`` (from
        their DM, ``guild_id`` None)."""
        row = await self.db.tables.get_table(table_id)
        attempt = await self.db.daily.attempt_of_table(table_id)
        own = attempt is not None and viewer is not None and attempt.user_id == viewer
        if row is None or (row.guild_id != guild_id and not own):  # another guild's table is as good as none
            raise UserError("error.review_no_deal")
        if not (await self.db.settings.get_guild_settings(row.guild_id)).deal_review:
            raise UserError("error.review_off")
        if attempt is not None and not own and not day_over(attempt.day, self.clock()):  # others may play it
            raise UserError("error.review_no_deal")
        record = await self.db.records.load_record(table_id)
        stored = next((deal for deal in record.deals if deal.deal_no == deal_no), None)
        if stored is None:
            raise UserError("error.review_no_deal")
        if not stored.finished:
            raise UserError("error.review_not_finished")
        if not stored.actions:  # the closed table's action log was pruned (RETENTION_DAYS)
            raise UserError("error.review_pruned")
        table = restore(row, await self.db.seats.seats_of(table_id), record, up_to_deal=deal_no)
        if table.deal_no != deal_no or table.deal is None or not table.deal.finished:
            raise UserError("error.review_not_finished")
        return table

    async def export_record(self, table_id: int, *, include_unfinished: bool = True) -> engine.GameRecord:
        """The table's game record (written out with its ``to_json``). A running deal's hands stay hidden
        unless ``include_unfinished`` (a set-aside table's deals are over, so its last deal is included too)."""
        record = await self.db.records.load_record(table_id)
        return record.to_game_record(include_unfinished=include_unfinished)

    async def review_subject(
        self, table_id: int, deal_no: int, user_id: int, *, guild_id: int | None, channel_id: int | None
    ) -> ReviewSubject:
        """A finished deal of the table and the seat ``user_id`` holds there, for "Review my play" (the table
        may be closed since). Refused for anybody not seated at the table, a deal not finished (or pruned),
        and a button used anywhere but the table's own channel (a daily attempt's is its player's DM, or any
        channel of its server for its player, who may play it there)."""
        row = await self.db.tables.get_table(table_id)
        if row is None:
            raise UserError("error.table_gone")
        in_its_dm = guild_id is None and channel_id == row.channel_id
        attempt = await self.db.daily.attempt_of_table(table_id)  # played in a channel: its results are there
        own_attempt_here = attempt is not None and attempt.user_id == user_id and guild_id == row.guild_id
        if not own_attempt_here and ((guild_id != row.guild_id and not in_its_dm) or channel_id != row.channel_id):
            raise UserError("error.wrong_channel")
        seat = next((s.seat for s in await self.db.seats.seats_of(table_id) if s.user_id == user_id), None)
        if seat is None:
            raise UserError("coach.not_your_deal")
        stored = await self.db.records.load_record(table_id)
        index = next((i for i, d in enumerate(stored.deals) if d.deal_no == deal_no and d.finished), None)
        if index is None or not stored.deals[index].actions:
            raise UserError("coach.deal_not_over")
        record = replace(stored, deals=stored.deals[: index + 1]).to_game_record()
        return ReviewSubject(record, index, seat, row.deck)

    async def tally_between(self, guild_id: int, pair: tuple[int, int], opponents: tuple[int, int]) -> tuple[int, int]:
        return await self.db.stats.get_tally(guild_id, pair, opponents)

    async def tallies_of_pair(self, guild_id: int, pair: tuple[int, int]) -> list[Tally]:
        return await self.db.stats.tallies_of_pair(guild_id, pair)

    async def leaderboard(
        self, guild_id: int, sort: LeaderboardSort, min_games: int, offset: int, limit: int
    ) -> LeaderboardPage:
        return await self.db.stats.leaderboard(guild_id, sort, min_games, offset, limit)

    async def rank_of(
        self, guild_id: int, user_id: int, sort: LeaderboardSort, min_games: int
    ) -> LeaderboardEntry | None:
        return await self.db.stats.rank_of(guild_id, user_id, sort, min_games)

    async def default_leaderboard_sort(self, guild_id: int) -> LeaderboardSort:
        """By rating once some person of the guild has the rating board's minimum of rated Bummerl, else by
        Bummerl won."""
        return "rating" if await self.db.ratings.has_rated_person(guild_id, RATING_MIN_GAMES) else "bummerl"
