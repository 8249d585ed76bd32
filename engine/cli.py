"""What the engine's commands share: one JSON object on standard output and an exit status, never a traceback.

The object is written as ASCII bytes (every other character ``\\u``-escaped), so it reads the same whatever
the terminal's encoding (``PYTHONIOENCODING=ascii``, a Windows code page, UTF-16). Standard input is read as
UTF-8, the encoding of a record, whatever the locale says. Anything a command raises, a ``KeyboardInterrupt``
included, is answered with a JSON error and exit status 2; a standard output that is closed or a pipe nobody
reads any more loses the answer silently but keeps the exit status.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Callable
from typing import Any

Command = Callable[[list[str]], tuple[int, dict[str, Any]]]
HELP_OPTIONS = ("-h", "--help")


class _ClosedInput(io.TextIOBase):
    """Standard input when the process was started without one: reading it is an OSError like any other."""

    def read(self, size: int | None = -1) -> str:
        raise OSError("standard input is closed")

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        raise OSError("standard input is closed")


def _utf8_stdin() -> None:
    if sys.stdin is None:
        sys.stdin = _ClosedInput()
    elif isinstance(sys.stdin, io.TextIOWrapper):
        # (fails only once something was read already; then it stays as it is)
        with contextlib.suppress(OSError, ValueError):
            sys.stdin.reconfigure(encoding="utf-8", errors="strict")


def _internal_error(err: BaseException) -> tuple[int, dict[str, Any]]:
    try:
        message = repr(err)
    except Exception:  # an exception whose repr fails too (a huge int in its arguments, ...)
        message = type(err).__name__
    return 2, {"ok": False, "error": {"code": "internal_error", "message": message}}


def _encode(report: dict[str, Any]) -> bytes:
    return (json.dumps(report, indent=2, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


def _write(data: bytes) -> None:
    """Write the answer to standard output; a closed one or a pipe without reader loses it silently."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            buffer.flush()
        else:
            stream.write(data.decode("ascii"))
            stream.flush()
    except (OSError, ValueError):  # a pipe without reader (EPIPE), a closed descriptor or stream
        _silence_stdout()


def _silence_stdout() -> None:
    """Point standard output at /dev/null so the interpreter's final flush cannot complain on stderr."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        sys.stdout = None


def help_text(docstring: str) -> str:
    """A module docstring as a command's help: the reST quotes dropped, ASCII only (any terminal shows it).

    >>> help_text("``python -m x FILE``: do it.\\n")
    'python -m x FILE: do it.\\n'
    """
    return docstring.strip().replace("``", "").encode("ascii", "replace").decode("ascii") + "\n"


def run_json_command(command: Command, argv: list[str] | None = None, *, help_doc: str | None = None) -> int:
    """Run `command` on the arguments and write its JSON answer; with `help_doc` (a module docstring),
    ``-h`` or ``--help`` prints that instead."""
    arguments = sys.argv[1:] if argv is None else argv
    if help_doc is not None and any(argument in HELP_OPTIONS for argument in arguments):
        _write(help_text(help_doc).encode("ascii"))
        return 0
    _utf8_stdin()
    try:
        status, report = command(arguments)
    except KeyboardInterrupt:
        status, report = 2, {"ok": False, "error": {"code": "interrupted", "message": "interrupted"}}
    except Exception as err:  # the commands promise JSON, never a traceback
        status, report = _internal_error(err)
    try:
        data = _encode(report)
    except Exception as err:  # a report JSON cannot hold (NaN, an object, an int too long to print)
        status, report = _internal_error(err)
        data = _encode(report)
    _write(data)
    return status
