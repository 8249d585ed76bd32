"""A person who moves her hand to the channel during a deal (issue 26): her DM keeps saying where the hand
went when the deal ends, and switching on her own turn pings her with no turn notice that is taken down at
once (the hand the command shows is all she needs)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from bot.client import SchnapsenBot
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Table,
    current_button,
    ephemeral_reply,
    first_deal_over,
    game_buttons,
    is_hand_message,
)

MOVED = "shown in the channel now"
SHOW_MY_CARDS = "Show my cards"


def turn_notices(world: Table) -> list[FakeMessage]:
    """Every turn notice posted in the channel, taken down or not."""
    return [
        m
        for m in world.channel.all_messages
        if not m.ephemeral and any(b.get("label") == SHOW_MY_CARDS for b in m.buttons)
    ]


async def play_from_the_channel(world: Table, fake: FakeDiscord, anna: FakeUser, table: CurrentTable) -> None:
    """Anna presses the first button of her newest ephemeral hand (or a turn notice) until the deal is over."""
    pressed: set[int] = set()
    while True:

        def next_step() -> tuple[Any, ...] | None:
            now = table.now()
            if first_deal_over(now):
                return ("stop",)
            hands = [m for m in fake.ephemeral_messages(anna) if is_hand_message(m)]
            if hands and (button := current_button(hands[-1], now.version)) is not None:
                return ("click", hands[-1], button)
            for notice in turn_notices(world):
                if not notice.deleted and notice.id not in pressed:
                    return ("notice", notice)
            return None

        step = await fake.wait_for(next_step, timeout=10, what="anna's ephemeral hand or a turn notice")
        if step[0] == "stop":
            return
        if step[0] == "notice":
            pressed.add(step[1].id)
            opened = await fake.click(anna, step[1], label=SHOW_MY_CARDS)
            await opened.wait_followups(1)
            continue
        await world.click_and_settle(anna, step[1], step[2]["custom_id"])


async def anna_and_three_ai(
    world: Table, *, seed: int | None = None, target: int | None = None
) -> tuple[SchnapsenBot, FakeUser, CurrentTable]:
    """Anna (North) and three AI seats; ``seed``: every deal comes from it, North deals first and the AI seats
    play greedy, so that the deal goes the same way every run (anna presses the first button)."""
    anna = world.add_player("anna")
    bot = await world.start_bot()
    await world.no_ai_delay()
    if seed is None:
        return bot, anna, await world.open_table(anna, [None, None, None], target=target)
    bot.service.new_seed = lambda: seed
    await world.command(world.admin, "settings", ai_strength="greedy")
    return bot, anna, await world.open_table(anna, [None, None, None], target=target, first_dealer=0)


# target 1: the first deal is the whole Bummerl, as any Schnapser with Kontra and Re is in a normal one.
@pytest.mark.parametrize("target", [None, 1], ids=["bummerl_goes_on", "deal_ends_the_bummerl"])
async def test_a_dm_left_for_the_channel_mid_deal_still_says_so_when_the_deal_ends(
    fake_discord: FakeDiscord, world: Table, target: int | None
) -> None:
    bot, anna, table = await anna_and_three_ai(world, target=target)
    dm = await world.latest_dm(anna, lambda m: table.seat_of(anna.id) is not None and bool(m.attachments))

    moved = await world.command(anna, "prefs", hand="channel")
    assert "In the channel, only to you" in await ephemeral_reply(moved)
    await fake_discord.wait_for(lambda: MOVED in dm.visible_text and not dm.buttons, what="the DM to say so")

    await play_from_the_channel(world, fake_discord, anna, table)
    await fake_discord.wait_for(
        lambda: any("result.png" in m.filenames for m in world.channel.messages), what="the deal's result"
    )
    await bot.runtime.messages.sends.drain(timeout=10)  # the deal's outbox, its final hands included
    await bot.runtime.messages.edits.drain(timeout=10)

    assert MOVED in dm.visible_text, dm.visible_text
    assert "This deal is over" not in dm.visible_text
    assert not dm.attachments and not dm.buttons
    assert fake_discord.dm_messages(anna) == [dm], "no new DM: her hands are in the channel now"


async def test_switching_to_the_channel_on_her_turn_posts_no_turn_notice(
    fake_discord: FakeDiscord, world: Table
) -> None:
    bot, anna, table = await anna_and_three_ai(world)
    dm = await world.fake.wait_for(
        lambda: (dms := fake_discord.dm_messages(anna)) and current_button(dms[-1], table.version) and dms[-1],
        what="anna's turn in her DM",
    )
    version = table.version

    moved = await world.command(anna, "prefs", hand="channel")
    shown = await moved.wait_followups(2)
    assert shown[-1].ephemeral and is_hand_message(shown[-1])
    assert current_button(shown[-1], version) is not None, "her turn's buttons, in the hand the command shows"
    await bot.runtime.messages.edits.drain(timeout=10)
    await bot.runtime.messages.sends.drain(timeout=10)

    assert table.version == version, "nobody moved meanwhile: it is still her turn"
    assert MOVED in dm.visible_text
    assert turn_notices(world) == [], [m.content for m in turn_notices(world)]


ENDED_BY_ANNA = 2  # a seed whose first deal anna's card ends (with the AI seats playing greedy)


async def test_her_card_that_ends_the_bummerl_leaves_no_buttons_on_her_hand_in_the_channel(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """A Bummerl of one game point is over after its first deal, here ended by anna's click on her hand in
    the channel: that hand then shows the deal over, not the buttons of the position before (a whole-Bummerl
    first deal is also what stalled the deal loop above now and then, before it knew of that end)."""
    bot, anna, table = await anna_and_three_ai(world, seed=ENDED_BY_ANNA, target=1)
    moved = await world.command(anna, "prefs", hand="channel")
    assert "In the channel, only to you" in await ephemeral_reply(moved)

    await play_from_the_channel(world, fake_discord, anna, table)
    assert table.status == "finished", "a Bummerl of one game point is over after its first deal"
    await bot.runtime.messages.edits.drain(timeout=10)

    record = await bot.db.records.load_record(table.id)
    seat = table.seat_of(anna.id)
    assert seat is not None and record.deals[0].actions[-1].startswith(f"{engine.SEAT_NAMES[seat]} "), (
        "the seed no longer gives anna the last card",
        record.deals[0].actions[-1],
    )
    hand = [m for m in fake_discord.ephemeral_messages(anna) if is_hand_message(m)][-1]
    assert game_buttons(hand, enabled_only=False) == [], [b.get("custom_id") for b in hand.buttons]
    assert "This deal is over" in hand.visible_text, hand.visible_text
