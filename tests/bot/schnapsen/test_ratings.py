"""Ratings through the real client and the fake Discord: the Bummerl's result message shows each person's
rating change, the rating board lists the rated players, and the settings command sets who is rated."""

from __future__ import annotations

import re

import pytest

from bot.db import AI_IDENTITIES, RATING_MIN_GAMES
from bot.i18n import t
from bot.schnapsen.texts import board_name, rating_changes_text, signed
from bot.vocabulary import LANGUAGES
from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import Table

CHANGE_LINE = re.compile(r"^(?P<name>\w+): (?P<delta>[+−±]\d+) → (?P<rating>\d+)$")


async def test_a_bummerl_shows_each_persons_rating_change_and_the_rating_board_lists_them(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice, bob = world.add_player("alice"), world.add_player("bob")
    bot = await world.start_bot()
    await world.no_ai_delay()
    async with bot.db.transaction():  # both played rated Bummerl before: one more puts them on the board
        for user in (alice, bob):
            await bot.db.core.execute(
                "INSERT INTO ratings (guild_id, player_id, mu, sigma, games) VALUES (?, ?, ?, ?, ?)",
                (world.guild.id, user.id, 25.0, 25.0 / 3, RATING_MIN_GAMES - 1),
            )
    before = await bot.db.ratings.get_ratings(world.guild.id, [alice.id, bob.id])
    board = await world.command(bob, "leaderboard", sort="rating")
    assert f"Nobody has {RATING_MIN_GAMES} rated Bummerl here yet." in board.original.embeds[0]["description"]

    table = await world.open_table(alice, [None, bob, None], target=3)  # alice and bob partners against the AI
    await world.play([alice, bob], timeout=30)
    assert table.status == "finished"

    def rating_field() -> dict | None:
        for message in world.channel.messages:
            for embed in message.embeds:
                for field in embed.get("fields") or []:
                    if field["name"] == "Rating changes":
                        return field
        return None

    field = await fake_discord.wait_for(rating_field, what="the result message with the rating changes")
    after = await bot.db.ratings.get_ratings(world.guild.id, [alice.id, bob.id])
    lines = [CHANGE_LINE.fullmatch(line) for line in field["value"].splitlines()]
    assert all(lines) and [m["name"] for m in lines if m] == ["alice", "bob"]
    for match, user in zip(lines, (alice, bob), strict=True):
        assert match is not None
        assert match["rating"] == str(after[user.id].shown)
        assert match["delta"] == signed(after[user.id].shown - before[user.id].shown)
        assert after[user.id].games == RATING_MIN_GAMES
    assert after[alice.id].mu == after[bob.id].mu  # partners share the result

    board = await world.command(bob, "leaderboard", sort="rating")
    embed = board.original.embeds[0]
    assert embed["title"] == "Leaderboard · Rating"
    rows = embed["description"].splitlines()
    assert len(rows) == 2  # the AI identity has one rated Bummerl, fewer than the board asks for
    for row in rows:
        name = row.split("** ")[1].split(" · ")[0]
        rating = after[{"alice": alice.id, "bob": bob.id}[name]]
        assert row.endswith(f"{name} · {rating.shown} ± {rating.uncertainty} · {RATING_MIN_GAMES} rated Bummerl"), row
    assert "you are #1" in embed["footer"]["text"]  # partners share their rating, and the first rank

    default = await world.command(alice, "leaderboard")  # rating is now the default sort
    assert default.original.embeds[0]["title"] == "Leaderboard · Rating"


async def test_the_settings_reply_says_how_many_people_a_rated_bummerl_needs(world: Table) -> None:
    await world.start_bot()
    reply = await world.command(world.admin, "settings", rated_min_people=3)
    assert "Rated if people hold at least 3 of the 4 seats" in reply.original.content
    assert world.bot is not None
    assert (await world.bot.db.settings.get_guild_settings(world.guild.id)).rated_min_people == 3


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rating_changes_and_the_rating_board_read_in_every_language(lang: str) -> None:
    text = rating_changes_text(lang, [{"name": "alice", "delta": 14, "shown": 1214}, {"name": "bob", "delta": -9, "shown": 991}])
    assert text.splitlines() == [
        t(lang, "result.rating_line", name="alice", delta="+14", rating=1214),
        t(lang, "result.rating_line", name="bob", delta="−9", rating=991),
    ]
    assert "+14" in text and "−9" in text
    ai = board_name(lang, AI_IDENTITIES["pimc"], "")
    assert ai.startswith("🤖 ") and t(lang, "command.choice.pimc") in ai
    assert board_name(lang, 42, "alice") == "alice"
    assert t(lang, "leaderboard.sort.rating") != "leaderboard.sort.rating"
