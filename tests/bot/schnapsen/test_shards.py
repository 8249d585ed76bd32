"""Shards per process, end to end against the fake Discord: a process serves (restores, drives, sweeps and
announces) only the tables of guilds on its shards, and a DM click for a table another process serves is stored
in the click inbox, acknowledged only after that commit, and waits there until that process runs it. (Two real
processes on PostgreSQL: test_two_processes.py.)"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.client import SchnapsenBot
from bot.db import Database
from bot.game.inbox import HandedClicks
from bot.schnapsen import routing
from bot.shards import ShardRange
from devtools.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Stored,
    Table,
    another_card,
    as_shown,
    game_buttons,
    refusals,
    with_button,
)

TURN_SECONDS = 1  # after the restart: an idle person's turn is taken over by the AI after a second


@dataclasses.dataclass
class Guild:
    """A guild on one shard of two, with a table of four people under way and a lobby in a second channel."""

    world: Table
    players: list[FakeUser]
    table_id: int = 0
    lobby_channel: FakeChannel | None = None
    lobby_id: int = 0


@dataclasses.dataclass
class Split:
    fake: FakeDiscord
    db_path: Path
    guilds: tuple[Guild, Guild]  # on shard 0 and on shard 1 of 2

    async def restart(self, shards: ShardRange, **settings: object) -> SchnapsenBot:
        """The bot starts again, holding ``shards`` of two, on the database the unsharded bot left."""
        first, second = self.guilds
        first.world.settings = dataclasses.replace(first.world.settings, shards=shards, **settings)  # type: ignore[arg-type]
        bot = await first.world.start_bot()
        second.world.bot = bot
        return bot


@pytest.fixture
async def split(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[Split]:
    """One unsharded bot opens a table of four people in a guild on each shard of two, and a lobby beside each;
    then it stops. Before the next start each table's turn time drops to a second and each owes a notice."""
    db_path = tmp_path / "bot.sqlite3"
    guilds = tuple(
        Guild(world, [world.add_player(f"s{shard}p{seat}") for seat in range(4)])
        for shard, world in ((shard, Table(fake_discord, db_path, guild_shard=(shard, 2))) for shard in (0, 1))
    )
    bot = await guilds[0].world.start_bot()
    for guild in guilds:
        guild.world.bot = bot
        await guild.world.no_ai_delay()
        table = await guild.world.open_table(guild.players[0], guild.players[1:])
        guild.table_id = table.id
        # The tests click the hands this bot sent: they must be sent and stored before it stops (its stop
        # waits for unsent ones only a moment).
        await fake_discord.wait_for(
            lambda table=table: all(seat is not None and seat.dm_message_id for seat in table.seats),
            what="every hand sent and stored",
        )
        guild.lobby_channel = guild.world.guild.add_text_channel("lobby")
        command = await fake_discord.slash(guild.world.admin, guild.lobby_channel, "schnapsen", "new")
        await command.wait_response()
        channel_id = guild.lobby_channel.id
        lobby = await fake_discord.wait_for(
            lambda channel_id=channel_id: bot.service.table_in_channel(channel_id), what="the lobby"
        )
        assert lobby is not None
        guild.lobby_id = lobby.id
    await guilds[0].world.stop_bot()
    guilds[1].world.bot = None
    db = await Database.open(str(db_path))
    try:
        async with db.transaction():
            for guild in guilds:
                await db.core.execute("UPDATE game_tables SET turn_seconds = ? WHERE id = ?", (TURN_SECONDS, guild.table_id))
                payload = {"channel_id": guild.world.channel.id, "lang": "en", "key": "notice.new_host",
                           "values": {"name": f"Owed{guild.table_id}"}}
                await db.outbox.add_announcements(guild.table_id, [("notice", payload)], 0)
    finally:
        await db.close()
    yield Split(fake_discord, db_path, (guilds[0], guilds[1]))
    for guild in guilds:
        if guild.world.bot is not None:
            await guild.world.stop_bot()
            for other in guilds:
                other.world.bot = None


async def stored(bot: SchnapsenBot, table_id: int) -> Stored:
    row = await bot.db.tables.get_table(table_id)
    assert row is not None
    return Stored(row, await bot.db.seats.seats_of(table_id), await bot.db.records.load_record(table_id))


async def patient(split: Split, table_id: int) -> None:
    """The table's people are never taken over by the AI (the fixture gave them a second): a test that counts
    moves sees only the clicks'."""
    db = await Database.open(str(split.db_path))
    try:
        async with db.transaction():
            await db.core.execute("UPDATE game_tables SET turn_seconds = 3600 WHERE id = ?", (table_id,))
    finally:
        await db.close()


async def receiver_and_owner(split: Split) -> tuple[SchnapsenBot, SchnapsenBot, Guild]:
    """Two processes: one on shard 0, which receives every DM click, and the owner of the second guild's table
    on shard 1, whose people are never taken over by the AI; and that guild."""
    _, away = split.guilds
    await patient(split, away.table_id)
    owner_settings = dataclasses.replace(away.world.settings, shards=ShardRange(2, (1,)))
    receiver = await split.restart(ShardRange(2, (0,)))
    away.world.settings = owner_settings
    return receiver, await away.world.start_bot(), away


async def a_dm_click_for(
    split: Split, owner: SchnapsenBot, away: Guild
) -> tuple[Stored, CurrentTable, FakeUser, FakeMessage, dict[str, Any]]:
    """The away table as stored now, its current view, the person to act, their hand DM and its first game button."""
    before = await stored(owner, away.table_id)
    table = CurrentTable(away.world, away.table_id)
    player = away.players[table.deal.to_act]
    message = split.fake.dm_messages(player)[-1]
    [button, *_] = game_buttons(message)
    return before, table, player, message, button


def texts(channel: FakeChannel) -> list[str]:
    return [message.visible_text for message in channel.messages]


async def test_a_process_on_shard_1_serves_only_the_tables_of_its_guilds(split: Split) -> None:
    away, ours = split.guilds
    assert away.lobby_channel is not None and ours.lobby_channel is not None
    away_messages = len(away.world.channel.messages) + len(away.lobby_channel.messages)

    bot = await split.restart(ShardRange(2, (1,)), lobby_timeout=0.0, sweep_interval=0.1)
    away_before = await stored(bot, away.table_id)

    assert [tuple(identify["shard"]) for identify in split.fake.identifies[-1:]] == [(1, 2)]
    assert bot.service.snapshot(away.table_id) is None and bot.service.snapshot(away.lobby_id) is None
    prunes = 0
    prune = bot.service.housekeeping.prune_old_action_logs

    async def counted_prune(retention_days: int) -> int:
        nonlocal prunes
        prunes += 1
        return await prune(retention_days)

    bot.service.housekeeping.prune_old_action_logs = counted_prune  # type: ignore[method-assign]
    ours_now = CurrentTable(ours.world, ours.table_id)
    version = ours_now.version
    # Our table is driven: its idle people are taken over by the AI (a second each, twice in a row: by then
    # the other table's first second has long run out), our lobby is swept and our owed notice delivered.
    await split.fake.wait_for(lambda: ours_now.version >= version + 2, timeout=10, what="two moves at our table")
    await split.fake.wait_for(lambda: bot.service.snapshot(ours.lobby_id) is None, what="our lobby swept")
    await split.fake.wait_for(
        lambda: any(f"Owed{ours.table_id}" in text for text in texts(ours.world.channel)), what="our notice"
    )
    # The other shard's table is left alone: no AI move, no warning, no sweeping, nothing announced.
    assert await stored(bot, away.table_id) == away_before
    assert not any(seat.ai_takeover or seat.warned for seat in away_before.seats)
    lobby = await bot.db.tables.get_table(away.lobby_id)
    assert lobby is not None and lobby.status == "lobby"
    assert [entry.table_id for entry in await bot.db.outbox.pending_announcements(away.table_id)] == [away.table_id]
    assert len(away.world.channel.messages) + len(away.lobby_channel.messages) == away_messages
    # Pruning old action logs covers every guild's closed tables: the process holding shard 0 does it.
    assert prunes == 0


@pytest.mark.usefixtures("patient_repeats")
async def test_a_dm_click_for_a_table_another_process_serves_waits_in_the_inbox_until_its_owner_runs_it(
    split: Split, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours, away = split.guilds  # this process holds shard 0, which Discord sends every DM click to
    await patient(split, away.table_id)
    bot = await split.restart(ShardRange(2, (0,)))
    assert bot.service.snapshot(ours.table_id) is not None and bot.service.snapshot(away.table_id) is None
    before = await stored(bot, away.table_id)
    hand: tuple[FakeUser, FakeMessage, str] | None = None
    for player in away.players:
        dms = split.fake.dm_messages(player)
        if dms and (buttons := game_buttons(dms[-1])):
            hand = (player, dms[-1], buttons[0]["custom_id"])
    assert hand is not None, "nobody at the other table has a move to make"
    player, message, custom_id = hand

    handed = asyncio.Event()
    hand_to_owner = bot.service.clicks.hand_click_to_owner

    async def spied_hand_to_owner(table_id: int, interaction: dict[str, object]) -> bool:
        result = await hand_to_owner(table_id, interaction)
        handed.set()
        return result

    bot.service.clicks.hand_click_to_owner = spied_hand_to_owner  # type: ignore[method-assign]
    looked_up: list[int] = []
    get_table = bot.db.tables.get_table

    async def counted_get_table(table_id: int) -> object:
        looked_up.append(table_id)
        return await get_table(table_id)

    bot.db.tables.get_table = counted_get_table  # type: ignore[method-assign, assignment]

    # Shard 0's process stores the click for its owner, then acknowledges it; the owner is down: nothing moves.
    click = await split.fake.click(player, message, custom_id)
    response = await click.wait_response()
    assert response.type == 6  # deferred: the answer comes from the owner, through the token
    await split.fake.wait_event(handed, 10, what="the click to be handed on to its owner")
    [waiting] = await bot.db.inbox.clicks_for((1,))
    assert waiting.table_id == away.table_id and waiting.interaction["data"]["custom_id"] == custom_id
    assert await stored(bot, away.table_id) == before and not click.followups

    # A double click is handed on too, without asking storage again whose table it is.
    handed.clear()
    again = await split.fake.click(player, message, custom_id)
    assert (await again.wait_response()).type == 6
    await split.fake.wait_event(handed, 10, what="the click to be handed on to its owner")
    assert looked_up.count(away.table_id) == 1
    waiting_clicks = await bot.db.inbox.clicks_for((1,))
    assert [c.interaction["id"] for c in waiting_clicks] == [str(click.id), str(again.id)]

    # The process holding shard 1 starts on the same database: it takes its inbox and applies the click as if
    # Discord had sent it there, under its checks, in one transaction; the player's DM shows the move.
    done: set[int] = set()
    click_handled = HandedClicks.click_handled

    async def spied_click_handled(self: HandedClicks, click_id: int) -> None:
        await click_handled(self, click_id)
        done.add(click_id)
        await split.fake.changed()  # the test waits for this

    monkeypatch.setattr(HandedClicks, "click_handled", spied_click_handled)
    away.world.settings = dataclasses.replace(away.world.settings, shards=ShardRange(2, (1,)))
    owner = await away.world.start_bot()
    await split.fake.wait_for(
        lambda: (table := owner.service.snapshot(away.table_id)) is not None
        and table.version > before.row.version,
        what="the handed click applied",
    )
    after = await stored(owner, away.table_id)
    moves = [action for deal in after.record.deals for action in deal.actions]
    assert len(moves) == sum(len(deal.actions) for deal in before.record.deals) + 1
    await split.fake.wait_for(
        lambda: custom_id not in {b["custom_id"] for b in game_buttons(split.fake.dm_messages(player)[-1])},
        what="the player's DM moved on",
    )
    # The owner edited the DM through a handed click's token (PATCH /webhooks/{app}/{token}/messages/@original),
    # outside the bot token's global limit.
    tokens = {click.token, again.token}
    assert any(r.method == "PATCH" and r.path.split("/")[-3] in tokens for r in split.fake.requests)
    # The double click repeats the move made: acknowledged by the receiver already, it gets nothing more (no
    # "out of date") and leaves the inbox.
    [repeat] = [c.id for c in waiting_clicks if c.interaction["id"] == str(again.id)]
    await split.fake.wait_for(lambda: repeat in done, what="the double click run and deleted")
    assert await owner.runtime.inbox.take_waiting() == 0  # run once: taken, or running, or done
    assert not click.followups and not again.followups  # applied, and repeated: no refusal was sent
    assert len([action for deal in (await stored(owner, away.table_id)).record.deals for action in deal.actions]) == len(moves)


async def test_a_process_on_both_shards_serves_the_guilds_of_both(split: Split) -> None:
    bot = await split.restart(ShardRange(2, (0, 1)))

    assert sorted(tuple(identify["shard"]) for identify in split.fake.identifies[-2:]) == [(0, 2), (1, 2)]
    for guild in split.guilds:
        assert bot.service.snapshot(guild.table_id) is not None
        table = CurrentTable(guild.world, guild.table_id)
        version = table.version
        # A click on a hand DM (Discord sends it on shard 0) is applied for either guild's table, and a
        # command typed in either guild (sent on that guild's shard) is answered.
        await guild.world.play(guild.players, until=lambda now, version=version: now.version > version)
        score = await split.fake.slash(guild.players[0], guild.world.channel, "schnapsen", "score")
        await score.wait_response()
        assert guild.world.fake.session_for(guild.world.guild.id) is not None
    assert {guild.world.guild.id for guild in split.guilds} <= {guild.id for guild in bot.guilds}


@pytest.mark.usefixtures("patient_repeats")
async def test_a_handed_click_runs_once_when_deleting_it_from_the_inbox_fails(
    split: Split, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    bot, owner, away = await receiver_and_owner(split)
    before, table, player, message, button = await a_dm_click_for(split, owner, away)
    # The owner's deletion of a click that made no move fails from now on (the disk is full, say).
    tried: list[int] = []

    async def failing_click_handled(click_id: int) -> None:
        tried.append(click_id)
        await split.fake.changed()  # the test waits for this
        raise OSError("database or disk is full")

    monkeypatch.setattr(owner.service.clicks, "click_handled", failing_click_handled)

    with caplog.at_level(logging.ERROR):
        click = await split.fake.click(player, message, button["custom_id"])
        await split.fake.wait_for(lambda: table.version > before.row.version, what="the handed click applied")
        # The same button again, as an outdated client shows it, also through the inbox: a repeat of the move
        # made, acknowledged by the receiver once stored, and nothing more (no "out of date" follows).
        again = await split.fake.click(player, as_shown(message, message.components), button["custom_id"])
        await split.fake.wait_for(lambda: tried, what="the repeated click's deletion tried")
        assert again.response_type == 6 and not refusals(again)
        # Looking again runs neither click a second time: the move deleted its click in its own transaction
        # (nothing else tried to), the repeated one is remembered until its deletion succeeds.
        assert await owner.runtime.inbox.take_waiting() == 0
        assert await owner.runtime.inbox.take_waiting() == 0

    after = await stored(owner, away.table_id)
    moves = sum(len(deal.actions) for deal in after.record.deals)
    assert moves == sum(len(deal.actions) for deal in before.record.deals) + 1
    assert not click.followups and not again.followups
    [repeated] = await owner.db.inbox.clicks_for((1,))  # kept while its deletion fails
    assert set(tried) == {repeated.id}  # the moved click's deletion was its move's, never tried again
    assert any("deleting handed click" in record.getMessage() for record in caplog.records)
    monkeypatch.undo()
    assert await owner.runtime.inbox.take_waiting() == 0  # its deletion retried, not the click
    assert await owner.db.inbox.clicks_for((1,)) == []
    assert bot.service.snapshot(away.table_id) is None


async def test_a_dm_click_that_cannot_be_handed_on_is_refused_by_the_process_it_reached(
    split: Split, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _, away = split.guilds
    await patient(split, away.table_id)
    bot = await split.restart(ShardRange(2, (0,)))  # the table's owner, on shard 1, is down
    player, hand = next(
        (player, dms[-1]) for player in away.players if (dms := split.fake.dm_messages(player)) and game_buttons(dms[-1])
    )
    [button, *_] = game_buttons(hand)

    # A forged button of a table nobody has: nothing to hand on, refused here as the click's own answer.
    forged = await split.fake.click(player, with_button(hand, "bs:999999:1:play:HA"), "bs:999999:1:play:HA")
    refusal = await forged.wait_response()
    assert refusal.type == 4 and "no longer exists" in refusal.data["content"] and forged.ephemeral

    # Storage fails as a real click is handed on (an injected fault): nothing was acknowledged before, so the
    # click's only answer is the refusal (a second callback would be refused), and nothing waits for the owner.
    async def failing_post_click(*_: object) -> int:
        raise OSError("database or disk is full")

    monkeypatch.setattr(bot.db.inbox, "post_click", failing_post_click)
    with caplog.at_level(logging.ERROR):
        failed = await split.fake.click(player, hand, button["custom_id"])
        error = await failed.wait_response()
    assert error.type == 4 and failed.ephemeral and "Something went wrong" in error.data["content"]
    assert not failed.rejected_callbacks and not failed.followups
    assert any(record.levelno == logging.ERROR and "disk is full" in (record.exc_text or "") for record in caplog.records)
    monkeypatch.undo()
    assert await bot.db.inbox.clicks_for((1,)) == []
    assert split.fake.dm_messages(player)[-1].components == hand.components  # the hand is as it was


async def test_a_handed_click_is_acknowledged_only_after_its_inbox_row_is_committed(
    split: Split, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, away = split.guilds
    await patient(split, away.table_id)
    bot = await split.restart(ShardRange(2, (0,)))  # the owner, on shard 1, is down: the click waits for it
    player, hand = next(
        (player, dms[-1]) for player in away.players if (dms := split.fake.dm_messages(player)) and game_buttons(dms[-1])
    )
    [button, *_] = game_buttons(hand)
    insert_held, insert_reached = asyncio.Event(), asyncio.Event()
    committed_at: list[float] = []
    post_click = bot.db.inbox.post_click

    async def held_post_click(*args: object) -> int:
        insert_reached.set()
        await insert_held.wait()
        click_id = await post_click(*args)  # type: ignore[arg-type]
        committed_at.append(time.monotonic())
        return click_id

    monkeypatch.setattr(bot.db.inbox, "post_click", held_post_click)
    click = await split.fake.click(player, hand, button["custom_id"])
    await split.fake.wait_event(insert_reached, what="the click's insert into the inbox")
    # While its row is not stored, the click is not acknowledged (a kill -9 now leaves "interaction failed").
    assert not click.responded and await bot.db.inbox.clicks_for((1,)) == []
    insert_held.set()
    response = await click.wait_response()
    [waiting] = await bot.db.inbox.clicks_for((1,))
    assert response.type == 6 and waiting.interaction["id"] == str(click.id)
    assert committed_at and committed_at[0] <= response.at  # acknowledged after the commit
    latency = click.response_latency
    assert latency is not None and latency < split.fake.interaction_deadline


async def test_a_handed_click_whose_acknowledgement_fails_is_applied_by_its_owner(
    split: Split, caplog: pytest.LogCaptureFixture
) -> None:
    _, away = split.guilds
    await patient(split, away.table_id)
    bot = await split.restart(ShardRange(2, (0,)))  # the owner, on shard 1, is down
    before = await stored(bot, away.table_id)
    player, hand = next(
        (player, dms[-1]) for player in away.players if (dms := split.fake.dm_messages(player)) and game_buttons(dms[-1])
    )
    [button, *_] = game_buttons(hand)

    # Discord refuses the acknowledgement (it came too late for it), as after a kill -9 between the commit and
    # the acknowledgement: the person saw "interaction failed", and the stored click is applied all the same.
    split.fake.fail_next("POST", "/interactions/*/*/callback", status=404, code=10062, message="Unknown interaction")
    with caplog.at_level(logging.WARNING):
        late = await split.fake.click(player, hand, button["custom_id"])
        await split.fake.wait_for(
            lambda: any("acknowledging a click handed on" in record.getMessage() for record in caplog.records),
            what="the failed acknowledgement logged",
        )
    assert not late.responded and not late.followups
    [waiting] = await bot.db.inbox.clicks_for((1,))
    assert waiting.interaction["id"] == str(late.id)

    away.world.settings = dataclasses.replace(away.world.settings, shards=ShardRange(2, (1,)))
    owner = await away.world.start_bot()
    await split.fake.wait_for(
        lambda: (table := owner.service.snapshot(away.table_id)) is not None and table.version > before.row.version,
        what="the stored click applied by its owner",
    )
    moves = sum(len(deal.actions) for deal in (await stored(owner, away.table_id)).record.deals)
    assert moves == sum(len(deal.actions) for deal in before.record.deals) + 1
    await split.fake.wait_for(
        lambda: button["custom_id"] not in {b["custom_id"] for b in game_buttons(split.fake.dm_messages(player)[-1])},
        what="the player's DM moved on",
    )
    assert await owner.db.inbox.clicks_for((1,)) == []


async def test_an_owner_quicker_than_the_receivers_acknowledgement_answers_in_the_callback(
    split: Split, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, owner, away = await receiver_and_owner(split)
    before, table, player, message, button = await a_dm_click_for(split, owner, away)
    # The receiver's acknowledgement is held (its process is slow, its request delayed) after the row is
    # stored; the owner, woken at once, has applied the click before Discord hears of that acknowledgement.
    held = asyncio.Event()
    acknowledge = routing.acknowledge_raw

    async def late_acknowledgement(*args: Any) -> None:
        owner.runtime.inbox.wake()  # NOTIFY's wake-up (on SQLite the owner would look at its next poll)
        await held.wait()
        await acknowledge(*args)

    monkeypatch.setattr(routing, "acknowledge_raw", late_acknowledgement)
    shown = copy.deepcopy(message.components)
    click = await split.fake.click(player, message, button["custom_id"])
    response = await click.wait_response()
    # The owner's edit through the token found no answer yet: it answered in the callback with the hand.
    assert response.type == 7 and table.version == before.row.version + 1
    assert button["custom_id"] not in {b["custom_id"] for b in game_buttons(split.fake.dm_messages(player)[-1])}
    assert click.response_latency is not None and click.response_latency < split.fake.interaction_deadline
    held.set()
    await split.fake.wait_for(lambda: click.rejected_callbacks, what="the late acknowledgement refused as a repeat")
    assert [callback["type"] for callback in click.rejected_callbacks] == [6] and not refusals(click)

    # Another card of the position left, as an outdated client shows it, its acknowledgement held too: the
    # owner's refusal finds no answer to follow up, so it is the click's own answer.
    held.clear()
    stale = another_card(button["custom_id"])
    again = await split.fake.click(player, with_button(as_shown(message, shown), stale), stale)
    refusal = await again.wait_response()
    assert refusal.type == 4 and again.ephemeral and "out of date" in refusal.data["content"]
    held.set()
    await split.fake.wait_for(lambda: again.rejected_callbacks, what="the late acknowledgement refused as a repeat")
    assert table.version == before.row.version + 1 and not again.followups
    assert await owner.runtime.inbox.take_waiting() == 0  # each ran once
