"""The rule settings in words: the choices ``/schnapsen server-rules`` and ``/schnapsen table-rules`` offer,
and the lines the table message and the commands' answers show for the settings a table changed from its
preset. One text per value serves both: a choice's name is how the setting then reads."""

from __future__ import annotations

from typing import Any

from discord import app_commands
from discord.app_commands import locale_str

from bot.game import rulesettings
from bot.i18n import t
from engine import Ruleset

from .texts import contract_name

TARGET_KEY = "ruleset.target"


def offered_states(setting: str) -> tuple[Any, ...]:
    """The values a command offers for ``setting`` (a set of contracts by its choice's name)."""
    if setting in rulesettings.BOOL_SETTINGS:
        return (True, False)
    if setting in rulesettings.CONTRACT_SET_CHOICES:
        return tuple(rulesettings.CONTRACT_SET_CHOICES[setting])
    return rulesettings.VALUE_CHOICES.get(setting, ())


def state_key(setting: str, state: Any) -> str:
    """The text of ``setting`` at an offered value: ``ruleset.<setting>.<value>`` (booleans in lower case)."""
    value = f"{setting}.{str(state).lower()}"
    return f"ruleset.{value}"  # one f-string key prefix, which tests/bot/i18n/test_keys_in_code.py expands


def setting_text(rules: Ruleset, setting: str, lang: str) -> str:
    """How ``setting`` reads under ``rules``."""
    if setting == "target":
        return t(lang, TARGET_KEY, points=rules.target)
    state = rulesettings.setting_state(rules, setting)
    if state in offered_states(setting):
        return t(lang, state_key(setting, state))
    # A set of contracts no command offers (a hand-made record): named as it is.
    contracts = getattr(rules, setting)
    names = ", ".join(sorted(contract_name(lang, c) for c in contracts)) or "—"
    return t(lang, "ruleset.custom", setting=setting, value=names)


def changed_rules_text(rules: Ruleset, lang: str) -> str | None:
    """One line per setting ``rules`` change from their preset; None when they change none."""
    changed = rulesettings.changed_settings(rules)
    return "\n".join(f"• {setting_text(rules, s, lang)}" for s in changed) if changed else None


def rules_summary(rules: Ruleset, lang: str) -> str:
    """The answer of the rule commands: the preset, then every changed setting (or that none is)."""
    preset = t(lang, "ruleset.preset", preset=t(lang, f"command.choice.{rules.preset}"))
    return f"{preset}\n{changed_rules_text(rules, lang) or t(lang, 'ruleset.unchanged')}"


def rule_choices() -> dict[str, list[app_commands.Choice[Any]]]:
    """The choices of every setting offered by name (``app_commands.choices(**rule_choices())``); booleans
    and the target need none."""
    return {
        setting: [
            app_commands.Choice(name=locale_str(t("en", key), key=key), value=value)
            for value in offered_states(setting)
            for key in [state_key(setting, value)]
        ]
        for setting in rulesettings.RULE_SETTINGS
        if setting not in rulesettings.BOOL_SETTINGS and offered_states(setting)
    }
