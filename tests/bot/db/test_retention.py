"""Bounded storage: closed tables' action logs are pruned after the retention; everything else stays."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

import bot.db.retention as retention
from bot.db import BummerlRow, Database, DealResultRow, Player, PlayerDealStats, TableRow
from bot.db.retention import retention_cutoff
from bot.db.transfer import TABLES
from tests.bot.db.conftest import INTEGRITY_ERRORS

MakeTable = Callable[..., Awaitable[TableRow]]
CREATED_AT = 1_700_000_000  # as in conftest.py
GUILD = 1
DAY = 86_400
CLOSED_AT = CREATED_AT + 100
CUTOFF = CLOSED_AT + 1  # tables closed before this are old enough
ALICE, BOB, CAROL, DAVE = Player(21, "Alice"), Player(22, "Bob"), Player(23, "Carol"), Player(24, "Dave")
HANDS = [[f"c{seat}{n}" for n in range(5)] for seat in range(4)]


async def play(db: Database, table: TableRow, deals: int, actions_per_deal: int, *, finish_last: bool = True) -> None:
    """Deals with actions and results, as the service stores them."""
    for deal_no in range(deals):
        await db.records.start_deal(table.id, deal_no, dealer=deal_no % 4, seed=deal_no + 7, hands=HANDS, now=CREATED_AT)
        for n in range(actions_per_deal):
            await db.records.append_action(table.id, deal_no, f"N play c0{n}", CREATED_AT)
        if deal_no < deals - 1 or finish_last:
            await db.records.record_deal_result(DealResultRow(
                table_id=table.id, deal_no=deal_no, contract="normal", declarer_seat=0, winner_team=0,
                game_points=1, multiplier=1, reason="66", finished_at=CREATED_AT,
            ))


async def finished_bummerl(db: Database, table: TableRow) -> None:
    await db.stats.add_deal_stats(GUILD, [PlayerDealStats(21, "Alice", won=True, game_points=1, declared=True, made=True)])
    await db.stats.record_bummerl(BummerlRow(
        guild_id=GUILD, table_id=table.id, winners=(ALICE, BOB), losers=(CAROL, DAVE), kind="bummerl", count=1,
        score_winner=24, score_loser=3, finished_at=CREATED_AT,
    ))


async def action_count(db: Database, table_id: int) -> int:
    row = await db.core.fetch_one("SELECT COUNT(*) AS n FROM actions WHERE table_id = ?", (table_id,))
    assert row is not None
    return int(row["n"])


async def everything_but_actions(db: Database) -> dict[str, list[tuple[object, ...]]]:
    return {
        name: sorted((tuple(dict(row).values()) for row in await db.core.fetch_all(f"SELECT * FROM {name}")), key=repr)
        for name in TABLES
        if name != "actions"
    }


async def test_old_closed_tables_lose_their_actions_and_keep_deals_results_bummerl_stats_and_tallies(
    db: Database, make_table: MakeTable, tmp_path: Path
) -> None:
    old = await make_table(channel_id=1)
    await play(db, old, deals=3, actions_per_deal=7)
    await finished_bummerl(db, old)
    await db.tables.set_status(old.id, "closed", CLOSED_AT)
    before = await everything_but_actions(db)
    record_before = await db.records.load_record(old.id)

    assert await db.retention.prune_closed_tables(older_than=CUTOFF) == 1

    assert await action_count(db, old.id) == 0
    assert await everything_but_actions(db) == before  # deals, results, Bummerl, stats, tallies
    record = await db.records.load_record(old.id)
    assert [deal.deal_no for deal in record.deals] == [deal.deal_no for deal in record_before.deals]
    assert all(deal.finished and deal.actions == () for deal in record.deals)
    assert len(await db.records.deal_results(old.id)) == 3
    assert len(await db.stats.bummerl_results_of_table(old.id)) == 1
    alice = await db.stats.get_player_stats(GUILD, ALICE.user_id)
    assert alice is not None and (alice.bummerl_won, alice.deals_played) == (1, 1)
    assert await db.stats.get_tally(GUILD, (21, 22), (23, 24)) == (1, 0)

    assert await db.retention.prune_closed_tables(older_than=CUTOFF) == 0  # nothing left to prune


async def test_open_tables_and_recently_closed_tables_keep_every_action(db: Database, make_table: MakeTable) -> None:
    playing = await make_table(channel_id=1)
    await play(db, playing, deals=2, actions_per_deal=5, finish_last=False)
    await db.tables.set_status(playing.id, "playing", CLOSED_AT)
    finished = await make_table(channel_id=2)  # waits for a rematch: restored on start
    await play(db, finished, deals=1, actions_per_deal=5)
    await db.tables.set_status(finished.id, "finished", CLOSED_AT)
    recent = await make_table(channel_id=3)
    await play(db, recent, deals=1, actions_per_deal=5)
    await db.tables.set_status(recent.id, "closed", CUTOFF)  # closed exactly at the cutoff: not older
    old = await make_table(channel_id=4)
    await play(db, old, deals=1, actions_per_deal=5)
    await db.tables.set_status(old.id, "closed", CLOSED_AT)

    assert await db.retention.prune_closed_tables(older_than=CUTOFF) == 1

    assert await action_count(db, playing.id) == 10
    assert await action_count(db, finished.id) == 5
    assert await action_count(db, recent.id) == 5
    assert await action_count(db, old.id) == 0
    # What a restart restores never includes a pruned table: it is closed, and closed is final.
    assert [row.id for row in await db.tables.list_open_tables()] == [playing.id, finished.id]
    with pytest.raises(INTEGRITY_ERRORS, match="cannot be reopened"):
        async with db.transaction():
            await db.core.execute("UPDATE game_tables SET status = 'playing' WHERE id = ?", (old.id,))


async def test_a_big_prune_runs_in_small_transactions_that_let_other_writes_in(
    db: Database, make_table: MakeTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(retention, "BATCH_ROWS", 10)
    tables = []
    for channel in range(3):
        table = await make_table(channel_id=channel)
        await play(db, table, deals=4, actions_per_deal=9)
        await db.tables.set_status(table.id, "closed", CLOSED_AT)
        tables.append(table)
    commits: list[str] = []
    real_transaction = db.core.transaction  # what the repositories open their transactions with

    def transaction():  # type: ignore[no-untyped-def]
        commits.append(asyncio.current_task().get_name())  # type: ignore[union-attr]
        return real_transaction()

    monkeypatch.setattr(db.core, "transaction", transaction)

    pruning = asyncio.create_task(db.retention.prune_closed_tables(older_than=CUTOFF), name="prune")
    await asyncio.sleep(0)
    await db.meta.set("other", "write")  # waits only for one batch, not for the whole prune
    assert not pruning.done()
    assert await pruning == 3
    assert all([await action_count(db, table.id) == 0 for table in tables])
    assert commits.count("prune") >= 3 * 36 // 10  # at most BATCH_ROWS rows per transaction


async def test_retention_cutoff_is_days_before_now_and_zero_keeps_forever() -> None:
    now = CREATED_AT + 100 * DAY
    assert retention_cutoff(now, 90) == now - 90 * DAY
    assert retention_cutoff(now, 0) is None
    with pytest.raises(ValueError):
        retention_cutoff(now, -1)
