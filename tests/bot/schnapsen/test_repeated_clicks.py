"""Which click repeats a move its person made (``ClickAnswers.moved`` and ``repeats_move``): such a click, soon
after the move, is acknowledged and changes nothing; any other click on a position left is out of date. Through
the fake Discord: test_clicks.py, test_click_answers.py and test_shards.py."""

from __future__ import annotations

import asyncio
import dataclasses
from unittest import mock

import pytest

import engine
from bot.game.table import TableSnapshot
from bot.schnapsen.clickanswers import REPEAT_WINDOW, ClickAnswers
from bot.schnapsen.tablememory import REMEMBERED_MOVES, TableMemory
from tests.bot.schnapsen.test_runtime_listener import table

PERSON = 11  # seat 0's person (seat s holds user 11 + s)
HA, HK = engine.PlayCard("HA"), engine.PlayCard("HK")


def answers() -> ClickAnswers:
    messages = mock.Mock()
    memories: dict[int, TableMemory] = {}
    messages.memory.side_effect = lambda table_id: memories.setdefault(table_id, TableMemory())
    return ClickAnswers(messages)


def at_version(snapshot: TableSnapshot, version: int) -> TableSnapshot:
    return dataclasses.replace(snapshot, row=dataclasses.replace(snapshot.row, version=version))


def with_seat(snapshot: TableSnapshot, seat: int, **changes: object) -> TableSnapshot:
    seats = list(snapshot.seats)
    occupant = seats[seat]
    assert occupant is not None
    seats[seat] = dataclasses.replace(occupant, **changes)  # type: ignore[arg-type]
    return dataclasses.replace(snapshot, seats=tuple(seats))  # type: ignore[arg-type]


async def test_only_the_same_person_asking_for_the_same_move_at_that_position_repeats_it() -> None:
    clicks, before = answers(), table()
    clicks.moved(before, 0, HA)
    assert clicks.repeats_move(before.id, before.version, PERSON, HA)
    assert not clicks.repeats_move(before.id, before.version, PERSON, HK)  # another card of that position
    assert not clicks.repeats_move(before.id, before.version, PERSON + 1, HA)  # somebody else
    assert not clicks.repeats_move(before.id, before.version - 1, PERSON, HA)  # an older position
    assert not clicks.repeats_move(before.id + 1, before.version, PERSON, HA)  # another table
    assert not clicks.repeats_move(before.id, before.version, PERSON, None)  # a forged button's action


async def test_a_move_the_ai_made_is_nobodys_to_repeat() -> None:
    clicks, before = answers(), table()
    clicks.moved(with_seat(before, 0, user_id=None), 0, HA)  # an AI seat
    clicks.moved(at_version(with_seat(before, 0, ai_takeover=True), 5), 0, HK)  # the AI standing in for a person
    assert not clicks.repeats_move(before.id, before.version, PERSON, HA)
    assert not clicks.repeats_move(before.id, 5, PERSON, HK)


async def test_a_persons_latest_moves_are_kept() -> None:
    clicks, before = answers(), table()
    versions = range(before.version, before.version + REMEMBERED_MOVES + 1)
    for version in versions:
        clicks.moved(at_version(before, version), 0, HA)
    assert not clicks.repeats_move(before.id, versions[0], PERSON, HA)
    assert all(clicks.repeats_move(before.id, version, PERSON, HA) for version in versions[1:])


async def test_a_click_on_that_button_after_the_window_is_out_of_date(monkeypatch: pytest.MonkeyPatch) -> None:
    clicks, before = answers(), table()
    loop = asyncio.get_running_loop()
    stored_at = loop.time()
    with monkeypatch.context() as clock:
        clock.setattr(loop, "time", lambda: stored_at)
        clicks.moved(before, 0, HA)
        clock.setattr(loop, "time", lambda: stored_at + REPEAT_WINDOW)
        assert clicks.repeats_move(before.id, before.version, PERSON, HA)
        # Later, its message evidently did not show the move (its answer or edit was lost): "out of date" tells
        # its person to take the newest one.
        clock.setattr(loop, "time", lambda: stored_at + REPEAT_WINDOW + 0.1)
        assert not clicks.repeats_move(before.id, before.version, PERSON, HA)
