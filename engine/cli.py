"""What the engine's commands share: one JSON object on standard output and an exit status, never a traceback."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Command = Callable[[list[str]], tuple[int, dict[str, Any]]]


def run_json_command(command: Command, argv: list[str] | None = None) -> int:
    try:
        status, report = command(sys.argv[1:] if argv is None else argv)
    except Exception as err:  # the commands promise JSON, never a traceback
        status, report = 2, {"ok": False, "error": {"code": "internal_error", "message": repr(err)}}
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return status
