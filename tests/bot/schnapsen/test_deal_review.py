""""Show the deal" on result messages, through the real client and the fake Discord: the image of every hand
and trick after the deal (also after a restart), nothing of a running deal or of another server's table, and
the server setting that turns it off; a deal ended by an announced 40 shows that lead."""

from __future__ import annotations

import engine
from bot.render import ALL_CARDS, card_name
from bot.schnapsen.components import GameActionButton
from bot.schnapsen.ids import ButtonId
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import Table, ephemeral_reply, game_buttons, reply_to, with_button

SHOW_THE_DEAL = "Show the deal"


def review_id(table_id: int, deal_no: int) -> str:
    return f"bsdeal:{table_id}:{deal_no}"


def result_messages(world: Table) -> list[FakeMessage]:
    """The deal results in the channel, oldest first (each carries the result image)."""
    return [m for m in world.channel.messages if "result.png" in m.filenames]


async def play_first_deal(world: Table, player: FakeUser) -> FakeMessage:
    """Open a table of ``player`` and three AI players, play the first deal; returns its result message.
    The Bummerl goes to 1000: to 24 one deal may end it (a Schnapser with Kontra and Re counts 24)."""
    await world.no_ai_delay()
    await world.open_table(player, [None, None, None], target=1000)
    await world.play([player], until=lambda t: t.deal_no >= 1)
    return await world.fake.wait_for(lambda: next(iter(result_messages(world)), None), what="the result")


async def test_the_result_shows_the_whole_deal_after_it_and_after_a_restart(
    fake_discord: FakeDiscord, world: Table
) -> None:
    anna, onlooker = world.add_player("anna"), world.add_player("otto")
    await world.start_bot()
    result = await play_first_deal(world, anna)
    table_id = world.live.id
    button = result.button(SHOW_THE_DEAL)
    assert button["custom_id"] == review_id(table_id, 0)

    for clicker in (anna, onlooker):  # the deal is over: anyone in the channel may look at it
        click = await fake_discord.click(clicker, result, label=SHOW_THE_DEAL)
        answer = await reply_to(click)
        assert answer.ephemeral and answer.filenames == ["deal.png"]
        alt = answer.attachment("deal.png").description or ""
        deck = world.live.row.deck
        missing = [card for card in ALL_CARDS if card_name(card, deck, "en") not in alt]
        assert not missing, f"the alt text names every one of the 20 cards; missing {missing}: {alt}"
        assert "Trick 1:" in alt and "won it" in alt and " win the deal with " in alt

    # After a restart the button on the old message still answers, from the stored record.
    await world.stop_bot()
    await world.start_bot()
    click = await fake_discord.click(anna, result, label=SHOW_THE_DEAL, locale="de")
    answer = await reply_to(click)
    assert answer.filenames == ["deal.png"]
    alt = answer.attachment("deal.png").description or ""
    assert "Stich 1:" in alt and all(card_name(card, deck, "de") in alt for card in ALL_CARDS)


async def test_a_forged_click_shows_nothing_of_a_running_deal_or_another_servers_table(
    fake_discord: FakeDiscord, world: Table
) -> None:
    anna = world.add_player("anna")
    elsewhere = fake_discord.add_guild("Nachbarn")
    their_channel = elsewhere.add_text_channel("karten")
    elsewhere.add_member(anna)
    await world.start_bot()
    result = await play_first_deal(world, anna)
    table = world.live
    assert table.status == "playing" and not table.deal.finished, "the second deal runs"
    # Its hand DM is stored first: storing it changes anna's seat row, which the look must not.
    seat = table.seat_of(anna.id)
    await fake_discord.wait_for(lambda: world.live.seats[seat].dm_message_id is not None, what="the hand DM")
    before = await world.stored(table.id)

    forged = review_id(table.id, table.deal_no)
    running = await fake_discord.click(anna, with_button(result, forged), forged, force=True)
    assert "not over yet" in await ephemeral_reply(running)
    assert not (await reply_to(running)).filenames
    forged = review_id(table.id, 99)
    never_dealt = await fake_discord.click(anna, with_button(result, forged), forged, force=True)
    assert "no such deal" in await ephemeral_reply(never_dealt)

    # The finished deal, clicked from another server: that server has no such table.
    forged = review_id(table.id, 0)
    moved = with_button(result, forged)
    moved.channel = their_channel
    foreign = await fake_discord.click(anna, moved, forged, force=True)
    assert "no such deal" in await ephemeral_reply(foreign)
    assert not (await reply_to(foreign)).filenames
    # A look at a deal changes nothing. (The running deal may move on meanwhile: its AI seats play.)
    after = await world.stored(table.id)
    assert after.seats == before.seats and after.record.deals[:1] == before.record.deals[:1]


async def test_with_deal_review_off_the_button_is_gone_and_old_ones_are_refused(
    fake_discord: FakeDiscord, world: Table
) -> None:
    anna = world.add_player("anna")
    await world.start_bot()
    first_result = await play_first_deal(world, anna)
    assert first_result.button(SHOW_THE_DEAL)

    settings = await world.command(world.admin, "settings", deal_review=False)
    assert "Finished deals are not shown." in (await reply_to(settings)).content
    await world.play([anna], until=lambda t: t.deal_no >= 2)
    second_result = await fake_discord.wait_for(
        lambda: result_messages(world)[1] if len(result_messages(world)) > 1 else None, what="the second result"
    )
    shown = [b.get("label") for b in second_result.buttons]
    assert SHOW_THE_DEAL not in shown and "Review my play" in shown, "no Show the deal while the server has it off"
    old = await fake_discord.click(anna, first_result, label=SHOW_THE_DEAL)
    assert "turned off" in await ephemeral_reply(old)
    assert not (await reply_to(old)).filenames

    await world.command(world.admin, "settings", deal_review=True)
    again = await fake_discord.click(anna, first_result, label=SHOW_THE_DEAL)
    assert (await reply_to(again)).filenames == ["deal.png"]


# Dealt from seed 0 with North dealing: East turns up the Unter of Hearts (Aufschlagen: Hearts are trump),
# West trumps trick 1 (28 card points) and leads the King of Hearts with a 40: 68, the deal is over at once,
# the King never played on the table (RULES.md 6.1).
FINAL_LEAD_SEED = 0
FINAL_LEAD_DEAL = [
    "E aufschlagen", "E pass", "S pass", "W pass", "N pass", "S pass", "N pass",
    "E play SQ", "S play SK", "W play HT", "N play DA",
    "W play HK 40",
]  # fmt: skip


async def click_move(world: Table, user: FakeUser, action: engine.Action) -> None:
    """``user`` clicks the button of ``action`` on their hand, once the hand shows it for the position."""

    def shown() -> tuple[FakeMessage, str] | None:
        message, version = world.hand_message(user), world.live.version
        for button in [] if message is None else game_buttons(message):
            parsed = ButtonId.parse(button["custom_id"])
            if parsed is not None and parsed.version == version and GameActionButton.action_of(parsed) == action:
                return message, button["custom_id"]
        return None

    message, custom_id = await world.fake.wait_for(shown, what=f"{user.name}'s button for {action}")
    await world.click_and_settle(user, message, custom_id)


async def test_a_deal_ended_by_a_40_shows_that_lead_and_its_marriage(fake_discord: FakeDiscord, world: Table) -> None:
    players = [world.add_player(name) for name in ("anna", "bert", "cleo", "dora")]
    bot = await world.start_bot()
    bot.service.new_seed = lambda: FINAL_LEAD_SEED
    await world.open_table(players[0], players[1:], first_dealer=0)
    for text in FINAL_LEAD_DEAL:
        seat, action = engine.parse_action(text)
        await click_move(world, players[seat], action)
    result = await fake_discord.wait_for(lambda: next(iter(result_messages(world)), None), what="the result")

    click = await fake_discord.click(players[2], result, label=SHOW_THE_DEAL)
    answer = await reply_to(click)
    assert answer.filenames == ["deal.png"]
    deck = world.live.row.deck
    king, unter = card_name("HK", deck, "en"), card_name("HJ", deck, "en")
    lead = f"Trick 2: dora led {king}, and the deal was over."
    alt = answer.attachment("deal.png").description or ""
    assert f"{lead} dora announced 40 in Hearts." in alt, alt
    never_played = alt.split("Never played: ")[1]
    assert king not in never_played and unter in never_played, "the King was led; East's turned-up Unter never was"
    text = answer.embeds[0]["description"]
    assert text.splitlines()[-2:] == [lead, "dora announced 40 in Hearts."], text
