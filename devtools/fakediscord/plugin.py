"""pytest fixtures for the fake Discord. Load with ``pytest_plugins = ["devtools.fakediscord.plugin"]``.

At the end of a run it says how many requests, on how many of Discord's routes, were checked against Discord's
API spec (spec.py), summed over every process of the run: pytest-xdist's workers and the benches' children.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from devtools.fakediscord import spec
from devtools.fakediscord.server import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A running fake on 127.0.0.1 (free port) with discord.py redirected to it.

    On teardown every client started through it is closed, and the test fails if the fake itself crashed
    while answering (a bug in the fake or a request it could not parse) or if the bot sent a request that
    Discord's API spec does not allow (``fake.spec_violations``; a test that sends one on purpose clears it).
    With ``FAKE_DISCORD_LIMITS=1`` in the environment every test runs under Discord's rate limits
    (``limits.py``), as the bot would meet them.
    """
    fake = FakeDiscord()
    if os.environ.get("FAKE_DISCORD_LIMITS") == "1":
        fake.enforce_limits()
    await fake.start()
    try:
        with fake.redirect():
            yield fake
    finally:
        await fake.stop()
    if fake.internal_errors:
        raise AssertionError("fake Discord failed internally:\n" + "\n".join(fake.internal_errors))
    if fake.spec_violations:
        raise AssertionError("requests Discord's API spec does not allow (devtools/fakediscord/spec.py):\n"
                             + "\n".join(fake.spec_violations))


def pytest_configure(config: pytest.Config) -> None:
    """The controlling process makes the folder every process of the run saves its counts in (workers and
    children inherit the variable)."""
    if hasattr(config, "workerinput") or os.environ.get(spec.STATS_DIR_VARIABLE):
        return
    folder = tempfile.mkdtemp(prefix="fakediscord-spec-")
    os.environ[spec.STATS_DIR_VARIABLE] = folder
    config.stash[_STATS_FOLDER] = Path(folder)


_STATS_FOLDER = pytest.StashKey[Path]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    folder = config.stash.get(_STATS_FOLDER, None)
    if folder is None:
        return
    spec.save_stats()  # this process's own, when it ran tests itself
    total = spec.load_stats(folder)
    if total.requests:
        terminalreporter.write_line(
            f"Discord API spec: {total.requests} requests checked on {len(total.routes)} routes, "
            f"{total.refused - total.on_purpose} refused ({total.on_purpose} more sent on purpose by tests)")
    report = os.environ.get("FAKE_DISCORD_SPEC_REPORT")
    if report:
        Path(report).write_text(
            "\n".join([f"{total.requests} requests, {len(total.routes)} routes, {total.refused} refused "
                       f"({total.on_purpose} on purpose)", "",
                       *(f"{count:8d}  {route}" for route, count in total.routes.most_common()), "",
                       *total.problems]) + "\n", encoding="utf-8")


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_STATS_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(spec.STATS_DIR_VARIABLE, None)
