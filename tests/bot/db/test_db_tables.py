import pytest

from bot.db import (
    AlreadySeated,
    ChannelBusy,
    Database,
    GuildSettings,
    SeatNotFound,
    SeatTaken,
    TableClosed,
    TableNotFound,
)
from tests.bot.db.conftest import INTEGRITY_ERRORS

NOW = 1_700_000_000  # the tables' creation time (see conftest)


async def test_guild_settings_default_until_saved(db: Database) -> None:
    assert await db.settings.get_guild_settings(7) == GuildSettings(7)
    custom = GuildSettings(7, language="de", preset="stargames", deck="french", turn_seconds=45,
                           ai_strength="greedy", ai_delay_ms=0)
    await db.settings.save_guild_settings(custom)
    assert await db.settings.get_guild_settings(7) == custom
    assert await db.settings.get_guild_settings(8) == GuildSettings(8)
    await db.settings.save_guild_settings(GuildSettings(7, language=None))
    assert await db.settings.get_guild_settings(7) == GuildSettings(7)


async def test_meta_round_trip(db: Database) -> None:
    assert await db.meta.get("command_hash") is None
    await db.meta.set("command_hash", "one")
    await db.meta.set("command_hash", "two")
    assert await db.meta.get("command_hash") == "two"


async def test_create_and_read_a_table(db: Database, make_table) -> None:
    table = await make_table(channel_id=500)
    assert (table.status, table.version, table.first_dealer, table.table_message_id) == ("lobby", 0, 3, None)
    assert (table.created_at, table.updated_at) == (NOW, NOW)
    assert await db.tables.get_table(table.id) == table
    assert await db.tables.get_open_table_in_channel(500) == table
    assert await db.tables.get_open_table_in_channel(501) is None
    assert await db.tables.get_table(table.id + 1) is None


async def test_table_updates(db: Database, make_table) -> None:
    table = await make_table()
    await db.tables.set_table_message(table.id, 9000)
    await db.tables.set_host(table.id, 12, NOW + 1)
    await db.tables.set_status(table.id, "playing", NOW + 2)
    assert await db.tables.bump_version(table.id, NOW + 3) == 1
    assert await db.tables.bump_version(table.id, NOW + 4) == 2
    stored = await db.tables.get_table(table.id)
    assert stored is not None
    assert (stored.table_message_id, stored.host_id, stored.status, stored.version, stored.updated_at) == (
        9000, 12, "playing", 2, NOW + 4
    )
    with pytest.raises(TableNotFound):
        await db.tables.bump_version(table.id + 1, NOW)
    with pytest.raises(TableNotFound):
        await db.tables.set_status(table.id + 1, "closed", NOW)


async def test_one_open_table_per_channel(db: Database, make_table) -> None:
    first = await make_table(channel_id=500)
    with pytest.raises(ChannelBusy) as caught:
        await make_table(channel_id=500)
    assert caught.value.table_id == first.id
    other_channel = await make_table(channel_id=501)

    await db.tables.set_status(first.id, "finished", NOW)  # waiting for a rematch still holds the channel
    with pytest.raises(ChannelBusy):
        await make_table(channel_id=500)

    await db.tables.set_status(first.id, "closed", NOW)
    second = await make_table(channel_id=500)
    assert await db.tables.get_open_table_in_channel(500) == second
    assert [t.id for t in await db.tables.list_open_tables()] == [other_channel.id, second.id]


async def test_the_channel_rule_holds_in_sql_too(db: Database, make_table) -> None:
    table = await make_table(channel_id=500)
    with pytest.raises(INTEGRITY_ERRORS):
        async with db.transaction():
            await db.core.execute(
                "INSERT INTO game_tables (guild_id, channel_id, host_id, rules_json, deck, turn_seconds, language,"
                " first_dealer, created_at, updated_at) SELECT guild_id, channel_id, host_id, rules_json, deck,"
                " turn_seconds, language, first_dealer, created_at, updated_at FROM game_tables WHERE id = ?",
                (table.id,),
            )


async def test_a_closed_table_stays_closed(db: Database, make_table) -> None:
    table = await make_table()
    await db.tables.set_status(table.id, "closed", NOW)
    await db.tables.set_status(table.id, "closed", NOW)  # closing twice is harmless
    with pytest.raises(TableClosed):
        await db.tables.set_status(table.id, "lobby", NOW)
    with pytest.raises(TableClosed):
        await db.seats.take_seat(table.id, 0, 21, "Alice")
    assert await db.tables.list_open_tables() == []


async def test_seats_round_trip(db: Database, make_table) -> None:
    table = await make_table()
    alice = await db.seats.take_seat(table.id, 0, 21, "Alice")
    assert (alice.user_id, alice.display_name, alice.is_ai, alice.dms_closed, alice.warned) == (
        21, "Alice", False, False, False
    )
    await db.seats.take_seat(table.id, 2, 22, "Bob")
    bot = await db.seats.set_ai_seat(table.id, 1, "AI East")
    assert bot.is_ai and bot.user_id is None

    await db.seats.set_dm_message(table.id, 0, 3000, 3001)
    await db.seats.set_dms_closed(table.id, 2, True)
    await db.seats.set_takeover(table.id, 2, True)
    await db.seats.set_warned(table.id, 0, True)
    await db.seats.set_warned(table.id, 2, True)
    seats = {seat.seat: seat for seat in await db.seats.seats_of(table.id)}
    assert list(seats) == [0, 1, 2]
    assert (seats[0].dm_channel_id, seats[0].dm_message_id, seats[0].warned) == (3000, 3001, True)
    assert (seats[2].dms_closed, seats[2].ai_takeover) == (True, True)

    await db.seats.reset_warnings(table.id)
    assert not any(seat.warned for seat in await db.seats.seats_of(table.id))
    await db.seats.set_dm_message(table.id, 0, None, None)
    assert (await db.seats.seats_of(table.id))[0].dm_message_id is None

    assert await db.seats.leave_seat(table.id, 2) is True
    assert await db.seats.leave_seat(table.id, 2) is False
    assert [seat.seat for seat in await db.seats.seats_of(table.id)] == [0, 1]
    with pytest.raises(SeatNotFound):
        await db.seats.set_warned(table.id, 3, True)


async def test_an_ai_can_replace_a_human_and_free_them(db: Database, make_table) -> None:
    table = await make_table()
    await db.seats.take_seat(table.id, 0, 21, "Alice")
    await db.seats.set_dm_message(table.id, 0, 3000, 3001)
    replaced = await db.seats.set_ai_seat(table.id, 0, "AI North")
    assert (replaced.user_id, replaced.display_name, replaced.dm_message_id) == (None, "AI North", None)
    assert await db.seats.table_of_user(21) is None


async def test_a_taken_seat_cannot_be_taken(db: Database, make_table) -> None:
    table = await make_table()
    await db.seats.set_ai_seat(table.id, 1, "AI")
    with pytest.raises(SeatTaken) as caught:
        await db.seats.take_seat(table.id, 1, 21, "Alice")
    assert (caught.value.table_id, caught.value.seat) == (table.id, 1)


async def test_a_person_sits_at_one_open_table_only(db: Database, make_table) -> None:
    first = await make_table(channel_id=500)
    second = await make_table(channel_id=501)
    await db.seats.take_seat(first.id, 0, 21, "Alice")
    assert await db.seats.table_of_user(21) == first.id

    for table_id, seat in ((first.id, 1), (second.id, 0)):
        with pytest.raises(AlreadySeated) as caught:
            await db.seats.take_seat(table_id, seat, 21, "Alice")
        assert caught.value.table_id == first.id

    await db.tables.set_status(first.id, "closed", NOW)
    assert await db.seats.table_of_user(21) is None
    await db.seats.take_seat(second.id, 0, 21, "Alice")
    assert await db.seats.table_of_user(21) == second.id


async def test_the_one_table_per_person_rule_holds_in_sql_too(db: Database, make_table) -> None:
    first = await make_table(channel_id=500)
    second = await make_table(channel_id=501)
    await db.seats.take_seat(first.id, 0, 21, "Alice")
    with pytest.raises(INTEGRITY_ERRORS):
        async with db.transaction():
            await db.core.execute(
                "INSERT INTO seats (table_id, seat, user_id, display_name) VALUES (?, 0, 21, 'Alice')",
                (second.id,),
            )


def checks_miss_once(db: Database, monkeypatch: pytest.MonkeyPatch, sql_start: str) -> None:
    """The next read starting with `sql_start` finds nothing, as if a racing writer committed right after it."""
    real = db.core.fetch_one
    missed = []

    async def fetch_one(sql: str, params=()):  # type: ignore[no-untyped-def]
        if not missed and sql.lstrip().startswith(sql_start):
            missed.append(sql)
            return None
        return await real(sql, params)

    monkeypatch.setattr(db.core, "fetch_one", fetch_one)


async def test_a_raced_unique_rule_gives_the_typed_error_and_the_transaction_goes_on(
    db: Database, make_table, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await make_table(channel_id=500)
    await db.seats.take_seat(table.id, 0, 21, "Alice")
    other = await make_table(channel_id=501)

    checks_miss_once(db, monkeypatch, "SELECT id FROM game_tables WHERE channel_id")
    async with db.transaction():
        with pytest.raises(ChannelBusy) as busy:
            await make_table(channel_id=500)
        assert busy.value.table_id == table.id
        await db.meta.set("after", "busy")  # the transaction is still usable

    checks_miss_once(db, monkeypatch, "SELECT table_id FROM seats WHERE user_id")
    async with db.transaction():
        with pytest.raises(AlreadySeated):
            await db.seats.take_seat(other.id, 1, 21, "Alice")
        await db.meta.set("after", "seated")

    checks_miss_once(db, monkeypatch, "SELECT 1 FROM seats WHERE table_id")
    with pytest.raises(SeatTaken):
        await db.seats.take_seat(table.id, 0, 22, "Bob")

    assert await db.meta.get("after") == "seated"
    assert [seat.user_id for seat in await db.seats.seats_of(table.id)] == [21]
    assert await db.seats.seats_of(other.id) == []
