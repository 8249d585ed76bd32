"""Tables in threads, end to end against the fake Discord: with the server setting on, /schnapsen new opens a
public thread for the table, the game is played there, and the thread is archived when the table closes; a
missing permission is refused naming it, and leaves no table and no thread behind."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from typing import Any

import discord
import pytest

from devtools.fakediscord import FakeChannel, FakeDiscord, FakeInteraction, FakeUser
from tests.bot.schnapsen.harness import Table, ephemeral_reply, is_result_message

CREATE = discord.Permissions(create_public_threads=True).value
SEND_IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
MANAGE_THREADS = discord.Permissions(manage_threads=True).value
THREAD_CREATES = "/channels/*/threads"
CLOSED_NOTICE = "The table was closed."


async def in_channel(
    world: Table, user: FakeUser, channel: FakeChannel, *path: str, **options: Any
) -> FakeInteraction:
    """``/schnapsen ...`` typed by ``user`` in ``channel`` (a thread, say), once it has been answered."""
    interaction = await world.fake.slash(user, channel, "schnapsen", *path, **options)
    response = await interaction.wait_response()
    if response.type == 5:
        await interaction.wait_followups(1)
    return interaction


def grant_bot(world: Table, permissions: int) -> None:
    """The bot's role gets ``permissions`` (the interaction's app_permissions and the bot's cache agree)."""
    world.fake.bot_permissions |= permissions
    for role in world.guild.member(world.fake.bot_user).roles:
        role.permissions |= permissions


async def threads_on(world: Table, *, grant: int = CREATE | SEND_IN_THREADS) -> None:
    grant_bot(world, grant)
    await world.start_bot()
    answer = await world.command(world.admin, "settings", table_threads=True, ai_delay_ms=0)
    assert "New tables open in a thread of their own." in answer.original.content


async def open_in_thread(world: Table, host: FakeUser) -> tuple[FakeChannel, FakeInteraction]:
    """``host`` types /schnapsen new in the channel; returns the thread it opened."""
    before = {thread.id for thread in world.channel.threads}
    command = await world.command(host, "new")
    made = [thread for thread in world.channel.threads if thread.id not in before]
    assert len(made) == 1, f"one thread per table, made {made}"
    return made[0], command


def table_messages(channel: FakeChannel) -> list[Any]:
    """The channel's table messages: table buttons and an embed (a turn notice has no embed), no result."""
    return [
        m
        for m in channel.messages
        if m.embeds and any(b.get("custom_id", "").startswith("bs:") for b in m.buttons) and not is_result_message(m)
    ]


async def test_a_thread_waits_for_its_table_message_to_show_the_close_before_it_is_archived(
    fake_discord: FakeDiscord, world: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delivery that another change started may announce the close and come to archive the thread while
    the close is still being published, before it has asked for the table message's last edit; an archived
    thread takes no edit, so the archive waits for it. Here the close is held at that moment."""
    alice = world.add_player("alice")
    await threads_on(world, grant=CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    thread, _ = await open_in_thread(world, alice)
    assert world.bot is not None
    messages, db = world.bot.runtime.messages, world.bot.db
    get_table, closed_shown = db.tables.get_table, messages._closed_event
    at_the_archive = asyncio.Event()
    held: list[bool] = []

    def delivery_waits_at_the_archive(table_id: int) -> asyncio.Event:
        at_the_archive.set()
        return closed_shown(table_id)

    async def close_published_after_a_delivery(table_id: int) -> Any:
        row = await get_table(table_id)
        if row is not None and row.status == "closed" and not held:  # the close is stored, not yet published
            held.append(True)
            messages.deliver(table_id)
            await asyncio.wait_for(at_the_archive.wait(), 5)
        return row

    monkeypatch.setattr(messages, "_closed_event", delivery_waits_at_the_archive)
    monkeypatch.setattr(db.tables, "get_table", close_published_after_a_delivery)
    asked = await in_channel(world, alice, thread, "stop")
    confirm = await fake_discord.click(alice, asked.original, label="Yes, close the table")
    await confirm.wait_response()
    await fake_discord.wait_for(lambda: thread.archived, what="the thread to be archived")
    assert held, "the close was held while a delivery announced it"
    assert CLOSED_NOTICE in thread.messages[-1].visible_text
    closed_table = [m for m in thread.messages if "This table is closed." in m.visible_text]
    assert len(closed_table) == 1 and not closed_table[0].buttons, "the table message said so before"


async def test_a_table_in_a_thread_is_played_there_and_the_thread_archived_when_it_closes(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice = world.add_player("alice")
    await threads_on(world, grant=CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    thread, command = await open_in_thread(world, alice)

    assert thread.name == "Schnapsen #1 · alice" and thread.parent is world.channel
    assert command.original.ephemeral and f"<#{thread.id}>" in command.original.content
    stored = await world.stored(1)
    assert (stored.row.channel_id, stored.row.thread_parent_id) == (thread.id, world.channel.id)
    assert world.channel.messages == [], "the channel itself shows nothing of the table"
    assert len(table_messages(thread)) == 1, "the lobby is in the thread"

    world.channel = thread  # from here on, everything the harness does happens in the thread
    for _ in range(3):
        lobby = await world.table_message()
        added = await fake_discord.click(alice, lobby, label="Add AI player")
        await added.wait_response()
    started = await fake_discord.click(alice, await world.table_message(), label="Start")
    await started.wait_response()
    await fake_discord.wait_for(lambda: world.live.status == "playing", what="the game to start")
    await world.play([alice], until=lambda t: t.deal_no > 1 or t.status != "playing", timeout=60)

    await fake_discord.wait_for(
        lambda: any("Why:" in m.visible_text for m in thread.messages), what="the result in the thread"
    )
    assert world.channel.parent.messages == [], "nothing of the game reached the channel"  # type: ignore[union-attr]
    assert len(table_messages(thread)) == 1, "one table message, edited in place"

    asked = await in_channel(world, alice, thread, "stop")  # a command in the thread acts on its table
    confirm = await fake_discord.click(alice, asked.original, label="Yes, close the table")
    await confirm.wait_response()
    await fake_discord.wait_for(lambda: thread.archived, what="the thread to be archived")
    assert thread.locked, "locked too, since the bot may manage threads"
    assert CLOSED_NOTICE in thread.messages[-1].visible_text, "the closing notice is the thread's last word"
    closed_table = [m for m in thread.messages if "This table is closed." in m.visible_text]
    assert len(closed_table) == 1 and not closed_table[0].buttons, "the table message said so before"
    assert (await world.stored(1)).row.status == "closed"
    # The table message is edited through its clicks' tokens (Start's) and with the bot token.
    tokens = {i.token for i in fake_discord.interactions if i.channel is thread}
    edits = fake_discord.requests_to("PATCH", f"/channels/{thread.id}/messages/*") + [
        r for r in fake_discord.requests_to("PATCH", "/webhooks/*/*/messages/*") if r.path.split("/")[-3] in tokens
    ]
    assert edits and all(edit.status == 200 for edit in edits), "no edit went to the archived thread"


async def test_two_tables_in_two_threads_of_one_channel(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bert = world.add_player("alice"), world.add_player("bert")
    await threads_on(world)
    first, _ = await open_in_thread(world, alice)
    second, _ = await open_in_thread(world, bert)

    assert first.id != second.id and {first.name, second.name} == {"Schnapsen #1 · alice", "Schnapsen #2 · bert"}
    for host, thread in ((alice, first), (bert, second)):
        started = await in_channel(world, host, thread, "start")
        assert "The game is on" in await ephemeral_reply(started)
    assert world.bot is not None
    tables = {t.row.channel_id: t for t in world.bot.service.open_tables()}
    assert set(tables) == {first.id, second.id}
    assert all(t.status == "playing" for t in tables.values())
    for host in (alice, bert):  # each is dealt a hand at their own table
        await world.latest_dm(host, lambda m: m.buttons)
    for thread in (first, second):
        await fake_discord.wait_for(lambda thread=thread: "Trump" in table_messages(thread)[0].visible_text)


async def test_without_the_permissions_nothing_is_opened_and_the_answer_names_them(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice = world.add_player("alice")
    await threads_on(world, grant=0)
    assert world.bot is not None

    refused = await world.command(alice, "new")
    assert "**Create Public Threads**" in await ephemeral_reply(refused)
    fake_discord.bot_permissions |= CREATE
    refused = await world.command(alice, "new")
    assert "**Send Messages in Threads**" in await ephemeral_reply(refused)
    assert fake_discord.hit_count("POST", THREAD_CREATES) == 0, "checked before anything was made"

    # Discord itself refuses (an overwrite the interaction did not show): the same answer.
    fake_discord.bot_permissions |= SEND_IN_THREADS
    fake_discord.fail_next("POST", THREAD_CREATES, status=403, code=50013, message="Missing Permissions")
    refused = await world.command(alice, "new")
    assert "**Create Public Threads**" in await ephemeral_reply(refused)

    # The thread is made but the bot may not post in it: the table goes, and so does the thread.
    fake_discord.fail_next("POST", "/channels/*/messages", status=403, code=50013, message="Missing Permissions")
    refused = await world.command(alice, "new")
    assert "**Send Messages in Threads**" in await ephemeral_reply(refused)
    assert [t for t in world.channel.threads if not t.archived] == [], "no thread is left without a table"
    assert await world.bot.db.tables.list_open_tables() == [] and world.bot.service.open_tables() == []
    assert world.channel.messages == []

    # Nothing is left that would stop alice from opening a table now.
    thread, _ = await open_in_thread(world, alice)
    assert len(table_messages(thread)) == 1


@pytest.mark.parametrize("status", [500, 503])
async def test_a_server_error_while_the_thread_is_made_is_retried_or_refused_cleanly(
    fake_discord: FakeDiscord, world: Table, status: int
) -> None:
    alice = world.add_player("alice")
    await threads_on(world)
    assert world.bot is not None
    fake_discord.fail_next("POST", THREAD_CREATES, status=status, times=1)
    answer = await world.command(alice, "new")
    text = await ephemeral_reply(answer)
    if status == 500:  # discord.py retries a 500 itself
        assert "Table opened in its own thread" in text
        assert len(world.channel.threads) == 1 and len(world.bot.service.open_tables()) == 1
    else:
        assert "could not open a thread" in text
        assert world.channel.threads == [] and await world.bot.db.tables.list_open_tables() == []


async def test_a_thread_made_although_discord_answered_500_is_not_left_behind(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """Discord makes the thread but answers 500; discord.py repeats the create, which makes a second one."""
    alice = world.add_player("alice")
    await threads_on(world, grant=CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    assert world.bot is not None
    fake_discord.fail_next("POST", THREAD_CREATES, status=500, applied=True)
    answer = await world.command(alice, "new")
    assert "Table opened in its own thread" in await ephemeral_reply(answer)
    assert fake_discord.hit_count("POST", THREAD_CREATES) == 2
    (table,) = world.bot.service.open_tables()
    assert [thread.id for thread in world.channel.threads] == [table.row.channel_id], "the repeat is deleted"


async def test_with_the_setting_off_a_channel_holds_its_one_table(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bert = world.add_player("alice"), world.add_player("bert")
    fake_discord.bot_permissions |= CREATE | SEND_IN_THREADS
    await world.start_bot()
    await world.command(alice, "new")
    busy = await world.command(bert, "new")
    assert "already has a table" in await ephemeral_reply(busy)
    assert fake_discord.hit_count("POST", THREAD_CREATES) == 0
    assert len(table_messages(world.channel)) == 1
    assert (await world.stored(1)).row.thread_parent_id is None


async def test_new_inside_a_thread_opens_the_table_in_that_thread(fake_discord: FakeDiscord, world: Table) -> None:
    alice = world.add_player("alice")
    await threads_on(world)
    theirs = world.guild.add_thread(world.channel, "Friday night", alice)
    await fake_discord.announce_thread(theirs)

    await in_channel(world, alice, theirs, "new")
    assert fake_discord.hit_count("POST", THREAD_CREATES) == 0, "no thread in a thread"
    await fake_discord.wait_for(lambda: table_messages(theirs), what="the table message in their thread")
    assert (await world.stored(1)).row.thread_parent_id is None, "not the bot's thread: it is not archived"
    await in_channel(world, alice, theirs, "leave")
    await fake_discord.wait_for(lambda: any("every player left" in m.visible_text for m in theirs.messages))
    assert not theirs.archived


async def test_a_thread_is_archived_when_the_sweeper_closes_its_table_and_after_a_restart(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bert = world.add_player("alice"), world.add_player("bert")
    await threads_on(world)
    failing, _ = await open_in_thread(world, alice)
    archived_at_once, _ = await open_in_thread(world, bert)
    bot = world.bot
    assert bot is not None

    bot.service.clock = lambda: time.time() + world.settings.lobby_timeout + 1
    # The first lobby's archive fails until the bot stops: the restart archives it.
    fake_discord.fail_next("PATCH", f"/channels/{failing.id}", status=503, times=1000)
    await bot.runtime.sweep()
    await fake_discord.wait_for(
        lambda: all("game never started" in t.messages[-1].visible_text for t in (failing, archived_at_once)),
        what="both closing notices",
    )
    await fake_discord.wait_for(lambda: archived_at_once.archived, what="the failing lobby's thread to be archived")
    assert not archived_at_once.locked, "without Manage Threads the thread is archived, not locked"
    assert not failing.archived
    await world.stop_bot()
    fake_discord.faults.clear()

    await world.start_bot()
    await fake_discord.wait_for(lambda: failing.archived, what="the restart to archive the other thread")
    notices = [m for m in failing.messages if "game never started" in m.visible_text]
    assert len(notices) == 1, "the notice delivered again after the restart is shown once"


async def test_a_thread_archived_while_its_table_is_open_is_unarchived_to_show_the_table(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice = world.add_player("alice")
    await threads_on(world)
    thread, _ = await open_in_thread(world, alice)
    thread.archived = True  # a moderator archived it, or Discord did after a quiet week

    await in_channel(world, alice, thread, "start")
    await fake_discord.wait_for(
        lambda: "Trump" in table_messages(thread)[0].visible_text, what="the table message to show the game"
    )
    assert not thread.archived
    refused = [r for r in fake_discord.requests_to("PATCH", f"/channels/{thread.id}/messages/*") if r.status == 400]
    assert refused, "the edit met the archived thread first"


async def test_a_thread_table_message_whose_id_could_not_be_stored_is_not_posted_twice(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """The lobby is posted in the new thread, but storing its message id fails (storage full for a moment):
    the runtime stores that message, retried, instead of posting a second lobby beside it."""
    alice = world.add_player("alice")
    await threads_on(world)
    assert world.bot is not None
    service = world.bot.service
    real = service.seating.set_table_message
    failed: list[Any] = []

    async def set_table_message(*args: Any, **kwargs: Any) -> Any:
        if not failed:
            failed.append(args)
            raise sqlite3.OperationalError("database or disk is full")
        return await real(*args, **kwargs)

    service.seating.set_table_message = set_table_message  # type: ignore[method-assign]
    thread, _ = await open_in_thread(world, alice)

    def stored_message() -> int | None:
        table = service.table_in_channel(thread.id)
        return None if table is None else table.row.table_message_id

    await fake_discord.wait_for(stored_message, what="the table message's id to be stored")
    assert failed
    assert [m.id for m in table_messages(thread)] == [stored_message()], "one lobby, the one stored"
    assert any("could not be stored" in r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
