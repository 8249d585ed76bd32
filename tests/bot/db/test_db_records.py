import asyncio

import pytest

from bot.db import Database, DealResultRow, RecordConflict, TableNotFound

NOW = 1_700_000_100
HANDS = (
    ("HA", "HK", "CQ", "DT", "SJ"),
    ("HT", "DA", "DK", "CA", "SQ"),
    ("HQ", "HJ", "SA", "ST", "CK"),
    ("DQ", "DJ", "CT", "CJ", "SK"),
)


def result_of(table_id: int, deal_no: int) -> DealResultRow:
    return DealResultRow(
        table_id=table_id, deal_no=deal_no, contract="normal", declarer_seat=0, winner_team=0,
        game_points=2, multiplier=1, reason="NS reached 66", finished_at=NOW + 50,
    )


async def test_the_record_round_trips(db: Database, make_table) -> None:
    table = await make_table()
    await db.records.start_deal(table.id, 0, dealer=3, seed=12345, hands=HANDS, now=NOW)
    seqs = [await db.records.append_action(table.id, 0, action, NOW + 1)
            for action in ("N trump H", "N pass", "E pass", "S pass", "W pass")]
    assert seqs == [0, 1, 2, 3, 4]
    await db.records.record_deal_result(result_of(table.id, 0))
    await db.records.start_deal(table.id, 1, dealer=0, seed=2**63 - 1, hands=HANDS[::-1], now=NOW + 60)
    assert await db.records.append_action(table.id, 1, "E aufschlagen", NOW + 61) == 0

    record = await db.records.load_record(table.id)
    assert (record.table_id, record.rules_json, record.first_dealer) == (table.id, '"standard"', 3)
    first, second = record.deals
    assert (first.deal_no, first.dealer, first.seed, first.hands, first.started_at, first.finished) == (
        0, 3, 12345, HANDS, NOW, True
    )
    assert first.actions == ("N trump H", "N pass", "E pass", "S pass", "W pass")
    assert (second.deal_no, second.seed, second.hands, second.actions, second.finished) == (
        1, 2**63 - 1, HANDS[::-1], ("E aufschlagen",), False
    )
    assert await db.records.finished_deal_nos(table.id) == [0]
    assert await db.records.deal_results(table.id) == [result_of(table.id, 0)]


async def test_the_export_hides_the_running_deal(db: Database, make_table) -> None:
    table = await make_table()
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    await db.records.append_action(table.id, 0, "N trump H", NOW)
    await db.records.record_deal_result(result_of(table.id, 0))
    await db.records.start_deal(table.id, 1, dealer=0, seed=2, hands=HANDS[::-1], now=NOW)

    record = await db.records.load_record(table.id)
    exported = record.to_game_record().to_json()
    assert exported == {
        "format": "bauernschnapsen/1",
        "rules": "standard",
        "dealer": "W",
        "deals": [{"hands": dict(zip("NESW", map(list, HANDS), strict=True)), "actions": ["N trump H"]}],
    }
    assert len(record.to_game_record(include_unfinished=True).deals) == 2


async def test_deals_are_numbered_without_gaps(db: Database, make_table) -> None:
    table = await make_table()
    with pytest.raises(RecordConflict):
        await db.records.start_deal(table.id, 1, dealer=0, seed=1, hands=HANDS, now=NOW)
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    with pytest.raises(RecordConflict):
        await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    with pytest.raises(TableNotFound):
        await db.records.start_deal(table.id + 1, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    with pytest.raises(ValueError, match="four hands"):
        await db.records.start_deal(table.id, 1, dealer=0, seed=1, hands=HANDS[:3], now=NOW)
    assert [deal.deal_no for deal in (await db.records.load_record(table.id)).deals] == [0]


async def test_actions_go_only_to_the_running_deal(db: Database, make_table) -> None:
    table = await make_table()
    with pytest.raises(RecordConflict):
        await db.records.append_action(table.id, 0, "N trump H", NOW)
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    await db.records.record_deal_result(result_of(table.id, 0))
    with pytest.raises(RecordConflict, match="finished"):
        await db.records.append_action(table.id, 0, "N trump H", NOW)
    with pytest.raises(RecordConflict):
        await db.records.record_deal_result(result_of(table.id, 0))
    await db.records.start_deal(table.id, 1, dealer=0, seed=1, hands=HANDS, now=NOW)
    with pytest.raises(RecordConflict, match="not the running deal"):
        await db.records.append_action(table.id, 2, "N trump H", NOW)
    with pytest.raises(RecordConflict, match="still running"):
        await db.records.start_deal(table.id, 2, dealer=1, seed=1, hands=HANDS, now=NOW)


async def test_a_write_known_in_full_is_stored_whole_or_not_at_all(db: Database) -> None:
    """A chain stored alone (a click's move): when a statement returns no row, the ones before it are undone too."""
    insert = "INSERT INTO meta (key, value) VALUES (?, 'x') RETURNING key"
    missing = "UPDATE meta SET value = 'y' WHERE key = 'missing' RETURNING key"
    stopped = await db.core.fetch_chain_alone([(insert, ("undone",)), (missing, ())])
    assert [len(rows) for rows in stopped] == [1, 0]
    whole = await db.core.fetch_chain_alone([(insert, ("kept",)), (insert, ("also kept",))])
    assert [[row["key"] for row in rows] for rows in whole] == [["kept"], ["also kept"]]
    assert (await db.meta.get("undone"), await db.meta.get("kept"), await db.meta.get("also kept")) == (None, "x", "x")


async def test_a_move_is_appended_and_counted_in_the_version_or_neither(db: Database, make_table) -> None:
    table = await make_table()
    with pytest.raises(RecordConflict):
        await db.records.append_move(table.id, 0, "N trump H", NOW)  # no deal yet
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    assert await db.records.append_move(table.id, 0, "N trump H", NOW) == (0, table.version + 1)
    assert await db.records.append_move(table.id, 0, "E pass", NOW) == (1, table.version + 2)
    await db.records.record_deal_result(result_of(table.id, 0))
    with pytest.raises(RecordConflict, match="finished"):
        await db.records.append_move(table.id, 0, "S pass", NOW)
    row = await db.tables.get_table(table.id)
    assert row is not None and row.version == table.version + 2
    assert (await db.records.load_record(table.id)).deals[0].actions == ("N trump H", "E pass")


async def test_a_failed_transaction_leaves_nothing_behind(db: Database, make_table) -> None:
    table = await make_table()
    await db.seats.take_seat(table.id, 0, 21, "Alice")
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    await db.records.append_action(table.id, 0, "N trump H", NOW)
    with pytest.raises(RuntimeError, match="message failed"):
        async with db.transaction():
            assert await db.records.append_action(table.id, 0, "N pass", NOW) == 1
            assert await db.tables.bump_version(table.id, NOW) == 1
            await db.seats.set_warned(table.id, 0, True)
            raise RuntimeError("message failed")
    record = await db.records.load_record(table.id)
    assert record.deals[0].actions == ("N trump H",)
    stored = await db.tables.get_table(table.id)
    assert stored is not None and stored.version == 0
    assert not (await db.seats.seats_of(table.id))[0].warned
    # The next action gets the seq the rolled-back one had.
    assert await db.records.append_action(table.id, 0, "N pass", NOW) == 1


async def test_one_transaction_commits_several_writes(db: Database, make_table) -> None:
    table = await make_table()
    async with db.transaction():
        await db.tables.set_status(table.id, "playing", NOW)
        await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
        await db.records.append_action(table.id, 0, "N trump H", NOW)
        await db.tables.bump_version(table.id, NOW)
    stored = await db.tables.get_table(table.id)
    assert stored is not None and (stored.status, stored.version) == ("playing", 1)
    assert (await db.records.load_record(table.id)).deals[0].actions == ("N trump H",)


async def test_a_typed_error_inside_a_transaction_has_written_nothing(db: Database, make_table) -> None:
    first = await make_table(channel_id=500)
    async with db.transaction():
        await db.seats.take_seat(first.id, 0, 21, "Alice")
        with pytest.raises(RecordConflict):
            await db.records.append_action(first.id, 0, "N trump H", NOW)  # no deal yet
    assert [seat.user_id for seat in await db.seats.seats_of(first.id)] == [21]


async def test_other_tasks_never_see_an_unfinished_transaction(db: Database, make_table) -> None:
    table = await make_table()
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    written = asyncio.Event()
    release = asyncio.Event()

    async def click_that_fails() -> None:
        async with db.transaction():
            await db.records.append_action(table.id, 0, "N trump H", NOW)
            await db.tables.bump_version(table.id, NOW)
            written.set()
            await release.wait()
            raise RuntimeError("edit failed")

    click = asyncio.create_task(click_that_fails())
    await written.wait()
    while_open = await db.tables.get_table(table.id)  # another task reads while the transaction is open
    assert while_open is not None and while_open.version == 0
    release.set()
    with pytest.raises(RuntimeError):
        await click
    seen = await db.tables.get_table(table.id)
    assert seen is not None and seen.version == 0
    assert (await db.records.load_record(table.id)).deals[0].actions == ()


async def test_a_cancelled_click_rolls_back_and_frees_the_database(db: Database, make_table) -> None:
    table = await make_table()
    await db.records.start_deal(table.id, 0, dealer=3, seed=1, hands=HANDS, now=NOW)
    written = asyncio.Event()

    async def click_cancelled_mid_way() -> None:
        async with db.transaction():
            await db.records.append_action(table.id, 0, "N trump H", NOW)
            written.set()
            await asyncio.Event().wait()  # never set: the task is cancelled here

    click = asyncio.create_task(click_cancelled_mid_way())
    await written.wait()
    click.cancel()
    with pytest.raises(asyncio.CancelledError):
        await click
    assert await db.records.append_action(table.id, 0, "N aufschlagen", NOW) == 0
    assert (await db.records.load_record(table.id)).deals[0].actions == ("N aufschlagen",)
