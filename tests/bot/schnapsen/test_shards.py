"""Shards per process, end to end against the fake Discord: a process serves (restores, drives, sweeps and
announces) only the tables of guilds on its shards, and a DM click for a table another process serves is
answered clearly and changes nothing."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.client import SchnapsenBot
from bot.db import Database
from bot.shards import ShardRange
from tests.bot.schnapsen.harness import CurrentTable, Stored, Table, ephemeral_reply, game_buttons
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

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
        guild.table_id = (await guild.world.open_table(guild.players[0], guild.players[1:])).id
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
                await db._execute("UPDATE game_tables SET turn_seconds = ? WHERE id = ?", (TURN_SECONDS, guild.table_id))
                payload = {"channel_id": guild.world.channel.id, "lang": "en", "key": "notice.new_host",
                           "values": {"name": f"Owed{guild.table_id}"}}
                await db.add_announcement(guild.table_id, "notice", payload, 0)
    finally:
        await db.close()
    yield Split(fake_discord, db_path, (guilds[0], guilds[1]))
    for guild in guilds:
        if guild.world.bot is not None:
            await guild.world.stop_bot()
            for other in guilds:
                other.world.bot = None


async def stored(bot: SchnapsenBot, table_id: int) -> Stored:
    row = await bot.db.get_table(table_id)
    assert row is not None
    return Stored(row, await bot.db.seats_of(table_id), await bot.db.load_record(table_id))


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
    prune = bot.service.prune_old_action_logs

    async def counted_prune(retention_days: int) -> int:
        nonlocal prunes
        prunes += 1
        return await prune(retention_days)

    bot.service.prune_old_action_logs = counted_prune  # type: ignore[method-assign]
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
    lobby = await bot.db.get_table(away.lobby_id)
    assert lobby is not None and lobby.status == "lobby"
    assert [entry.table_id for entry in await bot.db.pending_announcements(away.table_id)] == [away.table_id]
    assert len(away.world.channel.messages) + len(away.lobby_channel.messages) == away_messages
    # Pruning old action logs covers every guild's closed tables: the process holding shard 0 does it.
    assert prunes == 0


async def test_a_dm_click_for_a_table_another_process_serves_is_refused_and_changes_nothing(
    split: Split, caplog: pytest.LogCaptureFixture
) -> None:
    ours, away = split.guilds  # this process holds shard 0, which Discord sends every DM click to
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

    with caplog.at_level(logging.ERROR):
        click = await split.fake.click(player, message, custom_id)
        answer = await ephemeral_reply(click)

    assert "served by another process" in answer and "Nothing was changed" in answer
    assert await stored(bot, away.table_id) == before
    assert any(
        record.levelno == logging.ERROR and f"table {away.table_id}:" in record.getMessage()
        and "another process serves the table" in record.getMessage()
        for record in caplog.records
    )


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
