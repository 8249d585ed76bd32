"""Rule settings and forgetting a person, end to end against the fake Discord: what an admin, a host and a
player type, what they are answered, and what the table message and the storage show afterwards."""

from __future__ import annotations

import dataclasses
import sqlite3
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import engine
from bot.db import REMOVED_NAME, BummerlRow, Player, PlayerDealStats, PlayerPrefs
from bot.game import rulesettings
from bot.schnapsen.cog import SchnapsenCog
from bot.settings import Settings
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import Table, ephemeral_reply

RULES_FIELD = ("Changes to the Standard rules", "Changes to the StarGames rules")
COUNT_DOWN = "Score counts down: what each team still needs"
ONE_ROUND = "Everyone speaks once in the auction"


def test_both_commands_offer_exactly_what_the_service_accepts() -> None:
    cog = SchnapsenCog(SimpleNamespace(service=None, settings=Settings(token="unused")))  # type: ignore[arg-type]
    for name in ("server-rules", "table-rules"):
        command = next(c for c in cog.app_command.commands if c.name == name)
        assert isinstance(command, discord.app_commands.Command)
        options = {option.name: option for option in command.parameters}
        assert list(options) == ["preset", "reset", *rulesettings.RULE_SETTINGS]
        assert (options["target"].min_value, options["target"].max_value) == rulesettings.TARGET_RANGE
        for setting, values in rulesettings.VALUE_CHOICES.items():
            assert sorted(choice.value for choice in options[setting].choices) == sorted(values), setting
        for setting, named in rulesettings.CONTRACT_SET_CHOICES.items():
            assert sorted(choice.value for choice in options[setting].choices) == sorted(named), setting
        for setting in rulesettings.BOOL_SETTINGS:
            assert options[setting].type is discord.AppCommandOptionType.boolean, setting


def rules_field(message: FakeMessage) -> str | None:
    """The table message's list of changed rules, None when it shows none."""
    fields = message.embeds[0].get("fields", [])
    return next((f["value"] for f in fields if f["name"] in RULES_FIELD), None)


async def test_the_servers_rules_reach_a_new_table_and_its_message(
    fake_discord: FakeDiscord, world: Table
) -> None:
    host = world.add_player("anna")
    await world.start_bot()

    changed = await world.command(
        world.admin, "server-rules", target=12, score_display="count_down", show_all_tricks=True
    )
    answer = await ephemeral_reply(changed)
    assert "New tables in this server get these rules" in answer
    assert "Bummerl to 12 game points" in answer and COUNT_DOWN in answer
    assert "Every finished trick stays visible" in answer

    table = await world.open_table(host, [None, None, None], start=False)
    lobby = await world.table_message()
    assert rules_field(lobby) == (
        f"• Bummerl to 12 game points\n• {COUNT_DOWN}\n• Every finished trick stays visible"
    )
    rules = table.rules
    assert (rules.preset, rules.target, rules.score_display, rules.show_all_tricks) == (
        "standard",
        12,
        "count_down",
        True,
    )

    # Shown during play as well, and the score is shown as the setting says (12 still needed by each).
    click = await fake_discord.click(host, lobby, label="Start")
    await click.wait_response()
    playing = await world.table_message(lambda m: any(b.get("label") == "My hand" for b in m.buttons))
    assert COUNT_DOWN in (rules_field(playing) or "")
    score = next(f["value"] for f in playing.embeds[0]["fields"] if f["name"] == "Bummerl")
    assert score.count("12") == 2, score


async def test_bad_values_and_people_without_manage_server_are_refused(world: Table) -> None:
    player = world.add_player("bert")
    await world.start_bot()
    assert world.bot is not None
    before = await world.bot.db.settings.get_guild_settings(world.guild.id)

    too_short = await world.command(world.admin, "server-rules", target=5)
    assert await ephemeral_reply(too_short) == "The target must be from 6 to 99 game points."
    too_long = await world.command(world.admin, "server-rules", target=100, bidding_turns=1)
    assert await ephemeral_reply(too_long) == "The target must be from 6 to 99 game points."
    not_allowed = await world.command(player, "server-rules", target=12)
    assert "Manage Server" in await ephemeral_reply(not_allowed)
    assert await world.bot.db.settings.get_guild_settings(world.guild.id) == before

    shown = await world.command(player, "table-rules")
    assert "There is no table in this channel" in await ephemeral_reply(shown)


async def test_the_host_changes_the_lobbys_rules_until_the_start(
    fake_discord: FakeDiscord, world: Table
) -> None:
    host, guest = world.add_player("anna"), world.add_player("bert")
    await world.start_bot()
    await world.command(world.admin, "server-rules", target=12)
    table = await world.open_table(host, [guest], start=False)

    changed = await world.command(host, "table-rules", bidding_turns=1, kontra_forbidden="none")
    answer = await ephemeral_reply(changed)
    assert answer.startswith("This table's rules:\nRules: Standard\n")
    assert ONE_ROUND in answer and "Kontra on every contract" in answer and "Bummerl to 12" in answer
    lobby = await world.table_message(lambda m: ONE_ROUND in (rules_field(m) or ""))
    assert rules_field(lobby) == f"• Bummerl to 12 game points\n• {ONE_ROUND}\n• Kontra on every contract"
    assert (table.rules.bidding_turns, table.rules.kontra_forbidden, table.rules.target) == (
        1,
        frozenset(),
        12,
    )

    contracts = await world.command(guest, "rules")  # /schnapsen rules lists them too
    assert rules_field(contracts.original) == rules_field(lobby)

    by_guest = await world.command(guest, "table-rules", target=30)
    assert await ephemeral_reply(by_guest) == "Only the host can do that."
    shown = await world.command(guest, "table-rules")  # anyone may look
    assert ONE_ROUND in await ephemeral_reply(shown)

    # Back to the preset's own rules: the message shows no changes.
    await ephemeral_reply(await world.command(host, "table-rules", reset=True))
    lobby = await world.table_message(lambda m: rules_field(m) is None)
    assert table.rules == engine.STANDARD

    await ephemeral_reply(
        await world.command(host, "table-rules", preset="stargames", score_display="count_down")
    )
    assert table.rules == dataclasses.replace(engine.STARGAMES, score_display="count_down")
    start = await fake_discord.click(host, await world.table_message(), label="Start")
    await start.wait_response()
    await fake_discord.wait_for(lambda: table.status == "playing", what="the start")
    started_with = table.rules

    for who in (host, guest):
        late = await world.command(who, "table-rules", target=30)
        assert await ephemeral_reply(late) == (
            "This table has started and keeps the rules it started with. Rules change in the lobby, before Start."
        )
    assert table.rules == started_with
    # The reset dropped the server's target too: only what was chosen since is stored.
    assert (
        await world.stored(table.id)
    ).row.rules_json == '{"preset": "stargames", "score_display": "count_down"}'


async def close_and_store_a_bummerl(world: Table, anna: FakeUser, bert: FakeUser) -> int:
    """Anna closes the table of this channel; a finished Bummerl of hers with Bert, their statistics and her
    choices are stored. Returns the closed table's id."""
    assert world.bot is not None
    db, table_id = world.bot.db, world.live.id
    stop = await world.command(anna, "stop")
    closing = await world.fake.click(anna, stop.original, label="Yes, close the table")
    await closing.wait_response()
    await world.fake.wait_for(lambda: world.bot.service.snapshot(table_id) is None, what="the table to close")
    people = Player(anna.id, "anna"), Player(bert.id, "bert")
    robots = Player(None, "Sepp"), Player(None, "Resi")
    await db.stats.record_bummerl(BummerlRow(world.guild.id, table_id, people, robots, "bummerl", 1, 24, 3, 1))
    await db.stats.add_deal_stats(
        world.guild.id, [PlayerDealStats(u.id, u.name, True, 3, True, True) for u in (anna, bert)]
    )
    await db.prefs.save_player_prefs(PlayerPrefs(anna.id, "channel", "dealt"), 1)
    return table_id


async def confirm_forget_me(world: Table, anna: FakeUser, question: FakeMessage, table_id: int) -> BummerlRow:
    """Anna confirms: she is told it is done, her statistics and choices are gone, and the Bummerl of the
    closed table names her no more (returned)."""
    assert world.bot is not None
    db = world.bot.db
    done = await world.fake.click(anna, question, label="Yes, delete my data")
    assert (await ephemeral_reply(done)).startswith("Done: your statistics, ratings and choices are deleted")
    assert await db.stats.get_player_stats(world.guild.id, anna.id) is None
    assert await db.prefs.get_player_prefs(anna.id) == PlayerPrefs(anna.id)
    [result] = await db.stats.bummerl_results_of_table(table_id)
    assert [p.display_name for p in result.winners] == [REMOVED_NAME, "bert"]
    return result


async def test_forget_me_asks_first_and_removes_the_person(fake_discord: FakeDiscord, world: Table) -> None:
    anna, bert = world.add_player("anna"), world.add_player("bert")
    await world.start_bot()
    assert world.bot is not None
    db = world.bot.db

    # Anna sits at a lobby: she is told to leave first, and nothing happens.
    await world.open_table(anna, [bert], start=False)
    seated = await world.command(anna, "forget-me")
    confirm = await fake_discord.click(anna, seated.original, label="Yes, delete my data")
    assert await ephemeral_reply(confirm) == (
        "You are seated at a table: leave it first with `/schnapsen leave`, then ask again."
    )
    assert (await world.stored(world.live.id)).seats[0].display_name == "anna"

    table_id = await close_and_store_a_bummerl(world, anna, bert)

    asked = await world.command(anna, "forget-me")
    question = asked.original
    assert question.ephemeral and "This cannot be undone." in question.content
    assert await db.stats.get_player_stats(world.guild.id, anna.id) is not None, "asking deletes nothing yet"

    # Only Anna's own click counts (a forged one by Bert is refused).
    forged = await fake_discord.click(bert, question, label="Yes, delete my data", force=True)
    assert await ephemeral_reply(forged) == "That button belongs to another player."
    assert await db.stats.get_player_stats(world.guild.id, anna.id) is not None

    result = await confirm_forget_me(world, anna, question, table_id)
    assert result.winners[0].user_id not in (anna.id, None)
    assert await db.stats.get_player_stats(world.guild.id, bert.id) is not None, "Bert keeps his"
    seats = (await world.stored(table_id)).seats
    assert [(s.user_id, s.display_name) for s in seats] == [(None, REMOVED_NAME), (bert.id, "bert")]
    assert (await world.stored(table_id)).row.host_id == 0


async def test_forget_me_whose_storage_fails_midway_changes_nothing_and_can_be_asked_again(
    fake_discord: FakeDiscord, world: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The disk fails after her statistics, ratings and choices are deleted and before the past Bummerl lose
    her name: the one transaction is rolled back, she is told it failed, and the same button works later."""
    anna, bert = world.add_player("anna"), world.add_player("bert")
    bot = await world.start_bot()
    db = bot.db
    await world.open_table(anna, [bert], start=False)
    table_id = await close_and_store_a_bummerl(world, anna, bert)
    stored_before = (
        await db.stats.get_player_stats(world.guild.id, anna.id),
        await db.prefs.get_player_prefs(anna.id),
        await db.stats.bummerl_results_of_table(table_id),
        (await world.stored(table_id)).seats,
    )

    real_execute = db.core.execute
    ran: list[str] = []  # the writes before the fault
    failed: list[str] = []

    async def disk_fails_at_the_names(sql: str, params: Any = ()) -> int:
        if not failed and sql.lstrip().startswith("UPDATE bummerl_results"):
            failed.append(sql)
            raise sqlite3.OperationalError("disk I/O error")
        if not failed:
            ran.append(sql.strip())
        return await real_execute(sql, params)

    monkeypatch.setattr(db.core, "execute", disk_fails_at_the_names)
    question = (await world.command(anna, "forget-me")).original
    refused = await fake_discord.click(anna, question, label="Yes, delete my data")
    assert (
        await ephemeral_reply(refused)
        == "Nothing was deleted: something went wrong on our side. Please try again."
    )
    assert failed and any(sql.startswith("DELETE FROM player_stats") for sql in ran), "a fault midway"
    assert any(
        "forget-me" in r.getMessage() and r.exc_info for r in caplog.records if r.levelname == "ERROR"
    )
    assert (
        await db.stats.get_player_stats(world.guild.id, anna.id),
        await db.prefs.get_player_prefs(anna.id),
        await db.stats.bummerl_results_of_table(table_id),
        (await world.stored(table_id)).seats,
    ) == stored_before, "all or nothing: nothing was deleted or renamed"

    await confirm_forget_me(world, anna, question, table_id)
