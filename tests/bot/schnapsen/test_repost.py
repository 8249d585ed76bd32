"""Re-posting instead of editing old messages (issue 28, bot/schnapsen/repost.py): a table message or hand DM
older than ``repost_after`` is replaced by a new one on its next change, the old one points to it and loses
its buttons, a click on the old one is answered as stale and changes nothing, the new one's buttons work,
also after a restart, and a failure between posting and storing leaves one new message, not two.

The messages age on the fake's clock (``advance_clock``), which the bot's judge of ages is given too."""

from __future__ import annotations

import copy
import dataclasses
import sqlite3
from typing import Any

import pytest

from bot.client import SchnapsenBot
from bot.game.table import TableSnapshot
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from engine import PLAY
from engine.contracts import Contract
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Table,
    as_shown,
    current_button,
    ephemeral_reply,
    with_button,
)
from tests.bot.schnapsen.test_faults import FAST_RETRIES, settled
from tests.bot.schnapsen.test_threads import (
    CREATE,
    MANAGE_THREADS,
    SEND_IN_THREADS,
    in_channel,
    open_in_thread,
    threads_on,
)

OUT_OF_DATE = "That button is out of date"
MOVED = "This moved on to a newer message"
REPOST_AFTER = 3000.0  # the default setting: 50 minutes


@pytest.fixture
def world(world: Table) -> Table:
    world.settings = dataclasses.replace(world.settings, **FAST_RETRIES)
    return world


async def start_bot(world: Table) -> SchnapsenBot:
    """The bot, judging messages' ages by the fake's clock (which the tests move on)."""
    bot = await world.start_bot()
    bot.runtime.messages.reposts.clock = world.fake.clock
    return bot


def points_to(old: FakeMessage, new: FakeMessage) -> bool:
    """``old`` was edited to point to ``new``: a link to it, no buttons, no image."""
    return MOVED in old.visible_text and f"/{new.id})" in old.visible_text and not old.buttons and not old.attachments


async def test_an_old_table_message_is_reposted_and_only_the_new_one_acts_also_after_a_restart(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob, carol, dora = (world.add_player(name) for name in ("alice", "bob", "carol", "dora"))
    bot = await start_bot(world)
    table = await world.open_table(alice, start=False)
    old = await world.table_message()
    shown_before = copy.deepcopy(old.components)
    fake_discord.advance_clock(REPOST_AFTER + 1)

    sit = await fake_discord.click(bob, old, label="Sit East")  # the lobby changes: its message is 50 minutes old
    await sit.wait_response()
    new = await world.table_message(lambda m: m.id != old.id and "bob" in m.visible_text)
    await fake_discord.wait_for(lambda: table.table_message_id == new.id, what="the new message stored")
    await fake_discord.wait_for(lambda: points_to(old, new), what="the old message pointing to the new one")
    assert old.edit_count == 1, "the old message is edited once, to point on"

    # A client that has not seen the old message's edit yet still shows its buttons: stale, nothing changes.
    stored = await world.stored(table.id)
    late = await fake_discord.click(carol, as_shown(old, shown_before), label="Sit South")
    assert OUT_OF_DATE in await ephemeral_reply(late)
    assert await world.stored(table.id) == stored
    click = await fake_discord.click(carol, new, label="Sit South")
    await click.wait_response()
    await fake_discord.wait_for(lambda: table.seats[2] is not None, what="carol seated from the new message")

    # After a restart the stored message is the new one: it is edited, nothing else is posted.
    await settled(bot)
    await world.stop_bot()
    bot = await start_bot(world)
    edits = new.edit_count
    click = await fake_discord.click(dora, await world.table_message(), label="Sit West")
    await click.wait_response()
    await fake_discord.wait_for(lambda: "dora" in new.visible_text, what="the new message shows dora")
    assert new.edit_count > edits
    assert [m.id for m in world.table_messages()] == [old.id, new.id]
    late = await fake_discord.click(alice, as_shown(old, shown_before), label="Start")
    assert OUT_OF_DATE in await ephemeral_reply(late), "a restart still knows the old message is replaced"
    assert table.status == "lobby"


async def alice_and_bob_at_play(world: Table, target: int = 7) -> tuple[FakeUser, FakeUser, CurrentTable]:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await start_bot(world)
    await world.no_ai_delay()
    table = await world.open_table(alice, [bob, None, None], target=target)
    await world.latest_dm(alice)
    return alice, bob, table


def dms_from(fake_discord: FakeDiscord, user: FakeUser, first: FakeMessage) -> list[int]:
    """The ids of the user's DMs from ``first`` on (the DMs of earlier deals left out)."""
    ids = [m.id for m in fake_discord.dm_messages(user)]
    return ids[ids.index(first.id) :]


def plays_early_in_a_normal_game(world: Table, alice: FakeUser, table: TableSnapshot) -> bool:
    """alice is to play a card of the first two tricks of a normal game: a card after which the deal seldom
    ends before her next turn (a Bettler, say, ends at the first trick its declarer takes)."""
    deal = table.deal
    return (
        deal is not None
        and deal.phase == PLAY
        and deal.contract is Contract.NORMAL
        and len(deal.tricks) <= 1
        and current_button(world.hand_message(alice), table.version) is not None
    )


async def play_to_an_early_card_of_a_normal_game(
    world: Table, alice: FakeUser, bob: FakeUser, table: CurrentTable
) -> None:
    """Play on until alice is to play a card early in a normal game. The deals are random: the Bummerl may end
    before one comes (seen: 24 points in 6 deals without one), and a rematch
    then deals on."""
    while True:
        await world.play([alice, bob], until=lambda t: plays_early_in_a_normal_game(world, alice, t))
        if table.status == "playing":
            return
        assert table.status == "finished", table.status
        await world.rematch(alice)


def alices_turn_after_repost(world: Table, alice: FakeUser, old: FakeMessage) -> Any:
    """Play on until alice's DM was replaced (the new id stored) and she has a button for the position."""

    def reached(table: TableSnapshot) -> bool:
        seat = table.seats[0]
        return (
            seat is not None
            and seat.dm_message_id not in (None, old.id)
            and current_button(world.hand_message(alice), table.version) is not None
        )

    return reached


async def test_an_old_hand_dm_is_reposted_and_only_the_new_one_acts_also_after_a_restart(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob, table = await alice_and_bob_at_play(world, target=24)
    while True:
        # Her card early in a normal game re-posts her DM, and the deal goes on to her next turn there.
        await play_to_an_early_card_of_a_normal_game(world, alice, bob, table)
        card = await fake_discord.wait_for(
            lambda: current_button(world.hand_message(alice), table.version), what="alice's card on her DM"
        )
        old = world.hand_message(alice)
        assert old is not None
        deal_no = table.deal_no
        fake_discord.advance_clock(REPOST_AFTER + 1)
        await world.click_and_settle(alice, old, card["custom_id"])
        reached = alices_turn_after_repost(world, alice, old)
        await world.play([alice, bob], until=lambda t, d=deal_no, r=reached: t.deal_no != d or r(t))
        if table.deal_no == deal_no and table.status == "playing":
            break
        # Now and then the deal ends before her next turn (a 40 said after the first trick makes 66): her DM was
        # re-posted all the same, and the next deal's hand comes in a DM of its own. Try again in a later deal.
        # Which of her later DMs came first, the re-posted hand or the next deal's, is a race of their sends.
        await fake_discord.wait_for(
            lambda o=old: any(points_to(o, m) for m in fake_discord.dm_messages(alice) if m.id > o.id),
            what="the old DM pointing on",
        )
    new = world.hand_message(alice)
    assert new is not None and new.id == table.seats[0].dm_message_id
    await fake_discord.wait_for(lambda: points_to(old, new), what="the old DM pointing to the new one")
    assert dms_from(fake_discord, alice, old) == [old.id, new.id], "one new DM"

    # Its button for the position as a client that has not seen the edit shows it: stale, nothing changes.
    button = current_button(new, table.version)
    assert button is not None
    # The clock's jump re-posts the table message as well, whose new id is stored in the background: once that
    # is done, nothing else changes what is stored.
    await settled(world.bot)  # type: ignore[arg-type]
    stored = await world.stored(table.id)
    late = await fake_discord.click(alice, with_button(old, button["custom_id"]), button["custom_id"])
    assert OUT_OF_DATE in await ephemeral_reply(late)
    assert await world.stored(table.id) == stored
    await world.click_and_settle(alice, new, button["custom_id"])

    # After a restart the stored DM is the new one: it is edited, nothing else is sent this deal.
    await settled(world.bot)  # type: ignore[arg-type]
    await world.stop_bot()
    await start_bot(world)
    edits, deal_no = new.edit_count, table.deal_no
    await world.play([alice, bob], until=lambda t: new.edit_count > edits or t.deal_no != deal_no)
    if table.deal_no == deal_no:  # (a move that ended the Bummerl ends play before its last word is shown)
        await fake_discord.wait_for(lambda: new.edit_count > edits, what="the new DM edited")
        assert dms_from(fake_discord, alice, old) == [old.id, new.id]
    else:  # the deal ended before her hand changed (her partner played alone): the next deal's DM follows
        assert dms_from(fake_discord, alice, old)[:2] == [old.id, new.id]


async def test_a_failure_between_posting_the_new_message_and_storing_it_leaves_one_new_message(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob, table = await alice_and_bob_at_play(world)
    bot = world.bot
    assert bot is not None
    # alice to act before the first trick: her click re-posts both messages, and without bob's clicks the deal
    # cannot end meanwhile (a deal ended would send her next deal's DM too).
    await world.play(
        [alice, bob],
        until=lambda t: (
            t.deal is not None
            and not t.deal.tricks
            and current_button(world.hand_message(alice), t.version) is not None
        ),
    )
    await settled(bot)
    old_table, old_dm = await world.table_message(), await world.latest_dm(alice)
    button = current_button(old_dm, table.version)
    assert button is not None
    seating = bot.service.seating
    failed: list[str] = []

    def failing_once(name: str) -> None:
        real = getattr(seating, name)

        async def store(*args: Any) -> Any:
            if name not in failed:
                failed.append(name)
                raise sqlite3.OperationalError("database or disk is full")
            return await real(*args)

        setattr(seating, name, store)

    failing_once("set_table_message")
    failing_once("set_dm")
    # The new table message's post takes effect but its answer is lost: discord.py repeats it (same nonce).
    fake_discord.fail_next("POST", f"/channels/{world.channel.id}/messages", status=500, applied=True)
    fake_discord.advance_clock(REPOST_AFTER + 1)

    await world.click_and_settle(alice, old_dm, button["custom_id"])
    await fake_discord.wait_for(
        lambda: table.table_message_id != old_table.id and table.seats[0].dm_message_id != old_dm.id,
        what="the new table message and DM stored",
    )
    await settled(bot)
    assert sorted(failed) == ["set_dm", "set_table_message"]
    new_table, new_dm = world.table_messages()[-1], fake_discord.dm_messages(alice)[-1]
    assert [m.id for m in world.table_messages()] == [old_table.id, new_table.id], "one new table message"
    assert [m.id for m in fake_discord.dm_messages(alice)] == [old_dm.id, new_dm.id], "one new DM"
    assert table.table_message_id == new_table.id and table.seats[0].dm_message_id == new_dm.id
    # The old DM is pointed on by the retried job that stored the new one: it may still be on its way.
    await fake_discord.wait_for(
        lambda: points_to(old_table, new_table) and points_to(old_dm, new_dm), what="both old messages pointing on"
    )


async def test_a_long_game_never_meets_the_old_message_limit(fake_discord: FakeDiscord, world: Table) -> None:
    """Discord's 30046 rule on (3 edits per 6 s per channel of messages older than an hour) and the messages
    aging 20 minutes every few moves: every edit reaches a message younger than an hour, but the one edit
    that points an old message to its replacement."""
    fake_discord.enforce_limits(route_buckets=(), global_limit=100_000)
    # To 1000: to 24 one deal may end the Bummerl (a Kontrabauernschnapser counts 24) before the messages aged.
    alice, bob, table = await alice_and_bob_at_play(world, target=1000)
    advances = 0
    while table.status == "playing" and advances < 9:
        version, deal_no = table.version, table.deal_no
        await world.play(
            [alice, bob], until=lambda t, v=version, d=deal_no: t.version >= v + 6 or t.deal_no != d, timeout=30
        )
        fake_discord.advance_clock(20 * 60)
        advances += 1
    assert world.bot is not None
    await settled(world.bot)
    assert fake_discord.limiter.stats.refused["old message"] == 0
    # Every third advance (an hour) makes the table message due, and the play after it re-posts it.
    assert advances == 9, "a Bummerl to 1000 lasts longer"
    assert len(world.table_messages()) >= 1 + (advances - 1) // 3, "the table message was replaced every hour"


async def test_an_old_table_message_in_a_thread_is_reposted_there_and_the_close_shows_on_the_new_one(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice = world.add_player("alice")
    await threads_on(world, grant=CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    assert world.bot is not None
    world.bot.runtime.messages.reposts.clock = fake_discord.clock
    thread, _ = await open_in_thread(world, alice)
    world.channel = thread
    old = await world.table_message()
    fake_discord.advance_clock(REPOST_AFTER + 1)

    added = await fake_discord.click(alice, old, label="Add AI player")
    await added.wait_response()
    new = await world.table_message(lambda m: m.id != old.id)
    await fake_discord.wait_for(lambda: points_to(old, new), what="the old message pointing to the new one")
    assert f"https://discord.com/channels/{world.guild.id}/{thread.id}/{new.id}" in old.visible_text

    asked = await in_channel(world, alice, thread, "stop")
    confirm = await fake_discord.click(alice, asked.original, label="Yes, close the table")
    await confirm.wait_response()
    await fake_discord.wait_for(lambda: thread.archived, what="the thread to be archived")
    assert "This table is closed." in new.visible_text and not new.buttons
    assert points_to(old, new) and world.channel.parent.messages == []  # type: ignore[union-attr]
