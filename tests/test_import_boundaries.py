"""Which layer may import what. The engine is pure (standard library only); the parts of the bot below the
Discord shell never import discord, and each reaches only the layers beneath it, so each can be used and
tested without what sits above it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Source (package or module) -> what it may import besides the standard library and itself.
ALLOWED: dict[str, tuple[str, ...]] = {
    "engine": (),
    "bot/vocabulary.py": (),
    "bot/shards.py": (),  # which process serves which guild: a pure rule
    "bot/tournament": (),  # a tournament's pairings and standings: pure rules
    "bot/render": ("PIL", "isal", "bot.vocabulary"),
    "bot/i18n": ("bot.vocabulary",),
    "bot/db": ("aiosqlite", "asyncpg", "engine", "bot.vocabulary"),
    "bot/ai_worker.py": ("engine", "bot.ai_processes"),
    "bot/ai_processes.py": ("engine",),
    "bot/game": (
        "engine", "bot.db", "bot.vocabulary", "bot.shards", "bot.cache", "bot.ai_worker", "openskill",
        "bot.tournament",
    ),
    # The admin commands and what opens their database: storage and settings, never discord.
    "bot/connect.py": ("bot.db", "bot.settings"),
    "bot/ratings.py": ("bot.game", "bot.db", "bot.settings", "bot.connect"),
    "bot/copydata.py": ("bot.db", "bot.settings", "bot.connect"),
    # The shell's texts are Discord-free: the embeds and views are built from them in payloads.py.
    "bot/schnapsen/texts.py": ("engine", "bot.game", "bot.i18n", "bot.render", "bot.vocabulary"),
    # What a hand message shows, as a value compared for changes: Discord-free like the texts it is made of.
    "bot/schnapsen/handmodel.py": ("engine", "bot.game", "bot.i18n", "bot.render", "bot.vocabulary"),
    # The web companion reads storage and the table service, never Discord (docs/web.md); its words are the
    # table messages' own (the shell's Discord-free texts), its markup escaped by Jinja2's markupsafe; a port
    # it cannot listen on stops the start as a bad setting does (bot.connect's StartError).
    "bot/web": (
        "aiohttp", "jinja2", "markupsafe", "PIL", "engine", "bot.db", "bot.game", "bot.i18n", "bot.render",
        "bot.vocabulary", "bot.settings", "bot.schnapsen.texts", "bot.connect", "bot.tournament",
    ),
}


def imported_modules(path: Path) -> set[str]:
    """Every absolute import of the file (relative ones stay inside its own package)."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
    return modules


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.mark.parametrize("source", ALLOWED)
def test_each_layer_imports_only_the_standard_library_and_the_layers_beneath_it(source: str) -> None:
    location = ROOT / source
    files = sorted(location.rglob("*.py")) if location.is_dir() else [location]
    assert files, f"no sources found at {source}"
    allowed = (source.removesuffix(".py").replace("/", "."), *ALLOWED[source])
    offenders = sorted(
        f"{path.relative_to(ROOT)}: {module}"
        for path in files
        for module in imported_modules(path)
        if module.split(".")[0] not in sys.stdlib_module_names and not any(within(module, p) for p in allowed)
    )
    assert not offenders, f"{source} imports beyond its layer: {offenders}"


def python_files(*sources: str) -> list[Path]:
    return sorted(path for source in sources for path in (ROOT / source).rglob("*.py"))


def test_nothing_under_bot_imports_from_the_tests() -> None:
    """The product imports neither the tests nor the helpers they share with the benches (``devtools/``); the
    benches import those helpers from ``devtools/``, never from ``tests/``."""
    offenders = sorted(
        f"{path.relative_to(ROOT)}: {module}"
        for path in python_files("bot", "engine")
        for module in imported_modules(path)
        if within(module, "tests") or within(module, "devtools")
    )
    assert not offenders, f"bot/ or engine/ imports test code: {offenders}"
    offenders = sorted(
        f"{path.relative_to(ROOT)}: {module}"
        for path in python_files("bench", "devtools")
        for module in imported_modules(path)
        if within(module, "tests")
    )
    assert not offenders, f"bench/ or devtools/ imports from tests/: {offenders}"


def test_the_shell_reads_tables_through_the_snapshot_not_their_storage_rows() -> None:
    """The Discord shell (bot/schnapsen, bot/render) reads what a table shows through the snapshot's
    properties (``table.deck``, ``table.channel_id``); a storage row's field (``table.row.deck``) is the
    storage layer's business, free to change without the shell noticing."""
    offenders = sorted(
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in python_files("bot/schnapsen", "bot/render")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "row"
    )
    assert not offenders, f"the shell reads storage rows at {offenders}"


def relative_imports(path: Path) -> set[str]:
    """The sibling modules a file imports relatively (``from . import x``, ``from .x import y``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module] if node.module else [alias.name for alias in node.names])
    return found


def test_the_buttons_and_the_messages_built_of_them_do_not_import_each_other() -> None:
    """``payloads.py`` builds views of the families' buttons; the families (``components.py``) answer with
    texts of their own and reach a hand through the runtime, so neither module is half of a cycle."""
    shell = ROOT / "bot" / "schnapsen"
    assert "payloads" not in relative_imports(shell / "components.py")
    assert "answers" not in relative_imports(shell / "payloads.py") or "payloads" not in relative_imports(
        shell / "answers.py"
    )
    assert "components" not in relative_imports(shell / "answers.py")


# --- the table core and its subscribers (bot/game/subscribers/) -----------------------------------------------

SUBSCRIBERS = ROOT / "bot" / "game" / "subscribers"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def resolved_imports(path: Path) -> set[str]:
    """Every import of the file as an absolute module name (relative ones resolved; ``from . import x`` as
    the module ``x`` of the package)."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            if node.module:
                base = [*base, *node.module.split(".")]
            modules.add(".".join(base))
            modules.update(".".join([*base, alias.name]) for alias in node.names)  # a submodule, maybe
    return modules


def source_of(module: str) -> Path | None:
    path = ROOT.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def reached_from(path: Path) -> set[str]:
    """The project's modules ``path`` imports, directly or through the modules it imports."""
    seen: set[str] = set()
    todo = [path]
    while todo:
        for module in resolved_imports(todo.pop()):
            found = source_of(module)
            if found is not None and module not in seen:
                seen.add(module)
                todo.append(found)
    return seen


def test_the_table_core_reaches_no_subscriber() -> None:
    core = ROOT / "bot" / "game" / "core.py"
    reached = sorted(m for m in reached_from(core) if within(m, "bot.game.subscribers"))
    assert not reached, f"the table core imports subscribers (they are handed in): {reached}"


@pytest.mark.parametrize("subscriber", sorted(p.name for p in SUBSCRIBERS.glob("*.py") if p.name != "__init__.py"))
def test_a_subscriber_imports_no_other_subscriber(subscriber: str) -> None:
    path = SUBSCRIBERS / subscriber
    others = sorted(
        m for m in resolved_imports(path) if within(m, "bot.game.subscribers") and m != module_name(path)
    )
    assert not others, f"{subscriber} imports other subscribers (they meet only in the core's events): {others}"
