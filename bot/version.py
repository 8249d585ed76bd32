"""The bot's version: pyproject.toml's, as the start line, ``python -m bot --version`` and ``/schnapsen status``
show it (CHANGELOG.md has an entry for each)."""

from __future__ import annotations

import functools
import re
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "bauernschnapsen"
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
_VERSION_LINE = re.compile(r'^version\s*=\s*"([^"]+)"', re.M)


@functools.cache
def version() -> str:
    """The checkout's pyproject.toml version when the bot runs from one (what the code is, even before a
    reinstall), else the installed package's; "unknown" when neither says."""
    try:
        found = _VERSION_LINE.search(PYPROJECT.read_text(encoding="utf-8"))
    except OSError:
        found = None
    if found:
        return found[1]
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"
