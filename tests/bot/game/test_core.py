"""The table core on its own (no subscriber unless a test hands one in): every published change is told to
the listeners as (before, after, domain events); what subscribers write is stored with the change or not at
all; a click handed over by another process leaves the inbox with its move."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import count
from typing import Any

import pytest

import engine
from bot.db import Database
from bot.game import events as ev
from bot.game.core import TableCore
from bot.game.errors import UserError
from bot.game.inbox import HandedClick
from bot.game.table import TableSnapshot
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import ALICE, BOB, NAMES, act_once, four_at_play, open_lobby

Told = tuple[TableSnapshot | None, TableSnapshot, tuple[ev.TableEvent, ...]]


@pytest.fixture
def core(db: Database, clock: Clock) -> TableCore:
    return TableCore(db, clock=clock, seed_source=count(1).__next__)


def listened(core: TableCore) -> list[Told]:
    told: list[Told] = []
    core.listen(lambda before, after, events: told.append((before, after, events)))
    return told


async def test_each_change_is_told_with_the_table_before_and_after_and_its_events(core: TableCore) -> None:
    told = listened(core)
    lobby = await open_lobby(core)  # type: ignore[arg-type]
    assert told[-1] == (None, lobby, (ev.TableOpened(ALICE),))
    seated = await core.take_seat(lobby.id, BOB, NAMES[BOB], 2)
    assert told[-1] == (lobby, seated, (ev.SeatTaken(2, BOB),))
    with pytest.raises(UserError):
        await core.take_seat(lobby.id, BOB, NAMES[BOB], None)
    assert len(told) == 2, "a refusal changes nothing and tells nothing"
    started = await core.start(lobby.id, ALICE)
    assert told[-1][2] == (ev.TableStarted(), ev.DealDealt(0, started.deal.dealer))  # type: ignore[union-attr]
    outcome = await act_once(core, started)  # type: ignore[arg-type]
    before, after, events = told[-1]
    assert (before, after) == (started, outcome.table) and events == outcome.changes
    assert isinstance(events[0], ev.ActionTaken) and events[0].engine_events == outcome.events
    closed = await core.close(lobby.id)
    assert told[-1] == (outcome.table, closed, (ev.TableClosed("notice.closed_by"),))


async def test_a_failing_listener_neither_undoes_the_change_nor_keeps_the_others_from_hearing_it(
    core: TableCore,
) -> None:
    def broken(before: object, after: object, events: object) -> None:
        raise RuntimeError("listener bug")

    core.listen(broken)
    told = listened(core)
    lobby = await open_lobby(core)  # type: ignore[arg-type]
    assert core.snapshot(lobby.id) == lobby and told[-1][1] == lobby


class Recorder:
    """A subscriber that keeps what it saw and answers each SeatTaken with a LobbyChanged."""

    def __init__(self, db: Database) -> None:
        self.seen: list[tuple[ev.TableEvent, ...]] = []

    async def __call__(self, change: ev.Change) -> Sequence[ev.TableEvent]:
        self.seen.append(change.events)
        return [ev.LobbyChanged() for event in change.events if isinstance(event, ev.SeatTaken)]


async def test_subscribers_see_the_events_of_the_change_and_of_the_subscribers_before_them(
    db: Database, clock: Clock
) -> None:
    core = TableCore(db, subscribers=(Recorder, Recorder), clock=clock)
    first, second = core.subscribers
    assert isinstance(first, Recorder) and isinstance(second, Recorder)
    lobby = await open_lobby(core)  # type: ignore[arg-type]
    await core.take_seat(lobby.id, BOB, NAMES[BOB], None)
    assert first.seen[-1] == (ev.SeatTaken(1, BOB),)
    assert second.seen[-1] == (ev.SeatTaken(1, BOB), ev.LobbyChanged())


class Failing:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(self, change: ev.Change) -> Sequence[ev.TableEvent]:
        if any(isinstance(event, ev.SeatTaken) for event in change.events):
            raise OSError("disk full")
        return ()


async def test_a_change_whose_subscriber_fails_is_not_stored_at_all(db: Database, clock: Clock) -> None:
    core = TableCore(db, subscribers=(Failing,), clock=clock)
    lobby = await open_lobby(core)  # type: ignore[arg-type]
    with pytest.raises(OSError):
        await core.take_seat(lobby.id, BOB, NAMES[BOB], None)
    assert core.snapshot(lobby.id) == lobby
    assert [seat.user_id for seat in await db.seats.seats_of(lobby.id)] == [ALICE]


async def test_a_handed_click_leaves_the_inbox_with_its_move(core: TableCore, db: Database) -> None:
    table = await four_at_play(core)  # type: ignore[arg-type]
    click_id = await db.inbox.post_click(table.id, 0, {"id": "1"}, 0)
    assert table.deal is not None and table.deal.to_act is not None
    seat = table.deal.to_act
    occupant = table.seats[seat]
    assert occupant is not None
    handed = HandedClick(click_id)
    action = engine.legal_actions(table.deal)[0]
    with pytest.raises(UserError):  # a refused click stays in the inbox (its runner deletes it)
        await core.act(table.id, seat, action, table.version - 1, user_id=occupant.user_id, handed=handed)
    assert not handed.deleted and [click.id for click in await db.inbox.clicks_for([0])] == [click_id]
    await core.act(table.id, seat, action, table.version, user_id=occupant.user_id, handed=handed)
    assert handed.deleted and await db.inbox.clicks_for([0]) == []


async def test_work_ahead_of_a_move_is_told_the_table_it_makes_before_the_commit_and_cannot_stop_it(
    core: TableCore, db: Database, caplog: pytest.LogCaptureFixture
) -> None:
    table = await four_at_play(core)  # type: ignore[arg-type]
    assert table.deal is not None and table.deal.to_act is not None
    seat, action = table.deal.to_act, engine.legal_actions(table.deal)[0]
    occupant = table.seats[seat]
    assert occupant is not None
    order: list[str] = []
    told: list[TableSnapshot] = []
    append_move = db.records.append_move

    async def storing(*args: Any, **kwargs: Any) -> Any:
        order.append("store")
        return await append_move(*args, **kwargs)

    def ahead(made: TableSnapshot) -> None:
        order.append("ahead")
        told.append(made)
        raise RuntimeError("a bug in the work ahead")

    db.records.append_move = storing  # type: ignore[method-assign]
    outcome = await core.act(table.id, seat, action, table.version, user_id=occupant.user_id, ahead=ahead)

    assert order == ["ahead", "store"], "told before the move is stored"
    assert told[0].deal == outcome.table.deal, "the position the move makes"
    assert told[0].version == table.version + 1, "its version counted as the write counts it"
    assert core.snapshot(table.id) is outcome.table is told[0], "the very snapshot is published (made ahead once)"
    record = await db.records.load_record(table.id)
    assert sum(len(deal.actions) for deal in record.deals) == 1, "the move is stored all the same"
    assert "work ahead of a move's commit failed" in caplog.text

    with pytest.raises(UserError):  # a refused move tells nobody ahead
        await core.act(table.id, seat, action, table.version, user_id=occupant.user_id, ahead=told.append)
    assert len(told) == 1


async def test_a_click_of_a_person_the_ai_stood_in_for_takes_the_seat_back_even_when_refused(
    core: TableCore, db: Database
) -> None:
    table = await four_at_play(core)  # type: ignore[arg-type]
    assert table.deal is not None and table.deal.to_act is not None
    seat = table.deal.to_act
    occupant = table.seats[seat]
    assert occupant is not None and occupant.user_id is not None
    await db.seats.set_takeover(table.id, seat, True)
    table = await core.refresh(table)
    told = listened(core)
    action = engine.legal_actions(table.deal)[0]  # type: ignore[arg-type]
    with pytest.raises(UserError) as stale:
        await core.act(table.id, seat, action, table.version + 1, user_id=occupant.user_id)
    assert stale.value.key == "error.stale"
    back = core.snapshot(table.id)
    assert back is not None and not back.seats[seat].ai_takeover  # type: ignore[union-attr]
    assert told[-1][2] == (ev.SeatReclaimed(seat),)
