"""Announcing on its own: what a change's events owe Discord, as typed announcements stored in the outbox
and read back as the same types."""

from __future__ import annotations

from itertools import count

import pytest

from bot.db import Database
from bot.game import events as ev
from bot.game.announcements import DealResult, FinalHand, Notice, SetAside
from bot.game.core import TableCore
from bot.game.directory import ShardDirectory
from bot.game.outbox import Outbox
from bot.game.seating import Seating
from bot.game.subscribers.accounting import DealAccounting
from bot.game.subscribers.announcing import Announcing, owed
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import ALICE, BOB, CHANNEL, DORA, four_at_play, open_lobby, play_deal


@pytest.fixture
def core(db: Database, clock: Clock) -> TableCore:
    return TableCore(db, subscribers=(Announcing,), clock=clock, seed_source=count(1).__next__)


def outbox(core: TableCore) -> Outbox:
    return Outbox(core.db, ShardDirectory(core.db, core, None))


async def test_a_closed_lobby_owes_its_notice_read_back_as_the_same_type(core: TableCore) -> None:
    lobby = await open_lobby(core)  # type: ignore[arg-type]
    await core.close(lobby.id, reason_key="notice.closed_idle_lobby")
    owed_now = await outbox(core).pending_announcements(lobby.id)
    assert [entry.announcement for entry in owed_now] == [
        Notice(CHANNEL, "en", "notice.closed_idle_lobby", closes_table=True)
    ]


async def test_a_leaving_host_owes_the_new_hosts_name(core: TableCore) -> None:
    lobby = await core.take_seat((await open_lobby(core)).id, BOB, "bob", None)  # type: ignore[arg-type]
    await core.leave(lobby.id, ALICE)
    [entry] = await outbox(core).pending_announcements(lobby.id)
    assert entry.announcement == Notice(CHANNEL, "en", "notice.new_host", (("name", "bob"),))


async def test_the_closing_notice_of_a_table_in_its_own_thread_archives_the_thread(core: TableCore) -> None:
    lobby = await open_lobby(core, thread_parent_id=CHANNEL - 1)  # type: ignore[arg-type]
    assert owed(lobby.row, [ev.TableClosed("notice.closed_by")]) == [
        Notice(CHANNEL, "en", "notice.closed_by", archive_thread=CHANNEL, closes_table=True)
    ]
    assert owed(lobby.row, [ev.TableSetAside()]) == [SetAside(CHANNEL, "en", CHANNEL)]


async def test_an_idle_warning_and_closed_dms_mention_the_person(core: TableCore) -> None:
    lobby = await open_lobby(core)  # type: ignore[arg-type]
    assert owed(lobby.row, [ev.PlayerWarned(0, ALICE, 20), ev.DmsClosed(0, ALICE)]) == [
        Notice(CHANNEL, "en", "notice.idle_warning", (("seconds", 20),), mention=ALICE),
        Notice(CHANNEL, "en", "notice.dms_closed", mention=ALICE),
    ]


async def test_a_finished_deal_owes_its_result_then_the_last_edit_of_each_hand_message(
    db: Database, clock: Clock
) -> None:
    core = TableCore(db, subscribers=(DealAccounting, Announcing), clock=clock, seed_source=count(1).__next__)
    table = await four_at_play(core)  # type: ignore[arg-type]
    table = await Seating(core).set_dm(table.id, 1, BOB, 0, 900, 901)  # type: ignore[assignment]
    end = (await play_deal(core, table)).deal_end  # type: ignore[arg-type]
    assert end is not None
    stored = [entry.announcement for entry in await outbox(core).pending_announcements(table.id)]
    assert stored == [DealResult(CHANNEL, "en", 0), FinalHand(0, 1, BOB, 900, 901)]
    # Had the deal ended a rated Bummerl, the result shows accounting's answer.
    rated = ev.BummerlRated((1, 0), (("alice", 12, 1012),))
    assert owed(end.row, [ev.DealEnded(end), rated])[0] == DealResult(CHANNEL, "en", 0, (1, 0), (("alice", 12, 1012),))


async def test_a_table_closed_mid_deal_owes_the_last_edit_of_every_hand_message_then_its_closing_notice(
    db: Database, clock: Clock
) -> None:
    """No hand of a closed table may still offer a move, after a restart too: each hand message of the running
    deal gets its last edit, and the table message shows the close with the notice."""
    core = TableCore(db, subscribers=(DealAccounting, Announcing), clock=clock, seed_source=count(1).__next__)
    table = await four_at_play(core)  # type: ignore[arg-type]
    seating = Seating(core)
    await seating.set_dm(table.id, 1, BOB, 0, 900, 901)
    table = await seating.set_dm(table.id, 3, DORA, 0, 700, 701)  # type: ignore[assignment]
    await core.close(table.id, reason_key="notice.closed_by")
    stored = [entry.announcement for entry in await outbox(core).pending_announcements(table.id)]
    assert stored == [
        FinalHand(0, 1, BOB, 900, 901),
        FinalHand(0, 3, DORA, 700, 701),
        Notice(CHANNEL, "en", "notice.closed_by", closes_table=True),
    ]


async def test_a_table_closed_after_its_bummerl_owes_the_last_hands_again_and_one_closed_in_its_deals_end_not(
    db: Database, clock: Clock
) -> None:
    """After a Bummerl the last deal's hands said "deal over"; closed, they say the table closed. A close in the
    change that ends a deal (a daily attempt's last) owes each hand once, with the deal's result."""
    core = TableCore(db, subscribers=(DealAccounting, Announcing), clock=clock, seed_source=count(1).__next__)
    lobby = await open_lobby(core, rule_changes={"target": 1})  # type: ignore[arg-type]
    table = await four_at_play(core, lobby)  # type: ignore[arg-type]
    table = await Seating(core).set_dm(table.id, 1, BOB, 0, 900, 901)  # type: ignore[assignment]
    outcome = await play_deal(core, table)  # type: ignore[arg-type]
    end = outcome.deal_end
    assert end is not None and outcome.table.status == "finished", "a Bummerl to 1 is over after a deal"
    for entry in await outbox(core).pending_announcements(table.id):  # its result and last hands, delivered
        await outbox(core).announcement_delivered(entry.id)
    await core.close(table.id, reason_key="notice.closed_finished")
    stored = [entry.announcement for entry in await outbox(core).pending_announcements(table.id)]
    assert stored == [
        FinalHand(0, 1, BOB, 900, 901),
        Notice(CHANNEL, "en", "notice.closed_finished", closes_table=True),
    ]
    closing_at_the_end = ev.Change(end.row, (ev.DealEnded(end), ev.TableClosed("notice.closed_deals_played")), 0)
    assert await Announcing(db).hands_left(closing_at_the_end) == [], "owed with the deal's result instead"
