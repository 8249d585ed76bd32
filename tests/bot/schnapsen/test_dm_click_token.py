"""Calls on the bot token's global budget (issue 28): a click on a hand DM edits that DM through the click's
own interaction token (exempt from the global limit), falling back to the bot token when Discord refuses the
token; a deal's DM goes to the DM channel known for its owner, without opening it again."""

from __future__ import annotations

import gc
from typing import Any

import discord

from devtools.fakediscord import FakeDiscord
from devtools.fakediscord.state import FakeInteraction, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import CurrentTable, Table, current_button

BOT_TOKEN_EDIT = "/channels/{channel_id}/messages/{message_id}"


async def four_by_dm(world: Table) -> tuple[list[FakeUser], CurrentTable]:
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    await world.start_bot()
    table = await world.open_table(people[0], people[1:], target=5)
    return people, table


async def click_whoever_may(
    fake: FakeDiscord, world: Table, people: list[FakeUser], table: CurrentTable
) -> tuple[FakeInteraction, FakeMessage, str]:
    """The person whose DM shows a button for the current position clicks it (the move is applied)."""

    def someone() -> tuple[FakeUser, FakeMessage, dict[str, Any]] | None:
        for person in people:
            dm = world.hand_message(person)
            button = current_button(dm, table.version)
            if dm is not None and button is not None:
                return person, dm, button
        return None

    person, dm, button = await fake.wait_for(someone, timeout=10, what="a DM with a button for the position")
    click = await world.click_and_settle(person, dm, button["custom_id"])
    return click, dm, button["custom_id"]


def bot_token_edits_of(fake: FakeDiscord, message: FakeMessage, since: int) -> list[Any]:
    return [r for r in fake.requests[since:] if r.method == "PATCH" and r.path.endswith(f"/messages/{message.id}")]


def token_edits_of(fake: FakeDiscord, click: FakeInteraction, since: int) -> list[Any]:
    return [
        r
        for r in fake.requests[since:]
        if r.method == "PATCH" and r.path.endswith(f"/{click.token}/messages/@original")
    ]


def token_edits_of_clicks_on(fake: FakeDiscord, message: FakeMessage, since: int) -> list[Any]:
    """Edits through the token of any click on ``message``."""
    tokens = {i.token for i in fake.interactions if i.message is not None and i.message.id == message.id}
    return [
        r
        for r in fake.requests[since:]
        if r.method == "PATCH" and r.path.endswith("/messages/@original") and r.path.split("/")[-3] in tokens
    ]


async def test_a_dm_click_is_answered_with_its_hand_and_its_token_edits_it_later(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people, table = await four_by_dm(world)
    first_deal = table.deal_no
    since = len(fake_discord.requests)
    click, dm, clicked = await click_whoever_may(fake_discord, world, people, table)

    assert click.response_type == 7, "the move shows in the click's own answer"
    assert all(b.get("custom_id") != clicked for b in dm.buttons)
    assert bot_token_edits_of(fake_discord, dm, since) == [], "no bot-token edit of the clicked DM"

    # The DM's later changes (the table plays on) go through its owner's clicks' tokens.
    await world.play(
        people,
        until=lambda t: bool(token_edits_of_clicks_on(fake_discord, dm, since)) or t.deal_no > first_deal,
        timeout=30,
    )
    token_edits = token_edits_of_clicks_on(fake_discord, dm, since)
    assert token_edits and all(r.status == 200 for r in token_edits), "the hand was edited with a click's token"
    assert bot_token_edits_of(fake_discord, dm, since) == [], "no bot-token edit of the clicked DM"
    assert fake_discord.uses_interaction_token(token_edits[0].template)


async def test_a_clicks_token_is_kept_without_its_interaction(fake_discord: FakeDiscord, world: Table) -> None:
    """The latest clicks' tokens are kept by the thousand: each as its webhook, not as the interaction with its
    message, user and channel (which every full scan of the garbage collector would go through)."""
    people, table = await four_by_dm(world)
    click, dm, _ = await click_whoever_may(fake_discord, world, people, table)
    assert world.bot is not None
    kept = world.bot.runtime.messages.hands.dm_clicks.peek(dm.id)
    assert kept is not None and kept.followup.token, "the click's token is kept to edit the DM"

    gc.collect()
    alive = [o for o in gc.get_objects() if isinstance(o, discord.Interaction) and o.id == click.id]
    assert alive == [], "nothing keeps the click's interaction once it is answered"


async def test_a_refused_token_falls_back_to_the_bot_token(fake_discord: FakeDiscord, world: Table) -> None:
    people, table = await four_by_dm(world)
    first_deal = table.deal_no
    # Discord refuses every edit through a click's token (Unknown Webhook): each hand edit falls back.
    refusal = fake_discord.fail_next(
        "PATCH", "/webhooks/*/*/messages/@original", status=404, code=10015, times=10_000
    )
    since = len(fake_discord.requests)
    click, dm, _ = await click_whoever_may(fake_discord, world, people, table)
    assert click.response_type == 7, "the click's own answer needs no token edit"

    # The hands stay right: the deal is played to its end through the fallback alone.
    await world.play(people, until=lambda t: t.deal_no > first_deal, timeout=30)
    refused = token_edits_of_clicks_on(fake_discord, dm, since)
    fallback = bot_token_edits_of(fake_discord, dm, since)
    assert refused and refused[0].status == 404, "the token was tried first"
    assert fallback and fallback[-1].status == 200 and fallback[0].at >= refused[0].at, "then the bot token"
    assert refusal.fired > 1, "later edits went through refused tokens too"


async def test_an_expired_token_falls_back_to_the_bot_token(fake_discord: FakeDiscord, world: Table) -> None:
    people, table = await four_by_dm(world)
    click, dm, clicked = await click_whoever_may(fake_discord, world, people, table)
    seat = table.seat_of(click.user.id)
    while True:  # until the position waits for someone else: the next edit of this DM comes after that
        await fake_discord.wait_for(
            lambda clicked=clicked: all(b.get("custom_id") != clicked for b in dm.buttons)
            and (table.deal.to_act != seat or current_button(dm, table.version) is not None),
            what="the clicked hand to show the move",
        )
        button = current_button(dm, table.version)
        if button is None:
            break
        click = await world.click_and_settle(click.user, dm, button["custom_id"])
        clicked = button["custom_id"]
    click.age(16 * 60)  # past its token's 15 minutes: Discord answers 401 Invalid Webhook Token
    since = len(fake_discord.requests)

    def fell_back() -> bool:
        refused = [r for r in token_edits_of(fake_discord, click, since) if r.status == 401]
        edited = [r for r in bot_token_edits_of(fake_discord, dm, since) if r.status == 200]
        return bool(refused and edited and edited[-1].at >= refused[0].at)

    # The others play on until that DM changes again (its owner's turn, or the deal's end).
    await world.play(people, until=lambda t: fell_back(), timeout=30)
    await fake_discord.wait_for(fell_back, what="the expired token's edit done with the bot token")
    expired = token_edits_of(fake_discord, click, since)
    assert len(expired) == 1, "an expired token is tried once, then forgotten"


async def test_a_later_deal_opens_no_dm_channel_again(fake_discord: FakeDiscord, world: Table) -> None:
    people = [world.add_player(name) for name in ("anna", "bert", "cilli", "dieter")]
    bot = await world.start_bot()
    opened: list[int] = []
    create_dm = bot.create_dm

    async def counting_create_dm(user: Any) -> Any:
        opened.append(user.id)
        return await create_dm(user)

    bot.create_dm = counting_create_dm  # type: ignore[method-assign]
    table = await world.open_table(people[0], people[1:], target=5)
    await fake_discord.wait_for(lambda: all(fake_discord.dm_messages(p) for p in people), what="the first DMs")
    assert sorted(opened) == sorted(p.id for p in people), "each DM channel is opened once, at the first deal"
    first_deal = table.deal_no
    await world.play(people, until=lambda t: t.deal_no > first_deal, timeout=30)
    await fake_discord.wait_for(
        lambda: all(len(fake_discord.dm_messages(p)) == 2 for p in people), what="the next deal's DMs"
    )
    assert len(opened) == len(people), "the next deal's DMs went to the channels known, none opened again"


SHOW_MY_CARDS = "Show my cards"


async def first_turn_notice(fake: FakeDiscord, world: Table) -> tuple[FakeUser, FakeMessage]:
    """anna keeps her hand in the channel and plays with three AI players: on her first turn, with no hand
    open, a notice in the channel offers it."""
    anna = world.add_player("anna")
    await world.start_bot()
    await world.no_ai_delay()
    await world.command(anna, "prefs", hand="channel")
    await world.open_table(anna, [None, None, None])

    def notice() -> FakeMessage | None:
        return next(
            (
                m
                for m in reversed(world.channel.messages)
                if not m.deleted and any(b.get("label") == SHOW_MY_CARDS for b in m.buttons)
            ),
            None,
        )

    return anna, await fake.wait_for(notice, timeout=10, what="anna's turn notice")


async def test_a_turn_notice_pressed_is_taken_down_through_the_clicks_own_token(
    fake_discord: FakeDiscord, world: Table
) -> None:
    anna, notice = await first_turn_notice(fake_discord, world)
    since = len(fake_discord.requests)
    click = await fake_discord.click(anna, notice, label=SHOW_MY_CARDS)
    hand = (await click.wait_followups(1))[0]
    assert hand.ephemeral and current_button(hand, world.live.version) is not None, "her hand, on her turn"
    await fake_discord.wait_for(lambda: notice.deleted, what="the notice taken down")
    deletes = [r for r in fake_discord.requests[since:] if r.method == "DELETE"]
    assert [r.path.endswith(f"/{click.token}/messages/@original") for r in deletes] == [True], (
        "deleted through the click's token, not with the bot token"
    )
    assert fake_discord.uses_interaction_token(deletes[0].template)


async def test_a_turn_notice_whose_token_is_refused_is_taken_down_with_the_bot_token(
    fake_discord: FakeDiscord, world: Table
) -> None:
    anna, notice = await first_turn_notice(fake_discord, world)
    fake_discord.fail_next("DELETE", "/webhooks/*/*/messages/@original", status=404, code=10015)
    since = len(fake_discord.requests)
    click = await fake_discord.click(anna, notice, label=SHOW_MY_CARDS)
    await click.wait_followups(1)
    await fake_discord.wait_for(lambda: notice.deleted, what="the notice taken down")
    deletes = [(r.path, r.status) for r in fake_discord.requests[since:] if r.method == "DELETE"]
    assert deletes == [
        (f"/webhooks/{fake_discord.application_id}/{click.token}/messages/@original", 404),
        (f"/channels/{world.channel.id}/messages/{notice.id}", 204),
    ]


def hand_posts_to(fake: FakeDiscord, channel_id: int, since: int) -> list[Any]:
    return [r for r in fake.requests[since:] if r.method == "POST" and r.path == f"/channels/{channel_id}/messages"]


def followup_posts(fake: FakeDiscord, since: int) -> list[Any]:
    return [r for r in fake.requests[since:] if r.method == "POST" and r.template == "/webhooks/{application_id}/{token}"]


async def play_into_the_next_deal(world: Table, people: list[FakeUser], table: CurrentTable) -> list[FakeMessage]:
    """Play the deal to its end; each person's DM of the next deal, once all four arrived."""
    first_deal = table.deal_no
    firsts = {p.id: world.hand_message(p) for p in people}
    await world.play(people, until=lambda t: t.deal_no > first_deal, timeout=30)

    def next_dms() -> list[FakeMessage] | None:
        latest = [world.fake.dm_messages(p)[-1] for p in people]
        return latest if all(m is not firsts[p.id] for m, p in zip(latest, people, strict=True)) else None

    return await world.fake.wait_for(next_dms, timeout=10, what="the next deal's four DMs")


async def test_the_next_deals_dm_goes_through_its_owners_latest_click(fake_discord: FakeDiscord, world: Table) -> None:
    people, table = await four_by_dm(world)
    await fake_discord.wait_for(lambda: all(world.hand_message(p) for p in people), what="the first DMs")
    since = len(fake_discord.requests)

    dms = await play_into_the_next_deal(world, people, table)

    for person, dm in zip(people, dms, strict=True):
        click = dm.interaction
        assert click is not None and click.user is person, f"{person.name}'s hand: a follow-up of their own click"
        assert hand_posts_to(fake_discord, dm.channel.id, since) == [], "no hand sent with the bot token"
    assert len(followup_posts(fake_discord, since)) == len(people)
    # Until its owner clicks it, a new hand is edited through that same token (the next turn shows there).
    def edited_through_followup_token() -> bool:
        return any(
            r.method == "PATCH" and r.status == 200 and dm.interaction is not None
            and r.path.endswith(f"/{dm.interaction.token}/messages/{dm.id}")
            for r in fake_discord.requests[since:] for dm in dms
        )  # fmt: skip

    await world.play(people, until=lambda t: edited_through_followup_token(), timeout=30)
    bot_token_edits = [r for dm in dms for r in bot_token_edits_of(fake_discord, dm, since) if r.template == BOT_TOKEN_EDIT]
    assert bot_token_edits == [], "no new hand edited with the bot token"


async def test_an_expired_click_token_sends_the_next_deals_dm_with_the_bot_token(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people, table = await four_by_dm(world)
    await fake_discord.wait_for(lambda: all(world.hand_message(p) for p in people), what="the first DMs")
    fake_discord.interaction_token_lifetime = 0.0  # Discord answers 401 Invalid Webhook Token to every token
    since = len(fake_discord.requests)

    dms = await play_into_the_next_deal(world, people, table)

    refused = followup_posts(fake_discord, since)
    assert refused and all(r.status == 401 for r in refused), "the follow-up was tried, and refused"
    for dm in dms:
        assert dm.interaction is None, "each hand sent with the bot token instead"
        assert [r.status for r in hand_posts_to(fake_discord, dm.channel.id, since)] == [200]
    # The deal goes on through the bot token alone.
    second_deal = table.deal_no
    await world.play(people, until=lambda t: t.deal_no > second_deal or t.status == "finished", timeout=30)


def bot_token_table_edits(fake: FakeDiscord, message: FakeMessage, since: int) -> list[Any]:
    return [r for r in bot_token_edits_of(fake, message, since) if r.template == BOT_TOKEN_EDIT and r.status == 200]


async def test_the_table_message_is_edited_through_the_start_clicks_token(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people, table = await four_by_dm(world)
    message = await world.table_message()
    start = next(i for i in fake_discord.interactions if i.message is message and "start" in str(i.custom_id))
    since = len(fake_discord.requests)

    first_deal = table.deal_no
    await world.play(people, until=lambda t: t.deal_no > first_deal, timeout=30)
    await fake_discord.wait_for(
        lambda: any(r.path.endswith(f"/{start.token}/messages/@original") for r in fake_discord.requests[since:]),
        what="an edit of the table message through the Start click's token",
    )
    assert bot_token_table_edits(fake_discord, message, since) == [], "no table-message edit with the bot token"


async def test_the_table_message_falls_back_to_the_bot_token_when_the_start_clicks_token_expired(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people, table = await four_by_dm(world)
    message = await world.table_message()
    fake_discord.interaction_token_lifetime = 0.0  # Discord answers 401 Invalid Webhook Token to every token
    since = len(fake_discord.requests)

    first_deal = table.deal_no
    await world.play(people, until=lambda t: t.deal_no > first_deal, timeout=30)
    await fake_discord.wait_for(
        lambda: bot_token_table_edits(fake_discord, message, since), what="a table-message edit with the bot token"
    )
    refused = [r for r in fake_discord.requests[since:] if r.path.endswith("/@original") and r.status == 401]
    assert refused, "the token was tried first"
