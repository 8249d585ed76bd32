"""Deal accounting on its own: a core with no other subscriber stores each finished deal's result and
statistics, and a finished Bummerl's record, tally and ratings, answering ``BummerlRated``; a practice table
counts for nothing but the result. It owes Discord nothing: that is another subscriber's job."""

from __future__ import annotations

from itertools import count

import pytest

from bot.db import Database
from bot.game import events as ev
from bot.game.core import TableCore
from bot.game.subscribers.accounting import DealAccounting
from bot.game.table import TableSnapshot
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import ALICE, BOB, GUILD, four_at_play, open_lobby, play_deal


@pytest.fixture
def core(db: Database, clock: Clock) -> TableCore:
    return TableCore(db, subscribers=(DealAccounting,), clock=clock, seed_source=count(1).__next__)


async def play_bummerl(core: TableCore, table: TableSnapshot) -> list[ev.TableEvent]:
    """Play deals until the Bummerl is over; every domain event of the deals' last actions."""
    events: list[ev.TableEvent] = []
    while table.status == "playing":
        outcome = await play_deal(core, table)  # type: ignore[arg-type]
        events.extend(outcome.changes)
        table = outcome.table
    return events


async def test_a_bummerl_stores_each_deal_and_its_own_result_and_answers_its_tally_and_ratings(
    core: TableCore, db: Database
) -> None:
    table = await four_at_play(core)  # type: ignore[arg-type]
    events = await play_bummerl(core, table)
    ended = [e for e in events if isinstance(e, ev.DealEnded)]
    assert await db.records.finished_deal_nos(table.id) == [e.table.deal_no for e in ended]
    stats = await db.stats.get_player_stats(GUILD, ALICE)
    assert stats is not None and stats.deals_played == len(ended) and stats.bummerl_played == 1
    rated = [e for e in events if isinstance(e, ev.BummerlRated)]
    assert len(rated) == 1 and sum(rated[0].tally) == 1
    assert [name for name, _, _ in rated[0].ratings] == ["alice", "bob", "carl", "dora"]
    assert await db.outbox.pending_announcements(table.id) == [], "announcing is not this subscriber's job"


async def test_a_practice_table_counts_only_the_results(core: TableCore, db: Database) -> None:
    table = await four_at_play(core, await open_lobby(core, practice=True))  # type: ignore[arg-type]
    events = await play_bummerl(core, table)
    assert await db.records.finished_deal_nos(table.id), "a practice deal's result is stored (for its review)"
    assert await db.stats.get_player_stats(GUILD, BOB) is None
    assert not [e for e in events if isinstance(e, ev.BummerlRated)]
