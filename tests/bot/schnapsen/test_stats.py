"""/schnapsen stats through the real client and the fake Discord: the profile card with its alt text for a
player with games and one without, and the text fallback where the bot may not attach files, in several
languages."""

from __future__ import annotations

from pathlib import Path

import discord
import pytest

from bot.db import BummerlRow, Database, DealResultRow, Player, PlayerDealStats
from bot.i18n import t
from bot.render import label
from devtools.fakediscord import FakeDiscord, FakeUser
from devtools.fakediscord.state import DEFAULT_BOT_PERMISSIONS
from tests.bot.schnapsen.harness import Table, reply_to

LOCALES = {"en": "en-GB", "de": "de", "nl": "nl", "tr": "tr"}
NOW = 1_700_000_000
HANDS = [["HA"], ["DA"], ["CA"], ["SA"]]


async def seed_history(db_path: Path, guild_id: int, channel_id: int, players: list[FakeUser]) -> None:
    """Before the bot starts: a finished table where players[0] (N) and players[1] (S) won three Bummerl
    against players[2] (E) and an AI (W), players[0] declaring and making a Bettler and saying one Kontra."""
    north, south, east = players
    async with await Database.open(db_path) as db:
        table = await db.tables.create_table(
            guild_id=guild_id, channel_id=channel_id, host_id=north.id, rules_json='"standard"', deck="french",
            turn_seconds=60, language="en", first_dealer=0, now=NOW,
        )  # fmt: skip
        for seat, user in ((0, north), (1, east), (2, south)):
            await db.seats.take_seat(table.id, seat, user.id, user.name)
        await db.seats.set_ai_seat(table.id, 3, "Sepp")
        for deal_no, (contract, winner, actions) in enumerate([("bettler", 0, ("N kontra",)), ("normal", 1, ())]):
            await db.records.start_deal(table.id, deal_no, dealer=3, seed=deal_no, hands=HANDS, now=NOW)
            for action in actions:
                await db.records.append_action(table.id, deal_no, action, NOW)
            await db.records.record_deal_result(DealResultRow(table.id, deal_no, contract, 0, winner, 3, 1, "x", NOW))
            await db.stats.add_deal_stats(guild_id, [
                PlayerDealStats(user.id, user.name, won=(seat & 1) == winner, game_points=3,
                                declared=seat == 0 and contract != "normal", made=seat == 0 and winner == 0)
                for seat, user in ((0, north), (1, east), (2, south))
            ])  # fmt: skip
        winners = (Player(north.id, north.name), Player(south.id, south.name))
        losers = (Player(east.id, east.name), Player(None, "Sepp"))
        for _ in range(3):
            await db.stats.record_bummerl(BummerlRow(guild_id, table.id, winners, losers, "bummerl", 1, 24, 10, NOW))
        await db.tables.set_status(table.id, "closed", NOW)


async def world_with_history(world: Table, lang: str) -> tuple[FakeUser, FakeUser, FakeUser]:
    alice = world.add_player("alice", locale=LOCALES[lang])
    bob, carol = world.add_player("bob"), world.add_player("carol", locale=LOCALES[lang])
    await seed_history(world.db_path, world.guild.id, world.channel.id, [alice, bob, carol])
    await world.start_bot()
    return alice, bob, carol


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_callers_own_card_with_alt_text(world: Table, lang: str) -> None:
    alice, _, _ = await world_with_history(world, lang)
    interaction = await world.command(alice, "stats")
    reply = await reply_to(interaction)
    assert reply.ephemeral
    [attachment] = reply.attachments
    assert attachment.filename == "profile.png" and attachment.data.startswith(b"\x89PNG")
    [embed] = reply.embeds
    assert embed["title"] == t(lang, "stats.title", name="alice")
    assert embed["image"]["url"].endswith("profile.png")
    alt = attachment.description or ""
    assert alt.startswith(label("alt_profile", lang, name="alice"))
    assert f"{label('profile_bummerl', lang)}: {label('profile_of', lang, won=3, total=3)}." in alt
    assert f"{label('profile_kontra', lang)}: {label('profile_of', lang, won=1, total=1)}." in alt
    assert label("profile_partner_line", lang, name="bob", won=3, together=3) in alt
    assert label("profile_unrated", lang) in alt  # nobody is rated until the ratings are stored


@pytest.mark.parametrize("lang", ["nl", "tr"])
async def test_a_player_without_games_gets_a_friendly_card(world: Table, lang: str) -> None:
    _, _, carol = await world_with_history(world, lang)
    newcomer = world.add_player("dora")
    interaction = await world.command(carol, "stats", player=newcomer)
    reply = await reply_to(interaction)
    assert reply.ephemeral
    [embed] = reply.embeds
    assert embed["title"] == t(lang, "stats.title", name="dora")
    assert embed["description"] == t(lang, "stats.no_games", name="dora")
    [attachment] = reply.attachments
    assert attachment.description == f"{label('alt_profile', lang, name='dora')} {label('profile_no_games', lang)}"


@pytest.mark.parametrize("lang", ["de", "tr"])
async def test_without_attach_files_the_profile_is_text(world: Table, fake_discord: FakeDiscord, lang: str) -> None:
    alice, bob, _ = await world_with_history(world, lang)
    fake_discord.bot_permissions = DEFAULT_BOT_PERMISSIONS & ~discord.Permissions(attach_files=True).value
    interaction = await world.command(alice, "stats", player=bob)
    reply = await reply_to(interaction)
    assert reply.ephemeral and reply.attachments == []
    [embed] = reply.embeds
    assert "image" not in embed
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    # The fields use the card's own words.
    assert fields[label("profile_bummerl", lang)] == t(lang, "stats.of", won=3, total=3, share="100%")
    assert fields[label("profile_kontra", lang)] == t(lang, "stats.of", won=0, total=0, share="—")
    assert fields[label("profile_rating", lang)].startswith(label("profile_unrated", lang))
    assert fields[label("profile_partner", lang)] == label("profile_partner_line", lang, name="alice", won=3, together=3)
    assert len(fields[t(lang, "stats.contracts")].splitlines()) == 5  # every contract family
