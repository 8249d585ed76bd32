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
# (setting, value as a command offers it) -> its text.
STATE_KEYS: dict[tuple[str, Any], str] = {
    ("score_display", "count_up"): "ruleset.score_display.count_up",
    ("score_display", "count_down"): "ruleset.score_display.count_down",
    ("schneider_bummerl", 1): "ruleset.schneider_bummerl.1",
    ("schneider_bummerl", 2): "ruleset.schneider_bummerl.2",
    ("retourschneider_bummerl", 0): "ruleset.retourschneider_bummerl.0",
    ("retourschneider_bummerl", 2): "ruleset.retourschneider_bummerl.2",
    ("retourschneider_bummerl", 4): "ruleset.retourschneider_bummerl.4",
    ("show_all_tricks", True): "ruleset.show_all_tricks.true",
    ("show_all_tricks", False): "ruleset.show_all_tricks.false",
    ("bettler_value", 4): "ruleset.bettler_value.4",
    ("bettler_value", 5): "ruleset.bettler_value.5",
    ("ass_bettler", True): "ruleset.ass_bettler.true",
    ("ass_bettler", False): "ruleset.ass_bettler.false",
    ("partner_sits_out", "bettler"): "ruleset.partner_sits_out.bettler",
    ("partner_sits_out", "bettler_gang_zehnerloch"): "ruleset.partner_sits_out.bettler_gang_zehnerloch",
    ("bidding_turns", 1): "ruleset.bidding_turns.1",
    ("bidding_turns", 2): "ruleset.bidding_turns.2",
    ("schnapser_leader", "forehand"): "ruleset.schnapser_leader.forehand",
    ("schnapser_leader", "declarer"): "ruleset.schnapser_leader.declarer",
    ("schnapser_marriages", "claim"): "ruleset.schnapser_marriages.claim",
    ("schnapser_marriages", "additive"): "ruleset.schnapser_marriages.additive",
    ("schnapser_marriages", "none"): "ruleset.schnapser_marriages.none",
    ("max_multiplier", 4): "ruleset.max_multiplier.4",
    ("max_multiplier", 8): "ruleset.max_multiplier.8",
    ("kontra_forbidden", "standard"): "ruleset.kontra_forbidden.standard",
    ("kontra_forbidden", "none"): "ruleset.kontra_forbidden.none",
    ("re_forbidden", "standard"): "ruleset.re_forbidden.standard",
    ("re_forbidden", "none"): "ruleset.re_forbidden.none",
    ("sitting_out_partner_may_double", True): "ruleset.sitting_out_partner_may_double.true",
    ("sitting_out_partner_may_double", False): "ruleset.sitting_out_partner_may_double.false",
    ("stichzwang_contracts", "all"): "ruleset.stichzwang_contracts.all",
    ("stichzwang_contracts", "make_tricks"): "ruleset.stichzwang_contracts.make_tricks",
    ("undertrump_required", True): "ruleset.undertrump_required.true",
    ("undertrump_required", False): "ruleset.undertrump_required.false",
}


def setting_text(rules: Ruleset, setting: str, lang: str) -> str:
    """How ``setting`` reads under ``rules``."""
    if setting == "target":
        return t(lang, TARGET_KEY, points=rules.target)
    state = rulesettings.setting_state(rules, setting)
    key = STATE_KEYS.get((setting, state))
    if key is not None:
        return t(lang, key)
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
    found: dict[str, list[app_commands.Choice[Any]]] = {}
    for (setting, value), key in STATE_KEYS.items():
        if setting in rulesettings.BOOL_SETTINGS:
            continue
        found.setdefault(setting, []).append(
            app_commands.Choice(name=locale_str(t("en", key), key=key), value=value)
        )
    return found
