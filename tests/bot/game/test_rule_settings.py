"""Rule settings from Discord, below the commands: every variant of docs/rules.md is reachable, values are
checked, a server's settings reach its new tables, a lobby's host changes them, and a started table keeps its
rules. Both storage engines (the service tests' ``database_engine``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import engine
from bot.db import Database
from bot.game import rulesettings
from bot.game.errors import UserError
from bot.game.service import TableService
from engine import Contract
from tests.bot.game.test_service import ALICE, BOB, GUILD, four_at_play, open_lobby


def test_every_setting_of_the_ruleset_but_the_preset_is_offered() -> None:
    fields = {field.name for field in dataclasses.fields(engine.Ruleset)} - {"preset"}
    assert set(rulesettings.RULE_SETTINGS) == fields
    offered = set(rulesettings.VALUE_CHOICES) | set(rulesettings.CONTRACT_SET_CHOICES)
    assert offered | set(rulesettings.BOOL_SETTINGS) | {"target"} == fields


def test_every_offered_value_is_one_the_engine_takes() -> None:
    for setting, values in rulesettings.VALUE_CHOICES.items():
        for value in values:
            engine.ruleset_from_json({setting: rulesettings.checked_change(setting, value)})
    for setting, named in rulesettings.CONTRACT_SET_CHOICES.items():
        for name in named:
            rules = engine.ruleset_from_json({setting: rulesettings.checked_change(setting, name)})
            assert rulesettings.setting_state(rules, setting) == name  # read back as the same choice


def test_the_presets_values_are_among_the_choices() -> None:
    """Whatever a preset has, a command can set again (so `reset` is never the only way back)."""
    for preset in engine.PRESETS.values():
        for setting in rulesettings.RULE_SETTINGS:
            state = rulesettings.setting_state(preset, setting)
            if setting in rulesettings.VALUE_CHOICES:
                assert state in rulesettings.VALUE_CHOICES[setting], (preset.preset, setting)
            elif setting in rulesettings.CONTRACT_SET_CHOICES:
                assert state is not None, (preset.preset, setting)


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("target", 5),
        ("target", 100),
        ("target", True),
        ("target", "24"),
        ("score_display", "sideways"),
        ("max_multiplier", 16),
        ("max_multiplier", 4.0),
        ("bidding_turns", True),
        ("show_all_tricks", 1),
        ("kontra_forbidden", "some"),
        ("kontra_forbidden", ["gang"]),
        ("preset", "standard"),
        ("no_such_setting", 1),
    ],
)
def test_a_value_no_command_offers_is_refused(setting: str, value: Any) -> None:
    with pytest.raises(UserError) as err:
        rulesettings.checked_change(setting, value)
    assert err.value.key in ("error.bad_target", "error.bad_rule")


def test_the_target_range_is_inclusive() -> None:
    low, high = rulesettings.TARGET_RANGE
    assert rulesettings.checked_change("target", low) == low
    assert rulesettings.checked_change("target", high) == high


async def test_a_servers_settings_reach_its_new_tables_on_any_preset(service: TableService) -> None:
    settings = await service.guilds.update_guild_rules(
        GUILD, changes={"score_display": "count_down", "target": 12, "show_all_tricks": True}
    )
    assert settings.rule_changes == {"score_display": "count_down", "show_all_tricks": True, "target": 12}
    table = await open_lobby(service, rule_changes=settings.rule_changes)
    assert (table.rules.score_display, table.rules.target, table.rules.show_all_tricks) == (
        "count_down",
        12,
        True,
    )
    assert table.match.rules == table.rules  # the Bummerl is scored by them too
    assert rulesettings.changed_settings(table.rules) == ["target", "score_display", "show_all_tricks"]
    other = await open_lobby(
        service, host=BOB, channel_id=777, preset="stargames", rule_changes=settings.rule_changes
    )
    assert other.rules == dataclasses.replace(
        engine.STARGAMES, score_display="count_down", target=12, show_all_tricks=True
    )


async def test_server_changes_add_up_until_reset_and_a_bad_value_stores_nothing(
    service: TableService, db: Database
) -> None:
    await service.guilds.update_guild_rules(GUILD, changes={"target": 12})
    await service.guilds.update_guild_rules(GUILD, changes={"kontra_forbidden": "none", "max_multiplier": 8})
    stored = await db.settings.get_guild_settings(GUILD)
    assert stored.rule_changes == {"kontra_forbidden": [], "max_multiplier": 8, "target": 12}
    with pytest.raises(UserError):
        await service.guilds.update_guild_rules(GUILD, changes={"target": 3, "bettler_value": 5})
    assert await db.settings.get_guild_settings(GUILD) == stored
    # Switching to a preset that has a change already keeps only what still differs.
    switched = await service.guilds.update_guild_rules(GUILD, preset="stargames")
    assert (switched.preset, switched.rule_changes) == ("stargames", {"target": 12})
    assert (await service.guilds.update_guild_rules(GUILD, reset=True)).rule_changes == {}
    cleared = await db.settings.get_guild_settings(GUILD)
    assert (cleared.preset, cleared.rule_changes) == ("stargames", {})


async def test_the_other_server_settings_leave_the_rule_settings_alone(service: TableService) -> None:
    await service.guilds.update_guild_rules(GUILD, changes={"target": 12})
    updated = await service.guilds.update_guild_settings(GUILD, preset="stargames", turn_seconds=30)
    assert (updated.preset, updated.rule_changes) == ("stargames", {"target": 12})
    assert (await service.guilds.guild_settings(GUILD)).rule_changes == {"target": 12}


async def test_the_host_changes_the_lobbys_rules_and_they_survive_a_restart(
    service: TableService, db: Database
) -> None:
    lobby = await open_lobby(service, rule_changes={"target": 12})
    changed = await service.set_table_rules(
        lobby.id, ALICE, changes={"partner_sits_out": "bettler_gang_zehnerloch", "undertrump_required": False}
    )
    assert changed.rules.target == 12  # the server's setting stays unless changed
    assert changed.rules.partner_sits_out == frozenset(
        {Contract.BETTLER, Contract.ASS_BETTLER, Contract.GANG, Contract.ZEHNERLOCH}
    )
    assert changed.rules.undertrump_required is False
    assert service.snapshot(lobby.id) == changed
    restored = (await TableService(db).restorer.restore_all()).tables
    assert [table.rules for table in restored] == [changed.rules]
    switched = await service.set_table_rules(lobby.id, ALICE, preset="stargames")
    assert switched.rules.preset == "stargames" and switched.rules.target == 12
    assert switched.rules.bettler_value == 5
    back = await service.set_table_rules(lobby.id, ALICE, reset=True, changes={"bidding_turns": 2})
    assert back.rules == dataclasses.replace(engine.STARGAMES, bidding_turns=2)


async def test_only_the_host_changes_a_lobbys_rules(service: TableService) -> None:
    lobby = await open_lobby(service)
    lobby = await service.take_seat(lobby.id, BOB, "bob", None)
    with pytest.raises(UserError) as err:
        await service.set_table_rules(lobby.id, BOB, changes={"target": 12})
    assert err.value.key == "error.host_only"
    with pytest.raises(UserError) as err:
        await service.set_table_rules(lobby.id, ALICE, changes={"target": 500})
    assert err.value.key == "error.bad_target"
    assert service.snapshot(lobby.id) == lobby


async def test_a_started_table_keeps_its_rules(service: TableService, db: Database) -> None:
    table = await four_at_play(service, await open_lobby(service, rule_changes={"target": 12}))
    before = await db.tables.get_table(table.id)
    for who in (ALICE, BOB):
        with pytest.raises(UserError) as err:
            await service.set_table_rules(table.id, who, changes={"target": 30})
        assert err.value.key == "error.rules_locked"
    assert service.snapshot(table.id) == table
    assert await db.tables.get_table(table.id) == before
    # Storage refuses too, should a change get past the service's check.
    assert not await db.tables.set_lobby_rules(table.id, '"standard"', 0)
    assert (await db.tables.get_table(table.id)) == before
