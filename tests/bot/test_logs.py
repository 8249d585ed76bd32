"""Logs an admin can read: LOG_LEVEL=DEBUG is the bot's own DEBUG (the libraries stay at WARNING unless named),
and discord.py's tries to reconnect are one WARNING line each, not an ERROR with a traceback."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from bot import logs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_logging() -> Iterator[None]:
    """`logs.configure` changes the process's loggers: put them back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in (*logs.THIRD_PARTY, "discord.gateway", "bot")}
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, saved in levels.items():
        logging.getLogger(name).setLevel(saved)


def test_debug_is_the_bots_own_and_a_library_is_asked_for_by_name(clean_logging: None) -> None:
    stream = io.StringIO()
    logs.configure("DEBUG", [("discord.gateway", "INFO")], stream=stream)
    logging.getLogger("bot.game.core").debug("the bot's own")
    logging.getLogger("aiosqlite").debug("SELECT * FROM people WHERE name = 'anna'")
    logging.getLogger("discord.http").debug("PATCH /channels/1/messages/2")
    logging.getLogger("discord.gateway").debug("a frame")
    logging.getLogger("discord.gateway").info("Shard ID None has connected to Gateway")
    logging.getLogger("asyncpg").warning("a library's warning")
    lines = stream.getvalue().splitlines()
    assert [line.split(" ", 2)[2] for line in lines] == [
        "DEBUG   bot.game.core: the bot's own",
        "INFO    discord.gateway: Shard ID None has connected to Gateway",
        "WARNING asyncpg: a library's warning",
    ]


def test_a_try_to_reconnect_is_one_warning_line_naming_its_cause(clean_logging: None) -> None:
    stream = io.StringIO()
    logs.configure("INFO", stream=stream)
    cause = aiohttp.ClientConnectionError("Cannot connect to host gateway.discord.gg:443")
    try:
        raise cause
    except aiohttp.ClientConnectionError:
        logging.getLogger("discord.client").exception("Attempting a reconnect in %.2fs", 3.52)
        logging.getLogger("discord.shard").error("Attempting a reconnect for shard ID %s in %.2fs", 2, 1.5,
                                                  exc_info=cause)
    lines = stream.getvalue().splitlines()
    assert [line.split(" ", 2)[2] for line in lines] == [
        "WARNING discord.client: lost the connection to Discord (ClientConnectionError: Cannot connect to host "
        "gateway.discord.gg:443); reconnecting in 3.5 s",
        "WARNING discord.shard: shard 2 lost the connection to Discord (ClientConnectionError: Cannot connect to "
        "host gateway.discord.gg:443); reconnecting in 1.5 s",
    ]


def test_python_m_bot_at_debug_prints_a_few_lines_of_its_own_before_it_gives_up(tmp_path: Path) -> None:
    """Issue 37: 242 lines before the login failed, most of them aiosqlite's statements with their values."""
    code = (
        "import sys, discord.http, bot.client, bot.connect\n"
        "discord.http.Route.BASE = 'http://127.0.0.1:9/api/v10'\n"
        "bot.client.Patience = lambda first, longest: bot.connect.Patience(0.05, 0.1, give_up_after=0.3)\n"
        "from bot.__main__ import main\n"
        "sys.exit(main())\n"
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "MTIz.Ga.b-c",
           "LOG_LEVEL": "DEBUG", "DATABASE_PATH": "bot.sqlite3"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stderr
    assert all(line.split()[3].startswith(("bot.", "engine.")) for line in lines), lines
    assert len(lines) < 20, lines
