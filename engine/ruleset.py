"""Every setting of RULES.md section 7 as one frozen value, the presets, and the record's JSON form."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from .contracts import FIXED_VALUES, Contract
from .errors import MalformedInput

C = Contract
Preset = Literal["standard", "stargames"]


@dataclass(frozen=True, slots=True)
class Ruleset:
    preset: Preset = "standard"
    bettler_value: int = 4
    ass_bettler: bool = True
    partner_sits_out: frozenset[Contract] = frozenset({C.BETTLER, C.ASS_BETTLER})
    bidding_turns: int = 2
    schnapser_leader: str = "forehand"
    max_multiplier: int = 4
    kontra_forbidden: frozenset[Contract] = frozenset(
        {C.FARBRINGERL, C.TRUMPFFARBRINGERL, C.KONTRABAUERNSCHNAPSER}
    )
    re_forbidden: frozenset[Contract] = frozenset({C.BAUERNSCHNAPSER, C.KONTRASCHNAPSER})
    sitting_out_partner_may_double: bool = True
    stichzwang_contracts: frozenset[Contract] = frozenset(Contract)
    undertrump_required: bool = True
    schnapser_marriages: str = "claim"
    target: int = 24
    schneider_bummerl: int = 2
    retourschneider_bummerl: int = 4  # 0 switches Retourschneider off
    score_display: str = "count_up"
    show_all_tricks: bool = False

    def contract_value(self, contract: Contract) -> int:
        if contract is C.BETTLER:
            return self.bettler_value
        return FIXED_VALUES.get(contract, 1)


STANDARD = Ruleset()
STARGAMES = dataclasses.replace(
    STANDARD,
    preset="stargames",
    bettler_value=5,
    ass_bettler=False,
    bidding_turns=1,
    max_multiplier=8,
    kontra_forbidden=frozenset(),
    re_forbidden=frozenset(),
)
PRESETS: dict[Preset, Ruleset] = {rules.preset: rules for rules in (STANDARD, STARGAMES)}

_CHOICES: dict[str, tuple[Any, ...]] = {
    "bidding_turns": (1, 2),
    "schnapser_leader": ("forehand", "declarer"),
    "max_multiplier": (4, 8),
    "schnapser_marriages": ("claim", "additive", "none"),
    "score_display": ("count_up", "count_down"),
}
_CONTRACT_SETS = ("partner_sits_out", "kontra_forbidden", "re_forbidden", "stichzwang_contracts")
_BOOLS = ("ass_bettler", "sitting_out_partner_may_double", "undertrump_required", "show_all_tricks")
_POSITIVE_INTS = ("bettler_value", "target", "schneider_bummerl")


def ruleset_from_json(value: Any) -> Ruleset:
    """A preset name, or ``{"preset": ..., "<setting>": value, ...}``; anything unknown is MalformedInput."""
    if isinstance(value, str):
        if value not in PRESETS:
            raise MalformedInput("unknown_preset", f"unknown rules preset {value!r} ({', '.join(PRESETS)})")
        return PRESETS[value]
    if not isinstance(value, dict):
        raise MalformedInput("bad_rules", "rules must be a preset name or an object")
    settings = dict(value)
    preset = settings.pop("preset", "standard")
    if not isinstance(preset, str):
        raise MalformedInput("unknown_preset", f"'preset' must be a preset name, not {preset!r}")
    base = ruleset_from_json(preset)
    changes: dict[str, Any] = {}
    for name, raw in settings.items():
        changes[name] = _parse_setting(name, raw)
    return dataclasses.replace(base, **changes)


def _parse_setting(name: str, raw: Any) -> Any:
    where = f"setting {name!r}"
    if name in _CHOICES:
        # Exact types: 4.0 or true must not pass for 4 or 1.
        if not any(type(raw) is type(choice) and raw == choice for choice in _CHOICES[name]):
            raise MalformedInput("bad_setting", f"{where} must be one of {list(_CHOICES[name])}, not {raw!r}")
        return raw
    if name in _BOOLS:
        if not isinstance(raw, bool):
            raise MalformedInput("bad_setting", f"{where} must be true or false, not {raw!r}")
        return raw
    if name in _POSITIVE_INTS or name == "retourschneider_bummerl":
        minimum = 0 if name == "retourschneider_bummerl" else 1
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < minimum:
            raise MalformedInput("bad_setting", f"{where} must be a whole number ≥ {minimum}, not {raw!r}")
        return raw
    if name in _CONTRACT_SETS:
        if not isinstance(raw, list):
            raise MalformedInput("bad_setting", f"{where} must be a list of contract ids")
        try:
            return frozenset(Contract.from_id(item) for item in raw)
        except MalformedInput as err:
            raise MalformedInput("bad_setting", f"{where}: {err.message}") from None
    raise MalformedInput("unknown_setting", f"unknown setting {name!r}")


def ruleset_to_json(rules: Ruleset) -> str | dict[str, Any]:
    """The preset name when nothing differs from it, else the preset plus the differing settings.

    >>> ruleset_to_json(STARGAMES), ruleset_to_json(dataclasses.replace(STANDARD, target=7))
    ('stargames', {'preset': 'standard', 'target': 7})
    """
    base = PRESETS[rules.preset]
    if rules == base:
        return rules.preset
    out: dict[str, Any] = {"preset": rules.preset}
    for field in dataclasses.fields(Ruleset):
        mine, theirs = getattr(rules, field.name), getattr(base, field.name)
        if field.name != "preset" and mine != theirs:
            out[field.name] = sorted(c.id for c in mine) if isinstance(mine, frozenset) else mine
    return out
