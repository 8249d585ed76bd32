"""The renderer must stay importable and testable without discord."""

import ast
from pathlib import Path

RENDER_DIR = Path(__file__).resolve().parents[2] / "bot" / "render"


def _imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


def test_render_package_never_imports_discord():
    files = sorted(RENDER_DIR.rglob("*.py"))
    assert files
    for path in files:
        offending = {m for m in _imported_modules(path) if m == "discord" or m.startswith("discord.")}
        assert not offending, f"{path.name} imports {offending}"


def test_render_package_imports_only_itself_pillow_and_stdlib():
    allowed_roots = {"PIL", "bot", "__future__"}
    for path in RENDER_DIR.rglob("*.py"):
        for module in _imported_modules(path):
            root = module.split(".")[0]
            if root == "bot":
                assert module.startswith(("bot.render", "bot.vocabulary")), f"{path.name} imports {module}"
            else:
                assert root in allowed_roots or root in __import__("sys").stdlib_module_names, module
