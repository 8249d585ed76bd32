"""Every message a person can still click tells the truth about its table: a table that closes, for whatever
reason, leaves no enabled game button on its table message or on any hand of it; a close stored just before
a kill -9 is shown after the restart; a click on a closed table's stale message corrects that message."""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3

import pytest

from bot.client import SchnapsenBot
from devtools.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Table,
    as_shown,
    current_button,
    ephemeral_reply,
    is_hand_message,
)
from tests.bot.schnapsen.test_threads import (
    CREATE,
    MANAGE_THREADS,
    SEND_IN_THREADS,
    open_in_thread,
    threads_on,
)

FAST_RETRIES = {"retry_first": 0.02, "retry_max": 0.1}
CLOSED_TABLE = "This table is closed."  # the closed table message's status line
CLOSED_HAND = "This table is closed"  # a closed table's hand says so


@pytest.fixture
def world(world: Table) -> Table:
    world.settings = dataclasses.replace(world.settings, **FAST_RETRIES)
    return world


def hands_of(fake: FakeDiscord, user: FakeUser, table_id: int) -> list[FakeMessage]:
    """Every hand DM ``user`` got from the table."""
    return [
        m for m in fake.dm_messages(user) if is_hand_message(m) and f"table {table_id} " in m.embeds[0]["title"]
    ]


def hands_closed(fake: FakeDiscord, user: FakeUser, table_id: int) -> bool:
    """None of the person's hand DMs of the table offers anything, and the latest says the table closed (those
    of earlier deals say that their deal is over)."""
    hands = hands_of(fake, user, table_id)
    return bool(hands) and not any(hand.buttons for hand in hands) and CLOSED_HAND in hands[-1].visible_text


def table_message_closed(message: FakeMessage) -> bool:
    return CLOSED_TABLE in message.visible_text and not message.buttons


async def alice_to_act(world: Table, alice: FakeUser, guests: list[FakeUser | None]) -> CurrentTable:
    """alice (North) hosts ``guests``; the first deal is played on until it is alice's turn after a few
    actions (the log shows them) and her hand DM shows her buttons for it."""
    table = await world.open_table(alice, guests)
    people = [alice, *(guest for guest in guests if guest is not None)]
    await world.play(people, until=lambda t: t.deal is not None and t.deal.to_act == 0 and len(t.log) >= 3)
    await world.fake.wait_for(
        lambda: table.deal.to_act == 0 and current_button(world.hand_message(alice), table.version),
        what="alice's turn on her hand",
    )
    return table


async def test_a_table_stopped_mid_deal_leaves_no_playable_hand(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    table = await alice_to_act(world, alice, [bob, None, None])
    table_id = table.id
    stop = await world.command(alice, "stop")
    confirm = await fake_discord.click(alice, stop.original, label="Yes, close the table")
    await confirm.wait_response()

    for person in (alice, bob):
        await fake_discord.wait_for(
            lambda person=person: hands_closed(fake_discord, person, table_id),
            what=f"{person.name}'s hand to show the table closed",
        )
    await fake_discord.wait_for(lambda: table_message_closed(world.table_messages()[-1]) or None,
                                what="the table message to show the table closed")  # fmt: skip


async def test_a_hand_shown_in_the_channel_shows_the_table_closed_too(fake_discord: FakeDiscord, world: Table) -> None:
    """alice keeps her hand in the channel (ephemeral, edited through the token of the click that showed it):
    the table is stopped on her turn, and that hand shows the table closed, without buttons."""
    alice = world.add_player("alice")
    await world.start_bot()
    await world.no_ai_delay()
    await world.command(alice, "prefs", hand="channel")
    table = await world.open_table(alice, [None, None, None])
    table_id = table.id
    await fake_discord.wait_for(lambda: table.deal.to_act == 0, what="alice's turn")
    shown = await fake_discord.click(alice, await world.table_message(lambda m: m.button("My hand")), label="My hand")
    await shown.wait_response()

    def her_hand() -> FakeMessage | None:
        hands = [m for m in fake_discord.ephemeral_messages(alice) if is_hand_message(m)]
        return hands[-1] if hands and hands[-1].buttons else None

    hand = await fake_discord.wait_for(her_hand, what="alice's hand with her buttons")
    stop = await world.command(alice, "stop")
    confirm = await fake_discord.click(alice, stop.original, label="Yes, close the table")
    await confirm.wait_response()
    await fake_discord.wait_for(
        lambda: (CLOSED_HAND in hand.visible_text and not hand.buttons) or None, what="her hand to show the close"
    )
    assert f"table {table_id} " in hand.embeds[0]["title"]


async def finished_in_a_thread(world: Table) -> tuple[FakeUser, FakeChannel, CurrentTable, FakeMessage]:
    """alice and three AI players play a Bummerl to 1 in a thread of the channel: it ends with Rematch and
    Close on the table message."""
    alice = world.add_player("alice")
    await threads_on(world, grant=CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    thread, _ = await open_in_thread(world, alice)
    world.channel = thread  # from here on, everything the harness does happens in the thread
    await world.change_lobby(target=1)
    for _ in range(3):
        added = await world.fake.click(alice, await world.table_message(), label="Add AI player")
        await added.wait_response()
    started = await world.fake.click(alice, await world.table_message(), label="Start")
    await started.wait_response()
    current = CurrentTable(world, world.live.id)
    await world.fake.wait_for(lambda: current.status == "playing", what="the game to start")
    await world.play([alice], timeout=30)
    ended = await world.table_message(lambda m: any(b.get("label") == "Rematch" for b in m.buttons))
    return alice, thread, current, ended


async def test_a_close_stored_just_before_a_kill_is_shown_on_the_table_message_after_the_restart(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """A tournament match's Bummerl ends and its table is closed; the bot is killed before the table message
    showed the close (its edits fail until then). After the restart the message shows the table closed, with
    no button, and only then is the thread archived."""
    _, thread, table, ended = await finished_in_a_thread(world)
    table_id = table.id
    assert world.bot is not None
    world.forget_table_clicks()  # the edit goes with the bot token, which the outage meets
    outage = fake_discord.fail_next("PATCH", f"/channels/{thread.id}/messages/{ended.id}", status=503, times=10**6)
    await world.bot.service.close(table_id, reason_key="notice.closed_finished")
    await world.stop_bot()
    fake_discord.faults.remove(outage)
    assert not table_message_closed(ended) and not thread.archived

    since = len(fake_discord.requests)
    await world.start_bot()
    await fake_discord.wait_for(lambda: thread.archived, what="the thread to be archived after the restart")
    assert table_message_closed(ended), ended.visible_text
    edits = [r for r in fake_discord.requests[since:] if r.matches("PATCH", f"/channels/{thread.id}/messages/*")]
    assert edits and all(r.status == 200 for r in edits), "the message was edited before the thread was archived"


async def test_a_click_on_a_closed_tables_stale_messages_corrects_them(fake_discord: FakeDiscord, world: Table) -> None:
    """A table an older version closed without updating its messages (or whose updates were lost): after the
    restart a click on its Rematch is answered that the table is closed, and the message is corrected; so is
    the hand DM of a person whose click on a card comes too late."""
    alice, _, table, ended = await finished_in_a_thread(world)
    table_id = table.id
    assert world.bot is not None
    hand = hands_of(fake_discord, alice, table_id)[-1]
    await world.stop_bot()
    with contextlib.closing(sqlite3.connect(world.settings.database_path)) as connection, connection:
        connection.execute("UPDATE game_tables SET status = 'closed' WHERE id = ?", (table_id,))
    await world.start_bot()

    rematch = await fake_discord.click(alice, ended, label="Rematch")
    assert "closed" in await ephemeral_reply(rematch)
    await fake_discord.wait_for(lambda: table_message_closed(ended) or None, what="the table message corrected")
    # A hand DM of the closed table that still shows a card (as a lost edit left it) is corrected when clicked.
    stale = as_shown(hand, [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "A", "custom_id": f"bs:{table_id}:1:play:Ah"}]}])  # fmt: skip
    late = await fake_discord.click(alice, stale, f"bs:{table_id}:1:play:Ah")
    assert "closed" in await ephemeral_reply(late)
    await fake_discord.wait_for(lambda: CLOSED_HAND in hand.visible_text or None, what="the hand DM corrected")
    assert not hand.buttons


async def test_a_table_set_aside_at_start_up_leaves_no_playable_hand(fake_discord: FakeDiscord, world: Table) -> None:
    alice = world.add_player("alice")
    bot: SchnapsenBot = await world.start_bot()
    await world.no_ai_delay()
    table = await alice_to_act(world, alice, [None, None, None])
    table_id = table.id
    async with bot.db.transaction():  # a manual edit (or a rule tightened since): the record is illegal
        await bot.db.core.execute("UPDATE actions SET action = 'N play XX' WHERE table_id = ? AND seq = 0", (table_id,))
    await world.stop_bot()

    await world.start_bot()
    await fake_discord.wait_for(
        lambda: hands_closed(fake_discord, alice, table_id), what="alice's hand to show the table closed"
    )
    await fake_discord.wait_for(lambda: table_message_closed(world.table_messages()[-1]) or None,
                                what="the table message to show the table closed")  # fmt: skip
