"""Reaching what the bot needs at start: its database, and (through `patiently`) Discord, with one sentence
for each way that can fail.

Two kinds of failure. A *permanent* one (a wrong setting, a database the code cannot use, a wrong password, a
schema newer than the code) is a `SettingsError` of one sentence, the password masked: whoever catches it
prints that line and exits with status 2 (systemd's `RestartPreventExitStatus=2` then stops instead of
looping). A *transient* one (no network or DNS yet, a PostgreSQL server still starting, nothing listening on
its port yet) is `Unreachable`, a `SettingsError` too, so that the admin commands, run by hand, print it and
stop; the bot instead waits it out with `patiently`: it tries again with a growing pause, a WARNING for each
try, and gives up only after `Patience.give_up_after` seconds (exit status 1, which the systemd unit restarts).
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import socket
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

from bot.db import Database, StorageError
from bot.db.database import parse_database_url
from bot.settings import SettingsError, mask_url, url_password

log = logging.getLogger(__name__)
T = TypeVar("T")

# How long a PostgreSQL server may take to accept a connection before one try is given up.
CONNECT_TIMEOUT = 5.0
# A new SQLite database is created readable by its owner only (it holds Discord user ids and names), and an
# existing one readable by others is made so at start, whatever the umask.
PRIVATE_FILE = 0o600
# asyncpg's errors that a server still starting, stopping or briefly overloaded answers (SQLSTATE 57P03, 53300,
# class 08, a connection closed while it was made): worth trying again. Any other error of the server (a wrong password, a missing database or role) is not.
_TRANSIENT_POSTGRES_ERRORS = (
    "CannotConnectNowError", "TooManyConnectionsError", "PostgresConnectionError", "ConnectionDoesNotExistError"
)


class Unreachable(SettingsError):
    """What the bot needs does not answer yet (no network, no DNS, a server not up): it may pass by itself.
    The message is one sentence without secrets."""


class StartError(Exception):
    """The bot cannot start; the message is one sentence without secrets. `exit_code` 2 is a permanent fault
    (systemd's RestartPreventExitStatus=2 keeps it from restarting), 1 a transient one the bot gave up on
    (the unit starts it again)."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class Patience:
    """How a transient fault at start is waited out: the first pause, doubling up to `longest`, for at most
    `give_up_after` seconds in all."""

    first: float = 1.0
    longest: float = 30.0
    give_up_after: float = 600.0


async def patiently(
    what: str,
    attempt: Callable[[], Awaitable[T]],
    patience: Patience,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> T:
    """`attempt()`, tried again after each `Unreachable` with a WARNING naming `what` failed and why; anything
    else it raises passes through. Past `patience.give_up_after` seconds it raises `StartError` (status 1)."""
    started = clock()
    pause, tries = patience.first, 1
    while True:
        try:
            result = await attempt()
        except Unreachable as err:
            waited = clock() - started
            if waited + pause > patience.give_up_after:
                raise StartError(
                    f"{str(err).rstrip('.')}; still so after {tries} tries in {_duration(waited)}: giving up "
                    "(exit status 1: systemd starts the bot again).",
                    exit_code=1,
                ) from None
            log.warning("%s failed (try %d): %s Trying again in %s.", what, tries, err, _duration(pause))
            await sleep(pause)
            pause, tries = min(pause * 2, patience.longest), tries + 1
            continue
        if tries > 1:
            log.info("%s succeeded at try %d, after %s", what, tries, _duration(clock() - started))
        return result


def _duration(seconds: float) -> str:
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"


async def open_database(
    url: str, *, synchronous: Literal["NORMAL", "FULL"] = "NORMAL", timeout: float = CONNECT_TIMEOUT
) -> Database:
    """Open (and migrate) the database `url` names; `SettingsError` in one sentence when it cannot be, of
    which `Unreachable` when it may pass by itself."""
    try:
        target = parse_database_url(url)
    except ValueError as err:
        raise SettingsError(scrub(str(err), url)) from None
    shown = mask_url(url)
    if target.dialect == "sqlite":
        check_sqlite_file(Path(target.path))
        make_private(Path(target.path))
    elif importlib.util.find_spec("asyncpg") is None:
        raise SettingsError(
            f"the database {shown} is PostgreSQL, but its driver is not installed: "
            "pip install -e '.[postgres]' (docs/deploy.md)."
        )
    try:
        return await Database.open(url, synchronous=synchronous, connect_timeout=timeout)
    except StorageError as err:  # a failed or too new migration
        raise SettingsError(f"the database {shown} cannot be used: {scrub(str(err), url)}.") from None
    except TimeoutError:
        raise Unreachable(
            f"cannot reach the database server of {shown}: no answer within {timeout:g} s "
            "(is it running, and is the host and port right?)."
        ) from None
    except socket.gaierror as err:
        raise Unreachable(
            f"cannot reach the database server of {shown}: its host name cannot be looked up ({err.strerror})."
        ) from None
    except (ConnectionRefusedError, FileNotFoundError):
        raise Unreachable(
            f"cannot reach the database server of {shown}: nothing listens there (is PostgreSQL running, "
            "and is the host, port or socket folder right?)."
        ) from None
    except sqlite3.Error as err:
        raise SettingsError(f"cannot open the SQLite database {target.path}: {err}.") from None
    except OSError as err:  # no route to the host, a connection reset while it starts, ...
        reason = err.strerror or str(err) or type(err).__name__
        raise Unreachable(f"cannot reach the database {shown}: {scrub(reason, url)}.") from None
    except ValueError as err:  # asyncpg's reading of the URL (a port that is no number, ...)
        raise SettingsError(f"{shown} is not a usable PostgreSQL URL: {scrub(str(err), url)}.") from None
    except Exception as err:  # asyncpg's own errors: a server starting up, a wrong password, a missing database
        reason = scrub(str(err).splitlines()[0] if str(err) else "", url)
        described = f"{type(err).__name__}{': ' + reason if reason else ''}"
        if any(kind.__name__ in _TRANSIENT_POSTGRES_ERRORS for kind in type(err).__mro__):
            raise Unreachable(f"the database server of {shown} does not take connections yet: {described}.") from None
        raise SettingsError(f"cannot open the database {shown}: {described}.") from None


def check_sqlite_file(path: Path) -> None:
    """The SQLite file can be created or opened by this user: its folder exists and is writable (SQLite
    writes its -wal and -shm files beside it), and it is not a folder itself."""
    folder = Path(os.path.abspath(path)).parent
    if not folder.exists():
        raise SettingsError(
            f"the folder {folder} of the SQLite database {path} does not exist: create it (writable by the "
            "bot's user) or name a file in an existing folder."
        )
    if not folder.is_dir():
        raise SettingsError(f"{folder}, the folder of the SQLite database {path}, is not a folder.")
    if path.is_dir():
        raise SettingsError(f"the SQLite database {path} is a folder; name a file (e.g. {path / 'schnapsen.sqlite3'}).")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SettingsError(
            f"the bot's user cannot write in {folder}, the folder of the SQLite database {path} (SQLite keeps "
            "its -wal file beside the database): give that user the folder, or choose another."
        )
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise SettingsError(f"the bot's user cannot read and write the SQLite database {path}.")


def make_private(path: Path) -> None:
    """Create the SQLite file readable and writable by its owner only (SQLite gives its -wal and -shm files
    the database's mode), or make an existing one so; logged when it changed an existing file's mode."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        pass
    except OSError as err:
        raise SettingsError(f"cannot create the SQLite database {path}: {err.strerror or err}.") from None
    else:
        os.fchmod(handle, PRIVATE_FILE)  # os.open's mode passes through the umask; the umask may be lax
        os.close(handle)
        return
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        for file in (path, *(Path(f"{path}{suffix}") for suffix in ("-wal", "-shm"))):
            if file.exists():
                file.chmod(PRIVATE_FILE)
        log.warning("the database %s was readable by others (mode %o): made private (%o)", path, mode, PRIVATE_FILE)


def scrub(text: str, url: str) -> str:
    """`text` without the password `url` holds (a driver may quote the URL it was given)."""
    password = url_password(url)
    text = text.replace(url, mask_url(url))
    return text.replace(password, "***") if password else text
