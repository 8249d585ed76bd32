"""Discord's budget for bad answers (issue 28): the bot counts its 401/403/404/429 answers in a sliding window
and warns past a tenth of the ban budget; a 429 raised to the bot is waited out (at least its retry-after,
spread with jitter after a global limit); a channel that answered 403 is not tried again until it changes."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
from types import SimpleNamespace

import discord
import pytest

from bot.schnapsen.badanswers import BadAnswers, ChannelGate, retry_after
from bot.schnapsen.coalesce import Coalescer
from devtools.fakediscord import FakeDiscord
from devtools.fakediscord.server import RecordedRequest
from tests.bot.schnapsen.harness import Table
from tests.bot.schnapsen.test_faults import FAST_RETRIES, alice_and_three_ai, settled


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "budget" in r.getMessage()]


def test_bad_answers_are_counted_in_a_sliding_window_and_shared_429s_spare_the_budget() -> None:
    clock = Clock()
    answers = BadAnswers(window=10.0, budget=100, clock=clock)
    for status, scope in [(200, None), (204, None), (401, None), (403, None), (404, None), (429, "global"),
                          (429, "user"), (429, "shared"), (500, None)]:
        answers.record(status, scope)
    assert answers.in_window() == {"401": 1, "403": 1, "404": 1, "429 global": 1, "429 user": 1, "429 shared": 1}
    assert answers.counted() == 4, "401, 403 and the non-shared 429s count toward the ban; 404 and shared do not"
    clock.now = 5.0
    answers.record(403)
    clock.now = 10.5  # the first six have left the window
    assert answers.counted() == 1 and answers.in_window() == {"403": 1}
    assert answers.total["403"] == 2, "the totals since start keep everything"
    assert "1 of 100 (1.0%)" in answers.summary()


def test_the_warning_comes_past_a_tenth_of_the_budget_and_at_most_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    answers = BadAnswers(window=600.0, budget=100, clock=clock)  # a tenth is 10 answers
    for _ in range(10):
        answers.record(429, "global")
    for _ in range(50):
        answers.record(429, "shared")
    assert warnings(caplog) == [], "10 of 100 is not past a tenth; shared 429s do not count"
    answers.record(403)
    answers.record(401)
    assert len(warnings(caplog)) == 1, "past a tenth: one warning, not one per answer"
    assert "11 of 100" in warnings(caplog)[0]
    clock.now = 59.0
    answers.record(403)
    assert len(warnings(caplog)) == 1
    clock.now = 61.0
    answers.record(403)
    assert len(warnings(caplog)) == 2, "still past a tenth a minute later: warned again"
    clock.now = 700.0  # the window emptied
    answers.record(403)
    assert len(warnings(caplog)) == 2


def rate_limited(retry: float, *, is_global: bool) -> discord.HTTPException:
    """The exception discord.py raises when a request met 429s five times: the answer's headers, not its body."""
    headers = {"Retry-After": str(max(1, int(retry + 0.999))), "X-RateLimit-Reset-After": f"{retry:.3f}",
               "X-RateLimit-Scope": "global" if is_global else "user"}
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    response = SimpleNamespace(status=429, reason="Too Many Requests", headers=headers)
    return discord.HTTPException(response, {"message": "You are being rate limited.", "code": 0})  # type: ignore[arg-type]


def test_retry_after_reads_the_answers_headers() -> None:
    assert retry_after(rate_limited(2.5, is_global=False)) == 3.0, "Retry-After is rounded up: never too short"
    assert retry_after(discord.RateLimited(7.0)) == 7.0
    forbidden = discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden", headers={}), "no")  # type: ignore[arg-type]
    assert retry_after(forbidden) is None


async def test_a_429_raised_to_the_bot_is_retried_only_after_its_retry_after() -> None:
    coalescer = Coalescer(0.0, first_retry=0.01, max_retry=0.1)
    coalescer.jitter = lambda: 0.0
    loop = asyncio.get_running_loop()
    attempts: list[float] = []

    async def edit() -> None:
        attempts.append(loop.time())
        if len(attempts) == 1:
            raise rate_limited(0.4, is_global=False)  # Retry-After: 1

    coalescer.request(("table message", 1), edit)
    await asyncio.wait_for(coalescer.drain(), 5)
    assert len(attempts) == 2
    assert attempts[1] - attempts[0] >= 1.0, "the retry waited the answer's Retry-After, not first_retry"


async def test_jobs_stopped_by_one_global_429_go_out_again_spread_not_together() -> None:
    coalescer = Coalescer(0.0, first_retry=0.01, max_retry=0.1)
    shares = itertools.cycle([0.0, 0.25, 0.5, 0.75])
    coalescer.jitter = lambda: next(shares)
    loop = asyncio.get_running_loop()
    retried: list[float] = []
    start = loop.time()

    def job(seen: list[int]):  # type: ignore[no-untyped-def]
        async def run() -> None:
            seen.append(1)
            if len(seen) == 1:
                raise rate_limited(0.9, is_global=True)  # Retry-After: 1
            retried.append(loop.time() - start)

        return run

    # The waits the coalescer asks for are what is spread; when the retries then run depends on the machine's
    # load as well (a loaded machine runs the first one late, which narrowed a spread measured on the clock).
    asked: list[float] = []
    wait_after = coalescer._wait_after

    def recorded(err: Exception, pause: float) -> float | None:
        wait = wait_after(err, pause)
        if wait is not None:
            asked.append(wait)
        return wait

    coalescer._wait_after = recorded  # type: ignore[method-assign]
    for hand in range(8):
        coalescer.request(("hand", 1, hand), job([]))
    await asyncio.wait_for(coalescer.drain(), 10)
    assert len(retried) == 8 and min(retried) >= 1.0, "none before the global limit's retry-after"
    assert len(asked) == 8 and min(asked) >= 1.0
    assert max(asked) - min(asked) >= 0.7, "the retries are spread over most of another retry-after"


def forbidden_in(channel_id: int, code: int = 50013) -> discord.Forbidden:
    response = SimpleNamespace(
        status=403, reason="Forbidden", headers={},
        url=SimpleNamespace(path=f"/api/v10/channels/{channel_id}/messages/5"),
    )
    return discord.Forbidden(response, {"message": "Missing Permissions", "code": code})  # type: ignore[arg-type]


async def test_a_job_refused_in_a_channel_waits_for_it_to_change_and_then_runs_the_latest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate = ChannelGate()
    coalescer = Coalescer(0.0, first_retry=0.01, max_retry=0.01, gate=gate)
    attempts: list[str] = []
    allowed = False
    refused = asyncio.Event()

    def edit(name: str):  # type: ignore[no-untyped-def]
        async def run() -> None:
            attempts.append(name)
            if not allowed:
                refused.set()
                raise forbidden_in(77)

        return run

    coalescer.request(("table message", 1), edit("move 1"))
    await refused.wait()
    for move in range(2, 6):  # the moves go on; none of them is sent into the refusal
        coalescer.request(("table message", 1), edit(f"move {move}"))
    await asyncio.sleep(0.2)  # time for some twenty blind retries at first_retry 0.01: none may come
    assert attempts == ["move 1"] and gate.blocked() == [77]
    refusals = [r for r in caplog.records if r.levelno == logging.ERROR and "channel 77" in r.getMessage()]
    assert len(refusals) == 1 and "403, code 50013" in refusals[0].getMessage()
    allowed = True
    gate.reopen(channel_id=77, why="its permissions changed")
    await asyncio.wait_for(coalescer.drain(), 5)
    assert attempts == ["move 1", "move 5"], "redrawn once, showing the latest"


async def test_a_refused_channel_is_tried_again_after_the_long_pause_or_when_an_interaction_shows_it_may_post(
) -> None:
    clock = Clock()
    gate = ChannelGate(block_for=600.0, clock=clock)
    gate.refuse(77, 50013, "table 1: table message")
    gate.refuse(88, 50001, "table 2: table message")
    assert gate.blocked_for(77) == 600.0
    gate.may_post_now(88, discord.Permissions(view_channel=True), in_thread=False)
    assert gate.blocked() == [77, 88], "still no Send Messages there"
    gate.may_post_now(88, discord.Permissions(view_channel=True, send_messages=True), in_thread=False)
    assert gate.blocked() == [77] and gate.reopened(88).is_set()
    clock.now = 601.0
    assert gate.blocked() == [], "the last resort: tried again after the pause"


# --- against the fake Discord -------------------------------------------------------------------------------


def channel_requests(fake: FakeDiscord, channel_id: int, since: int) -> list[RecordedRequest]:
    return [r for r in fake.requests[since:] if r.path.startswith(f"/channels/{channel_id}/")]


async def test_a_table_channel_that_answers_403_is_not_hammered_and_is_redrawn_once_its_permissions_change(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    world.settings = dataclasses.replace(world.settings, **FAST_RETRIES)
    alice, bot, table = await alice_and_three_ai(world)
    await settled(bot)
    channel = world.channel
    # The AI seats may be moving: the count of moves is read before the version the loop waits on, and the
    # requests are counted from the moment the channel starts refusing (no await in between).
    moves_before = await world.action_count(table.id)
    world.forget_table_clicks()  # the table message is edited with the bot token, which the channel refuses
    since = len(fake_discord.requests)
    refusals = [
        fake_discord.fail_next(method, pattern, status=403, code=50013, message="Missing Permissions", times=10_000)
        for method, pattern in (("PATCH", f"/channels/{channel.id}/messages/*"), ("POST", f"/channels/{channel.id}/messages"))
    ]
    version = table.version
    await world.play([alice], until=lambda now: now.version >= version + 16, timeout=30)
    # Counted in the record, not in alice's clicks: she sits the deal out when her partner plays a Bettler.
    # (A version is a move, or a deal dealt.)
    moves = await world.action_count(table.id) - moves_before
    assert moves >= 8, f"many moves were made meanwhile, not {moves}"

    # The bot hears a refusal a moment after the fake recorded it: the test waits until it heard every one.
    record, wakers = bot.bad_answers.record, []

    def heard(status: int, scope: str | None = None) -> None:
        record(status, scope)
        wakers.append(asyncio.ensure_future(fake_discord.changed()))

    bot.bad_answers.record = heard  # type: ignore[method-assign]
    # The table message's edit may not have been tried yet (its image is drawn on a background thread): wait for it.
    await fake_discord.wait_for(
        lambda: 1 <= bot.bad_answers.total["403"] == len(channel_requests(fake_discord, channel.id, since)),
        what="an edit of the table message tried, and http_trace to count every refusal",
    )
    tried = channel_requests(fake_discord, channel.id, since)
    assert 1 <= len(tried) <= 3, f"a few attempts, not one per move or retry: {[(r.method, r.path) for r in tried]}"
    refused = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR and f"channel {channel.id}" in r.getMessage()]
    assert len(refused) == 1 and "likely missing Send Messages" in refused[0], refused

    # The server's admin gives the bot its permission back: the channel update reopens it, the table is redrawn.
    for rule in refusals:
        fake_discord.faults.remove(rule)
    message = world.table_message_now()
    assert message is not None
    edits = message.edit_count
    await fake_discord.dispatch("CHANNEL_UPDATE", channel.payload())
    await fake_discord.wait_for(lambda: message.edit_count > edits, timeout=10, what="the table message redrawn")
    await settled(bot)
    assert bot.channel_gate.blocked() == []


async def test_a_429_raised_to_the_bot_is_retried_after_its_retry_after_and_counted(
    fake_discord: FakeDiscord, world: Table
) -> None:
    world.settings = dataclasses.replace(world.settings, **FAST_RETRIES)
    alice, bot, table = await alice_and_three_ai(world)
    await settled(bot)
    channel = world.channel
    world.forget_table_clicks()  # the table message is edited with the bot token
    # discord.py tries five times, waiting 0.05 s after each; then it raises the 429 (Retry-After: 1) to the bot.
    fake_discord.fail_next("PATCH", f"/channels/{channel.id}/messages/*", status=429, times=5, retry_after=0.05)
    since, version = len(fake_discord.requests), table.version
    await world.play([alice], until=lambda now: now.version >= version + 4, timeout=30)
    edits = await fake_discord.wait_for(
        lambda: (found := [r for r in channel_requests(fake_discord, channel.id, since) if r.method == "PATCH"])[5:]
        and found, timeout=10, what="the edit after the 429s",
    )
    assert [r.status for r in edits[:6]] == [429] * 5 + [200]
    assert edits[5].at - edits[4].at >= 1.0, "the bot waited the answer's Retry-After (1 s), not its first_retry"
    assert bot.bad_answers.total["429 shared"] == 5, "http_trace saw the 429s discord.py retried itself"
    assert bot.bad_answers.counted() == 0, "shared-scope 429s do not count toward the ban"


async def test_a_dm_channel_closed_mid_deal_is_not_hammered(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [bob, None, None], target=3)
    await world.play([alice, bob], until=lambda t: len(t.log) >= 2)
    # The AI seats may make those two moves before bob's hand is sent: his DM must exist to be closed mid-deal.
    await world.latest_dm(bob)
    dms = fake_discord.dm_channel(bob)
    assert dms is not None
    since = len(fake_discord.requests)
    fake_discord.close_dms(bob)
    version = table.version
    await world.play([alice, bob], until=lambda t: t.version >= version + 24 or t.deal_no > 1, timeout=60)
    tried = channel_requests(fake_discord, dms.id, since)
    # At most one refused call, then the hand lives in the channel. None within the deal when bob had clicked
    # his DM: it is then edited through that click's token (not a request on the DM channel's route), and he
    # plays on there; the next deal's send is then the one refused.
    assert [r.status for r in tried] in ([], [403]), "at most one refused edit; then the hand lives in the channel"
