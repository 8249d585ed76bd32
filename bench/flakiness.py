"""Run the whole test suite N times under extra CPU load and report every failure with its test and cause.

A flaky test is one whose outcome depends on timing or luck rather than on the code. This runs the README's test
command (``python -m pytest``, on every core) ``--runs`` times while ``--load`` busy-loop processes compete for
the CPU, reads each run's JUnit XML, and prints per run its wall time, the load average and its failures (the
test, the first line of its error and the assertion that failed), then every test that failed in any run with
how often. Exit status 1 when any run failed.

    python bench/flakiness.py --runs 10 --load 4
    python bench/flakiness.py --runs 5 --load 4 --vary-deals   # each run deals other chosen deals
    python bench/flakiness.py --runs 3 --load 2 -- tests/bot/schnapsen -x     # pytest arguments after --
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUSY_LOOP = "while True: pass"


@dataclass
class Failure:
    test: str
    kind: str  # failure (an assertion or exception in the test) or error (in a fixture's setup or teardown)
    cause: str  # the error's first line
    detail: str  # the lines pytest marked with "E", the last few


@dataclass
class Run:
    number: int
    seconds: float
    load_before: float
    load_after: float
    tests: int = 0
    skipped: int = 0
    failures: list[Failure] = field(default_factory=list)
    exit_status: int = 0
    deals: str | None = None  # SCHNAPSEN_TEST_SEEDS of the run, when it varied them


def test_id(case: ElementTree.Element) -> str:
    """pytest's node id back from JUnit's classname (dotted path + class) and name."""
    classname, name = case.get("classname", ""), case.get("name", "")
    parts = classname.split(".")
    for cut in range(len(parts), 0, -1):
        candidate = Path(ROOT, *parts[:cut]).with_suffix(".py")
        if candidate.exists():
            return "::".join([str(candidate.relative_to(ROOT)), *parts[cut:], name])
    return f"{classname}::{name}"


def failures_in(report: Path) -> tuple[int, int, list[Failure]]:
    """Tests run, skipped, and the failures and errors of one JUnit XML report."""
    root = ElementTree.parse(report).getroot()
    tests = skipped = 0
    found = []
    for case in root.iter("testcase"):
        tests += 1
        for child in case:
            if child.tag == "skipped":
                skipped += 1
            if child.tag not in ("failure", "error"):
                continue
            text = child.text or ""
            marked = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
            cause = (child.get("message") or (marked[0] if marked else text.strip().splitlines()[-1:] or [""])[0])
            found.append(Failure(test_id(case), child.tag, cause.splitlines()[0][:300] if cause else "",
                                 "\n".join(marked[-8:])[:2000]))
    return tests, skipped, found


def start_load(processes: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(processes)]


def stop_load(loops: list[subprocess.Popen[bytes]]) -> None:
    for loop in loops:
        loop.terminate()
    for loop in loops:
        loop.wait()


def environment(deals: str | None) -> dict[str, str]:
    """This environment with the interpreter's own bin folder first on PATH (the test extra's tools: hadolint,
    check-jsonschema), as in an activated virtual environment; ``deals`` picks the end-to-end tests' deals
    (SCHNAPSEN_TEST_SEEDS, tests/bot/schnapsen/harness.py)."""
    folder = str(Path(sys.executable).parent)
    changes = {"PATH": os.pathsep.join([folder, os.environ.get("PATH", "")])}
    if deals is not None:
        changes["SCHNAPSEN_TEST_SEEDS"] = deals
    return {**os.environ, **changes}


def one_run(number: int, load: int, pytest_args: list[str], folder: Path, deals: str | None = None) -> Run:
    report = folder / f"run-{number}.xml"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={report}", *pytest_args]
    loops = start_load(load)
    try:
        load_before, started = os.getloadavg()[0], time.monotonic()
        log = folder / f"run-{number}.log"
        with log.open("wb") as output:
            done = subprocess.run(command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, check=False,
                                  env=environment(deals))
        seconds = time.monotonic() - started
        load_after = os.getloadavg()[0]
    finally:
        stop_load(loops)
    run = Run(number, round(seconds, 1), load_before, load_after, exit_status=done.returncode, deals=deals)
    if report.exists():
        run.tests, run.skipped, run.failures = failures_in(report)
    if done.returncode not in (0, 1) and not run.failures:  # pytest itself failed: collection, internal error
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        run.failures.append(Failure("(pytest)", "error", f"pytest exited with {done.returncode}", "\n".join(tail)))
    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="how many runs of the suite (default 10)")
    parser.add_argument("--load", type=int, default=4, help="busy-loop processes beside each run (default 4)")
    parser.add_argument("--vary-deals", action="store_true",
                        help="each run deals other chosen deals (SCHNAPSEN_TEST_SEEDS=run-N): a test that passes "
                             "only on its own deals fails in some run")
    parser.add_argument("--keep", type=Path, help="keep each run's log and JUnit XML in this folder")
    parser.add_argument("--json", action="store_true", help="print the runs as one JSON line at the end")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    args = parser.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="flakiness-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{args.runs} runs of `python -m pytest {' '.join(args.pytest_args)}` with {args.load} busy loops "
          f"on {os.cpu_count()} cores; logs in {folder}", flush=True)
    runs = []
    for number in range(1, args.runs + 1):
        run = one_run(number, args.load, args.pytest_args, folder, f"run-{number}" if args.vary_deals else None)
        runs.append(run)
        print(f"run {number}{f' (deals {run.deals})' if run.deals else ''}: {run.seconds:.0f} s, "
              f"load {run.load_before:.1f} -> {run.load_after:.1f}, "
              f"{run.tests} tests ({run.skipped} skipped), {len(run.failures)} failed", flush=True)
        for failure in run.failures:
            print(f"  {failure.kind.upper()} {failure.test}\n    {failure.cause}", flush=True)
            for line in failure.detail.splitlines():
                print(f"      {line}", flush=True)
    counts = collections.Counter(f.test for run in runs for f in run.failures)
    total = sum(counts.values())
    print(f"\n{total} failures in {len(runs)} runs at a load of {args.load} on {os.cpu_count()} cores"
          f" ({sum(1 for run in runs if run.failures)} runs with any)")
    for test, count in counts.most_common():
        print(f"  {count} x {test}")
    if args.json:
        print(json.dumps({"load": args.load, "cores": os.cpu_count(), "runs": [asdict(run) for run in runs]}))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
