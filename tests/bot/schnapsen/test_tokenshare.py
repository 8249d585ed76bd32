"""The processes of one bot share the token's global budget (bot/schnapsen/tokenshare.py): on a fake clock
with an in-memory announcement channel, then two processes' shares over one real PostgreSQL."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import pytest

from bot.db import Database
from bot.schnapsen.pacing import GlobalPacer
from bot.schnapsen.tokenshare import DatabaseAnnouncer, TokenShare, split_budget
from tests.bot.schnapsen.test_pacing import FakeTime

BUDGET = 45
HALF = BUDGET // 2  # whole requests: 22 each, 44 together


class Channel:
    """PostgreSQL's notifications in memory: every listener hears every payload, the sender's too."""

    def __init__(self) -> None:
        self.listeners: dict[int, tuple[Callable[[str], None], Callable[[], None]]] = {}
        self.down = False
        self.opened = 0  # listeners opened so far: each one's key

    def lose_listeners(self) -> None:
        for _, on_lost in list(self.listeners.values()):
            on_lost()
        self.listeners.clear()


class ChannelAnnouncer:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    async def send(self, payload: str) -> None:
        if self.channel.down:
            raise ConnectionRefusedError("storage is down")
        for on_notice, _ in list(self.channel.listeners.values()):
            on_notice(payload)

    async def listen(
        self, on_notice: Callable[[str], None], on_lost: Callable[[], None]
    ) -> Callable[[], Awaitable[None]] | None:
        if self.channel.down:
            raise ConnectionRefusedError("storage is down")
        self.channel.opened += 1
        key = self.channel.opened
        self.channel.listeners[key] = (on_notice, on_lost)

        async def stop() -> None:
            self.channel.listeners.pop(key, None)

        return stop


def process(name: str, channel: Channel, time: FakeTime, expected: int = 2) -> TokenShare:
    pacer = GlobalPacer(BUDGET, clock=time.clock, sleep=time.sleep)
    return TokenShare(pacer, ChannelAnnouncer(channel), expected_processes=expected, clock=time.clock, name=name)


async def settle(time: FakeTime, *shares: TokenShare, seconds: float = 4.0) -> None:
    """Every process ticks once a second for ``seconds`` (past the lapse: each has heard all the others)."""
    for _ in range(int(seconds)):
        time.now += 1.0
        for share in shares:
            await share.tick()


def demand(share: TokenShare, requests: int) -> None:
    share.pacer.asked += requests  # as many requests asked for a turn since the last tick


def test_the_split_adds_up_to_the_budget_and_serves_the_quiet_first() -> None:
    assert split_budget(45, {"only": 0}) == {"only": 45}
    parts = split_budget(45, {"busy": 100, "quiet": 3, "idle": 0})
    assert sum(parts.values()) == pytest.approx(45)
    assert parts["busy"] > parts["quiet"] > parts["idle"] > 0, "nobody is left without room for a burst"
    assert split_budget(45, {"b": 10, "a": 10}) == split_budget(45, {"a": 10, "b": 10})


async def test_a_starting_process_paces_at_an_even_share_until_it_has_heard_the_others() -> None:
    time, channel = FakeTime(), Channel()
    first = process("first", channel, time)
    assert first.share == HALF, "before anything is heard: the shard layout's guess"
    await first.tick()
    assert first.share == HALF, "just listening: a live process may not have announced yet"
    await settle(time, first)
    assert first.share == BUDGET, "alone once a whole lapse has passed"


async def test_two_processes_split_the_budget_by_demand_and_never_exceed_it_together() -> None:
    time, channel = FakeTime(), Channel()
    busy, quiet = process("busy", channel, time), process("quiet", channel, time)
    await settle(time, busy, quiet)
    assert busy.share == quiet.share == HALF
    for _ in range(3):
        demand(busy, 40)
        demand(quiet, 4)
        await settle(time, busy, quiet, seconds=1)
        assert BUDGET - 1 <= busy.share + quiet.share <= BUDGET
    assert busy.share > 30 and quiet.share > 4, "the busy one gets most, the quiet keeps room for a burst"
    await settle(time, busy, quiet, seconds=8)  # demand gone quiet on both: even again
    assert busy.share == quiet.share


async def test_two_pacers_send_no_more_than_the_budget_in_any_second_together() -> None:
    time, channel = FakeTime(), Channel()
    first, second = process("first", channel, time), process("second", channel, time)
    await settle(time, first, second)
    sent: list[float] = []

    async def request(share: TokenShare) -> None:
        await share.pacer.wait_turn()
        sent.append(time.now)

    await asyncio.gather(*(request(share) for share in (first, second) for _ in range(60)))
    assert len(sent) == 120
    for start in sent:
        assert sum(1 for at in sent if start <= at < start + 1.0) <= BUDGET


async def test_a_closed_process_returns_its_share_at_once_and_a_silent_one_after_the_lapse() -> None:
    time, channel = FakeTime(), Channel()
    first, second, third = (process(name, channel, time, expected=3) for name in ("first", "second", "third"))
    await settle(time, first, second, third)
    assert first.share == BUDGET // 3
    await third.close()
    assert first.share == second.share == HALF, "a closing process says so"
    await settle(time, first, seconds=2)  # the second stops announcing (killed): still counted within the lapse
    assert first.share == HALF
    await settle(time, first, seconds=2)
    assert first.share == BUDGET
    assert first.known_processes == 1


async def test_storage_unreachable_falls_back_to_an_even_share_with_a_warning_and_recovers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    time, channel = FakeTime(), Channel()
    busy, quiet = process("busy", channel, time), process("quiet", channel, time)
    await settle(time, busy, quiet)
    demand(busy, 40)
    await settle(time, busy, quiet, seconds=1)
    assert busy.share > HALF
    channel.down = True
    with caplog.at_level(logging.WARNING):
        await settle(time, busy, quiet, seconds=5)  # never raises, never stalls
    assert busy.share == quiet.share == HALF, "the even share of the processes last known"
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 2, "once per process and outage, not every second"
    channel.down = False
    demand(busy, 40)
    await settle(time, busy, quiet, seconds=1)
    assert busy.share > HALF, "shared by demand again as soon as storage answers"


async def test_a_lost_listener_is_replaced_and_the_share_is_even_until_the_others_are_heard_again() -> None:
    time, channel = FakeTime(), Channel()
    busy, quiet = process("busy", channel, time), process("quiet", channel, time)
    await settle(time, busy, quiet)
    demand(busy, 40)
    await settle(time, busy, quiet, seconds=1)
    channel.lose_listeners()
    assert busy.share == quiet.share == HALF
    await settle(time, busy, quiet)
    assert len(channel.listeners) == 2, "each listens again"
    assert BUDGET - 1 <= busy.share + quiet.share <= BUDGET


async def test_a_malformed_announcement_changes_nothing() -> None:
    time, channel = FakeTime(), Channel()
    alone = process("alone", channel, time, expected=1)
    await settle(time, alone)
    for payload in ("", "noise", "other nan", "other -5", "other 1e309", "other inf"):
        await ChannelAnnouncer(channel).send(payload)
    assert alone.share == BUDGET
    assert alone.known_processes == 1


async def test_two_processes_share_the_budget_over_one_postgresql(pg_url: str) -> None:
    time = FakeTime()  # the lapse on a fake clock; the announcements through the real database
    first_db, second_db = await Database.open(pg_url), await Database.open(pg_url)
    first = TokenShare(
        GlobalPacer(BUDGET), DatabaseAnnouncer(first_db), expected_processes=2, clock=time.clock, name="first"
    )
    second = TokenShare(
        GlobalPacer(BUDGET), DatabaseAnnouncer(second_db), expected_processes=2, clock=time.clock, name="second"
    )
    try:
        await first.tick()  # both listen from here on
        await second.tick()
        for _ in range(5):
            time.now += 1.0
            first.heard.clear()
            await second.tick()
            await asyncio.wait_for(first.heard.wait(), 10)
            second.heard.clear()
            demand(first, 30)
            await first.tick()
            await asyncio.wait_for(second.heard.wait(), 10)
        assert first.known_processes == second.known_processes == 2
        assert BUDGET - 1 <= first.share + second.share <= BUDGET
        assert first.share > second.share, "the one asking more has more"
        first.heard.clear()
        await second.close()
        await asyncio.wait_for(first.heard.wait(), 10)
        assert first.share == BUDGET, "the closed process's share returned at once"
    finally:
        await first.close()
        await second.close()
        await second_db.close()
        await first_db.close()
