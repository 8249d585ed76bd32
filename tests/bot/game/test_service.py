"""TableService on its own: real SQLite, no Discord. Every change returns the table's new snapshot, equal to
the one the service then holds; refusals change nothing, stored or held; a fresh service on the same
database restores snapshots equal to those before."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import engine
from bot.db import Database
from bot.game.errors import UserError
from bot.game.service import Outcome, TableService
from bot.game.table import TableSnapshot
from tests.bot.game.conftest import Clock

GUILD, CHANNEL, OTHER_CHANNEL = 1, 500, 501
ALICE, BOB, CARL, DORA = 11, 12, 13, 14
NAMES = {ALICE: "alice", BOB: "bob", CARL: "carl", DORA: "dora"}


async def open_lobby(service: TableService, host: int = ALICE, **options: Any) -> TableSnapshot:
    settings: dict[str, Any] = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "preset": "standard",
        "deck": "french",
        "turn_seconds": 60,
        "language": "en",
    }
    return await service.open_table(host_id=host, host_name=NAMES[host], **(settings | options))


async def four_at_play(service: TableService, lobby: TableSnapshot | None = None) -> TableSnapshot:
    """alice (North, host), bob, carl and dora, playing their first deal (at ``lobby``, else a new one)."""
    table = lobby or await open_lobby(service)
    for user in (BOB, CARL, DORA):
        table = await service.take_seat(table.id, user, NAMES[user], None)
    return await service.start(table.id, ALICE)


async def act_once(service: TableService, table: TableSnapshot) -> Outcome:
    """The seat to act takes its first legal action (the AI acts for an AI seat)."""
    assert table.deal is not None and table.deal.to_act is not None
    seat = table.deal.to_act
    occupant = table.seats[seat]
    user_id = None if occupant is None or occupant.ai_takeover else occupant.user_id
    action = engine.legal_actions(table.deal)[0]
    return await service.act(table.id, seat, action, table.version, user_id=user_id)


async def play_deal(service: TableService, table: TableSnapshot) -> Outcome:
    """Play the running deal to its end; the outcome of its last action."""
    while True:
        outcome = await act_once(service, table)
        if outcome.finished_deal is not None:
            return outcome
        table = outcome.table


def refused(err: pytest.ExceptionInfo[UserError]) -> str:
    return err.value.key


async def stored_actions(db: Database, table_id: int) -> list[str]:
    return [action for deal in (await db.records.load_record(table_id)).deals for action in deal.actions]


# --- opening a table ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"preset": "bogus"}, "error.bad_preset"),
        ({"deck": "tarot"}, "error.bad_deck"),
        ({"turn_seconds": 14}, "error.bad_turn_time"),
        ({"turn_seconds": 3601}, "error.bad_turn_time"),
        ({"language": "xx"}, "error.bad_choice"),
    ],
)
async def test_a_table_with_bad_options_is_refused(
    service: TableService, options: dict[str, Any], key: str
) -> None:
    with pytest.raises(UserError) as err:
        await open_lobby(service, **options)
    assert refused(err) == key
    assert service.open_tables() == []


async def test_server_settings_change_only_what_is_given_and_refuse_unknown_values(service: TableService) -> None:
    before = await service.guilds.guild_settings(GUILD)
    updated = await service.guilds.update_guild_settings(GUILD, deck="french", ai_delay_ms=0)
    assert updated == dataclasses.replace(before, deck="french", ai_delay_ms=0)
    assert await service.guilds.guild_settings(GUILD) == updated
    for options, key in [
        ({"ai_strength": "godlike"}, "error.bad_choice"),
        ({"preset": "bogus"}, "error.bad_preset"),
        ({"turn_seconds": 5}, "error.bad_turn_time"),
    ]:
        with pytest.raises(UserError) as err:
            await service.guilds.update_guild_settings(GUILD, language="de", **options)
        assert refused(err) == key
    assert await service.guilds.guild_settings(GUILD) == updated  # a refused change changes nothing


async def test_a_new_table_is_a_lobby_with_its_host_north(service: TableService) -> None:
    table = await open_lobby(service)
    assert (table.status, table.deal, table.deal_no, table.log) == ("lobby", None, -1, ())
    assert table.row.host_id == ALICE and table.seat_of(ALICE) == 0
    assert table.seats[1:] == (None, None, None)
    assert service.snapshot(table.id) == table
    assert service.open_tables() == [table]
    assert service.table_in_channel(CHANNEL) == table and service.table_of_user(ALICE) == table
    assert service.table_in_channel(OTHER_CHANNEL) is None and service.table_of_user(BOB) is None


async def test_one_table_per_channel_and_one_seat_per_person(service: TableService) -> None:
    await open_lobby(service)
    with pytest.raises(UserError) as busy:
        await open_lobby(service, host=BOB)
    assert refused(busy) == "error.channel_busy"
    with pytest.raises(UserError) as seated:
        await open_lobby(service, channel_id=OTHER_CHANNEL)
    assert refused(seated) == "error.already_seated" and seated.value.values == {"channel": CHANNEL}


# --- the lobby ----------------------------------------------------------------------------------------------


async def test_taking_a_seat_publishes_a_new_snapshot_and_leaves_the_old_one_as_it_was(
    service: TableService,
) -> None:
    lobby = await open_lobby(service)
    seated = await service.take_seat(lobby.id, BOB, "bob", None)
    assert seated.seat_of(BOB) == 1 and seated.version == lobby.version + 1
    assert service.snapshot(lobby.id) == seated
    assert lobby.seats[1] is None and lobby.seat_of(BOB) is None, "the earlier snapshot never changes"

    with pytest.raises(UserError) as taken:
        await service.take_seat(lobby.id, CARL, "carl", 1)
    assert refused(taken) == "error.seat_taken"
    with pytest.raises(UserError) as here:
        await service.take_seat(lobby.id, BOB, "bob", 2)
    assert refused(here) == "error.already_here"
    other = await open_lobby(service, host=DORA, channel_id=OTHER_CHANNEL)
    with pytest.raises(UserError) as elsewhere:
        await service.take_seat(other.id, BOB, "bob", None)
    assert refused(elsewhere) == "error.already_seated" and elsewhere.value.values == {"channel": CHANNEL}
    assert service.snapshot(lobby.id) == seated, "refusals change nothing"


async def test_an_ai_player_takes_the_first_empty_seat_and_makes_room_for_a_person(
    service: TableService,
) -> None:
    lobby = await open_lobby(service)
    with pytest.raises(UserError) as outsider:
        await service.add_ai(lobby.id, BOB, None)
    assert refused(outsider) == "error.not_seated_here"
    with_ai = await service.add_ai(lobby.id, ALICE, None)
    ai = with_ai.seats[1]
    assert ai is not None and ai.user_id is None and ai.display_name == "Resi"
    assert with_ai.humans() == [with_ai.seats[0]] and with_ai.names() == ("alice", "Resi", "—", "—")
    person = await service.take_seat(lobby.id, BOB, "bob", 1)
    assert person.seat_of(BOB) == 1


async def test_the_host_starts_ai_players_fill_the_empty_seats_and_the_first_deal_is_dealt(
    service: TableService,
) -> None:
    lobby = await service.take_seat((await open_lobby(service)).id, BOB, "bob", 2)
    with pytest.raises(UserError) as guest:
        await service.start(lobby.id, BOB)
    assert refused(guest) == "error.host_only"
    table = await service.start(lobby.id, ALICE)
    assert table.status == "playing" and table.deal_no == 0
    assert table.names() == ("alice", "Resi", "bob", "Mitzi")
    assert table.deal is not None and table.deal.dealer == table.row.first_dealer
    assert table.deal.hands == engine.deal_hands(1, table.row.first_dealer), "the first seed"
    assert table.log == (("log.new_deal", {"dealer": table.row.first_dealer}),)
    assert service.snapshot(table.id) == table
    with pytest.raises(UserError) as again:
        await service.start(lobby.id, ALICE)
    assert refused(again) == "error.not_in_lobby"


# --- playing ------------------------------------------------------------------------------------------------


async def test_a_refused_action_changes_nothing(service: TableService, db: Database) -> None:
    table = await four_at_play(service)
    assert table.deal is not None and table.deal.to_act is not None
    seat = table.deal.to_act
    occupant = table.seats[seat]
    assert occupant is not None and occupant.user_id is not None
    legal = engine.legal_actions(table.deal)[0]
    stranger = next(s for s in table.humans() if s.seat != seat)

    async def refusal(seat: int, action: engine.Action, version: int, user_id: int) -> str:
        with pytest.raises(UserError) as err:
            await service.act(table.id, seat, action, version, user_id=user_id)
        return refused(err)

    assert await refusal(seat, legal, table.version - 1, occupant.user_id) == "error.stale"
    assert await refusal(seat, legal, table.version, stranger.user_id) == "error.not_your_seat"  # type: ignore[arg-type]
    card = table.deal.hands[seat][0]
    assert await refusal(seat, engine.PlayCard(card), table.version, occupant.user_id) == "rules.wrong_phase"
    assert service.snapshot(table.id) == table
    assert await stored_actions(db, table.id) == []


async def test_an_accepted_action_bumps_the_version_and_returns_the_engine_events(
    service: TableService, db: Database
) -> None:
    table = await four_at_play(service)
    assert table.deal is not None and table.deal.to_act is not None
    seat, action = table.deal.to_act, engine.legal_actions(table.deal)[0]
    outcome = await act_once(service, table)
    state, events = engine.apply(table.deal, seat, action)
    assert (outcome.seat, outcome.action, outcome.events) == (seat, action, events)
    assert outcome.events, "an action always says what it did"
    assert outcome.table.deal == state and outcome.table.version == table.version + 1
    assert (outcome.finished_deal, outcome.deal_end, outcome.new_deal) == (None, None, False)
    assert service.snapshot(table.id) == outcome.table
    assert await stored_actions(db, table.id) == [engine.format_action(seat, action)]


async def test_a_deal_played_to_its_end_stores_its_result_and_what_it_owes_and_deals_the_next(
    service: TableService, db: Database
) -> None:
    table = await four_at_play(service)
    assert await service.seating.set_dm(table.id, 1, BOB, 0, 900, 901) is not None
    end = await play_deal(service, table)
    finished = end.finished_deal
    assert finished is not None and finished.result is not None
    assert end.new_deal and end.table.deal_no == 1 and end.table.deal is not None
    assert not end.table.deal.finished and end.table.deal.hands == engine.deal_hands(2, end.table.deal.dealer)
    assert end.table.log[-1] == ("log.new_deal", {"dealer": end.table.deal.dealer})
    assert all(seat is None or seat.dm_message_id is None for seat in end.table.seats), "a new deal, new DMs"
    deal_end = end.deal_end
    assert deal_end is not None and deal_end.deal == finished and deal_end.deal_no == 0
    assert deal_end.match == end.table.match and deal_end.match.deals_played == 1
    assert await db.records.finished_deal_nos(table.id) == [0]
    owed = {entry.kind: entry.payload for entry in await service.outbox.pending_announcements(table.id)}
    assert owed["result"]["deal_no"] == 0
    assert owed["final_hand"] | {"seat": 1, "message_id": 901} == owed["final_hand"]
    # The table at the deal's end as a restart rebuilds it from storage shows the same game.
    rebuilt = await service.queries.table_at_deal_end(table.id, 0)
    assert (rebuilt.deal, rebuilt.match, rebuilt.log, rebuilt.last_bummerl) == (
        deal_end.deal,
        deal_end.match,
        deal_end.log,
        deal_end.last_bummerl,
    )


async def test_the_last_action_of_a_deal_and_all_it_owes_are_stored_together_or_not_at_all(
    service: TableService, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await four_at_play(service)
    while True:  # play up to the deal's last action
        assert table.deal is not None
        after, _ = engine.apply(table.deal, table.deal.to_act, engine.legal_actions(table.deal)[0])  # type: ignore[arg-type]
        if after.finished:
            break
        table = (await act_once(service, table)).table
    actions = await stored_actions(db, table.id)
    real_add = db.outbox.add_announcements

    async def full_disk(table_id: int, announcements: Any, *args: Any, **kwargs: Any) -> Any:
        if any(kind == "result" for kind, _ in announcements):
            raise OSError("disk full")
        return await real_add(table_id, announcements, *args, **kwargs)

    monkeypatch.setattr(db.outbox, "add_announcements", full_disk)
    with pytest.raises(OSError):
        await act_once(service, table)
    assert await stored_actions(db, table.id) == actions
    assert await db.records.finished_deal_nos(table.id) == []
    assert await service.outbox.pending_announcements(table.id) == []
    assert service.snapshot(table.id) == table
    monkeypatch.undo()
    assert (await act_once(service, table)).new_deal, "once storage works again the same action is accepted"


# --- leaving and closing ------------------------------------------------------------------------------------


async def test_leaving_a_lobby_empties_the_seat(service: TableService) -> None:
    lobby = await service.take_seat((await open_lobby(service)).id, BOB, "bob", None)
    left, before = await service.leave(lobby.id, BOB)
    assert before == lobby.seats[1] and left.seats[1] is None and left.status == "lobby"
    with pytest.raises(UserError) as again:
        await service.leave(lobby.id, BOB)
    assert refused(again) == "error.not_seated_here"


async def test_leaving_a_game_hands_the_seat_to_the_ai_and_the_host_role_to_the_next_person(
    service: TableService,
) -> None:
    table = await four_at_play(service)
    left, before = await service.leave(table.id, ALICE)
    assert before.user_id == ALICE
    seat = left.seats[0]
    assert seat is not None and seat.user_id is None and seat.display_name == "Sepp (alice)"
    assert left.row.host_id == BOB and left.status == "playing" and left.deal == table.deal
    notices = [e.payload for e in await service.outbox.pending_announcements(table.id) if e.kind == "notice"]
    assert notices[-1]["key"] == "notice.new_host" and notices[-1]["values"] == {"name": "bob"}


async def test_the_last_person_leaving_closes_the_table(service: TableService) -> None:
    table = await open_lobby(service)
    closed, _ = await service.leave(table.id, ALICE)
    assert closed.status == "closed"
    assert service.snapshot(table.id) is None and service.open_tables() == []
    assert service.table_in_channel(CHANNEL) is None
    notices = [e.payload["key"] for e in await service.outbox.pending_announcements(table.id) if e.kind == "notice"]
    assert notices == ["notice.closed_abandoned"]
    with pytest.raises(UserError) as gone:
        await service.take_seat(table.id, BOB, "bob", None)
    assert refused(gone) == "error.table_gone"


async def test_close_after_a_bummerl_only_at_the_position_its_button_was_made_for(
    service: TableService,
) -> None:
    table = await four_at_play(service)
    with pytest.raises(UserError) as early:
        await service.close(table.id, finished_at_version=table.version)
    assert refused(early) == "error.not_finished"
    while table.status == "playing":
        table = (await play_deal(service, table)).table
    assert table.status == "finished" and table.last_bummerl is not None and table.match.bummerls
    with pytest.raises(UserError) as stale:
        await service.close(table.id, finished_at_version=table.version - 1)
    assert refused(stale) == "error.stale"
    closed = await service.close(table.id, finished_at_version=table.version)
    assert closed.status == "closed" and service.snapshot(table.id) is None


# --- idle players -------------------------------------------------------------------------------------------


async def test_an_idle_player_is_warned_then_taken_over_then_takes_the_seat_back(
    service: TableService,
) -> None:
    table = await four_at_play(service)
    assert table.deal is not None and table.deal.to_act is not None
    seat = table.deal.to_act
    occupant = table.seats[seat]
    assert occupant is not None and occupant.user_id is not None
    assert await service.seating.mark_warned(table.id, seat, table.version - 1) is None, "the turn moved on"
    warned = await service.seating.mark_warned(table.id, seat, table.version)
    assert warned is not None and warned.seats[seat].warned and not table.seats[seat].warned  # type: ignore[union-attr]
    notice = (await service.outbox.pending_announcements(table.id))[-1].payload
    assert (notice["key"], notice["mention"]) == ("notice.idle_warning", occupant.user_id)
    assert not warned.is_ai_turn()
    taken = await service.seating.take_over(table.id, seat, table.version)
    assert taken is not None and taken.seats[seat].ai_takeover and taken.is_ai_turn()  # type: ignore[union-attr]
    assert taken.version == table.version, "a take-over is no move: the buttons stay valid"
    back = await service.seating.reclaim(table.id, occupant.user_id)
    assert back is not None and not back.seats[seat].ai_takeover and not back.seats[seat].warned  # type: ignore[union-attr]
    assert await service.seating.reclaim(table.id, occupant.user_id) is None, "nothing to take back"
    assert service.snapshot(table.id) == back


# --- restoring ----------------------------------------------------------------------------------------------


async def restored_by_a_fresh_service(db: Database, clock: Clock, table_id: int) -> TableSnapshot | None:
    fresh = TableService(db, clock=clock)
    await fresh.restorer.restore_all()
    return fresh.snapshot(table_id)


async def test_a_fresh_service_restores_snapshots_equal_to_those_before(
    service: TableService, db: Database, clock: Clock
) -> None:
    lobby = await open_lobby(service)
    assert await restored_by_a_fresh_service(db, clock, lobby.id) == lobby
    table = await four_at_play(service, lobby)
    assert await restored_by_a_fresh_service(db, clock, table.id) == table
    for _ in range(7):  # mid-deal
        clock.now += 5
        table = (await act_once(service, table)).table
    assert await service.seating.set_dm(table.id, 2, CARL, table.deal_no, 900, 902) is not None
    table = service.snapshot(table.id)  # type: ignore[assignment]
    assert await restored_by_a_fresh_service(db, clock, table.id) == table
    table = (await play_deal(service, table)).table  # a deal over, the next one dealt
    assert await restored_by_a_fresh_service(db, clock, table.id) == table


async def test_a_table_whose_record_no_longer_replays_is_set_aside(
    service: TableService, db: Database, clock: Clock
) -> None:
    table = await four_at_play(service)
    table = (await act_once(service, table)).table
    async with db.transaction():
        await db.core.execute("UPDATE actions SET action = 'N play XX' WHERE table_id = ?", (table.id,))
    fresh = TableService(db, clock=clock)
    restored = await fresh.restorer.restore_all()
    assert (restored.tables, restored.set_aside) == ([], [table.id])
    assert fresh.snapshot(table.id) is None
    assert [e.kind for e in await fresh.outbox.pending_announcements(table.id)] == ["set_aside"]


# --- snapshots ----------------------------------------------------------------------------------------------


async def test_a_snapshot_cannot_be_changed(service: TableService) -> None:
    table = await four_at_play(service)
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.deal_no = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.deal = None  # type: ignore[misc]
    assert isinstance(table.seats, tuple) and isinstance(table.log, tuple)
    with pytest.raises(TypeError):
        table.seats[0] = None  # type: ignore[index]
