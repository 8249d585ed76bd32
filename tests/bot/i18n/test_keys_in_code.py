"""Every catalogue key the bot's code names exists: literal keys, and every expansion of an f-string key (in
the web pages' templates: a key given to ``_``/``html``, and every expansion of a key joined with ``~``)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import engine
from bot.db.tournaments import TOURNAMENT_STATUSES
from bot.game.rulesettings import RULE_SETTINGS
from bot.i18n import catalogue, plural_keys
from bot.render import DECK_STYLES
from bot.schnapsen.ruletexts import offered_states
from engine.actions import DOUBLING_WORDS
from engine.match import BUMMERL, RETOURSCHNEIDER, SCHNEIDER

ROOT = Path(__file__).resolve().parents[3]  # tests/bot/i18n/ -> the repository
# A key with plural forms is named in the code without its form (t picks ``.one``/``.other`` by the count).
ENGLISH = set(catalogue("en")) | plural_keys(catalogue("en"))
NAMESPACES = {key.split(".")[0] for key in ENGLISH}
KEY_SHAPE = re.compile(r"[a-z_]+(?:\.[A-Za-z0-9_]+)+")
KEY_PREFIX_SHAPE = re.compile(r"[a-z_]+(?:\.[a-z_]+)*\.")
FILE_NAME = re.compile(r".+\.(?:png|json)")
TEMPLATES = ROOT / "bot" / "web" / "templates"
# In a template: _("key") or html("key"), and "prefix." ~ value (a key built at run time).
TEMPLATE_KEY = re.compile(r"""\b(?:_|html)\(\s*["']([a-z_]+(?:\.[A-Za-z0-9_]+)+)["']""")
TEMPLATE_PREFIX = re.compile(r"""["']([a-z_]+(?:\.[a-z_]+)*\.)["']\s*~""")
PHASES = (engine.TRUMP, engine.AUCTION, engine.DOUBLING, engine.PLAY)  # a seat is to act
CONTRACT_IDS = tuple(contract.id for contract in engine.Contract)


def engine_rule_codes() -> set[str]:
    """The codes engine.apply can refuse an action with: every refusal anywhere, and the malformed-action
    codes of the modules that check actions (record-parsing codes never reach a button)."""
    codes = set()
    for path in (ROOT / "engine").glob("*.py"):
        refusals = {"IllegalAction", "NotYourTurn", "WrongPhase"}
        if path.name in ("rules.py", "actions.py"):
            refusals.add("MalformedInput")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in refusals
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                codes.add(node.args[0].value)
    return codes


# What follows each f-string key prefix in the code; a new prefix makes the test below ask for its expansion.
EXPANSIONS: dict[str, tuple[str, ...]] = {
    "status.": PHASES,
    "hand.prompt.": PHASES,
    "seat.": ("0", "1", "2", "3"),
    "contract.": CONTRACT_IDS,
    "rules.who.": CONTRACT_IDS,
    "double.": DOUBLING_WORDS,
    "deck.": DECK_STYLES,
    "leaderboard.sort.": ("rating", "bummerl", "winrate", "points"),
    "result.bummerl.": (BUMMERL, SCHNEIDER, RETOURSCHNEIDER),
    "result.kind.": (BUMMERL, SCHNEIDER, RETOURSCHNEIDER),
    "rules.": tuple(sorted(engine_rule_codes())),
    "coach.where.": ("trump", "auction", "doubling"),
    "team.": ("0", "1"),  # a card's decision names its trick (coach.where.play)
    # ruletexts.state_key: a rule setting at each value a command offers
    "ruleset.": tuple(
        f"{setting}.{str(value).lower()}" for setting in RULE_SETTINGS for value in offered_states(setting)
    ),
    # Choice names, also shown for stored settings; test_translator checks every choice of every command.
    "command.choice.": ("standard", "stargames", "en", "de", "nl", "tr", "pimc", "greedy"),
    # The web pages' templates (bot/web/templates)
    "web.status.": ("lobby", "playing", "finished", "closed"),
    "web.tournament.status.": TOURNAMENT_STATUSES,
    "web.match.status.": ("pending", "playing", "done"),
}


def keys_in_code() -> tuple[dict[str, str], dict[str, str]]:
    """(literal key -> where, f-string key prefix -> where) for every key-shaped string under bot/."""
    literals: dict[str, str] = {}
    prefixes: dict[str, str] = {}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if (
                    KEY_SHAPE.fullmatch(text)
                    and text.split(".")[0] in NAMESPACES
                    and not FILE_NAME.fullmatch(text)
                ):
                    literals.setdefault(text, f"{where}:{node.lineno}")
            elif isinstance(node, ast.JoinedStr) and node.values:
                head = node.values[0]
                if (
                    isinstance(head, ast.Constant)
                    and KEY_PREFIX_SHAPE.fullmatch(str(head.value))
                    and str(head.value).split(".")[0] in NAMESPACES
                    and len(node.values) == 2  # "<prefix>{value}" and nothing after it
                ):
                    prefixes.setdefault(str(head.value), f"{where}:{node.lineno}")
    for path in sorted(TEMPLATES.glob("*.html")):
        where = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        for found in TEMPLATE_KEY.finditer(text):
            literals.setdefault(found[1], where)
        for found in TEMPLATE_PREFIX.finditer(text):
            if found[1].split(".")[0] in NAMESPACES:
                prefixes.setdefault(found[1], where)
    return literals, prefixes


def test_the_scan_finds_the_keys_the_code_uses():
    literals, prefixes = keys_in_code()
    assert {"status.lobby", "button.pass", "error.not_seated", "log.new_deal"} <= set(literals)
    assert {"status.", "seat.", "contract.", "rules."} <= set(prefixes)
    assert {"web.table_name", "web.footer"} <= set(literals) and "web.status." in prefixes  # the templates too


def test_every_literal_key_in_the_code_exists():
    literals, _ = keys_in_code()
    missing = {key: where for key, where in literals.items() if key not in ENGLISH}
    assert missing == {}


def test_every_expansion_of_an_fstring_key_exists():
    _, prefixes = keys_in_code()
    unknown = {prefix: where for prefix, where in prefixes.items() if prefix not in EXPANSIONS}
    assert unknown == {}, "add the values these f-string keys take to EXPANSIONS"
    missing = [
        prefix + value for prefix in prefixes for value in EXPANSIONS[prefix] if prefix + value not in ENGLISH
    ]
    assert missing == []


def test_every_rules_refusal_has_a_text():
    assert engine_rule_codes() >= {"must_follow_suit", "not_your_turn", "wrong_phase"}
    assert sorted(code for code in engine_rule_codes() if f"rules.{code}" not in ENGLISH) == []


def test_every_key_is_used_by_the_code():
    literals, prefixes = keys_in_code()
    used = set(literals) | {prefix + value for prefix in prefixes for value in EXPANSIONS[prefix]}
    used |= {f"{key}.{form}" for key in used & plural_keys(ENGLISH) for form in ("one", "other")}
    unused = sorted(key for key in catalogue("en") if key not in used and not key.startswith("command."))
    assert unused == []  # command.* texts are checked against the commands by test_translator
