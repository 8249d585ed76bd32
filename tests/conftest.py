from __future__ import annotations

import os

import pytest

pytest_plugins = ["devtools.fakediscord.plugin"]

# The tests that take a minute or more, longest first (CI runs the deploy and install ones): a marker or the
# start of a node id. Each worker of pytest-xdist starts with one of them, so that they run beside the others
# instead of after them.
LONGEST = ("deploy", "tests/bench/test_chaos_short.py::", "install", "tests/bot/schnapsen/test_two_processes.py::")


def _rank(item: pytest.Item) -> int | None:
    for rank, name in enumerate(LONGEST):
        if item.nodeid.startswith(name) if "::" in name else item.get_closest_marker(name) is not None:
            return rank
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the longest tests at the head of each worker's share. `--dist worksteal` gives worker i the i-th of
    `workers` nearly equal runs of the collection (and each worker steals from the tail of another's), so the
    head of each run is where a test starts at once."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    long = sorted((item for item in items if _rank(item) is not None), key=lambda item: _rank(item) or 0)
    if workers < 2 or not long:
        return
    rest = [item for item in items if _rank(item) is None]
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for index, item in enumerate(long):
        shares[index % workers].append(item)
    # The scheduler's split: worker i gets len(pending) // (workers - i) of what is still pending.
    ordered: list[pytest.Item] = []
    remaining = len(items)
    for worker in range(workers):
        size = remaining // (workers - worker)
        fill = max(0, size - len(shares[worker]))
        ordered += shares[worker] + rest[:fill]
        del rest[:fill]
        remaining -= len(shares[worker]) + fill
    items[:] = ordered + rest
