"""The command contract of ``python -m engine.replay`` and ``python -m engine.ai`` whatever the terminal and
whatever the input: one JSON object in plain ASCII on standard output, exit status 2 for input that cannot be
read as a record (however the JSON parser fails), and never a Python traceback, also when standard output is
an ASCII terminal, a closed descriptor or a pipe nobody reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import MalformedInput, load_record_text

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
COMMANDS = ["engine.replay", "engine.ai"]


def s01() -> dict[str, Any]:
    return json.loads((GOLDEN / "s01_rules_example.json").read_text(encoding="utf-8"))["record"]


def run(
    module: str,
    args: list[str],
    stdin: bytes = b"",
    encoding: str | None = None,
    **popen: Any,
) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    if encoding is not None:
        env["PYTHONIOENCODING"] = encoding
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    if "stdin" not in popen:
        options["input"] = stdin
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=REPO, env=env, timeout=60, check=False, **options
    )


def report_of(done: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """The one JSON object on standard output, which must be plain ASCII; no traceback anywhere."""
    assert b"Traceback" not in done.stdout + done.stderr, done.stderr.decode("utf-8", "replace")
    text = done.stdout.decode("ascii")  # raises if any byte is not ASCII
    report = json.loads(text)
    assert isinstance(report, dict)
    return report


def assert_malformed(done: subprocess.CompletedProcess[bytes], code: str | None = None) -> dict[str, Any]:
    report = report_of(done)
    assert done.returncode == 2, report
    assert report["ok"] is False
    assert report["error"]["code"] != "internal_error", report
    assert report["error"]["message"]
    if code is not None:
        assert report["error"]["code"] == code, report
    return report


def with_field(name: str) -> bytes:
    record = s01()
    record[name] = 1
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("module", COMMANDS)
@pytest.mark.parametrize("encoding", ["ascii", "latin-1", "utf-16"])
def test_a_non_ascii_record_is_answered_in_ascii_json_whatever_the_stdout_encoding(
    module: str, encoding: str
) -> None:
    done = run(module, ["-"], with_field("Spielername_Jürgen_🂡"), encoding=encoding)
    report = assert_malformed(done, "bad_record")
    assert "Jürgen_🂡" in report["error"]["message"]
    assert "\\u00fc" in done.stdout.decode("ascii")  # escaped, not transcoded or replaced


@pytest.mark.parametrize("module", COMMANDS)
def test_a_non_ascii_record_file_is_answered_in_ascii_json(module: str, tmp_path: Path) -> None:
    path = tmp_path / "jürgen.json"
    path.write_bytes(with_field("Bäuerin"))
    report = assert_malformed(run(module, [str(path)], encoding="ascii"), "bad_record")
    assert "Bäuerin" in report["error"]["message"]


def test_a_legal_record_replays_with_an_ascii_stdout() -> None:
    done = run("engine.replay", ["-"], json.dumps(s01()).encode(), encoding="ascii")
    assert done.returncode == 0
    assert report_of(done)["ok"] is True


DEEP = "[" * 100_000


PARSER_FAILURES = {
    "deep_array": DEEP,
    "deep_object": '{"a":' * 100_000,
    "deep_array_in_a_field": '{"format": "bauernschnapsen/1", "dealer": ' + "[" * 50_000 + "]" * 50_000 + "}",
    "moderately_deep_field": '{"format": "bauernschnapsen/1", "dealer": ' + "[" * 900 + "]" * 900 + "}",
    "huge_integer": "1" + "0" * 10_000,
    "huge_integer_in_a_field": '{"format": "bauernschnapsen/1", "dealer": 1' + "0" * 10_000 + "}",
    "long_integer_in_a_field": '{"format": "bauernschnapsen/1", "dealer": 1' + "0" * 4_000 + "}",
    "huge_integer_setting": '{"format": "bauernschnapsen/1", "rules": {"preset": "standard", "target": 1'
    + "0" * 10_000
    + '}, "dealer": "N", "deals": []}',
    "nan": "NaN",
    "infinity_in_a_field": '{"format": "bauernschnapsen/1", "dealer": -Infinity}',
    "nan_setting": '{"format": "bauernschnapsen/1", "rules": {"preset": "standard", "target": NaN}, '
    '"dealer": "N", "deals": []}',
    "huge_float_setting": '{"format": "bauernschnapsen/1", "rules": {"preset": "standard", "target": 1e999}, '
    '"dealer": "N", "deals": []}',
    "empty": "",
    "lone_surrogate": '{"format": "bauernschnapsen/1", "dealer": "\\ud800"}',
}


@pytest.mark.parametrize("case", sorted(PARSER_FAILURES))
def test_load_record_text_refuses_every_parser_failure_with_a_typed_error(case: str) -> None:
    with pytest.raises(MalformedInput) as caught:
        load_record_text(PARSER_FAILURES[case])
    assert caught.value.message


def test_a_byte_order_mark_before_the_record_is_skipped() -> None:
    record = load_record_text("\ufeff" + json.dumps(s01()))
    assert len(record.deals) == 1


@pytest.mark.parametrize("module", COMMANDS)
@pytest.mark.parametrize("case", sorted(PARSER_FAILURES))
def test_every_parser_failure_is_the_malformed_input_answer(module: str, case: str) -> None:
    assert_malformed(run(module, ["-"], PARSER_FAILURES[case].encode("ascii")))


@pytest.mark.parametrize("module", COMMANDS)
def test_deep_nesting_is_reported_as_not_json(module: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP, encoding="ascii")
    report = assert_malformed(run(module, [str(path)]), "not_json")
    assert "deep" in report["error"]["message"]


@pytest.mark.parametrize("module", COMMANDS)
def test_a_huge_integer_is_reported_as_not_json(module: str) -> None:
    report = assert_malformed(run(module, ["-"], PARSER_FAILURES["huge_integer"].encode()), "not_json")
    assert "digits" in report["error"]["message"]


@pytest.mark.parametrize("module", COMMANDS)
def test_nan_and_infinity_are_not_json(module: str) -> None:
    for raw in ("NaN", "Infinity", "-Infinity", '{"format": NaN}'):
        assert_malformed(run(module, ["-"], raw.encode()), "not_json")


INVALID_UTF8 = b'{"format": "bauernschnapsen/1", "dealer": "\xff\xfe"}'


@pytest.mark.parametrize("module", COMMANDS)
@pytest.mark.parametrize("encoding", [None, "ascii"])
def test_invalid_utf8_is_the_malformed_input_answer(
    module: str, encoding: str | None, tmp_path: Path
) -> None:
    assert_malformed(run(module, ["-"], INVALID_UTF8, encoding=encoding))
    path = tmp_path / "bad.json"
    path.write_bytes(INVALID_UTF8)
    assert_malformed(run(module, [str(path)], encoding=encoding))


@pytest.mark.parametrize("module", COMMANDS)
def test_stdin_is_read_as_utf8_whatever_the_locale(module: str) -> None:
    # The record's bytes are UTF-8 by definition, also where the terminal's encoding is something else.
    done = run(module, ["-"], with_field("Grüß"), encoding="ascii")
    assert "Grüß" in assert_malformed(done, "bad_record")["error"]["message"]


@pytest.mark.parametrize("module", COMMANDS)
def test_a_closed_stdin_is_unreadable_input(module: str) -> None:
    done = run(module, ["-"], stdin=None, preexec_fn=lambda: os.close(0))
    assert_malformed(done, "unreadable")


@pytest.mark.parametrize("module", COMMANDS)
def test_a_pipe_nobody_reads_gives_no_traceback(module: str) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # before the command starts: its every write fails with EPIPE
    try:
        done = run(module, ["-"], b"{not json", stdout=write_end)
    finally:
        os.close(write_end)
    assert done.stderr == b"", done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2


@pytest.mark.parametrize("module", COMMANDS)
def test_a_closed_stdout_gives_no_traceback(module: str) -> None:
    done = run(module, ["-"], b"{not json", preexec_fn=lambda: os.close(1))
    assert done.stderr == b"", done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2


def run_wrapper(body: str, encoding: str | None = "ascii") -> subprocess.CompletedProcess[bytes]:
    """The shared wrapper running a command whose body is ``body`` (Python, indented by the caller)."""
    program = (
        "import sys\n"
        "from engine.cli import run_json_command\n"
        "def command(argv):\n"
        f"{body}\n"
        "sys.exit(run_json_command(command, []))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    if encoding is not None:
        env["PYTHONIOENCODING"] = encoding
    return subprocess.run(
        [sys.executable, "-c", program], cwd=REPO, env=env, capture_output=True, timeout=60, check=False
    )


WRAPPER_FAILURES = {
    "recursion": "    def f(n): return f(n + 1)\n    return f(0)",
    "memory": "    raise MemoryError()",
    "int_digits": "    return int('1' + '0' * 10000)",
    "value_error": "    raise ValueError('ä broken value')",
    "unprintable_report": "    return 0, {'ok': True, 'x': object()}",
    "nan_in_report": "    return 0, {'ok': True, 'x': float('nan')}",
    "huge_int_in_report": "    return 0, {'ok': True, 'x': 10 ** 5000}",
    "broken_pipe_inside": "    raise BrokenPipeError()",
    "keyboard_interrupt": "    raise KeyboardInterrupt()",
}


@pytest.mark.parametrize("case", sorted(WRAPPER_FAILURES))
def test_the_wrapper_answers_internal_errors_with_json(case: str) -> None:
    done = run_wrapper(WRAPPER_FAILURES[case])
    report = report_of(done)
    assert done.returncode == 2, report
    assert report["ok"] is False
    assert report["error"]["code"] in ("internal_error", "interrupted")
    assert done.stderr == b""


def test_the_wrapper_prints_a_non_ascii_report_as_escaped_ascii() -> None:
    done = run_wrapper("    return 0, {'ok': True, 'name': 'Jürgen 🂡'}")
    assert done.returncode == 0
    assert report_of(done) == {"ok": True, "name": "Jürgen 🂡"}


@pytest.mark.parametrize("module", COMMANDS)
@pytest.mark.parametrize("option", ["--help", "-h"])
def test_help_is_the_whole_usage_in_plain_ascii_not_a_file_name(module: str, option: str) -> None:
    done = run(module, [option], encoding="ascii")
    assert done.returncode == 0 and done.stderr == b""
    text = done.stdout.decode("ascii")
    assert text.startswith(f"python -m {module} FILE (- for standard input)")
    assert "Exit status 0" in text and "cannot read" not in text
    assert text.endswith(".\n")  # the last sentence whole
