"""The one place that decides what a change redraws: ``Runtime.table_changed``, told of every change by the
table core, with the messages and drivers replaced by spec'd mocks (what it asks of them is the decision)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any
from unittest import mock

import pytest

import engine
from bot.db import SeatRow, TableRow
from bot.game import events as ev
from bot.game.table import TableSnapshot, seats_by_number
from bot.schnapsen.clickanswers import ClickAnswers
from bot.schnapsen.drivers import Drivers
from bot.schnapsen.hands import Hands
from bot.schnapsen.messages import Messages
from bot.schnapsen.runtime import Runtime

RULES = engine.PRESETS["standard"]


def table(status: str = "playing", *, thread_parent_id: int | None = None) -> TableSnapshot:
    row = TableRow(
        id=3, guild_id=1, channel_id=2, host_id=11, status=status, rules_json=json.dumps(RULES.preset),  # type: ignore[arg-type]
        deck="french", turn_seconds=90, language="en", table_message_id=None, version=4, first_dealer=0,
        created_at=0, updated_at=0, thread_parent_id=thread_parent_id,
    )  # fmt: skip
    seats = seats_by_number(SeatRow(3, seat, 11 + seat, f"P{seat}", False, None, None, False, False) for seat in range(4))
    return TableSnapshot(row, seats, RULES, engine.new_match(RULES, 0))


@pytest.fixture
def runtime() -> Runtime:
    listener = Runtime.__new__(Runtime)
    listener.bot = mock.Mock()
    listener.messages = mock.create_autospec(Messages, instance=True)
    listener.messages.hands = mock.create_autospec(Hands, instance=True)
    listener.messages.current.side_effect = lambda snapshot: snapshot
    listener.drivers = mock.create_autospec(Drivers, instance=True)
    listener.answers = mock.create_autospec(ClickAnswers, instance=True)
    return listener


def asked(part: Any) -> list[str]:
    return [name for name, _, _ in part.method_calls]


def test_the_shells_own_bookkeeping_redraws_nothing(runtime: Runtime) -> None:
    runtime.table_changed(table(), table(), (ev.MessageStored(),))
    assert asked(runtime.messages) == asked(runtime.drivers) == []
    runtime.bot.dispatch.assert_not_called()


@pytest.mark.parametrize("event", [ev.TableOpened(11), ev.SeatTaken(1, 12), ev.LobbyChanged()])
def test_a_lobby_change_redraws_the_table_message_only(runtime: Runtime, event: ev.TableEvent) -> None:
    lobby = table("lobby")
    runtime.table_changed(None, lobby, (event,))
    assert asked(runtime.messages) == ["refresh_table_message"] and asked(runtime.drivers) == []
    runtime.bot.dispatch.assert_called_once_with("table_changed", None, lobby, (event,))


def test_a_table_opened_in_its_own_thread_is_posted_by_whoever_opened_the_thread(runtime: Runtime) -> None:
    runtime.table_changed(None, table("lobby", thread_parent_id=9), (ev.TableOpened(11),))
    assert asked(runtime.messages) == []


def test_an_idle_warning_is_delivered_and_nothing_redrawn(runtime: Runtime) -> None:
    runtime.table_changed(table(), table(), (ev.PlayerWarned(1, 12, 30),))
    assert asked(runtime.messages) == ["deliver"] and asked(runtime.drivers) == []


def test_a_move_delivers_shows_and_drives_and_a_deal_end_is_kept_for_its_result(runtime: Runtime) -> None:
    before, after = table(), table()
    ended = ev.DealEnded(before)
    runtime.table_changed(before, after, (ev.ActionTaken(0, engine.Pass(), ()), ev.SeatReclaimed(0), ended))
    assert asked(runtime.messages) == ["remember_deal_end", "current", "show"]
    runtime.messages.remember_deal_end.assert_called_once_with(before)
    assert asked(runtime.drivers) == ["turn_clock_reset", "drive"]
    runtime.answers.moved.assert_called_once_with(before, 0, engine.Pass())  # for a repeated click of it


def test_a_leaver_s_hand_message_is_retired_and_a_closed_table_forgotten(runtime: Runtime) -> None:
    seat = dataclasses.replace(table().seats[1], dm_channel_id=80, dm_message_id=81)  # type: ignore[type-var]
    closed = table("closed")
    runtime.table_changed(table(), closed, (ev.SeatLeft(seat), ev.TableClosed("notice.closed_abandoned")))
    runtime.messages.hands.retire.assert_called_once_with(closed, 12, (80, 81))
    assert "forget" in asked(runtime.messages) and "forget" in asked(runtime.drivers)
