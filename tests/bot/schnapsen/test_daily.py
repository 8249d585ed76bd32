"""The daily deal end to end, through the real client and the fake Discord: two people in two servers play
today's deals (the same cards in the same seats), their scores are their team's game points minus the stored
par, both are on the boards, a second attempt is refused, a restart mid-attempt resumes, and nobody who has
not played sees a card of the day."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import sqlite3
from typing import Any

import pytest

import engine
from bot.client import SchnapsenBot
from bot.db import Database
from bot.db.daily import DailyPar
from bot.game.daily import DAILY_DEALS, day_of, deal_seed, dealer_of
from bot.game.dailyleague import month_of, previous_month
from bot.render import ALL_CARDS, card_name
from bot.schnapsen import daily as daily_shell
from bot.schnapsen.components import GameActionButton
from bot.schnapsen.daily import DailyCog
from bot.schnapsen.ids import ButtonId
from devtools.fakediscord import FakeChannel, FakeDiscord, FakeInteraction, FakeMessage, FakeUser
from engine import deal_hands
from tests.bot.game.test_daily import played
from tests.bot.schnapsen.harness import Table as World
from tests.bot.schnapsen.harness import (
    current_button,
    ephemeral_reply,
    is_hand_message,
    refusals,
    reply_to,
    with_button,
)

HAND_SENTENCE = re.compile(r"Your hand: ([^.]*)\.")


def running(world: World) -> SchnapsenBot:
    assert world.bot is not None
    return world.bot


async def daily_table_of(world: World, user: FakeUser) -> int:
    bot = running(world)
    attempt = await bot.db.daily.attempt(day_of(bot.service.now()), user.id)
    assert attempt is not None, f"{user.name} has no attempt today"
    return attempt.table_id


async def play_attempt(
    world: World, user: FakeUser, table_id: int, *, stop_at_deal: int | None = None, in_channel: bool = False
) -> None:
    """Click the first enabled button of the current position on any of ``user``'s DMs (``in_channel``: the
    ephemeral messages only they see) until the attempt's table closes (or deal ``stop_at_deal`` is dealt)."""
    fake = world.fake

    def messages() -> list[FakeMessage]:
        return fake.ephemeral_messages(user) if in_channel else fake.dm_messages(user)

    def next_step() -> tuple[str, FakeMessage | None, str]:
        table = running(world).service.snapshot(table_id)
        if table is None:
            return ("closed", None, "")
        if stop_at_deal is not None and table.deal_no >= stop_at_deal:
            return ("stop", None, "")
        for message in reversed(messages()):
            button = current_button(message, table.version)
            if button is not None:
                return ("click", message, button["custom_id"])
        return None  # type: ignore[return-value]

    while True:
        kind, message, custom_id = await fake.wait_for(next_step, timeout=60, what=f"{user.name}'s turn")
        if kind != "click":
            return
        assert message is not None
        version = running(world).service.snapshot(table_id).version  # type: ignore[union-attr]
        click = await fake.click(user, message, custom_id)
        await click.wait_response()

        def moved(version: int = version, click: FakeInteraction = click) -> bool:
            table = running(world).service.snapshot(table_id)
            return table is None or table.version != version or bool(refusals(click))

        await fake.wait_for(moved, timeout=30, what="the click to be applied")
        assert not refusals(click), f"refused: {refusals(click)[-1].content!r}"


def dealt_cards_seen(world: World, user: FakeUser) -> list[frozenset[str]]:
    """Per hand message (one per deal, oldest first), the cards its alt text ever named as the hand."""
    deals = []
    for message in world.fake.dm_messages(user):
        if not is_hand_message(message):
            continue
        seen: set[str] = set()
        for version in message.history:
            for attachment in version.attachments:
                for match in HAND_SENTENCE.finditer(attachment.description or ""):
                    seen.update(name.strip() for name in match.group(1).split(","))
        deals.append(frozenset(seen))
    return deals


async def todays_par(bot: SchnapsenBot) -> list[DailyPar]:
    """Today's par, computed now (the background job's first look is an interval away)."""
    cog = bot.get_cog("DailyCog")
    assert isinstance(cog, DailyCog)
    await cog.ensure_par()
    return await bot.db.daily.par(day_of(bot.service.now()))


def names_a_card(text: str) -> bool:
    return any(card_name(card, deck, "en") in text for card in ALL_CARDS for deck in ("doppeldeutsch", "french"))


async def daily(world: World, user: FakeUser, channel: FakeChannel, *path: str, **options: object) -> str:
    interaction = await world.fake.slash(user, channel, "schnapsen", "daily", *path, **options)
    return await ephemeral_reply(interaction)


async def test_two_people_in_two_servers_play_the_same_day_against_par(fake_discord: FakeDiscord, world: World) -> None:
    alice, carol = world.add_player("alice"), world.add_player("carol")
    owner2 = fake_discord.add_user("owner2")
    guild2 = fake_discord.add_guild("Beisl", owner=owner2)
    channel2 = guild2.add_text_channel("karten")
    bob = fake_discord.add_user("bob")
    guild2.add_member(bob)
    bot = await world.start_bot()
    await world.no_ai_delay()
    await world.command(world.admin, "settings", daily_channel=world.channel)  # the day's results go there
    await (await fake_discord.slash(owner2, channel2, "schnapsen", "settings", ai_delay_ms=0)).wait_response()
    par = await todays_par(bot)
    today = day_of(bot.service.now())
    assert [p.deal_no for p in par] == list(range(DAILY_DEALS))

    # alice plays all of today's deals in her DM, though she keeps her hand in the channel at other tables:
    # she asks for the DM (without asking, an attempt is played where she keeps her hand).
    await world.command(alice, "prefs", hand="channel")
    assert "direct messages" in await daily(world, alice, world.channel, "play", where="dm")
    alice_table = await daily_table_of(world, alice)
    await play_attempt(world, alice, alice_table)
    # Her daily deals count on the daily boards, not in her statistics (bot/game/subscribers/accounting.py).
    assert await bot.db.stats.get_player_stats(world.guild.id, alice.id) is None

    # bob, in another server, plays two deals, the bot restarts, and he plays on where he was.
    await daily(world, bob, channel2, "play")
    bob_table = await daily_table_of(world, bob)
    await play_attempt(world, bob, bob_table, stop_at_deal=2)
    await world.stop_bot()
    stored = await Database.open(world.db_path)
    at_stop = [action for deal in (await stored.records.load_record(bob_table)).deals for action in deal.actions]
    await stored.close()
    bot = await world.start_bot()
    assert bot.service.snapshot(bob_table) is not None, "the attempt is restored as a table like any other"
    await play_attempt(world, bob, bob_table)
    finished = [action for deal in (await bot.db.records.load_record(bob_table)).deals for action in deal.actions]
    assert finished[: len(at_stop)] == at_stop and len(finished) > len(at_stop)  # it went on from where it was

    # The same cards in the same seats: from the stored records and from what their hand images said.
    secret = await bot.db.daily.known_secret(today)
    assert secret is not None
    records = [await bot.db.records.load_record(table) for table in (alice_table, bob_table)]
    for record in records:
        assert [deal.deal_no for deal in record.deals] == list(range(DAILY_DEALS))
        for deal in record.deals:
            assert deal.dealer == dealer_of(secret, deal.deal_no)
            assert deal.hands == deal_hands(deal_seed(secret, deal.deal_no), deal.dealer)
    assert [d.hands for d in records[0].deals] == [d.hands for d in records[1].deals]
    alice_seen, bob_seen = dealt_cards_seen(world, alice), dealt_cards_seen(world, bob)
    assert len(alice_seen) == DAILY_DEALS and alice_seen == bob_seen
    for deal, seen in zip(records[0].deals, alice_seen, strict=True):
        assert seen == {card_name(card, "doppeldeutsch", "en") for card in deal.hands[0]}

    # Scores are the stored points minus the stored par, and both boards show them.
    par_total = sum(p.points for p in par)
    scores = {}
    for user, table in ((alice, alice_table), (bob, bob_table)):
        points = await bot.db.daily.deals_of(table)
        assert sorted(points) == list(range(DAILY_DEALS))
        scores[user.name] = sum(points.values()) - par_total
        attempt = await bot.db.daily.attempt(today, user.id)
        assert attempt is not None and attempt.finished
    here = await daily(world, alice, world.channel, "board")
    assert f"alice: {scores['alice']:+d} (6 deals)" in here and "bob" not in here
    there = await daily(world, bob, channel2, "board")
    assert f"bob: {scores['bob']:+d} (6 deals)" in there and "alice" not in there
    carols_board = await reply_to(await fake_discord.slash(carol, world.channel, "schnapsen", "daily", "board", scope="all"))
    everywhere = carols_board.content
    assert f"alice: {scores['alice']:+d}" in everywhere and f"bob: {scores['bob']:+d}" in everywhere
    # This month's league of each server: its one player, in its one division; nobody else's server.
    league = await daily(world, alice, world.channel, "league")
    assert "division 1 of 1" in league and f"1. alice: {scores['alice']:+d} (1 day)" in league and "bob" not in league
    assert "You are in division 1, place 1." in league
    assert "no division 2" in await daily(world, alice, world.channel, "league", division=2)

    # "Show the deal": alice's first deal beside the AI's play of the same cards.
    alice_points = await bot.db.daily.deals_of(alice_table)
    shown = await daily(world, alice, world.channel, "show", deal=1)
    assert f"Deal 1: your team {alice_points[0]:+d}, the AI {par[0].points:+d}" in shown
    assert f"score {alice_points[0] - par[0].points:+d}" in shown
    assert "Your table" in shown and "The AI" in shown and names_a_card(shown)
    # The same from "Show the deal" on the first result in her DM: the deal's image, then the AI's play beside.
    result = next(m for m in fake_discord.dm_messages(alice) if "result.png" in m.filenames)
    click = await fake_discord.click(alice, result, label="Show the deal")
    await click.wait_followups(2)
    image, beside = click.followups
    assert image.ephemeral and image.filenames == ["deal.png"]
    assert beside.content == shown
    # "Review my play" there too: the coach goes through her decisions (it acts in the table's place, her DM).
    review = await fake_discord.click(alice, result, label="Review my play")
    reviewed = await reply_to(review)
    assert reviewed.embeds and "wrong" not in reviewed.visible_text.lower(), reviewed.visible_text

    # One attempt a day: a second one is refused, and nothing new is opened.
    tables = len(bot.service.open_tables())
    assert "already" in await daily(world, alice, world.channel, "play")
    assert len(bot.service.open_tables()) == tables

    # carol has not played: a forged "Show the deal" of alice's day is refused and shows nothing.
    forged = f"bsdeal:{alice_table}:1"
    click = await fake_discord.click(carol, with_button(carols_board, forged), forged, force=True)
    refusal = await reply_to(click)
    assert refusal.ephemeral and not refusal.attachments
    assert "not started" in await daily(world, carol, world.channel, "show", deal=1)
    for message in [*fake_discord.ephemeral_messages(carol), *world.channel.messages, *channel2.messages]:
        assert not message.attachments and not names_a_card(message.visible_text), message.visible_text
    assert not fake_discord.dm_messages(carol)

    # Once the day is over, its results go to the channel the first server chose: text, seed and the top ten.
    cog = bot.get_cog("DailyCog")  # the restarted bot's
    assert isinstance(cog, DailyCog)
    posted = await cog.post_results(now=bot.service.now() + 86_400)
    assert posted == 1  # the second server chose no channel
    (results,) = [m for m in world.channel.messages if "daily.png" in m.filenames]
    assert f"alice: {scores['alice']:+d} (6 deals)" in results.content and f"seed {secret}" in results.content
    alt = results.attachment("daily.png").description or ""
    assert f"1. alice {scores['alice']:+d} (6)" in alt and "bob" not in alt
    assert await cog.post_results(now=bot.service.now() + 86_400) == 0  # posted once


async def test_nothing_shows_a_card_of_the_day_to_someone_who_has_not_played_it(
    fake_discord: FakeDiscord, world: World
) -> None:
    """While alice plays today's deals, carol (same server) uses every command and forges every button that
    could show a deal: no answer, no channel message and no image description names a card."""
    alice, carol = world.add_player("alice"), world.add_player("carol")
    bot = await world.start_bot()
    await world.no_ai_delay()
    await world.command(world.admin, "settings", daily_channel=world.channel)
    await daily(world, alice, world.channel, "play")
    table_id = await daily_table_of(world, alice)
    await play_attempt(world, alice, table_id, stop_at_deal=2)  # two deals finished, the third running
    cog = bot.get_cog("DailyCog")
    assert isinstance(cog, DailyCog)
    assert await cog.post_results() == 0  # today is not over: nothing is posted

    answers: list[FakeInteraction] = []
    for path, options in [
        (("daily", "board"), {}),
        (("daily", "board"), {"period": "week", "scope": "all"}),
        *((("daily", "show"), {"deal": deal}) for deal in range(1, DAILY_DEALS + 1)),
        (("export",), {}),
        (("score",), {}),
        (("hand",), {}),
        (("stats",), {"player": alice}),
        (("leaderboard",), {}),
    ]:
        answers.append(await fake_discord.slash(carol, world.channel, "schnapsen", *path, **options))
    last = await reply_to(answers[0])
    for deal_no in range(DAILY_DEALS):
        for forged in (f"bsdeal:{table_id}:{deal_no}", f"bs:{table_id}:0:review:{deal_no}", f"bs:{table_id}:0:hand:"):
            answers.append(await fake_discord.click(carol, with_button(last, forged), forged, force=True))
    for interaction in answers:
        await reply_to(interaction)
    seen = [*fake_discord.ephemeral_messages(carol), *world.channel.messages, *fake_discord.dm_messages(carol)]
    assert seen
    for message in seen:
        described = [attachment.description or "" for attachment in message.attachments]
        for text in (message.visible_text, *described):
            assert not names_a_card(text), f"{text!r} names a card of today's deals"


async def test_an_attempt_left_idle_for_a_turn_time_ends_with_what_was_played(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Also when storage fails at the first try to close it: the close is retried (logged at ERROR)."""
    monkeypatch.setattr(daily_shell, "RETRY_FIRST", 0.0)
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    closes: list[int] = []
    close = bot.service.close

    async def failing_once(table_id: int, **kwargs: Any) -> Any:
        closes.append(table_id)
        if len(closes) == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return await close(table_id, **kwargs)

    monkeypatch.setattr(bot.service, "close", failing_once)
    await daily(world, alice, world.channel, "play")
    table_id = await daily_table_of(world, alice)
    await play_attempt(world, alice, table_id, stop_at_deal=1)

    def her_turn() -> int | None:
        table = bot.service.snapshot(table_id)
        return None if table is None or table.deal is None or table.deal.to_act != 0 else table.version

    # The AI plays the seats before hers, as long as it takes on a loaded machine (the other turns' waits too).
    version = await world.fake.wait_for(her_turn, timeout=60, what="alice's turn in the second deal")
    # Her hour is up (the idle timer's own step, taken at once here): the attempt ends, the AI plays no more.
    await bot.service.seating.take_over(table_id, 0, version)
    await world.fake.wait_for(lambda: bot.service.snapshot(table_id) is None, what="the attempt to end")
    attempt = await bot.db.daily.attempt(day_of(bot.service.now()), alice.id)
    assert attempt is not None and attempt.finished
    assert sorted(await bot.db.daily.deals_of(table_id)) == [0]
    record = await bot.db.records.load_record(table_id)
    assert not record.deals[1].finished
    notice = await world.fake.wait_for(
        lambda: next((m for m in world.fake.dm_messages(alice) if "An hour without a move" in m.visible_text), None),
        what="the notice in her DM",
    )
    assert "/schnapsen daily board" in notice.visible_text
    assert closes == [table_id, table_id]
    assert any(
        r.levelno == logging.ERROR and "closing the idle daily attempt" in r.getMessage() for r in caplog.records
    )


async def test_who_plays_pars_line_meets_the_same_ai_answers_and_scores_nought(world: World) -> None:
    """The AI seats of an attempt decide as par's AI did in the same position (the same strength, budget and
    seed of the position), so someone who plays par's own line gets par's results: a score of 0 in every deal."""
    dora = world.add_player("dora")
    bot = await world.start_bot()
    await world.no_ai_delay()
    par = await todays_par(bot)
    await daily(world, dora, world.channel, "play")
    table_id = await daily_table_of(world, dora)

    def her_turn() -> tuple[int, int] | None:
        table = bot.service.snapshot(table_id)
        if table is None:
            return (-1, -1)
        if table.deal is None or table.deal.to_act != 0:
            return None
        return (table.deal_no, table.version)

    while True:
        deal_no, version = await world.fake.wait_for(her_turn, timeout=60, what="dora's turn")
        if deal_no < 0:
            break
        record = await bot.db.records.load_record(table_id)
        played = record.deals[-1].actions
        expected = par[deal_no].actions[len(played)]
        assert list(played) == list(par[deal_no].actions[: len(played)]), "the AI seats left par's line"

        def par_button(version: int = version, expected: str = expected) -> tuple[FakeMessage, str] | None:
            for message in reversed(world.fake.dm_messages(dora)):
                for button in message.buttons:
                    parsed = ButtonId.parse(str(button.get("custom_id", "")))
                    if parsed is None or parsed.version != version or button.get("disabled"):
                        continue
                    action = GameActionButton.action_of(parsed)
                    if action is not None and engine.format_action(0, action) == expected:
                        return message, button["custom_id"]
            return None

        message, custom_id = await world.fake.wait_for(par_button, what=f"a button for {expected}")
        click = await world.fake.click(dora, message, custom_id)
        await click.wait_response()
        await world.fake.wait_for(
            lambda version=version: bot.service.snapshot(table_id) is None
            or bot.service.snapshot(table_id).version != version,  # type: ignore[union-attr]
            what="her move to be applied",
        )
    points = await bot.db.daily.deals_of(table_id)
    assert points == {p.deal_no: p.points for p in par}
    board = await daily(world, dora, world.channel, "board")
    assert "dora: +0 (6 deals)" in board


def cards_named_to(world: World, user: FakeUser) -> list[str]:
    """Every text ``user`` was ever shown (public channel messages, their DMs and their ephemeral messages,
    every version, with the images' alt texts) that names a card."""
    fake = world.fake
    seen = [*world.channel.messages, *fake.dm_messages(user), *fake.ephemeral_messages(user)]
    named = []
    for message in seen:
        texts = [message.visible_text]
        for version in message.history:
            texts += [version.content, json.dumps(version.embeds), *(a.description or "" for a in version.attachments)]
        named.extend(text for text in texts if names_a_card(text))
    return named


async def test_an_attempt_played_in_the_channel_is_seen_by_its_player_alone_and_resumes_after_a_restart(
    fake_discord: FakeDiscord, world: World
) -> None:
    alice, carol = world.add_player("alice"), world.add_player("carol")
    bot = await world.start_bot()
    await world.no_ai_delay()
    par = await todays_par(bot)

    started = await daily(world, alice, world.channel, "play", where="channel")
    assert "You play here, in a message only you see" in started
    table_id = await daily_table_of(world, alice)
    hand = await fake_discord.wait_for(
        lambda: next((m for m in fake_discord.ephemeral_messages(alice) if is_hand_message(m)), None),
        what="alice's ephemeral table",
    )
    assert hand.attachments and "Your hand:" in (hand.attachments[0].description or "")
    await play_attempt(world, alice, table_id, stop_at_deal=2, in_channel=True)

    # A restart: her message no longer follows her clicks; asked again, it shows the attempt where it was.
    await world.stop_bot()
    bot = await world.start_bot()
    assert bot.service.snapshot(table_id) is not None
    assert "where you left it" in await daily(world, alice, world.channel, "play")
    await play_attempt(world, alice, table_id, in_channel=True)

    attempt = await bot.db.daily.attempt(day_of(bot.service.now()), alice.id)
    assert attempt is not None and attempt.finished and attempt.place == "channel"
    points = await bot.db.daily.deals_of(table_id)
    assert sorted(points) == list(range(DAILY_DEALS))
    score = sum(points.values()) - sum(p.points for p in par)
    assert f"1. alice: {score:+d} (6 deals)" in await daily(world, alice, world.channel, "board")
    assert "already" in await daily(world, alice, world.channel, "play")

    # Nobody else saw a card: nothing public names one or shows an image, nothing went to alice's DM (where
    # the table is kept), and carol, in the same channel, was shown nothing with a card; alice saw her hands.
    assert not fake_discord.dm_messages(alice)
    for message in world.channel.messages:
        assert not message.attachments and not names_a_card(message.visible_text), message.visible_text
    assert cards_named_to(world, carol) == []
    assert not fake_discord.ephemeral_messages(carol) and not fake_discord.dm_messages(carol)
    assert cards_named_to(world, alice)
    # Her deals' results came to her alone, beside her table.
    results = [m for m in fake_discord.ephemeral_messages(alice) if "result.png" in m.filenames]
    assert results and all(m.interaction is not None and m.interaction.user is alice for m in results)
    # Her results' buttons work for her there: the deal beside the AI's play, and the coach's review.
    click = await fake_discord.click(alice, results[0], label="Show the deal")
    await click.wait_followups(2)
    image, beside = click.followups
    assert image.ephemeral and image.filenames == ["deal.png"] and "Your table" in beside.content
    reviewed = await reply_to(await fake_discord.click(alice, results[0], label="Review my play"))
    assert reviewed.ephemeral and reviewed.embeds and "wrong" not in reviewed.visible_text.lower()


async def test_a_person_whose_dms_are_closed_plays_in_the_channel(fake_discord: FakeDiscord, world: World) -> None:
    bob = world.add_player("bob")
    fake_discord.close_dms(bob)
    bot = await world.start_bot()
    await world.no_ai_delay()
    started = await daily(world, bob, world.channel, "play", where="dm")
    assert "closed, so you play here instead" in started
    table_id = await daily_table_of(world, bob)
    await play_attempt(world, bob, table_id, stop_at_deal=1, in_channel=True)
    assert sorted(await bot.db.daily.deals_of(table_id)) == [0]
    assert not fake_discord.dm_messages(bob)
    for message in world.channel.messages:
        assert not message.attachments and not names_a_card(message.visible_text), message.visible_text


async def test_last_months_league_standings_are_posted_once_to_the_daily_channel(world: World) -> None:
    bot = await world.start_bot()
    await world.command(world.admin, "settings", daily_channel=world.channel)
    last_month = previous_month(month_of(day_of(bot.service.now())))
    for user, points in ((1, 2), (2, -1)):
        await played(bot.db, f"{last_month}-03", user, points=points, guild=world.guild.id)
    cog = bot.get_cog("DailyCog")
    assert isinstance(cog, DailyCog)
    assert await cog.post_league_finals() == 1
    post = world.channel.messages[-1]
    assert f"Daily league, {last_month}: final standings" in post.content
    assert "Division 1: won by p1 (+2)" in post.content and not names_a_card(post.content)
    assert await cog.post_league_finals() == 0  # once


async def test_after_a_restart_an_attempt_has_par_at_once_not_after_a_timer(world: World) -> None:
    """The bot looks for par ahead as it starts (not an interval later: an hour here), and an attempt asks for
    its day's par as it starts; after a restart, an attempt begun at once has par as soon as its job is done."""
    alice = world.add_player("alice")
    await world.start_bot()
    await world.stop_bot()
    # Par ahead as in production, looked for again only an hour later; a small search budget keeps it quick.
    world.settings = dataclasses.replace(world.settings, daily_par_ahead=True, daily_interval=3600.0, ai_budget_ms=5)
    bot = await world.start_bot()
    cog = bot.get_cog("DailyCog")
    assert isinstance(cog, DailyCog)
    today = day_of(bot.service.now())
    at_start = cog.par.job(today)
    assert at_start is not None, "the first look at par is made as the bot starts"
    await world.no_ai_delay()
    assert "direct messages" in await daily(world, alice, world.channel, "play")
    job = cog.par.job(today)
    assert job is not None and (job is at_start or at_start.done()), "one job for the day"
    assert await job >= 0
    assert [par.deal_no for par in await bot.db.daily.par(today)] == list(range(DAILY_DEALS))
    board = await daily(world, alice, world.channel, "board")
    assert "still being computed" not in board
