"""The bot token's requests are spaced within Discord's global limit (bot/schnapsen/pacing.py)."""

from __future__ import annotations

import asyncio

from bot.schnapsen.pacing import GlobalPacer, counts_globally


class FakeTime:
    """A clock that only sleeping moves on."""

    def __init__(self) -> None:
        self.now = 1000.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)  # the rest of the burst asks meanwhile, at the same moment
        self.now += seconds


async def test_no_second_holds_more_requests_than_the_limit_and_the_first_ones_do_not_wait() -> None:
    time = FakeTime()
    pacer = GlobalPacer(10, clock=time.clock, sleep=time.sleep)
    sent: list[float] = []

    async def request() -> None:
        await pacer.wait_turn()
        sent.append(time.now)

    await asyncio.gather(*(request() for _ in range(35)))
    assert len(sent) == 35
    assert sent[:10] == [1000.0] * 10, "a burst within the limit goes at once"
    for start in sent:
        assert sum(1 for t in sent if start <= t < start + 1.0) <= 10
    assert sent == sorted(sent), "first come, first served"
    assert pacer.waited == 25
    assert sent[-1] - sent[0] < 3.5, "spaced, not held longer than the limit asks"


async def test_a_process_that_just_started_counts_its_predecessors_last_second_as_full() -> None:
    # A restart after kill -9: Discord still counts what the killed process sent in its last second, which the
    # new one cannot know. Its first requests (the login's) wait until a second after it started.
    time = FakeTime()
    pacer = GlobalPacer(3, clock=time.clock, sleep=time.sleep, held_since=time.now - 0.4)
    sent: list[float] = []

    async def request() -> None:
        await pacer.wait_turn()
        sent.append(time.now)

    await asyncio.gather(*(request() for _ in range(4)))
    assert sent[:3] == [1000.6] * 3, "the first requests go a second after the start, together"
    assert sent[3] == 1001.6


def test_the_interaction_routes_do_not_count() -> None:
    assert counts_globally("/api/v10/channels/1/messages/2")
    assert counts_globally("/api/v10/users/@me/channels")
    assert not counts_globally("/api/v10/interactions/1/abc/callback")
    assert not counts_globally("/api/v10/webhooks/1/abc/messages/@original")


async def test_an_urgent_request_goes_before_the_others_waiting_and_still_within_the_limit() -> None:
    time = FakeTime()
    pacer = GlobalPacer(10, clock=time.clock, sleep=time.sleep)
    sent: list[tuple[str, float]] = []

    async def request(name: str, urgent: bool = False) -> None:
        await pacer.wait_turn(urgent=urgent)
        sent.append((name, time.now))

    # A person's turn asks after a burst of cosmetic edits has filled the second.
    await asyncio.gather(*(request(f"edit {n}") for n in range(25)), request("turn", urgent=True))
    names = [name for name, _ in sent]
    assert names.index("turn") == 10, "the first request of the next second, ahead of 15 edits that came first"
    assert [name for name in names if name != "turn"] == [f"edit {n}" for n in range(25)], "the rest in order"
    for _, start in sent:
        assert sum(1 for _, t in sent if start <= t < start + 1.0) <= 10


async def test_a_request_holds_its_place_until_a_second_after_its_answer_came_back() -> None:
    """Discord counts a request when it arrives, which may be long after the process let it go (a loaded
    machine, a slow network): so its place is free only a second after its answer came back."""
    time = FakeTime()
    pacer = GlobalPacer(2, clock=time.clock, sleep=time.sleep)
    slow = await pacer.wait_turn(until_answered=True)
    await pacer.wait_turn(until_answered=True)
    third = asyncio.create_task(pacer.wait_turn())
    while time.now < 1001.5:  # the pacer looks again and again: both answers are still on their way
        await asyncio.sleep(0)
    assert not third.done(), "no place is free while the window's requests have not been answered"
    pacer.answered(slow)
    answered_at = time.now
    await third
    assert time.now >= answered_at + 1.0 - 1e-9, "its place was free a second after its answer"
