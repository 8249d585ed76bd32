"""Around the game: stopping a table, syncing commands, starting without a token, idle players and the
sweeper that closes tables nobody uses."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bot.client import SchnapsenBot
from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import BOT_START_SECONDS, Table, ephemeral_reply

REPO = Path(__file__).resolve().parents[3]  # tests/bot/schnapsen/ -> the repository
COMMAND_SYNC = "/applications/*/commands"


async def test_stop_needs_the_host_and_a_confirmation(fake_discord: FakeDiscord, world: Table) -> None:
    host, guest = world.add_player("anna"), world.add_player("bert")
    await world.start_bot()
    table = await world.open_table(host, [guest], start=False)

    refused = await world.command(guest, "stop")
    assert "Only the host or someone with Manage Server" in refused.original.content
    asked = await world.command(host, "stop")
    confirmation = asked.original
    assert confirmation.ephemeral and "Close the table" in confirmation.content
    assert (await world.stored(table.id)).row.status == "lobby", "asking closes nothing yet"

    confirm = await fake_discord.click(host, confirmation, label="Yes, close the table")
    await confirm.wait_response()
    await fake_discord.wait_for(lambda: "The table was closed." in world.channel_texts(), what="the notice")
    assert (await world.stored(table.id)).row.status == "closed"
    assert world.bot is not None and world.bot.service.table_in_channel(world.channel.id) is None


async def test_commands_are_synced_once_for_the_same_definitions(
    fake_discord: FakeDiscord, world: Table
) -> None:
    await world.start_bot()
    assert fake_discord.hit_count("PUT", COMMAND_SYNC) == 1
    assert [c["name"] for c in fake_discord.commands[None]] == ["schnapsen"]

    await world.stop_bot()
    await world.start_bot()
    assert fake_discord.hit_count("PUT", COMMAND_SYNC) == 1, "unchanged definitions are not synced again"

    await world.stop_bot()
    forced = SchnapsenBot(world.settings, force_sync=True)  # python -m bot --sync
    await fake_discord.start_client(forced, timeout=BOT_START_SECONDS)
    await fake_discord.stop_client(forced)
    assert fake_discord.hit_count("PUT", COMMAND_SYNC) == 2


def test_python_m_bot_without_a_token_says_so(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "DISCORD_TOKEN is not set" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


async def test_a_started_bot_takes_what_its_start_made_out_of_the_collectors_scans(world: Table) -> None:
    world.settings = dataclasses.replace(world.settings, freeze_start_heap=True)  # as in production
    try:
        bot = await world.start_bot()
        await bot._preload
        assert gc.get_freeze_count() > 0, "the start's objects are frozen once the card art is loaded"
    finally:
        gc.unfreeze()  # this test process starts many bots: it keeps nothing of this one


async def test_a_bot_in_the_tests_freezes_nothing(world: Table) -> None:
    bot = await world.start_bot()
    await bot._preload
    assert gc.get_freeze_count() == 0


async def test_a_bot_closed_twice_stops_once(world: Table, caplog: pytest.LogCaptureFixture) -> None:
    """discord.py's connect() closes the client itself when the gateway ends the session for good (a close
    code other than 1000), then raises; the ``async with`` of bot.client.run closes it once more on the way
    out. The second close must not fail: its error would hide the first."""
    bot = await world.start_bot()
    await world.stop_bot()
    await bot.close()
    assert bot.is_closed()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


async def test_a_stop_in_the_instant_a_table_is_driven_ends(world: Table) -> None:
    """A table driven in the very instant the bot stops (here: as the stop cancels the drives) has its drive
    cancelled before the drive's task ever ran. That left the drive's key taken for good and the stop waiting
    for it without end (a flakiness run: the eight-person Swiss tournament's bot did not close in 60 s)."""
    alice = world.add_player("alice")
    bot = await world.start_bot()
    table = await world.open_table(alice, [None, None, None])
    drivers = bot.runtime.drivers
    key = ("drive", table.id)
    drivers.drives.cancel(key)  # whatever moves the table now (the stop's drive below stands in for it) ...
    await drivers.drives.settled(key)  # ... has ended: the next drive starts a task of its own
    halt = drivers.halt

    def driven_as_the_stop_begins() -> None:
        drivers.drive(table.snapshot())
        halt()

    drivers.halt = driven_as_the_stop_begins  # type: ignore[method-assign]
    await world.stop_bot()  # the fake Discord's stop waits WAIT_SECONDS, then fails the test
    assert bot.is_closed()


async def test_an_idle_player_is_warned_then_replaced_and_comes_back(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    # Her turn lasts a second: the idle timer's steps wait for the test's looks, which a loaded machine can
    # delay past them. The take-over (a third of a turn after the warning) waits until the test has read the
    # table at alice's turn; a warning after she is back waits until the test has read her seat.
    looked, read_back = asyncio.Event(), asyncio.Event()
    take_over, mark_warned = bot.service.seating.take_over, bot.service.seating.mark_warned

    async def take_over_once_looked(*args: Any) -> Any:
        await looked.wait()
        return await take_over(*args)

    async def warn_unless_back(*args: Any) -> Any:
        if back_clicked:
            await read_back.wait()
        return await mark_warned(*args)

    back_clicked = False
    bot.service.seating.take_over = take_over_once_looked  # type: ignore[method-assign]
    bot.service.seating.mark_warned = warn_unless_back  # type: ignore[method-assign]
    table = await world.open_table(alice, [None, None, None], turn_seconds=1)
    warning = f"<@{alice.id}>, it is your turn"
    away = "alice seems to be away"

    async def north_actions() -> int:
        record = (await world.stored(table.id)).record
        return sum(action.startswith("N ") for deal in record.deals for action in deal.actions)

    await fake_discord.wait_for(
        lambda: any(warning in text for text in world.channel_texts()), timeout=10, what="the idle warning"
    )
    # Alice (North) is to act and never does; only the AI standing in for her can move the table on.
    version, acted = table.version, await north_actions()
    looked.set()
    await fake_discord.wait_for(
        lambda: any(away in text for text in world.channel_texts()), timeout=10, what="the AI to take over"
    )
    await fake_discord.wait_for(lambda: table.version != version, timeout=10, what="the AI to play for alice")
    assert await north_actions() > acted  # (it may have played for her again meanwhile)
    assert sum(warning in text for text in world.channel_texts()) == 1, "warned once"
    assert sum(away in text for text in world.channel_texts()) == 1

    dm = await world.latest_dm(
        alice, lambda m: any(b.get("label") == "I'm back: let me play" for b in m.buttons)
    )
    back_clicked = True
    back = await fake_discord.click(alice, dm, label="I'm back: let me play")
    assert "Welcome back" in await ephemeral_reply(back)
    seats = (await world.stored(table.id)).seats
    read_back.set()
    assert not seats[0].ai_takeover and not seats[0].warned


async def test_a_lobby_that_never_starts_is_closed_by_the_sweeper(
    fake_discord: FakeDiscord, world: Table
) -> None:
    host = world.add_player("anna")
    bot = await world.start_bot()
    table = await world.open_table(host, start=False)
    runtime = bot.runtime

    await runtime.sweep()
    open_now = bot.service.table_in_channel(world.channel.id)
    assert open_now is not None and open_now.id == table.id, "a fresh lobby stays open"

    bot.service.clock = lambda: time.time() + world.settings.lobby_timeout + 1
    await runtime.sweep()

    await fake_discord.wait_for(
        lambda: "The table was closed because the game never started." in world.channel_texts(),
        what="the closing notice",
    )
    stored = await world.stored(table.id)
    assert stored.row.status == "closed"
    table_message = fake_discord.messages[stored.row.table_message_id]
    await fake_discord.wait_for(
        lambda: "This table is closed." in table_message.visible_text, what="the table message to say so"
    )
    assert table_message.buttons == [], "a closed table offers no buttons"


async def test_a_game_everybody_left_closes_at_once(fake_discord: FakeDiscord, world: Table) -> None:
    alice = world.add_player("alice")
    await world.start_bot()
    await world.command(world.admin, "settings", ai_delay_ms=0, turn_time=3600)
    table = await world.open_table(alice, [None, None, None])
    left = await world.command(alice, "leave")
    assert left.response_type == 5, "leave acknowledges before it does any work"
    assert "You left the table." in await ephemeral_reply(left)

    await fake_discord.wait_for(
        lambda: "The table was closed because every player left." in world.channel_texts(), what="the notice"
    )
    assert (await world.stored(table.id)).row.status == "closed"
    # Her hand message (if it reached her before she left) says so and has no buttons left.
    await fake_discord.wait_for(
        lambda: all(
            "You left this table" in dm.visible_text and not dm.buttons
            for dm in fake_discord.dm_messages(alice)
        ),
        what="alice's hand message to say she left",
    )


async def test_a_table_closed_while_its_message_is_posted_shows_one_message_saying_so(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """The host opens a table and leaves at once: the table closes while its first message is on its way.
    The channel then shows that one message, edited to say the table is closed, not a second one."""
    alice = world.add_player("alice")
    bot = await world.start_bot()
    store_message = bot.service.seating.set_table_message
    posted, stored = asyncio.Event(), asyncio.Event()

    async def set_table_message(*args: Any) -> Any:  # the message is posted; storing its id waits
        posted.set()
        await stored.wait()
        return await store_message(*args)

    bot.service.seating.set_table_message = set_table_message  # type: ignore[method-assign]
    await world.command(alice, "new")
    await asyncio.wait_for(posted.wait(), 10)
    await world.command(alice, "leave")
    assert bot.service.table_in_channel(world.channel.id) is None, "the last person left: closed"
    stored.set()

    def closed_message() -> Any:
        shown = [m for m in world.channel.messages if m.embeds]
        return shown[0] if shown and "This table is closed." in shown[0].visible_text else None

    await fake_discord.wait_for(closed_message, what="the table message to say the table is closed")
    await world.bot.get_cog("schnapsen").runtime.messages.edits.drain(timeout=10)  # type: ignore[union-attr]
    assert len([m for m in world.channel.messages if m.embeds]) == 1, "one table message, not two"
