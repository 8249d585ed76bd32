"""The drawing threads' place behind the event loop (bot/schnapsen/content.py)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.schnapsen import content
from tests.bot.schnapsen.harness import Table

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="a thread's own nice value is Linux's")


def own_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


@linux_only
async def test_drawings_run_below_the_event_loop_and_what_a_person_waits_for_above_the_rest() -> None:
    loop = asyncio.get_running_loop()
    loop_nice = own_nice()
    answer = await loop.run_in_executor(content.ANSWER_POOL, own_nice)
    first = await loop.run_in_executor(content.FIRST_POOL, own_nice)
    background = await loop.run_in_executor(content.RENDER_POOL, own_nice)
    assert answer == loop_nice  # a click's answer: beside the loop
    assert first == min(19, loop_nice + content.FIRST_NICE)
    assert background == min(19, loop_nice + content.BACKGROUND_NICE)
    assert 0 < content.FIRST_NICE < content.BACKGROUND_NICE
    assert own_nice() == loop_nice  # the loop's own thread is left as it was


@linux_only
def test_a_refused_priority_change_leaves_the_thread_drawing_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(*args: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "setpriority", refuse)
    with ThreadPoolExecutor(max_workers=1, initializer=content.lower_thread_priority, initargs=(5,)) as pool:
        assert pool.submit(lambda: 6 * 7).result() == 42
    assert "keep the event loop's priority" in caplog.text
    assert [record.levelno for record in caplog.records] == [logging.WARNING]


def gated_drawing(gates: dict[str, threading.Event]) -> tuple[content.Kept, list[str]]:
    """A kept drawing that returns the name of the pool it ran on, held until its pool's gate opens."""
    threads: list[str] = []

    def draw(*args: object) -> bytes:
        pool = threading.current_thread().name.rpartition("_")[0]
        threads.append(pool)
        assert gates[pool].wait(10)
        return pool.encode()

    return content.Kept(draw, 8), threads


async def test_a_clicks_answer_does_not_wait_for_the_same_image_drawn_in_the_background() -> None:
    gates = {"render": threading.Event(), "render-first": threading.Event(), "render-answer": threading.Event()}
    gates["render-answer"].set()
    kept, threads = gated_drawing(gates)
    try:
        background = kept.drawing(("hand",), content.RENDER_POOL)
        drawn_first = content.DRAW_FIRST.set(True)
        try:
            answer = await content.rendered(kept, "hand")
        finally:
            content.DRAW_FIRST.reset(drawn_first)
        assert answer == b"render-answer"
        assert not background.done()  # still held: the answer did not wait for it
        assert kept.kept.get(("hand",)) == b"render-answer"
    finally:
        for gate in gates.values():
            gate.set()
    assert await background == b"render"
    assert sorted(threads) == ["render", "render-answer"]


async def test_a_background_drawing_waits_for_the_same_image_drawn_for_a_click() -> None:
    gates = {"render": threading.Event(), "render-first": threading.Event(), "render-answer": threading.Event()}
    kept, threads = gated_drawing(gates)
    try:
        answer = kept.drawing(("hand",), content.ANSWER_POOL)
        turn = kept.drawing(("hand",), content.FIRST_POOL)
        background = kept.drawing(("hand",), content.RENDER_POOL)
        assert turn is answer and background is answer  # drawn once, for all three
        gates["render-answer"].set()
        assert await background == b"render-answer"
    finally:
        for gate in gates.values():
            gate.set()
    assert threads == ["render-answer"]


async def test_the_bot_takes_the_gil_back_from_the_drawings_quickly(world: Table) -> None:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # the interpreter's default
    try:
        await world.start_bot()
        assert sys.getswitchinterval() == pytest.approx(content.GIL_SWITCH_SECONDS)
        assert content.GIL_SWITCH_SECONDS < 0.005
    finally:
        sys.setswitchinterval(before)
