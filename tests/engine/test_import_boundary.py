"""The engine is pure: it may import only the standard library (and itself)."""

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def imported_top_level_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_imports_only_the_standard_library() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert files, "no engine sources found"
    offenders = {
        f"{path.relative_to(ENGINE.parent)}: {module}"
        for path in files
        for module in imported_top_level_modules(path)
        if module not in sys.stdlib_module_names and module != "engine"
    }
    assert not offenders, f"engine imports outside the standard library: {sorted(offenders)}"
