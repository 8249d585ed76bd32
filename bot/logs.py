"""Logs an admin can read (`python -m bot` sets them up once, to standard output).

The bot's own loggers (``bot.*``, ``engine.*``) log at ``LOG_LEVEL``. Third-party libraries log at WARNING
whatever ``LOG_LEVEL`` says: at DEBUG, aiosqlite logs every SQL statement with its parameters and discord.py
every request and gateway frame, which buries the bot's own lines (and would write people's names into the
journal). ``LOG_LEVEL``'s ``logger=LEVEL`` pairs ask for any of them by name: ``DEBUG,discord.gateway=DEBUG``.

discord.py reconnects by itself when the connection to Discord drops, logging each try at ERROR with a
traceback; here each try is one WARNING line saying why and when it tries again, like the bot's own retries
at start (``bot.connect.patiently``).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable

import aiohttp

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
# Loggers of libraries, kept at WARNING unless LOG_LEVEL names them.
THIRD_PARTY = ("aiosqlite", "asyncpg", "discord", "aiohttp", "PIL", "asyncio")
# discord.py's messages for a try to reconnect (discord/client.py, discord/shard.py), made one WARNING each.
RECONNECT_MESSAGES = {
    "Attempting a reconnect in %.2fs": "lost the connection to Discord (%s); reconnecting in %.1f s",
    "Attempting a reconnect for shard ID %s in %.2fs": "shard %s lost the connection to Discord (%s); reconnecting in %.1f s",
    "Failed to connect for shard_id: %s. Retrying...": "shard %s could not connect to Discord (%s); trying again in 5 s",
}


def configure(level: str, named: Iterable[tuple[str, str]] = (), *, stream: object = None) -> None:
    """The root handler (standard output), the bot's level, third-party loggers at WARNING (at least), each
    `named` logger at its level, and discord.py's reconnect tries as one WARNING line each."""
    named = tuple(named)
    levels = [logging.getLevelName(level), *(logging.getLevelName(value) for _, value in named)]
    handler = logging.StreamHandler(stream or sys.stdout)  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.setLevel(min(levels))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    quiet = max(logging.WARNING, logging.getLevelName(level))
    for name in THIRD_PARTY:
        logging.getLogger(name).setLevel(quiet)
    for name, value in named:
        logging.getLogger(name).setLevel(value)
    demote_reconnect_tries()


class ReconnectTries(logging.Filter):
    """discord.py's "Attempting a reconnect" records (ERROR with a traceback) as one WARNING line naming the
    cause; other records pass as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        template = RECONNECT_MESSAGES.get(str(record.msg))
        if template is None:
            return True
        cause = _cause(record.exc_info[1] if record.exc_info else None)
        args = tuple(record.args) if isinstance(record.args, tuple) else ()
        if "shard" in str(record.msg):
            record.args = (args[0] if args else "?", cause, *args[1:])
        else:
            record.args = (cause, *args)
        record.msg = template
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = record.exc_text = None
        return True


def _cause(error: BaseException | None) -> str:
    """An exception in a few words: a refused connection as `cannot connect to host:port: Connection refused`."""
    if error is None:
        return "unknown cause"
    if isinstance(error, aiohttp.ClientConnectorError) and error.os_error.errno:
        return f"cannot connect to {error.host}:{error.port}: {os.strerror(error.os_error.errno)}"
    return f"{type(error).__name__}: {error}".rstrip(": ")


def demote_reconnect_tries() -> None:
    """Install `ReconnectTries` on discord.py's client and shard loggers (once)."""
    for name in ("discord.client", "discord.shard"):
        logger = logging.getLogger(name)
        if not any(isinstance(existing, ReconnectTries) for existing in logger.filters):
            logger.addFilter(ReconnectTries())
