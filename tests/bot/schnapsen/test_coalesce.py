"""The coalescer's pacing (issue 25): a burst of requests for one key runs once, showing the latest; a key runs
at most once per interval unless a person waits for what it shows (urgent), and never more than BURST times
in BURST intervals; the last request is always run."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bot import render
from bot.schnapsen import content, payloads
from bot.schnapsen.coalesce import BURST, Coalescer

LONG = 60.0  # an interval no test waits out: a job that had to wait for it would time the test out


def recorder(runs: list[str], name: str, started: asyncio.Event | None = None, gate: asyncio.Event | None = None):  # type: ignore[no-untyped-def]
    async def job() -> None:
        if started is not None:
            started.set()
        if gate is not None:
            await gate.wait()
        runs.append(name)

    return job


async def test_a_burst_of_moves_runs_once_with_the_latest() -> None:
    coalescer = Coalescer(0.0)
    runs: list[str] = []
    started, gate = asyncio.Event(), asyncio.Event()
    coalescer.request("table", recorder(runs, "move 1", started, gate))
    await started.wait()
    for move in range(2, 6):  # AI moves while the first edit is on its way
        coalescer.request("table", recorder(runs, f"move {move}"))
    gate.set()
    await coalescer.drain()
    assert runs == ["move 1", "move 5"], "one more run, showing the last position"


async def test_an_edit_soon_after_another_waits_out_the_interval_and_shows_the_latest() -> None:
    coalescer = Coalescer(LONG)
    runs: list[str] = []
    coalescer.request("hand", recorder(runs, "click"))
    await coalescer.drain()
    coalescer.request("hand", recorder(runs, "AI move 1"))
    coalescer.request("hand", recorder(runs, "AI move 2"))
    await asyncio.sleep(0)
    assert runs == ["click"] and coalescer.busy("hand"), "an AI move's edit waits out the interval"
    # The person's turn comes: that edit goes out at once, and the AI moves' positions are never drawn.
    coalescer.request("hand", recorder(runs, "your turn"), urgent=True)
    await asyncio.wait_for(coalescer.drain(), 5)
    assert runs == ["click", "your turn"]


async def test_a_key_with_its_own_longer_interval_waits_it_out_while_the_others_keep_theirs() -> None:
    coalescer = Coalescer(0.0)
    runs: list[str] = []
    coalescer.request("table message", recorder(runs, "move 1"), interval=LONG)
    coalescer.request("hand", recorder(runs, "hand 1"))
    await coalescer.drain()
    coalescer.request("table message", recorder(runs, "move 2"), interval=LONG)
    coalescer.request("hand", recorder(runs, "hand 2"))
    await asyncio.wait_for(coalescer.settled("hand"), 5)
    await asyncio.sleep(0)
    assert runs == ["move 1", "hand 1", "hand 2"] and coalescer.busy("table message"), (
        "the table message waits out its own interval; the hand has none"
    )
    coalescer.request("table message", recorder(runs, "Bummerl over"), urgent=True, interval=LONG)
    await asyncio.wait_for(coalescer.drain(), 5)
    assert runs == ["move 1", "hand 1", "hand 2", "Bummerl over"]


async def test_a_key_with_a_longer_interval_keeps_discords_burst_not_a_longer_one() -> None:
    """The lobby's quick edits of a table message (urgent, each at once) must not hold back a new deal's first
    picture by BURST of the table message's long intervals (issue 35: 15 s after a quick Start)."""
    coalescer = Coalescer(0.05)
    runs: list[str] = []
    for change in range(BURST):  # people sit and add AI players in quick succession
        coalescer.request("table message", recorder(runs, f"lobby {change}"), urgent=True, interval=LONG)
        await coalescer.drain()
    coalescer.request("table message", recorder(runs, "the deal"), urgent=True, interval=LONG)
    await coalescer.drain()  # a wait of BURST long intervals would time the test out
    assert runs[-1] == "the deal"


async def test_urgent_edits_keep_to_the_burst_limit_and_the_last_one_still_runs() -> None:
    coalescer = Coalescer(0.05)
    runs: list[str] = []
    loop = asyncio.get_running_loop()
    started = loop.time()
    for turn in range(BURST + 1):
        coalescer.request("hand", recorder(runs, f"turn {turn}"), urgent=True)
        await asyncio.wait_for(coalescer.drain(), 5)
    # BURST runs at once; the next one waits until the first of them is BURST intervals old.
    assert runs == [f"turn {turn}" for turn in range(BURST + 1)]
    assert loop.time() - started >= BURST * 0.05 * 0.9


async def test_a_waiting_edit_is_dropped_with_its_table() -> None:
    coalescer = Coalescer(LONG)
    runs: list[str] = []
    coalescer.request("hand", recorder(runs, "first"))
    await coalescer.drain()
    coalescer.request("hand", recorder(runs, "second"))
    await asyncio.sleep(0)
    assert coalescer.busy("hand"), "waiting out the interval"
    coalescer.drop("hand")
    await asyncio.wait_for(coalescer.drain(), 5)
    assert runs == ["first"]


def test_a_position_drawn_before_is_not_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[render.TableScene] = []
    draw = render.render_table

    def counted(scene: render.TableScene) -> bytes:
        drawn.append(scene)
        return draw(scene)

    monkeypatch.setattr(render, "render_table", counted)
    payloads._table_png.clear()
    names = ("Anna", "Ferdl", "Resi", "Mitzi")
    scene = render.TableScene(viewer_seat=None, seat_names=names, trick=((1, "HK"),), leader_seat=1, to_act_seat=2)
    moved = render.TableScene(viewer_seat=None, seat_names=names, trick=((1, "HK"), (2, "HA")), leader_seat=1,
                              to_act_seat=3)  # fmt: skip
    first = payloads._table_png(scene)
    assert payloads._table_png(scene) == first  # the table message shown again for a new log line
    assert payloads._table_png(moved) != first
    assert drawn == [scene, moved]


async def test_a_drawing_made_before_is_handed_back_without_a_trip_to_a_drawing_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A trip to a drawing thread queues behind the drawings in progress: a kept one is handed back at once."""
    trips: list[object] = []

    class CountedPool(ThreadPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            trips.append(args[0])
            return super().submit(*args, **kwargs)

    with CountedPool(max_workers=1) as pool:
        monkeypatch.setattr(content, "RENDER_POOL", pool)
        payloads._hand_png.clear()
        hand = (("HA", "HK", "CQ"), None, "H", "french", "en")
        first = await content.rendered(payloads._hand_png, *hand)
        assert await content.rendered(payloads._hand_png, *hand) == first
        assert await content.rendered(payloads._hand_png, ("HA", "HK"), None, "H", "french", "en") != first
    assert len(trips) == 2


async def test_the_moves_before_a_turn_leave_the_last_run_of_a_burst_to_the_turn() -> None:
    coalescer = Coalescer(LONG)
    runs: list[str] = []
    for turn in range(BURST - 1):
        coalescer.request("hand", recorder(runs, f"turn {turn}"), urgent=True)
        await asyncio.wait_for(coalescer.drain(), 5)
    coalescer.request("hand", recorder(runs, "an AI move"))
    await asyncio.sleep(0)
    assert coalescer.busy("hand") and "an AI move" not in runs
    coalescer.request("hand", recorder(runs, "the next turn"), urgent=True)
    await asyncio.wait_for(coalescer.drain(), 5)
    assert runs[-1] == "the next turn" and "an AI move" not in runs
    coalescer.request("hand", recorder(runs, "one turn too many"), urgent=True)
    await asyncio.sleep(0)
    assert coalescer.busy("hand"), "the burst is used up: even a turn waits"
    coalescer.drop("hand")
    await asyncio.wait_for(coalescer.drain(), 5)


async def test_a_job_cancelled_before_its_first_turn_frees_its_key_and_a_stop_drains() -> None:
    """The Swiss tournament test's stop that never ended: a drive requested in the same instant as the stop
    (drivers.halt cancels every drive) was cancelled before its task ever ran, so the task's own clean-up never
    ran either: the key stayed taken for good, no later request for it ran, and the stop's drain (2 s at most)
    waited for it without end."""
    coalescer = Coalescer(0.0)
    runs: list[str] = []
    coalescer.request("drive", recorder(runs, "cancelled"))
    coalescer.cancel("drive")  # before the job's task had a turn of the event loop
    assert not coalescer.busy("drive")
    await asyncio.wait_for(coalescer.drain(timeout=LONG), 30)  # ends once nothing is left, long before LONG
    coalescer.request("drive", recorder(runs, "the next drive"))
    await asyncio.wait_for(coalescer.drain(), 30)
    assert runs == ["the next drive"]


async def test_a_request_right_after_a_running_job_was_cancelled_runs() -> None:
    """A cancelled job may still be winding down when the next request for its key comes: that request gets a
    worker of its own instead of being left to the one that is ending."""
    coalescer = Coalescer(0.0)
    runs: list[str] = []
    started, gate = asyncio.Event(), asyncio.Event()
    coalescer.request("hand", recorder(runs, "cancelled", started, gate))
    await started.wait()
    coalescer.cancel("hand")
    coalescer.request("hand", recorder(runs, "the next edit"))
    await asyncio.wait_for(coalescer.drain(), 30)
    assert runs == ["the next edit"]
