"""The bot under faults: Discord answering 503, storage failing for a while, a stalled table, a crash between
a deal's end and the next deal, a table that no longer replays, closed DMs mid-deal. Every table moves on by
itself once the fault clears, and what a change must announce arrives exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import sqlite3
from typing import Any

import pytest

from bot.client import SchnapsenBot
from bot.game.announcements import Notice, encode
from bot.game.table import TableSnapshot
from devtools.fakediscord import FakeDiscord, FakeInteraction, FakeUser, RecordedRequest
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Table,
    as_shown,
    current_button,
    ephemeral_reply,
    reply_to,
    with_button,
)
from tests.bot.schnapsen.test_play import DMS_CLOSED_NOTICE

FAST_RETRIES = {"retry_first": 0.02, "retry_max": 0.1}
RESULT_FILE = "result.png"


@pytest.fixture
def world(world: Table) -> Table:
    world.settings = dataclasses.replace(world.settings, **FAST_RETRIES)
    return world


async def alice_and_three_ai(world: Table, **table_options: Any) -> tuple[FakeUser, SchnapsenBot, CurrentTable]:
    """A bot without AI pauses and a table of alice (North) and three AI players."""
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    return alice, bot, await world.open_table(alice, [None, None, None], **table_options)


def only_the_test_watches(world: Table) -> None:
    """The bot's own watchdog first looks a whole interval (15 s) after the start, which a test on a loaded
    machine can reach: where the test's looks (``runtime.watch()``) are what it counts, the bot's never come."""
    world.settings = dataclasses.replace(world.settings, watchdog_interval=3600.0)


def runtime_of(bot: SchnapsenBot) -> Any:
    return bot.runtime


def table_errors(caplog: pytest.LogCaptureFixture, table_id: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and f"table {table_id}" in r.getMessage()]


def game_cog(bot: SchnapsenBot) -> Any:
    """The game's cog (its module is loaded afresh with each bot, so it is no instance of an imported class)."""
    cog = bot.get_cog("schnapsen")
    assert cog is not None
    return cog


def unsupervised_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """ERROR records that no supervisor of the bot wrote: exceptions that escaped."""
    return [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.ERROR and not r.name.startswith("bot.")
    ]


async def settled(bot: SchnapsenBot) -> None:
    """Every announcement, edit and hand send that was asked for has run, and nothing is owed."""
    runtime = runtime_of(bot)
    await runtime.messages.sends.drain(timeout=10)
    await runtime.messages.edits.drain(timeout=10)
    # A change the test saw published may not have asked for its delivery yet (the table's snapshot is out
    # before the runtime hears of the change): deliver what is owed once more, as the watchdog would.
    for table_id in {entry.table_id for entry in await bot.service.outbox.pending_announcements()}:
        runtime.deliver(table_id)
    await runtime.messages.sends.drain(timeout=10)
    await runtime.messages.edits.drain(timeout=10)
    assert await bot.service.outbox.pending_announcements() == []


async def a_table_closed_mid_deal(world: Table) -> tuple[SchnapsenBot, CurrentTable]:
    """alice and three AI players play a few actions, then alice closes the table."""
    alice, bot, table = await alice_and_three_ai(world, target=5)
    await world.play([alice], until=lambda t: len(t.log) >= 3)
    await stop_table(world, alice, table.id)
    return bot, table


async def stop_table(world: Table, host: FakeUser, table_id: int) -> None:
    """The host closes the table with /schnapsen stop and its confirmation."""
    assert world.bot is not None
    service = world.bot.service
    stop = await world.command(host, "stop")
    confirm = await world.fake.click(host, stop.original, label="Yes, close the table")
    await confirm.wait_response()
    await world.fake.wait_for(lambda: service.snapshot(table_id) is None, what="the table to close")


def results_of(world: Table, table_id: int, deal_no: int) -> int:
    return len(world.channel.messages_with_nonce(f"r{table_id}.{deal_no}"))


def result_messages(world: Table) -> int:
    return sum(RESULT_FILE in m.filenames for m in world.channel.messages)


@contextlib.contextmanager
def failing_action_writes(bot: SchnapsenBot, times: int) -> Any:
    """The next ``times`` writes of an action fail as on a full disk; then storage works again."""
    real = bot.db.records.append_move
    failed = []

    async def append_move(*args: Any, **kwargs: Any) -> tuple[int, int]:
        if len(failed) < times:
            failed.append(args)
            raise sqlite3.OperationalError("database or disk is full")
        return await real(*args, **kwargs)

    bot.db.records.append_move = append_move  # type: ignore[method-assign]
    try:
        yield failed
    finally:
        bot.db.records.append_move = real  # type: ignore[method-assign]


async def test_503s_on_posts_and_edits_are_retried_and_every_result_arrives_once(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bot, table = await alice_and_three_ai(world, target=3)
    world.forget_table_clicks()  # the table message is edited with the bot token, which meets the 503s
    # discord.py gives a 503 straight back to the caller; half of them arrive after the post took effect.
    posts = fake_discord.random_faults(
        "POST", "/channels/*/messages", probability=0.35, statuses=(503,), applied_fraction=0.5, seed=3
    )
    edits = fake_discord.random_faults("PATCH", "/channels/*/messages/*", probability=0.35, statuses=(503,), seed=4)
    await world.play([alice], timeout=30)
    assert table.status == "finished"
    await settled(bot)
    assert posts.fired and edits.fired, "the faults were injected"
    deals = table.deal_no + 1  # deals are numbered from 0
    assert [results_of(world, table.id, deal) for deal in range(deals)] == [1] * deals
    assert result_messages(world) == deals, "a result retried after it took effect is still shown once"
    dms = fake_discord.dm_channel(alice)
    assert dms is not None
    # Each deal's hand once: sent with the bot token (a repeat finds it by its nonce) or as a follow-up of her
    # latest click in the DM.
    assert all(len(dms.messages_with_nonce(f"h{table.id}.{deal}.0")) <= 1 for deal in range(deals))
    assert len(fake_discord.dm_messages(alice)) == deals
    assert table_errors(caplog, table.id), "every failure is logged at ERROR with the table id"
    assert unsupervised_errors(caplog) == []


async def test_a_tables_first_message_whose_post_took_effect_but_failed_is_shown_once(
    fake_discord: FakeDiscord, world: Table
) -> None:
    anna = world.add_player("anna")
    await world.start_bot()
    lobby_posts = f"/channels/{world.channel.id}/messages"
    # The lobby's post takes effect twice with its answer lost: a 500 discord.py repeats itself, then a 503 it
    # gives back, so the job posts it again. (Found by bench/chaos.py with a small budget of the token's calls.)
    lost = [fake_discord.fail_next("POST", lobby_posts, status=status, applied=True) for status in (500, 503)]
    table = await world.open_table(anna, [None, None, None])
    assert world.bot is not None
    await settled(world.bot)
    assert [rule.fired for rule in lost] == [1, 1], "both answers were lost"
    assert [m.id for m in world.table_messages()] == [table.table_message_id], "one table message, the one stored"


async def test_an_ai_move_whose_write_fails_is_retried_and_the_table_resumes(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bot, table = await alice_and_three_ai(world, start=False, target=3)
    gate, waiting = asyncio.Event(), asyncio.Event()
    decide = bot.ai.decide

    async def held_decide(*args: Any, **kwargs: Any) -> Any:
        waiting.set()
        await fake_discord.changed()  # wake the test's wait_for, which looks again on the fake's events
        await gate.wait()
        return await decide(*args, **kwargs)

    bot.ai.decide = held_decide  # type: ignore[method-assign]
    start = await fake_discord.click(alice, await world.table_message(), label="Start")
    await start.wait_response()
    await fake_discord.wait_for(lambda: table.status == "playing", what="the game to start")
    await world.play([alice], until=lambda t: waiting.is_set())
    version = table.version
    with failing_action_writes(bot, times=4) as failed:
        gate.set()
        await fake_discord.wait_for(lambda: table.version > version, timeout=10, what="the AI move")
    assert len(failed) == 4
    errors = table_errors(caplog, table.id)
    assert len([e for e in errors if "drive" in e]) >= 4, errors
    await world.play([alice], timeout=30)
    assert table.status == "finished"
    assert unsupervised_errors(caplog) == []


async def test_a_worker_that_raises_still_gives_the_table_a_move(fake_discord: FakeDiscord, world: Table) -> None:
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    worker = bot.ai._worker
    assert worker is not None

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the worker pool is gone")

    worker.decide = broken  # type: ignore[method-assign]
    table = await world.open_table(alice, [None, None, None], target=2)
    await world.play([alice], timeout=30)
    assert table.status == "finished"


async def test_a_stalled_table_is_noticed_by_the_watchdog_and_moves_on(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    only_the_test_watches(world)
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    runtime = runtime_of(bot)
    table = await world.open_table(alice, [None, None, None], start=False, target=2)
    lost, wakers = asyncio.Event(), []
    drive = runtime.drivers.drive

    def lose(table: Any) -> None:  # a scheduling bug: the table's driver is never started
        lost.set()
        wakers.append(asyncio.ensure_future(fake_discord.changed()))

    runtime.drivers.drive = lose
    start = await fake_discord.click(alice, await world.table_message(), label="Start")
    await start.wait_response()
    await fake_discord.wait_for(lambda: table.status == "playing", what="the game to start")
    await world.play([alice], until=lambda t: lost.is_set() and t.is_ai_turn())
    version = table.version
    runtime.drivers.drive = drive
    await runtime.watch()
    await fake_discord.wait_for(lambda: table.version > version, what="the AI seat to move")
    assert any("nothing was scheduled" in e for e in table_errors(caplog, table.id))
    await world.play([alice], timeout=30)
    assert table.status == "finished"


async def delete_next_deal(world: Table, table_id: int) -> int:
    """What an older version left after a crash: the last deal finished, the next one never stored."""
    assert world.bot is not None
    db = world.bot.db
    rows = await db.core.fetch_all("SELECT deal_no FROM deals WHERE table_id = ? ORDER BY deal_no DESC", (table_id,))
    newest = rows[0]["deal_no"]
    async with db.transaction():
        await db.core.execute("DELETE FROM actions WHERE table_id = ? AND deal_no = ?", (table_id, newest))
        await db.core.execute("DELETE FROM deals WHERE table_id = ? AND deal_no = ?", (table_id, newest))
        await db.core.execute("DELETE FROM outbox WHERE table_id = ?", (table_id,))
    return newest


async def test_a_table_stored_between_a_deals_end_and_the_next_deal_is_repaired_on_start(
    fake_discord: FakeDiscord, world: Table
) -> None:
    # A Bummerl to 24 may end with one deal (a Re'd Schnapser counts 24): to 1000 none can end it here.
    alice, bot, table = await alice_and_three_ai(world, target=1000)
    await world.play([alice], until=lambda t: t.deal_no >= 1)
    await world.stop_bot()
    await world.start_bot()
    assert (await world.stored(table.id)).row.status == "playing"
    missing = await delete_next_deal(world, table.id)
    await world.stop_bot()
    # The deleted deal's DMs were sent; in the crash they stand for they never were. Discord remembers a
    # nonce for minutes only: let the fake forget them, so the repaired deal's DMs are new messages.
    fake_discord.nonce_window = 0.0

    bot = await world.start_bot()
    repaired = bot.service.snapshot(table.id)
    assert repaired is not None
    assert repaired.deal_no == missing and repaired.deal is not None and not repaired.deal.finished
    await world.play([alice], until=lambda t: t.deal_no > missing, timeout=30)  # the repaired deal plays on
    assert world.live.status == "playing"


async def test_a_finished_bummerl_stored_as_playing_is_marked_finished_on_start(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bot, table = await alice_and_three_ai(world, target=2)
    await world.play([alice], timeout=30)
    assert world.bot is not None
    await settled(world.bot)
    async with world.bot.db.transaction():
        await world.bot.db.core.execute("UPDATE game_tables SET status = 'playing' WHERE id = ?", (table.id,))
    await world.stop_bot()
    bot = await world.start_bot()
    restored = bot.service.snapshot(table.id)
    assert restored is not None and restored.status == "finished"
    await world.rematch(alice)


async def test_a_table_that_no_longer_replays_is_set_aside_and_the_others_are_served(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    other_channel = world.guild.add_text_channel("second-table")
    await world.start_bot()
    await world.no_ai_delay()
    broken = await world.open_table(alice, [None, None, None], target=5)
    await world.play([alice], until=lambda t: len(t.log) >= 3)
    opened = await fake_discord.slash(bob, other_channel, "schnapsen", "new")
    await reply_to(opened)
    assert world.bot is not None
    healthy_id = next(t.id for t in world.bot.service.open_tables() if t.row.channel_id == other_channel.id)
    async with world.bot.db.transaction():  # a manual edit (or a rule tightened since): the record is illegal
        await world.bot.db.core.execute(
            "UPDATE actions SET action = 'N play XX' WHERE table_id = ? AND seq = 1", (broken.id,)
        )
    await world.stop_bot()

    bot = await world.start_bot()
    assert bot.service.snapshot(broken.id) is None and bot.service.snapshot(healthy_id) is not None
    notice = await fake_discord.wait_for(
        lambda: next((m for m in world.channel.messages if f"Table {broken.id} could not be restored" in m.content), None),
        what="the set-aside notice",
    )
    record = json.loads(notice.attachment(f"schnapsen-table-{broken.id}.json").data)
    assert record["deals"], "the record is attached as the export gives it"
    assert (await world.stored(broken.id)).row.status == "closed"
    assert any("does not replay" in e for e in table_errors(caplog, broken.id))
    # The other table is served, and the first channel can open a new table.
    sit = await fake_discord.click(alice, other_channel.last_message, label="Sit East")
    await sit.wait_response()
    healthy = CurrentTable(world, healthy_id)
    await fake_discord.wait_for(lambda: healthy.seats[1] is not None, what="alice's seat")
    carl = world.add_player("carl")
    await world.command(carl, "new")
    assert world.live.id not in (broken.id, healthy_id)


async def test_a_result_stored_but_not_posted_before_a_stop_is_posted_once_after_the_restart(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bot, table = await alice_and_three_ai(world, target=5)
    outage = fake_discord.fail_next("POST", f"/channels/{world.channel.id}/messages", status=503, times=10_000)
    await world.play([alice], until=lambda t: t.deal_no == 1)
    assert results_of(world, table.id, 0) == 0
    assert await bot.service.outbox.pending_announcements(table.id), "the result is owed"
    await world.stop_bot()
    fake_discord.faults.remove(outage)

    await world.start_bot()
    await fake_discord.wait_for(lambda: results_of(world, table.id, 0) == 1, what="the owed result")
    assert world.bot is not None
    await settled(world.bot)
    assert results_of(world, table.id, 0) == 1
    assert result_messages(world) == 1


async def test_a_hand_dm_sent_is_stored_even_when_its_send_is_cancelled_by_a_stop(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """The stop's drain cancels a hand's send between Discord's answer and the store of its message: the store
    goes on, or the next process would send the hand again beside it (a follow-up has no nonce)."""
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    entered, release, stored = asyncio.Event(), asyncio.Event(), asyncio.Event()
    set_dm = bot.service.seating.set_dm

    async def held_set_dm(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await release.wait()
        try:
            return await set_dm(*args, **kwargs)
        finally:
            stored.set()

    bot.service.seating.set_dm = held_set_dm  # type: ignore[method-assign]
    table = await world.open_table(alice, [None, None, None])
    await entered.wait()
    sent = world.hand_message(alice)
    assert sent is not None, "the hand reached Discord before its store began"

    await bot.runtime.messages.sends.drain(timeout=0)  # the stop's drain, out of time: the send is cancelled
    release.set()
    # Bounded only so that a store cancelled with its send fails here instead of hanging.
    await asyncio.wait_for(stored.wait(), 10)
    seats = await bot.db.seats.seats_of(table.id)
    assert [seat.dm_message_id for seat in seats if seat.user_id == alice.id] == [sent.id]


async def bob_forehand_after_his_first_dm_click(world: Table) -> tuple[FakeUser, FakeUser, CurrentTable, FakeInteraction]:
    """alice (North), bob (East) and two AI players; bob, forehand, makes the deal's first moves in his DM
    until the position waits for alice, with every edit they caused done."""
    alice, bob = world.add_player("alice"), world.add_player("bob")
    bot = await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [bob, None, None], target=3, first_dealer=0)
    dm = await world.latest_dm(bob)
    click = None
    while click is None or table.deal.to_act != 0:  # he names trump, and may bid next
        button = await world.fake.wait_for(lambda: current_button(dm, table.version), what="bob's move")
        click = await world.click_and_settle(bob, dm, button["custom_id"])
        await world.fake.wait_for(lambda: table.deal.to_act in (0, 1), what="a person's turn")
    await settled(bot)
    return alice, bob, table, click


def bot_token_calls_on(fake: FakeDiscord, channel_id: int, since: int) -> list[RecordedRequest]:
    return [r for r in fake.requests[since:] if r.path.startswith(f"/channels/{channel_id}/")]


async def bob_plays_on_in_the_channel_to_the_end(world: Table, alice: FakeUser, bob: FakeUser, table: CurrentTable) -> None:
    """The channel is told that bob's DMs are closed, and the Bummerl is played to its end, bob through his
    ephemeral hand."""
    await world.fake.wait_for(
        lambda: any(DMS_CLOSED_NOTICE in text for text in world.channel_texts()), what="the closed-DMs notice"
    )
    await world.play([alice, bob], timeout=30)
    assert table.status == "finished"
    assert any(i.user is bob and i.message is not None and i.message.ephemeral for i in world.fake.interactions)


async def test_dms_closed_mid_deal_keep_working_through_the_click_token_into_the_next_deal_then_move_the_hand(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob, table, _ = await bob_forehand_after_his_first_dm_click(world)
    first_deal, dm = table.deal_no, fake_discord.dm_messages(bob)[-1]
    dm_channel = fake_discord.dm_channel(bob)
    assert dm_channel is not None
    since, clicks_before = len(fake_discord.requests), len(fake_discord.interactions)
    fake_discord.close_dms(bob)

    # Discord takes edits through an interaction's token whatever the DM settings: bob plays on in his DM,
    # edited through his latest click's token, and the bot has nothing refused to notice until the deal ends.
    noticed_in_deal = []

    def deal_over(now: TableSnapshot) -> bool:
        if now.deal_no > first_deal:
            return True
        noticed_in_deal.append(now.seats[1] is None or now.seats[1].dms_closed)
        return False

    await world.play([alice, bob], until=deal_over, timeout=30)
    assert noticed_in_deal and not any(noticed_in_deal), "nothing refused bob's hand during the deal"
    dm_clicks = [i for i in fake_discord.interactions[clicks_before:] if i.user is bob and i.message is dm]
    assert dm_clicks, "bob played on in his DM"
    assert not [r for r in bot_token_calls_on(fake_discord, dm_channel.id, since) if r.method == "PATCH"], (
        "his DM was edited through his click's token only"
    )
    if table.status == "finished":  # the Bummerl ended with that deal: the rematch brings the next one
        await world.rematch(alice)

    # The next deal's DM goes as a follow-up of his latest click, which Discord takes too: nothing refused yet.
    next_dm = await fake_discord.wait_for(
        lambda: (latest := fake_discord.dm_messages(bob)[-1]) is not dm and latest, what="the next deal's DM"
    )
    assert next_dm.interaction is not None and next_dm.interaction.user is bob, "a follow-up of his click"
    assert not bot_token_calls_on(fake_discord, dm_channel.id, since), "no bot-token call on his DM"
    assert not table.seats[1].dms_closed

    # Once his clicks' tokens expire, the first edit of his DM falls back to the bot token, which is refused:
    # from then on his hand lives in the channel, and the game goes on.
    for interaction in fake_discord.interactions:
        if interaction.user is bob:
            interaction.age(16 * 60)
    await world.play([alice], until=lambda t: (seat := t.seats[1]) is not None and seat.dms_closed, timeout=30)
    refused = [r.status for r in bot_token_calls_on(fake_discord, dm_channel.id, since)]
    assert refused and set(refused) == {403}, "only edits after the tokens expired (this deal's, the last one's end)"
    await bob_plays_on_in_the_channel_to_the_end(world, alice, bob, table)


async def test_dms_closed_mid_deal_move_the_hand_to_the_channel_at_the_first_edit_after_the_click_token_expired(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob, table, bobs_click = await bob_forehand_after_his_first_dm_click(world)
    first_deal = table.deal_no
    dm_channel = fake_discord.dm_channel(bob)
    assert dm_channel is not None
    fake_discord.close_dms(bob)
    bobs_click.age(16 * 60)  # past its token's 15 minutes: Discord answers 401, and the bot token meets 50007
    since = len(fake_discord.requests)

    # alice's move changes what bob's hand shows: that edit finds the token expired and the DM closed.
    await world.play([alice], until=lambda t: (seat := t.seats[1]) is not None and seat.dms_closed, timeout=30)
    assert table.deal_no == first_deal, "the switch comes within the deal, with the first edit refused"
    assert [r.status for r in bot_token_calls_on(fake_discord, dm_channel.id, since)] == [403]
    await bob_plays_on_in_the_channel_to_the_end(world, alice, bob, table)


async def test_close_works_only_on_a_finished_table_and_only_from_its_newest_message(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [bob, None, None], target=2)
    close_now = f"bs:{table.id}:{table.version}:close:"
    forged = await fake_discord.click(bob, with_button(await world.table_message(), close_now), close_now)
    assert "only after its Bummerl" in await ephemeral_reply(forged)
    assert (await world.stored(table.id)).row.status == "playing"

    await world.play([alice, bob], timeout=30)
    finished = await world.table_message(lambda m: any(b.get("label") == "Rematch" for b in m.buttons))
    close = finished.button("Close table")
    as_alice_saw_it = as_shown(finished, finished.components)
    rematch = await fake_discord.click(bob, finished, label="Rematch")
    await rematch.wait_response()
    await fake_discord.wait_for(lambda: table.status == "playing", what="the rematch")
    late_close = await fake_discord.click(alice, as_alice_saw_it, close["custom_id"])  # pressed with the Rematch
    assert "only after its Bummerl" in await ephemeral_reply(late_close)
    assert (await world.stored(table.id)).row.status == "playing"


async def test_a_host_who_leaves_hands_the_table_to_the_next_person(fake_discord: FakeDiscord, world: Table) -> None:
    anna, bert = world.add_player("anna"), world.add_player("bert")
    await world.start_bot()
    table = await world.open_table(anna, [bert], start=False)
    leave = await world.command(anna, "leave")
    assert leave.response.type in (4, 5)
    await fake_discord.wait_for(lambda: "bert is the host now." in world.channel_texts(), what="the handover")
    assert table.row.host_id == bert.id
    start = await fake_discord.click(bert, await world.table_message(), label="Start")
    await start.wait_response()
    await fake_discord.wait_for(lambda: table.status == "playing", what="bert starting the game")


async def test_nobody_is_pinged_by_a_players_name(
    fake_discord: FakeDiscord, world: Table
) -> None:
    everyone = world.add_player("@everyone")
    await world.start_bot()
    await world.no_ai_delay()
    await world.open_table(everyone, [None, None, None], turn_seconds=1, target=2)
    await fake_discord.wait_for(
        lambda: world.live.seats[0] is not None and world.live.seats[0].ai_takeover, timeout=10, what="the take-over"
    )
    posts = fake_discord.requests_to("POST", f"/channels/{world.channel.id}/messages")
    assert posts
    for request in posts:
        allowed = request.payload.get("allowed_mentions")
        assert allowed is not None and allowed.get("parse") == [], request.payload
        assert set(allowed.get("users", [])) <= {str(everyone.id), everyone.id}


async def test_slash_commands_are_throttled_like_buttons(fake_discord: FakeDiscord, world: Table) -> None:
    world.settings = dataclasses.replace(world.settings, throttle_actions=3)
    flooder = world.add_player("flooder")
    await world.start_bot()
    answers = []
    for _ in range(6):
        interaction = await fake_discord.slash(flooder, world.channel, "schnapsen", "rules")
        answers.append(await ephemeral_reply(interaction))
    assert ["Slow down" in answer for answer in answers] == [False] * 3 + [True] * 3, answers


async def test_a_closed_table_leaves_nothing_behind_in_memory(fake_discord: FakeDiscord, world: Table) -> None:
    bot, table = await a_table_closed_mid_deal(world)
    await settled(bot)
    runtime = runtime_of(bot)
    assert table.id not in bot.service._locks
    messages, drivers = runtime.messages, runtime.drivers
    queues = (messages.sends, messages.edits, drivers.drives)
    assert not [key for queue in queues for key in queue.running() if key[1] == table.id]
    assert table.id not in drivers._wake and table.id not in drivers._turn_clock
    assert table.id not in messages._tables  # its hand messages, finished deals, sends tried, channel hands


async def test_a_finished_bummerl_leaves_no_turn_timer_waiting(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bot, table = await alice_and_three_ai(world, target=1)
    await world.play([alice], timeout=30)
    assert table.status == "finished"
    drives = runtime_of(bot).drivers.drives
    # The last click woke the turn timer it ended; a timer left waiting would hold the job for the turn's time.
    # The job's end is awaited itself: the fake's waits look again only when the fake changes, and nothing
    # need change there after the job ends.
    ended = asyncio.Event()
    job_settled = asyncio.ensure_future(drives.settled(("drive", table.id)))
    job_settled.add_done_callback(lambda _: ended.set())
    try:
        await fake_discord.wait_event(ended, what="the table's drive job to end")
    finally:
        job_settled.cancel()
    assert not [key for key in drives.running() if key[1] == table.id]


@contextlib.contextmanager
def stalled_reads(bot: SchnapsenBot, *names: str) -> Any:
    """Storage that answers only when the test lets it (a disk busy with a backup, a write lock held).
    `names` are a repository's methods: "stats.get_tally"."""
    release = asyncio.Event()
    methods = [(getattr(bot.db, repository), method) for repository, method in (n.split(".") for n in names)]
    originals = [(repository, method, getattr(repository, method)) for repository, method in methods]

    def held(read: Any) -> Any:
        async def call(*args: Any, **kwargs: Any) -> Any:
            await release.wait()
            return await read(*args, **kwargs)

        return call

    for repository, method, read in originals:
        setattr(repository, method, held(read))
    try:
        yield release
    finally:
        release.set()
        for repository, method, read in originals:
            setattr(repository, method, read)


@pytest.mark.parametrize(
    ("command", "reads"),
    [
        (("score",), ("stats.get_tally", "stats.tallies_of_pair")),
        (("leaderboard",), ("stats.leaderboard", "stats.rank_of")),
        (("export",), ("records.load_record",)),
        (("settings",), ("settings.get_guild_settings",)),
        (("join",), ("seats.take_seat",)),
    ],
)
async def test_commands_that_wait_on_storage_are_acknowledged_first(
    fake_discord: FakeDiscord, world: Table, command: tuple[str, ...], reads: tuple[str, ...]
) -> None:
    host, guest = world.add_player("host"), world.add_player("guest")
    bot = await world.start_bot()
    await world.open_table(host, [], start=False)
    with stalled_reads(bot, *reads) as release:
        user = world.admin if command == ("settings",) else guest
        interaction = await fake_discord.slash(user, world.channel, "schnapsen", *command)
        response = await interaction.wait_response()
        assert response.type == 5, "deferred while storage has not answered yet"
        release.set()
        assert (await reply_to(interaction)).ephemeral


async def test_a_tables_button_used_from_another_channel_changes_nothing(
    fake_discord: FakeDiscord, world: Table
) -> None:
    anna, bert = world.add_player("anna"), world.add_player("bert")
    elsewhere = world.guild.add_text_channel("elsewhere")
    await world.start_bot()
    table = await world.open_table(anna, [], start=False)
    lobby = await world.table_message()
    moved = as_shown(lobby, lobby.components)
    moved.channel = elsewhere  # a client that replays the lobby's Start in another channel
    click = await fake_discord.click(anna, moved, label="Start")
    assert "another channel" in await ephemeral_reply(click)
    sit = await fake_discord.click(bert, moved, label="Sit East")
    assert "another channel" in await ephemeral_reply(sit)
    stored = await world.stored(table.id)
    assert stored.row.status == "lobby" and [s.user_id for s in stored.seats] == [anna.id]


async def test_the_bot_prunes_old_closed_tables_action_logs(fake_discord: FakeDiscord, world: Table) -> None:
    bot, table = await a_table_closed_mid_deal(world)
    assert await world.action_count(table.id) > 0
    await game_cog(bot).prune_old_action_logs()
    assert await world.action_count(table.id) > 0, "closed just now: kept"
    async with bot.db.transaction():  # closed 91 days ago
        await bot.db.core.execute("UPDATE game_tables SET updated_at = updated_at - 91 * 86400 WHERE id = ?", (table.id,))
    await game_cog(bot).prune_old_action_logs()
    assert await world.action_count(table.id) == 0
    assert (await world.stored(table.id)).row.status == "closed"


async def test_a_click_whose_acknowledgement_was_lost_is_still_carried_out(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    alice, _, table = await alice_and_three_ai(world, target=3)
    await world.play([alice], until=lambda t: current_button(world.hand_message(alice), t.version) is not None)
    version, hand = table.version, world.hand_message(alice)
    button = current_button(hand, version)
    assert hand is not None and button is not None
    # The bot's acknowledgement takes effect but its answer is lost (502): discord.py sends it again, and
    # Discord says 40060, already acknowledged.
    lost = fake_discord.random_faults(
        "POST", "/interactions/*/callback", probability=1.0, statuses=(502,), applied_fraction=1.0
    )
    click = await fake_discord.click(alice, hand, button["custom_id"])
    await fake_discord.wait_for(lambda: lost.total > 0, what="the lost acknowledgement")
    lost.active = False
    await fake_discord.wait_for(lambda: table.version != version, timeout=10, what="the click to be carried out")
    assert not click.followups, [m.content for m in click.followups]
    assert unsupervised_errors(caplog) == []


async def test_the_watchdog_sends_a_missing_hand_when_two_looks_in_a_row_find_none_scheduled(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    only_the_test_watches(world)
    alice = world.add_player("alice")
    bot = await world.start_bot()
    table = await world.open_table(alice, [None, None, None])
    await world.play([alice], until=lambda t: t.deal is not None and t.deal.to_act == 0 and t.seats[0].dm_message_id)
    shown = table.seats[0].dm_message_id
    assert await bot.service.seating.forget_dm(table.id, 0, shown) is not None  # a bug: nobody asks for a new hand
    runtime = runtime_of(bot)
    sent_before = len(fake_discord.dm_messages(alice))

    await runtime.watch()  # a hand missing at one look may be a new deal's, its send asked for a moment later
    assert not any("hand message is missing" in e for e in table_errors(caplog, table.id))
    assert not runtime.messages.sending_hands(table.id)
    await runtime.watch()  # the same position at the next look: a stall
    assert any("hand message is missing" in e for e in table_errors(caplog, table.id))
    # Sent again with the deal's nonce, Discord gives back the same message, and it is remembered again.
    await fake_discord.wait_for(lambda: table.seats[0].dm_message_id == shown, what="the hand sent and stored")
    assert len(fake_discord.dm_messages(alice)) == sent_before


async def test_the_watchdog_delivers_announcements_owed_for_a_whole_interval_and_no_sooner(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    only_the_test_watches(world)
    alice = world.add_player("alice")
    bot = await world.start_bot()
    table = await world.open_table(alice, [], start=False)
    async with bot.db.transaction():  # owed, and (a bug) nobody asked for its delivery
        notice = Notice(table.row.channel_id, table.row.language, "notice.new_host", (("name", "nobody"),))
        await bot.db.outbox.add_announcements(table.id, [encode(notice)], bot.service.now())
    runtime = runtime_of(bot)
    await runtime.watch()
    assert await bot.service.outbox.pending_announcements(table.id), "just stored: its delivery may still be on the way"
    assert not any("announcements are owed" in e for e in table_errors(caplog, table.id))
    async with bot.db.transaction():
        await bot.db.core.execute("UPDATE outbox SET created_at = created_at - ? WHERE table_id = ?",
                              (int(world.settings.watchdog_interval) + 1, table.id))
    await runtime.watch()
    await fake_discord.wait_for(lambda: "nobody is the host now." in world.channel_texts(), what="the notice")
    assert any("announcements are owed" in e for e in table_errors(caplog, table.id))
