"""The rule settings a server or a table changes from Discord: every variant of docs/rules.md, each with the
values a slash command offers, and how changes are checked and applied to a preset.

A change is kept in the record's JSON form (``{"target": 12, "kontra_forbidden": []}``, engine/ruleset.py),
so that the same text is stored for a server (``guild_settings.rule_changes_json``) and, applied to the preset,
for a table (``game_tables.rules_json``). Commands send the values offered below; anything else is refused with
a user's error, never passed on (every option is untrusted input).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from engine import Contract, Ruleset

from .errors import UserError, one_of

# A Bummerl below 6 game points ends with the first Schnapser; above 99 it outlasts an evening.
TARGET_RANGE = (6, 99)

_ALL = [contract.id for contract in Contract]
# The contracts the declarer must win alone, in which RULES.md's "make tricks" reading keeps Stichzwang.
_MAKE_TRICKS = [
    "bauernschnapser",
    "gang",
    "kontrabauernschnapser",
    "kontraschnapser",
    "schnapser",
    "zehnerloch",
]

# Settings whose value is a set of contracts: the named sets a command offers (choice -> contract ids).
CONTRACT_SET_CHOICES: dict[str, dict[str, list[str]]] = {
    "partner_sits_out": {
        "bettler": ["ass_bettler", "bettler"],
        "bettler_gang_zehnerloch": ["ass_bettler", "bettler", "gang", "zehnerloch"],
    },
    "kontra_forbidden": {"standard": sorted(c.id for c in engine.STANDARD.kontra_forbidden), "none": []},
    "re_forbidden": {"standard": sorted(c.id for c in engine.STANDARD.re_forbidden), "none": []},
    "stichzwang_contracts": {"all": sorted(_ALL), "make_tricks": _MAKE_TRICKS},
}
# Settings with a few values: the values offered, as the record stores them.
VALUE_CHOICES: dict[str, tuple[Any, ...]] = {
    "score_display": ("count_up", "count_down"),
    "schneider_bummerl": (1, 2),
    "retourschneider_bummerl": (0, 2, 4),
    "bettler_value": (4, 5),
    "bidding_turns": (1, 2),
    "schnapser_leader": ("forehand", "declarer"),
    "max_multiplier": (4, 8),
    "schnapser_marriages": ("claim", "additive", "none"),
}
BOOL_SETTINGS = ("show_all_tricks", "ass_bettler", "sitting_out_partner_may_double", "undertrump_required")

# Every setting reachable from Discord, in the order commands and messages show them: how a game is scored
# first, then the contracts, doubling and the card play. Together: every field of Ruleset but the preset.
RULE_SETTINGS = (
    "target",
    "score_display",
    "schneider_bummerl",
    "retourschneider_bummerl",
    "show_all_tricks",
    "bettler_value",
    "ass_bettler",
    "partner_sits_out",
    "bidding_turns",
    "schnapser_leader",
    "schnapser_marriages",
    "max_multiplier",
    "kontra_forbidden",
    "re_forbidden",
    "sitting_out_partner_may_double",
    "stichzwang_contracts",
    "undertrump_required",
)


def checked_change(setting: str, value: Any) -> Any:
    """The record's JSON value for ``setting`` set to ``value`` as a command sends it; UserError otherwise."""
    if setting == "target":
        low, high = TARGET_RANGE
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise UserError("error.bad_target", low=low, high=high)
        return value
    if setting in BOOL_SETTINGS:
        if not isinstance(value, bool):
            raise UserError("error.bad_rule", setting=setting, value=value)
        return value
    if setting in VALUE_CHOICES:
        # Exact types: True must not pass for 1.
        for choice in VALUE_CHOICES[setting]:
            if type(choice) is type(value) and choice == value:
                return choice
        raise UserError("error.bad_rule", setting=setting, value=value)
    if setting in CONTRACT_SET_CHOICES:
        named = CONTRACT_SET_CHOICES[setting]
        if not isinstance(value, str) or value not in named:
            raise UserError("error.bad_rule", setting=setting, value=value)
        return list(named[value])
    raise UserError("error.bad_rule", setting=setting, value=value)


def checked_changes(given: Mapping[str, Any]) -> dict[str, Any]:
    """The settings given (None: not given) as the record stores them, each checked."""
    return {setting: checked_change(setting, value) for setting, value in given.items() if value is not None}


def changes_from_preset(rules: Ruleset) -> dict[str, Any]:
    """The settings in which ``rules`` differ from their preset, as the record stores them."""
    stored = engine.ruleset_to_json(rules)
    return {} if isinstance(stored, str) else {k: v for k, v in stored.items() if k != "preset"}


def ruleset_of(preset: str, changes: Mapping[str, Any]) -> Ruleset:
    """``preset`` with ``changes`` applied. Stored changes that no longer parse are a user's error (they
    came from a command or the database, both checked, so this means a hand-edited database)."""
    chosen = one_of(preset, tuple(engine.PRESETS), "error.bad_preset", preset=preset)
    try:
        return engine.ruleset_from_json({**changes, "preset": chosen})
    except engine.MalformedInput as err:
        raise UserError("error.bad_rule", setting=err.code, value=err.message) from None


def setting_state(rules: Ruleset, setting: str) -> Any:
    """The value of ``setting`` as a command offers it (the named set for a set of contracts), or None for a
    set of contracts no command offers."""
    value = getattr(rules, setting)
    if setting in CONTRACT_SET_CHOICES:
        ids = sorted(contract.id for contract in value)
        return next(
            (name for name, named in CONTRACT_SET_CHOICES[setting].items() if sorted(named) == ids), None
        )
    return value


def changed_settings(rules: Ruleset) -> list[str]:
    """The settings in which ``rules`` differ from their preset, in ``RULE_SETTINGS`` order."""
    changed = changes_from_preset(rules)
    return [setting for setting in RULE_SETTINGS if setting in changed]
