"""Untrusted clicks: forged ids, out of turn, stale buttons, strangers, double clicks, and a rate-limited edit.
Each refused click gets a plain ephemeral answer and leaves the stored table exactly as it was; a click that
repeats a move its person made is acknowledged and changes nothing."""

from __future__ import annotations

import dataclasses

import pytest

import engine
from bot.schnapsen import payloads
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Table,
    another_card,
    as_shown,
    current_button,
    ephemeral_reply,
    reply_to,
    with_button,
)

NOT_VALID = "That button is not valid."
OUT_OF_DATE = "That button is out of date"


async def four_people_at_play(world: Table) -> tuple[CurrentTable, list[FakeUser]]:
    """Four people, first deal, card play reached: nothing moves unless somebody clicks."""
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    await world.start_bot()
    table = await world.open_table(people[0], people[1:])
    await world.play(people, until=lambda t: t.deal.phase == engine.PLAY)
    return table, people


async def turn_dm(
    world: Table, table: CurrentTable, people: list[FakeUser]
) -> tuple[FakeUser, FakeMessage, str]:
    """The person to act, their DM once it shows this position's buttons, and the first enabled button."""
    user = next(p for p in people if table.seat_of(p.id) == table.deal.to_act)
    dm = await world.latest_dm(user, lambda m: current_button(m, table.version) is not None)
    button = current_button(dm, table.version)
    assert button is not None
    return user, dm, button["custom_id"]


async def test_forged_custom_ids_are_refused_and_change_nothing(
    fake_discord: FakeDiscord, world: Table
) -> None:
    table, people = await four_people_at_play(world)
    user, dm, _ = await turn_dm(world, table, people)
    seat = table.seat_of(user.id)
    not_held = next(card for card in engine.DECK if card not in table.deal.hands[seat])
    t, v = table.id, table.version
    forged = {
        f"bs:{t}:{v}:play:ZZ": NOT_VALID,
        f"bs:{t}:{v}:mar:HK30": NOT_VALID,
        f"bs:{t}:{v}:dbl:tripple": NOT_VALID,
        f"bs:{t}:{v}:zap:": NOT_VALID,
        f"bs:{t + 1}:{v}:play:{table.deal.hands[seat][0]}": "This table is closed or no longer exists.",
        f"bs:{t}:{v}:play:{not_held}": "You do not hold that card.",
    }
    before = await world.stored(t)
    for custom_id, expected in forged.items():
        click = await fake_discord.click(user, with_button(dm, custom_id), custom_id, force=True)
        assert expected in await ephemeral_reply(click), custom_id
    assert await world.stored(t) == before


async def test_a_click_out_of_turn_is_refused(fake_discord: FakeDiscord, world: Table) -> None:
    table, people = await four_people_at_play(world)
    to_act, _, custom_id = await turn_dm(world, table, people)
    other = next(p for p in people if p is not to_act)
    before = await world.stored(table.id)

    # The other player's client shows no such button; they forge the click on their own DM.
    click = await fake_discord.click(
        other, with_button(await world.latest_dm(other), custom_id), custom_id, force=True
    )

    assert "It is not your turn." in await ephemeral_reply(click)
    assert await world.stored(table.id) == before


async def test_a_stale_dm_button_is_out_of_date(fake_discord: FakeDiscord, world: Table) -> None:
    table, people = await four_people_at_play(world)
    user, dm, custom_id = await turn_dm(world, table, people)
    shown = dm.history[-1].components
    old = another_card(custom_id, table.deal.hands[table.seat_of(user.id)])
    await world.click_and_settle(user, dm, custom_id)
    await fake_discord.wait_for(lambda: current_button(dm, table.version - 1) is None, what="the DM edit")
    before = await world.stored(table.id)

    # Another card of the old position, on a phone that still shows the DM as it was: that position is gone.
    stale = await fake_discord.click(user, with_button(as_shown(dm, shown), old), old)

    assert OUT_OF_DATE in await ephemeral_reply(stale)
    assert await world.stored(table.id) == before


@pytest.mark.usefixtures("patient_repeats")
async def test_a_repeated_click_of_a_move_made_is_acknowledged_and_changes_nothing(
    fake_discord: FakeDiscord, world: Table
) -> None:
    table, people = await four_people_at_play(world)
    user, dm, custom_id = await turn_dm(world, table, people)
    shown = dm.history[-1].components
    await world.click_and_settle(user, dm, custom_id)
    await fake_discord.wait_for(lambda: current_button(dm, table.version - 1) is None, what="the DM edit")
    before, edits = await world.stored(table.id), len(dm.history)

    # The same card again, on a phone that still shows the DM as it was: the move it asks for was made. A
    # deferred update acknowledges it; no "out of date" pops up, and the DM already shows the move.
    again = await fake_discord.click(user, as_shown(dm, shown), custom_id)
    await again.wait_response()

    assert again.response_type == 6 and not again.followups
    assert await world.stored(table.id) == before
    assert len(dm.history) == edits


async def test_a_stranger_may_not_use_game_or_lobby_buttons(fake_discord: FakeDiscord, world: Table) -> None:
    host, guest = world.add_player("anna"), world.add_player("bert")
    stranger = world.add_player("zaungast")
    await world.start_bot()
    table = await world.open_table(host, [guest], start=False)
    lobby = await world.table_message()
    before = await world.stored(table.id)
    refusals = {
        "Start": "Only the host can do that.",
        "Add AI player": "You are not seated at this table.",
        "Leave": "You are not seated at this table.",
    }
    for label, expected in refusals.items():
        click = await fake_discord.click(stranger, lobby, label=label)
        assert expected in await ephemeral_reply(click), label
    assert await world.stored(table.id) == before

    await world.command(world.admin, "settings", ai_delay_ms=0)
    start = await fake_discord.click(host, lobby, label="Start")
    await start.wait_response()
    await fake_discord.wait_for(lambda: table.status == "playing", what="the game to start")
    await world.play([host, guest], until=lambda t: t.seat_of(host.id) == t.deal.to_act)
    dm = await world.latest_dm(host, lambda m: current_button(m, table.version) is not None)
    custom_id = current_button(dm, table.version)["custom_id"]  # type: ignore[index]
    before = await world.stored(table.id)
    playing = await world.table_message(lambda m: any(b.get("label") == "My hand" for b in m.buttons))

    forged = await fake_discord.click(stranger, with_button(playing, custom_id), custom_id, force=True)
    assert "You do not play at this table." in await ephemeral_reply(forged)
    hand = await fake_discord.click(stranger, playing, label="My hand")
    assert "You are not seated at this table." in await ephemeral_reply(hand)
    after = await world.stored(table.id)  # (the players' DM ids may still be arriving: not game state)
    assert (after.row, after.record) == (before.row, before.record)


@pytest.mark.usefixtures("patient_repeats")
async def test_two_clicks_at_once_apply_once(fake_discord: FakeDiscord, world: Table) -> None:
    table, people = await four_people_at_play(world)
    user, dm, custom_id = await turn_dm(world, table, people)
    actions = await world.action_count(table.id)

    first = await fake_discord.click(user, dm, custom_id)
    second = await fake_discord.click(user, dm, custom_id)  # both are on the wire before either is answered

    await first.wait_response()
    await second.wait_response()
    # The stored move is shown in its click's own answer (an update of the DM); the other, a repeat of that
    # move, is acknowledged alone (a deferred update that shows nothing) once the move is stored.
    repeated, applied = sorted((first, second), key=lambda click: click.response_type or 0)
    assert (repeated.response_type, applied.response_type) == (6, 7)
    assert not repeated.followups
    assert await world.action_count(table.id) == actions + 1


async def test_a_rate_limited_table_edit_still_shows_the_latest_state(
    fake_discord: FakeDiscord, world: Table
) -> None:
    table, people = await four_people_at_play(world)
    user, dm, custom_id = await turn_dm(world, table, people)
    table_message = await world.table_message()
    world.forget_table_clicks()  # the table message is edited with the bot token
    rule = fake_discord.fail_next("PATCH", f"/channels/{world.channel.id}/messages/*", status=429)

    await world.click_and_settle(user, dm, custom_id)

    expected = (await payloads.table_payload(table.snapshot(), "en")).embeds[0].to_dict()
    await fake_discord.wait_for(
        lambda: table_message.embeds and table_message.embeds[0] == expected,
        what="the table message to show the position after the click",
    )
    assert rule.fired == 1
    edits = [r.status for r in fake_discord.requests_to("PATCH", f"/channels/{world.channel.id}/messages/*")]
    assert 429 in edits and edits[-1] == 200


async def test_a_flooding_user_is_throttled_and_other_tables_are_not(
    fake_discord: FakeDiscord, world: Table
) -> None:
    host, flooder, other = world.add_player("anna"), world.add_player("flo"), world.add_player("otto")
    second = world.guild.add_text_channel("nebenan")
    await world.start_bot()
    await world.open_table(host, [None, None, None])
    assert world.bot is not None
    # From now on: three actions per user per hour (the setting is read on every click).
    world.bot.settings = dataclasses.replace(world.bot.settings, throttle_actions=3, throttle_window=3600.0)
    playing = await world.table_message(lambda m: any(b.get("label") == "My hand" for b in m.buttons))
    clicks = [await fake_discord.click(flooder, playing, label="My hand") for _ in range(5)]
    replies = [await reply_to(click) for click in clicks]
    assert all(reply.ephemeral for reply in replies)
    # The first three get their plain answer (flo has no seat here); after that, flo is slowed down.
    assert ["Slow down" in reply.visible_text for reply in replies] == [False, False, False, True, True]
    # Someone else, at another table, is served as usual.
    opened = await fake_discord.slash(other, second, "schnapsen", "new")
    assert "Slow down" not in (await reply_to(opened)).visible_text
    assert world.bot.service.table_in_channel(second.id) is not None
