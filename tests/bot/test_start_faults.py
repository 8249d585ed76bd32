"""A start that meets a fault (issue 37): a transient one (Discord not reachable yet, a PostgreSQL server started
late) is waited out in the process with a WARNING per try and the bot comes up by itself; a permanent one (a
schema newer than the code, a refused token) is one line and exit status 2; a transient one that outlasts the
patience is one line and exit status 1 (systemd starts the bot again)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from bot.client import run
from bot.connect import Patience, StartError, Unreachable, patiently
from devtools.fakediscord import FakeDiscord
from devtools.pgcluster import Cluster, server_binaries
from tests.bot.schnapsen.harness import BOT_START_SECONDS
from tests.bot.schnapsen.harness import test_settings as quick_settings

ROOT = Path(__file__).resolve().parents[2]
QUICK = Patience(first=0.05, longest=0.2, give_up_after=60)


class LogWatch(logging.Handler):
    """The messages logged while it is installed, and a way to await one."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self._loop = asyncio.get_running_loop()
        self._changed = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self._loop.call_soon_threadsafe(self._changed.set)

    def messages(self, level: int = logging.DEBUG) -> list[str]:
        return [record.getMessage() for record in self.records if record.levelno >= level]

    async def wait_for(self, predicate: Callable[[list[str]], bool], timeout: float = BOT_START_SECONDS) -> None:
        async with asyncio.timeout(timeout):
            while not predicate(self.messages()):
                self._changed.clear()
                await self._changed.wait()


@contextlib.asynccontextmanager
async def watched_logs() -> AsyncIterator[LogWatch]:
    watch = LogWatch()
    root = logging.getLogger()
    level = root.level
    root.addHandler(watch)
    root.setLevel(logging.INFO)
    try:
        yield watch
    finally:
        root.removeHandler(watch)
        root.setLevel(level)


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def tries(watch: LogWatch, what: str) -> list[str]:
    return [message for message in watch.messages(logging.WARNING) if message.startswith(f"{what} failed (try ")]


async def test_a_bot_started_while_discord_refuses_connections_waits_and_comes_up(tmp_path: Path) -> None:
    fake = FakeDiscord()
    await fake.start(refuse_connections_for=math.inf)
    try:
        with fake.redirect():
            async with watched_logs() as watch:
                settings = quick_settings(tmp_path / "bot.sqlite3", token=fake.token)
                bot = asyncio.create_task(run(settings, patience=QUICK))
                try:
                    await watch.wait_for(lambda _: len(tries(watch, "logging in to Discord")) >= 3)
                    assert not bot.done()
                    await fake.accept_connections()
                    await fake.wait_for(lambda: fake.active_session, timeout=BOT_START_SECONDS, what="IDENTIFY")
                finally:
                    await stop(bot)
        warnings = tries(watch, "logging in to Discord")
        assert warnings[0].startswith("logging in to Discord failed (try 1): cannot log in: no network connection "
                                      f"to Discord (cannot connect to 127.0.0.1:{fake.port}: Connection refused)")
        assert warnings[0].endswith("Trying again in 0.1 s.")
        assert any(m.startswith("logging in to Discord succeeded at try ") for m in watch.messages())
        assert not [m for m in watch.messages(logging.ERROR)], watch.messages(logging.ERROR)  # no traceback, no leak
    finally:
        await fake.stop()


@pytest.fixture
def late_cluster() -> Iterator[Cluster]:
    binaries = server_binaries()
    if binaries is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl)")
    cluster = Cluster(binaries)
    try:
        yield cluster
    finally:
        cluster.stop()


async def test_a_postgresql_started_late_is_waited_for(
    fake_discord: FakeDiscord, tmp_path: Path, late_cluster: Cluster
) -> None:
    settings = quick_settings(tmp_path / "unused", database_path=late_cluster.dsn(), token=fake_discord.token)
    async with watched_logs() as watch:
        bot = asyncio.create_task(run(settings, patience=QUICK))
        try:
            await watch.wait_for(lambda _: bool(tries(watch, "opening the database")))
            assert not bot.done()
            await asyncio.to_thread(late_cluster.start)  # initdb and pg_ctl start: about a second
            await fake_discord.wait_for(lambda: fake_discord.active_session, timeout=BOT_START_SECONDS,
                                        what="IDENTIFY")
        finally:
            await stop(bot)
    first = tries(watch, "opening the database")[0]
    assert "cannot reach the database server of postgresql://postgres@/postgres" in first
    assert "nothing listens there" in first
    assert any(m.startswith("opening the database succeeded at try ") for m in watch.messages())


async def test_a_fault_that_outlasts_the_patience_is_one_line_and_exit_status_1() -> None:
    clock = iter(range(0, 1000, 7)).__next__  # every look at the clock is 7 s later
    attempts = []

    async def unreachable() -> None:
        attempts.append(1)
        raise Unreachable("cannot log in: no network connection to Discord (no DNS).")

    async def no_sleep(seconds: float) -> None:
        pass

    with pytest.raises(StartError) as given_up:
        await patiently("logging in to Discord", unreachable, Patience(1, 4, give_up_after=30),
                        clock=lambda: float(clock()), sleep=no_sleep)
    assert given_up.value.exit_code == 1
    assert str(given_up.value) == (
        f"cannot log in: no network connection to Discord (no DNS); still so after {len(attempts)} tries in "
        f"{7 * len(attempts):.0f} s: giving up (exit status 1: systemd starts the bot again)."
    )


async def test_a_permanent_fault_is_not_retried() -> None:
    async def refused() -> None:
        raise StartError("cannot log in: Discord refused DISCORD_TOKEN")

    with pytest.raises(StartError) as stopped:
        await patiently("logging in to Discord", refused, QUICK)
    assert stopped.value.exit_code == 2


# ---- the real command --------------------------------------------------------------------------------------------


def run_bot(tmp_path: Path, env: dict[str, str], code: str) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "MTIz.Ga.b-c", **env}
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=clean, capture_output=True, text=True,
                          timeout=120, check=False)


# A patience of moments: room for a few tries, after the first has waited out the pacer's first second
# (bot/schnapsen/pacing.py: a restarted process counts its predecessor's last second as full).
QUICK_MAIN = (
    "import sys, discord.http, bot.client, bot.connect\n"
    "discord.http.Route.BASE = 'http://127.0.0.1:{port}/api/v10'\n"
    "bot.client.Patience = lambda first, longest: bot.connect.Patience(0.05, 0.1, give_up_after=2.5)\n"
    "from bot.__main__ import main\n"
    "sys.exit(main())\n"
)


def closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_python_m_bot_keeps_trying_without_network_then_exits_1_in_one_line(tmp_path: Path) -> None:
    done = run_bot(tmp_path, {"DATABASE_PATH": "bot.sqlite3"}, QUICK_MAIN.format(port=closed_port()))
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("Cannot start: cannot log in: no network connection to Discord (cannot connect to")
    assert done.stderr.rstrip().endswith("giving up (exit status 1: systemd starts the bot again).")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr + done.stdout
    warnings = [line for line in done.stdout.splitlines() if " WARNING bot.connect: logging in to Discord failed" in line]
    assert len(warnings) >= 3, done.stdout
    assert "starting Bauernschnapsen " in done.stdout  # the start line, with the version, came first


def test_python_m_bot_refuses_a_schema_newer_than_the_code_at_once(tmp_path: Path) -> None:
    with contextlib.closing(sqlite3.connect(tmp_path / "bot.sqlite3")) as db:
        db.execute("PRAGMA user_version = 999")
    done = run_bot(tmp_path, {"DATABASE_PATH": "bot.sqlite3"}, QUICK_MAIN.format(port=closed_port()))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Cannot start: the database bot.sqlite3 cannot be used: database schema version 999 "
                                  "is newer than this code knows")
    assert done.stderr.count("\n") == 1 and "failed (try" not in done.stdout
