import ast
from pathlib import Path

import bot.db

FORBIDDEN = {"discord"}  # it builds the engine's GameRecord for the export, so the engine is allowed


def test_the_storage_package_never_imports_discord() -> None:
    package = Path(bot.db.__file__).parent
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert not roots & FORBIDDEN, f"{path.name} imports {roots & FORBIDDEN}"
