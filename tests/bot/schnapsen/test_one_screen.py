"""One screen is enough, and sorted hands (issue 13): a whole deal played from the DM alone, and from the
channel alone (the ephemeral hand, kept up to date, and a turn notice when its token ran out); the hand in
the player's order in the image's alt text and the buttons, for a trump deal and a Zehnerloch deal, and in
the order dealt when the player chose that."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import pytest

import engine
from bot.render import card_name
from bot.schnapsen.components import GameActionButton
from bot.schnapsen.ids import ButtonId
from bot.schnapsen.texts import seat_name
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import (
    CurrentTable,
    Table,
    current_button,
    ephemeral_reply,
    first_deal_over,
    is_hand_message,
)

SHOW_MY_CARDS = "Show my cards"
TURN_CAPTIONS = ("led · your turn", "your lead", "Your lead")


def action_on(button: dict[str, Any]) -> engine.Action | None:
    parsed = ButtonId.parse(button["custom_id"])
    return None if parsed is None else GameActionButton.action_of(parsed)


def card_buttons(message: FakeMessage) -> list[str]:
    """The cards of the message's card buttons, in the order shown (marriages left out)."""
    cards = []
    for button in message.buttons:
        action = action_on(button)
        if isinstance(action, engine.PlayCard) and action.marriage is None:
            cards.append(action.card)
    return cards


def alt_text(message: FakeMessage) -> str:
    return message.attachments[0].description or ""


def hand_in_alt(cards: list[str] | tuple[str, ...]) -> str:
    return "Your hand: " + ", ".join(card_name(card, "doppeldeutsch", "en") for card in cards) + "."


def hand_of(table: CurrentTable, user: FakeUser) -> tuple[str, ...]:
    deal = table.deal
    seat = table.seat_of(user.id)
    assert deal is not None and seat is not None
    return deal.hands[seat]


async def play_from_dms(
    world: Table, people: list[FakeUser], choose: Callable[[FakeMessage, list[dict[str, Any]]], dict[str, Any]],
    until: Callable[[Any], bool],
) -> None:  # fmt: skip
    """Whoever's DM shows buttons for the current position presses the one ``choose`` picks, until ``until``
    holds or the table no longer plays (a Bummerl can end in one deal: a Kontrabauernschnapser is worth 24)."""
    table = CurrentTable(world, world.live.id)
    while True:

        def next_click() -> tuple[Any, ...] | None:
            now = table.now()
            if now is None or now.status != "playing" or until(now):
                return ("stop",)
            for user in people:
                dms = world.fake.dm_messages(user)
                if dms and current_button(dms[-1], now.version) is not None:
                    return (user, dms[-1])
            return None

        # A timeout says where the table stands (the harness's where_it_stands).
        step = await world.fake.wait_for(next_click, timeout=20, what="a DM with buttons for the position")
        if step[0] == "stop":
            return
        user, message = step
        enabled = [b for b in message.buttons if not b.get("disabled") and action_on(b) is not None]
        await world.click_and_settle(user, message, choose(message, enabled)["custom_id"])


def first_card_play(table: CurrentTable) -> bool:
    deal = table.snapshot().deal
    return deal is not None and deal.phase == engine.PLAY


@pytest.mark.parametrize("target", [None, 1], ids=["bummerl_to_24", "every_deal_ends_the_bummerl"])
async def test_a_whole_deal_played_from_the_dm_alone(
    fake_discord: FakeDiscord, world: Table, target: int | None
) -> None:
    anna = world.add_player("anna")
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(anna, [None, None, None], target=target)
    channel_interactions = len([i for i in fake_discord.interactions if i.channel is world.channel])
    turn_images = 0
    played_in: int | None = None  # the deal in which anna first played a card

    def choose(message: FakeMessage, enabled: list[dict[str, Any]]) -> dict[str, Any]:
        nonlocal turn_images, played_in
        now = table.snapshot()
        deal = now.deal
        assert deal is not None
        if deal.phase == engine.PLAY:
            # The one image shows the cards on the table above the hand; the text keeps the rest.
            turn_images += 1
            played_in = now.deal_no if played_in is None else played_in
            text = alt_text(message)
            assert any(caption in text for caption in TURN_CAPTIONS), text
            for seat, card in deal.trick:
                assert f"{seat_name(now, seat)} played {card_name(card, 'doppeldeutsch', 'en')}" in text
            assert hand_in_alt(engine.display_order(hand_of(table, anna), deal.trump, deal.contract)) in text
            fields = {field["name"] for field in message.embeds[0].get("fields", [])}
            assert {"Trump", "Contract", "Bummerl"} <= fields, fields
        return enabled[0]

    # A deal in which anna never plays a card (her partner's Bettler, where she sits out) shows no turn
    # image: play on to the end of a deal in which she did play. That deal may end the whole Bummerl (a
    # Kontrabauernschnapser is worth 24: CI once waited for a next deal that never came); if the Bummerl ends
    # before she played a card (her partner's Bettler deals add up), a rematch follows.
    while True:
        await play_from_dms(
            world, [anna], choose, until=lambda now: played_in is not None and now.deal_no > played_in
        )
        if played_in is not None:
            break
        assert table.status == "finished", table.status
        await world.rematch(anna)
        channel_interactions = len([i for i in fake_discord.interactions if i.channel is world.channel])

    now = table.snapshot()
    if now.status == "finished":
        assert now.last_bummerl is not None, "the deal she played in ended the Bummerl"
    else:
        assert now.deal_no > played_in and now.match.score != (0, 0), "the deal she played in was scored"
    assert turn_images >= 1
    # Not one click in the channel while the deal ran: everything happened in anna's DM.
    assert len([i for i in fake_discord.interactions if i.channel is world.channel]) == channel_interactions
    assert len(fake_discord.dm_messages(anna)) >= 1


async def test_a_whole_deal_played_from_the_channel_alone(fake_discord: FakeDiscord, world: Table) -> None:
    anna = world.add_player("anna")
    await world.start_bot()
    await world.no_ai_delay()
    prefs = await world.command(anna, "prefs", hand="channel")
    assert "In the channel, only to you" in await ephemeral_reply(prefs)
    table = await world.open_table(anna, [None, None, None])
    notices_pressed: list[FakeMessage] = []
    expired, notices_before_expiry, clicks_after_expiry = False, 0, 0

    def turn_notice(version: int) -> FakeMessage | None:
        for message in reversed(world.channel.messages):
            if not message.deleted and any(b.get("label") == SHOW_MY_CARDS for b in message.buttons):
                return message if message.nonce == f"t{table.id}.{version}" else None
        return None

    while not first_deal_over(table.now()):

        def next_step() -> tuple[Any, ...] | None:
            now = table.now()
            if first_deal_over(now):
                return ("stop",)
            hands = [m for m in fake_discord.ephemeral_messages(anna) if is_hand_message(m)]
            if hands and (button := current_button(hands[-1], now.version)) is not None:
                return ("click", hands[-1], button)
            notice = turn_notice(now.version)
            if notice is not None and notice not in notices_pressed:
                return ("notice", notice)
            return None

        step = await fake_discord.wait_for(next_step, timeout=20, what="anna's hand or a turn notice")
        if step[0] == "stop":
            break
        if step[0] == "notice":
            notices_pressed.append(step[1])
            opened = await fake_discord.click(anna, step[1], label=SHOW_MY_CARDS)
            await opened.wait_followups(1)
            continue
        _, message, button = step
        if isinstance(action_on(button), engine.PlayCard):  # the one screen: the table's cards above the hand
            assert any(caption in alt_text(message) for caption in TURN_CAPTIONS), alt_text(message)
        click = await world.click_and_settle(anna, message, button["custom_id"])
        clicks_after_expiry += expired
        if not expired and first_card_play(table):
            # The token of that click runs out: the next turn is announced in the channel instead.
            expired, notices_before_expiry = True, len(notices_pressed)
            click.age(16 * 60)
            for interaction in fake_discord.interactions:
                if interaction.user is anna:
                    interaction.age(16 * 60)

    assert table.deal_no >= 1 or table.status == "finished", "the first deal was played to its end"
    assert fake_discord.dm_messages(anna) == [], "a hand in the channel is never sent by DM"
    assert all(i.channel is world.channel for i in fake_discord.interactions if i.user is anna)
    # Once when the deal began (no hand open yet), and once after the token ran out (if anna had a turn
    # left then): between them every turn came to the ephemeral hand by itself.
    if expired:
        assert notices_before_expiry == 1
        assert len(notices_pressed) == 1 + (clicks_after_expiry > 0), (
            clicks_after_expiry,
            len(notices_pressed),
        )
    else:  # the deal ended before anna played a card (a contract she sat out, or one decided at once)
        assert len(notices_pressed) <= 1
    assert all(
        "<@" in notice.content and "your turn at table" in notice.content for notice in notices_pressed
    )


async def four_to_first_card(
    world: Table, people: list[FakeUser], bid: engine.Contract | None
) -> tuple[CurrentTable, FakeUser, FakeMessage]:
    """Four people by DM play to the first card: trump is named with the first button, then everybody
    passes except the first who may bid ``bid``; returns the table, who leads and their DM."""
    table = await world.open_table(people[0], people[1:])
    bid_made = False

    def choose(message: FakeMessage, enabled: list[dict[str, Any]]) -> dict[str, Any]:
        nonlocal bid_made
        for button in enabled:
            if bid is not None and not bid_made and action_on(button) == engine.Bid(bid):
                bid_made = True
                return button
        for button in enabled:
            if isinstance(action_on(button), engine.Pass):
                return button
        return enabled[0]

    await play_from_dms(world, people, choose, until=lambda now: now.deal.phase == engine.PLAY)
    deal = table.deal
    leader = next(user for user in people if table.seat_of(user.id) == deal.to_act)
    dm = await world.latest_dm(leader, lambda m: current_button(m, table.version) is not None)
    return table, leader, dm


async def test_sorted_hand_of_a_trump_deal_in_alt_text_and_buttons(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    await world.start_bot()
    table, leader, dm = await four_to_first_card(world, people, None)
    deal = table.deal
    assert deal.contract is engine.Contract.NORMAL and deal.trump is not None
    expected = engine.display_order(hand_of(table, leader), deal.trump, deal.contract)
    assert card_buttons(dm) == list(expected)
    assert hand_in_alt(expected) in alt_text(dm)
    trumps = [card for card in expected if card[0] == deal.trump]
    assert list(expected[: len(trumps)]) == trumps, "trumps come first"


async def test_sorted_hand_of_a_zehnerloch_deal_ranks_ten_king_ober_unter_sow(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    await world.start_bot()
    table, leader, dm = await four_to_first_card(world, people, engine.Contract.ZEHNERLOCH)
    deal = table.deal
    assert deal.contract is engine.Contract.ZEHNERLOCH
    expected = engine.display_order(hand_of(table, leader), deal.trump, deal.contract)
    assert card_buttons(dm) == list(expected)
    assert hand_in_alt(expected) in alt_text(dm)
    ranks = "TKQJA"
    for left, right in itertools.pairwise(expected):
        if left[0] == right[0]:
            assert ranks.index(left[1]) < ranks.index(right[1]), expected  # Zehnerloch's own rank order
    # No trump group in a contract without trumps: the suits simply follow each other.
    suits = [card[0] for card in expected]
    assert suits == sorted(suits, key=engine.SUITS.index)


async def test_dealt_order_when_the_player_chose_it(fake_discord: FakeDiscord, world: Table) -> None:
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    await world.start_bot()
    for person in people:
        await world.command(person, "prefs", order="dealt")
    table, leader, dm = await four_to_first_card(world, people, None)
    dealt = hand_of(table, leader)  # the cards still held, in the order they were dealt
    assert card_buttons(dm) == list(dealt)
    assert hand_in_alt(dealt) in alt_text(dm)

    # Back to sorted: the open hand is shown in the new order at once.
    answer = await world.command(leader, "prefs", order="sorted")
    assert "Sorted" in await ephemeral_reply(answer)
    deal = table.deal
    expected = list(engine.display_order(dealt, deal.trump, deal.contract))
    resorted = await world.latest_dm(leader, lambda m: card_buttons(m) == expected)
    assert hand_in_alt(expected) in alt_text(resorted)


async def test_a_hand_moved_to_the_channel_while_its_dm_was_on_the_way_leaves_the_dm_saying_so(
    fake_discord: FakeDiscord, world: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move finds no DM to retire (it is sent but not yet stored); once stored, the DM says where the
    hand went instead of showing the deal's first position for good."""
    anna = world.add_player("anna")
    bot = await world.start_bot()
    await world.no_ai_delay()
    stored_dm = asyncio.Event()
    set_dm = bot.service.seating.set_dm

    async def set_dm_after_the_move(*args: Any) -> Any:
        await stored_dm.wait()
        return await set_dm(*args)

    monkeypatch.setattr(bot.service.seating, "set_dm", set_dm_after_the_move)
    table = await world.open_table(anna, [None, None, None])
    dm = await world.latest_dm(anna, lambda m: bool(m.attachments))
    assert table.seats[table.seat_of(anna.id)].dm_message_id is None, "sent, not yet stored"
    moved = await world.command(anna, "prefs", hand="channel")
    assert "In the channel, only to you" in await ephemeral_reply(moved)
    stored_dm.set()
    await fake_discord.wait_for(
        lambda: "shown in the channel now" in dm.visible_text and not dm.buttons, what="the DM to say so"
    )


async def test_a_new_place_applies_at_once_to_the_open_table(fake_discord: FakeDiscord, world: Table) -> None:
    anna = world.add_player("anna")
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(anna, [None, None, None])
    dm = await world.latest_dm(anna, lambda m: table.seat_of(anna.id) is not None and bool(m.attachments))

    # To the channel: the DM says where the hand went and loses its buttons; the answer shows the hand.
    moved = await world.command(anna, "prefs", hand="channel")
    assert "In the channel, only to you" in await ephemeral_reply(moved)
    await fake_discord.wait_for(
        lambda: "shown in the channel now" in dm.visible_text and not dm.buttons, what="the DM to say so"
    )
    shown = await moved.wait_followups(2)
    assert shown[-1].ephemeral and is_hand_message(shown[-1]) and shown[-1].attachments

    def ephemeral_hand_is_current() -> bool:
        now = table.snapshot()
        deal = now.deal
        hands = [m for m in fake_discord.ephemeral_messages(anna) if is_hand_message(m)]
        if deal is None or deal.to_act != now.seat_of(anna.id):
            return True  # not anna's turn: nothing to press
        return bool(hands) and current_button(hands[-1], now.version) is not None

    await fake_discord.wait_for(ephemeral_hand_is_current, what="the ephemeral hand to follow the game")

    # Back to DMs: the same DM shows the hand again, with buttons whenever it is anna's turn.
    back = await world.command(anna, "prefs", hand="dm")
    assert "By direct message" in await ephemeral_reply(back)
    await fake_discord.wait_for(
        lambda: "shown in the channel now" not in dm.visible_text and bool(dm.attachments),
        what="the DM to show the hand again",
    )
