"""The table messages' pace stretches while the event loop runs behind (bot/schnapsen/loopload.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from bot.schnapsen.loopload import CALM, MOST, PERIOD, SPAN, LoopLoad


@pytest.fixture
async def load() -> AsyncIterator[LoopLoad]:
    watched = LoopLoad()
    try:
        yield watched
    finally:
        watched.stop()


async def test_an_idle_loop_keeps_the_pace_and_a_loop_far_behind_stretches_it_at_most_three_times(
    load: LoopLoad,
) -> None:
    assert load.stretch() == 1.0
    for _ in range(50):
        load.note(1.0)  # a second late, again and again
    assert load.stretch() == MOST


async def test_the_stretch_grows_with_the_smoothed_lag_and_falls_back_as_it_shrinks(load: LoopLoad) -> None:
    load.lag = CALM + SPAN / 2
    assert load.stretch() == pytest.approx(1.5)
    for _ in range(40):
        load.note(0.0)
    assert load.stretch() == 1.0
    load.note(-0.01)  # a timer cannot fire early: a reading below zero counts as on time
    assert load.lag >= 0.0


async def test_the_watcher_sees_a_loop_held_up_by_blocking_work(load: LoopLoad) -> None:
    load.stretch()  # starts the watcher
    await asyncio.sleep(0)  # its timer is set, due in PERIOD
    time.sleep(PERIOD * 4)  # blocking work holds the loop well past it
    while load.lag == 0.0:
        await asyncio.sleep(0)  # the timer fires in one of the next turns, three periods late
    assert load.stretch() == MOST
