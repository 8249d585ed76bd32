"""Opening the configured database, with one sentence for each way it can fail.

The bot opens its database before it logs in to Discord, and the admin commands open theirs the same way:
an SQLite file whose folder is missing or not writable, a PostgreSQL server that does not answer within a
few seconds, a socket with no server behind it, a wrong password or a missing database each become a
`SettingsError` of one sentence, the password masked. Whoever catches it prints that line and exits with
status 2 (a configuration error: systemd's `RestartPreventExitStatus=2` then stops instead of looping).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sqlite3
from pathlib import Path
from typing import Literal

from bot.db import Database, StorageError
from bot.db.database import parse_database_url
from bot.settings import SettingsError, mask_url, url_password

# How long a PostgreSQL server may take to accept a connection at start before the bot gives up.
CONNECT_TIMEOUT = 5.0


async def open_database(
    url: str, *, synchronous: Literal["NORMAL", "FULL"] = "NORMAL", timeout: float = CONNECT_TIMEOUT
) -> Database:
    """Open (and migrate) the database `url` names; `SettingsError` in one sentence when it cannot be."""
    try:
        target = parse_database_url(url)
    except ValueError as err:
        raise SettingsError(scrub(str(err), url)) from None
    shown = mask_url(url)
    if target.dialect == "sqlite":
        check_sqlite_file(Path(target.path))
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
        raise SettingsError(
            f"cannot reach the database server of {shown}: no answer within {timeout:g} s "
            "(is it running, and is the host and port right?)."
        ) from None
    except socket.gaierror as err:
        raise SettingsError(
            f"cannot reach the database server of {shown}: its host name is not known ({err.strerror})."
        ) from None
    except (ConnectionRefusedError, FileNotFoundError):
        raise SettingsError(
            f"cannot reach the database server of {shown}: nothing listens there (is PostgreSQL running, "
            "and is the host, port or socket folder right?)."
        ) from None
    except sqlite3.Error as err:
        raise SettingsError(f"cannot open the SQLite database {target.path}: {err}.") from None
    except OSError as err:
        reason = err.strerror or str(err) or type(err).__name__
        raise SettingsError(f"cannot open the database {shown}: {scrub(reason, url)}.") from None
    except ValueError as err:  # asyncpg's reading of the URL (a port that is no number, ...)
        raise SettingsError(f"{shown} is not a usable PostgreSQL URL: {scrub(str(err), url)}.") from None
    except Exception as err:  # asyncpg's own errors: a wrong password, a missing role or database
        reason = scrub(str(err).splitlines()[0] if str(err) else "", url)
        raise SettingsError(
            f"cannot open the database {shown}: {type(err).__name__}{': ' + reason if reason else ''}."
        ) from None


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


def scrub(text: str, url: str) -> str:
    """`text` without the password `url` holds (a driver may quote the URL it was given)."""
    password = url_password(url)
    text = text.replace(url, mask_url(url))
    return text.replace(password, "***") if password else text
