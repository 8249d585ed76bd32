"""Room per concern (issue 27): no module of the bot grows past 600 lines, and no class of it past 30 methods
of its own and of the bot's classes it inherits from. A feature that would break either belongs in a module
or an object of its own (a subscriber of the table core's events, a repository, a button family)."""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"
MAX_LINES = 600
MAX_METHODS = 30


def test_no_module_of_the_bot_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(BOT.parent)): lines
        for path in BOT.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_class_of_the_bot_has_over_30_methods_with_those_it_inherits() -> None:
    classes: dict[str, tuple[set[str], list[str]]] = {}
    for path in BOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                own = {item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)}
                bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
                classes[f"{path.relative_to(BOT.parent)}:{node.name}"] = (own, bases)
    by_name = {key.rsplit(":", 1)[1]: value for key, value in classes.items()}

    def methods(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        if name not in by_name or name in seen:
            return set()  # a class from outside the bot (discord.py's, the standard library's)
        own, bases = by_name[name]
        return own.union(*(methods(base, seen | {name}) for base in bases))

    large = {key: count for key in classes if (count := len(methods(key.rsplit(":", 1)[1]))) > MAX_METHODS}
    assert classes and not large, f"classes over {MAX_METHODS} methods: {large}"
