"""Whole Bummerl played through the real client and the fake Discord: four people by DM, a person whose DMs
are closed, a restart in the middle of a deal, two Bummerl for the leaderboard, and an export mid-deal."""

from __future__ import annotations

import json

from bot.db import Database, SeatRow
from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import Table, current_button, is_hand_message

DMS_CLOSED_NOTICE = "I cannot send you direct messages"


async def test_four_people_play_a_bummerl_by_dm(fake_discord: FakeDiscord, world: Table) -> None:
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    await world.start_bot()
    table = await world.open_table(people[0], people[1:], target=5)

    clicks = await world.play(people, timeout=30)

    assert table.status == "finished"
    assert table.match.bummerls, "the Bummerl has a winner"
    deals = table.deal_no + 1
    assert clicks >= deals * 5  # at least trump and the five tricks' worth of cards per deal, by people only
    for person in people:
        dms = fake_discord.dm_messages(person)
        assert len(dms) == deals, f"{person.name} got {len(dms)} DMs for {deals} deals (one per deal)"
        assert any(dm.edit_count > 0 for dm in dms), "a hand DM is edited in place, not re-sent"

    def finished_dms_show_their_end() -> bool:  # each deal's DM gets a last edit: "over", no buttons left
        return all(
            not dm.buttons and "This deal is over" in dm.visible_text
            for person in people
            for dm in fake_discord.dm_messages(person)
        )

    await fake_discord.wait_for(
        finished_dms_show_their_end, what="every finished deal's DM to say it is over"
    )
    dm_ids = {str(dm.id) for person in people for dm in fake_discord.dm_messages(person)}
    dm_edits = [
        r
        for r in fake_discord.requests_to("PATCH", "/channels/*/messages/*")
        if r.path.split("/")[-1] in dm_ids
    ]
    # A DM is edited only when something its owner sees changed (not for every card of the others), and
    # its hand image is uploaded again only when it changed.
    assert dm_edits and len(dm_edits) < 3 * clicks, (len(dm_edits), clicks)
    last_upload: dict[str, bytes] = {}
    for request in dm_edits:
        for upload in request.files:
            assert last_upload.get(request.path) != upload.data, "the same hand image was uploaded again"
            last_upload[request.path] = upload.data
    final = await world.table_message(lambda m: m.buttons and m.buttons[0].get("label") == "Rematch")
    assert "The Bummerl is over" in final.visible_text


async def test_closed_dms_play_through_the_my_hand_message(fake_discord: FakeDiscord, world: Table) -> None:
    hidden = world.add_player("hilde", dms_open=False)
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(hidden, [None, None, None], target=5)
    await world.table_message()
    await fake_discord.wait_for(
        lambda: any(DMS_CLOSED_NOTICE in text for text in world.channel_texts()), what="the closed-DMs notice"
    )

    # The first move through the ephemeral hand: the click edits that same ephemeral message.
    await world.play(
        [hidden],
        until=lambda t: any(
            current_button(m, t.version)
            for m in fake_discord.ephemeral_messages(hidden)
            if is_hand_message(m)
        ),
    )
    hand = world.hand_message(hidden)
    assert hand is not None and hand.ephemeral
    edits_before = hand.edit_count
    button = current_button(hand, table.version)
    assert button is not None
    await world.click_and_settle(hidden, hand, button["custom_id"])
    await fake_discord.wait_for(
        lambda: hand.edit_count > edits_before, what="the ephemeral hand to be edited"
    )
    assert current_button(hand, table.version) is None or table.deal.to_act == table.seat_of(hidden.id)

    await world.play([hidden], timeout=30)
    assert table.status == "finished"

    # One more deal at least (a doubled contract can end a short Bummerl in one deal): still said once.
    await world.rematch(hidden)
    deals = table.deal_no
    await world.play(
        [hidden],
        until=lambda t: (
            t.deal_no > deals
            and t.deal.to_act == 0
            and current_button(world.hand_message(hidden), t.version) is not None
        ),
    )
    assert fake_discord.dm_messages(hidden) == []
    notices = [text for text in world.channel_texts() if DMS_CLOSED_NOTICE in text]
    assert len(notices) == 1, f"the closed-DMs notice is said once, not {len(notices)} times"


def seat_state(seat: SeatRow) -> tuple[object, ...]:
    return (seat.seat, seat.user_id, seat.display_name, seat.ai_takeover, seat.dms_closed, seat.warned)


async def test_a_restart_mid_deal_loses_nothing(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [bob, None, None], target=5)
    # Play into the first deal until it is alice's turn with a few actions stored.
    await world.play(
        [alice, bob],
        until=lambda t: (
            len(t.log) >= 4
            and t.deal.to_act == 0
            and current_button(world.hand_message(alice), t.version) is not None
        ),
    )
    table_id, version, deal = table.id, table.version, table.deal
    old_dm = world.hand_message(alice)
    assert old_dm is not None
    button = current_button(old_dm, version)
    assert button is not None
    await world.stop_bot()
    # What the stopped bot left on disk (read while it ran, a write of its still on the way could be missed).
    db = await Database.open(world.settings.database_path)
    try:
        left = (await db.tables.get_table(table_id), await db.seats.seats_of(table_id))
        stored_record = await db.records.load_record(table_id)
    finally:
        await db.close()
    restarted = await world.start_bot()
    restored = restarted.service.snapshot(table_id)
    assert restored is not None
    assert restored.version == version and restored.deal == deal
    stored = await world.stored(table_id)
    assert stored.row == left[0] and stored.record == stored_record
    # The seats keep their people and states; a hand's DM may be sent anew by the restart (its message id).
    assert [seat_state(seat) for seat in stored.seats] == [seat_state(seat) for seat in left[1]]

    # The DM the first bot instance sent still works with the new instance.
    await world.click_and_settle(alice, old_dm, button["custom_id"])
    after = await world.stored(table_id)
    # The AI seats may move at once after alice, so only the prefix and her action are fixed.
    before_actions = stored.record.deals[-1].actions
    after_actions = after.record.deals[-1].actions
    assert after_actions[: len(before_actions)] == before_actions
    assert after_actions[len(before_actions)].startswith("N ")
    await world.play([alice, bob], timeout=30)
    assert world.live.status == "finished"


async def test_leaderboard_after_two_bummerl(fake_discord: FakeDiscord, world: Table) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [bob, None, None], target=3)  # alice North, bob East: opponents
    await world.play([alice, bob], timeout=30)
    await world.rematch(bob)
    await world.play([alice, bob], timeout=30)
    assert table.status == "finished" and len(table.match.bummerls) == 2

    north_won = sum(1 for b in table.match.bummerls if b.winner == 0)
    expected = {"alice": (north_won, 2 - north_won), "bob": (2 - north_won, north_won)}
    board = await world.command(bob, "leaderboard")
    embed = board.original.embeds[0]
    lines = embed["description"].splitlines()
    assert len(lines) == 2
    ranks = {}
    for line in lines:
        rank = int(line.split("**")[1].rstrip("."))
        name = line.split("** ")[1].split(" · ")[0]
        won_lost = line.split(" · ")[1]
        ranks[name] = rank
        won, lost = expected[name]
        assert won_lost == f"{won} won, {lost} lost", line
    assert f"you are #{ranks['bob']}" in embed["footer"]["text"]
    if north_won != 1:  # with one Bummerl each, game points decide the order
        leader = "alice" if north_won == 2 else "bob"
        assert ranks[leader] == 1 and sorted(ranks.values()) == [1, 2]


async def test_export_mid_deal_has_only_finished_deals(fake_discord: FakeDiscord, world: Table) -> None:
    alice = world.add_player("alice")
    await world.start_bot()
    await world.no_ai_delay()
    # A long Bummerl: a 24-point contract in the first deal must not end it before the second deal runs.
    table = await world.open_table(alice, [None, None, None], target=500)
    await world.play(
        [alice], until=lambda t: t.deal_no >= 1 and t.deal.to_act == 0 and len(t.deal.tricks) >= 1
    )
    running_hands = [list(hand) for hand in table.deal.dealt]

    export = await world.command(alice, "export")
    message = await export.wait_original()
    assert message.ephemeral
    data = json.loads(message.attachments[0].data)
    record = await world.bot.db.records.load_record(table.id)
    finished = [deal for deal in record.deals if deal.finished]
    assert len(data["deals"]) == len(finished) == table.deal_no
    for exported, stored in zip(data["deals"], finished, strict=True):
        assert list(exported["hands"].values()) == [list(hand) for hand in stored.hands]
        assert exported["actions"] == list(stored.actions)
        assert list(exported["hands"].values()) != running_hands, "the running deal's hands leaked"
