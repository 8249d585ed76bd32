"""``python -m engine.replay FILE`` (``-`` for standard input): replay a game record and print a JSON report.

Exit status 0 when every action was legal, 1 at the first illegal action, 2 when the input is malformed.
``python -m engine.replay --help`` shows this text (a file named ``--help`` is ``./--help``).
"""

from __future__ import annotations

import sys

from .cli import run_json_command
from .errors import MalformedInput
from .record import load_record_text, replay, replay_report


def run(argv: list[str], stdin_text: str | None = None) -> tuple[int, dict[str, object]]:
    if len(argv) != 1:
        return 2, {
            "ok": False,
            "error": {"code": "usage", "message": "usage: python -m engine.replay FILE (or -)"},
        }
    try:
        if argv[0] == "-":
            text = sys.stdin.read() if stdin_text is None else stdin_text
        else:
            with open(argv[0], encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as err:
        return 2, {"ok": False, "error": {"code": "unreadable", "message": f"cannot read {argv[0]}: {err}"}}
    try:
        replayed = replay(load_record_text(text))
    except MalformedInput as err:
        return 2, {"ok": False, "error": {"code": err.code, "message": err.message}}
    report = replay_report(replayed)
    return (0 if replayed.error is None else 1), report


def main() -> int:
    return run_json_command(run, help_doc=__doc__)


if __name__ == "__main__":
    sys.exit(main())
