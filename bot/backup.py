"""``python -m bot.backup DEST [--keep N]``: an online backup of the bot's database, SQLite or PostgreSQL.

Safe while the bot runs and writes. SQLite: its backup API copies one consistent snapshot (the database runs
in WAL mode, so the copy neither waits for the bot's writes nor blocks them, and it includes the commits that
are still only in the ``-wal`` file); the copy is switched to a self-contained rollback-journal file and
checked with ``PRAGMA integrity_check``. PostgreSQL: ``pg_dump --format=custom`` reads one consistent snapshot
(it must be installed: the postgresql-client package, as new as the server); the dump is checked by reading
its table of contents with ``pg_restore --list``. Either is written to a hidden ``.partial`` file in DEST
(readable by its owner only, whatever the umask), flushed to disk and only then renamed to
``schnapsen-YYYYmmdd-HHMMSS.sqlite3`` or ``.dump`` (UTC); a name taken already gets ``-2``, ``-3``: no backup
is ever overwritten. Then the oldest of *its own* files of that kind beyond the newest N (default 14) are
deleted; nothing else in DEST is ever touched.

The database is named as the bot names it: ``--database`` sqlite:///path, postgresql://... or a file path;
without it, ``DATABASE_URL`` or else ``DATABASE_PATH`` from the environment or ``.env`` in the working
directory, default ``schnapsen.sqlite3``. ``DISCORD_TOKEN`` is not needed.

Exit codes: 0 done, 1 any other failure, 2 wrong arguments, 3 no database (missing, not a database, or a
PostgreSQL server that cannot be reached), 4 DEST cannot be written, 5 no space left, 6 the copy failed its
check. Errors are one line on standard error, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bot.db.database import parse_database_url
from bot.settings import SettingsError, add_database_option, database_from_args, mask_url, url_password

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_DATABASE = 3
EXIT_DESTINATION = 4
EXIT_NO_SPACE = 5
EXIT_CORRUPT = 6

DEFAULT_KEEP = 14
BACKUP_NAME = re.compile(r"^schnapsen-(?P<stamp>\d{8}-\d{6})(?:-(?P<n>[1-9]\d*))?\.(?P<kind>sqlite3|dump)$")
SQLITE, DUMP = "sqlite3", "dump"  # the two kinds of backup, by their file names' suffix
PRIVATE_FOLDER = 0o700  # a folder this command makes for backups: its owner's only
PARTIAL_PREFIX, PARTIAL_SUFFIX = ".schnapsen-backup-", ".partial"
STALE_PARTIAL_SECONDS = 24 * 3600  # a partial file this old was left by a backup that was killed
_SQLITE_SIDE_FILES = ("-journal", "-wal", "-shm")
_NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


class BackupError(Exception):
    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class BackupResult:
    path: Path
    size: int
    removed: list[Path] = field(default_factory=list)


def make_backup(database: Path, dest: Path, keep: int = DEFAULT_KEEP, now: datetime | None = None) -> BackupResult:
    """Copy `database` into `dest` as a new verified backup, then keep only the newest `keep` backups."""
    if keep < 1:
        raise ValueError(f"keep at least one backup, not {keep}")
    database, dest = Path(database).absolute(), Path(dest).absolute()
    source = _open_source(database)
    try:
        needed = sum(_size(database.with_name(database.name + suffix)) for suffix in ("", "-wal"))
        _prepare_destination(dest, needed)
        partial = _new_partial(dest)
        try:
            _write_copy(source, partial)
            final = _put_in_place(partial, dest, SQLITE, now)
        except BaseException:
            _remove_partial(partial)
            raise
    finally:
        source.close()
    removed = rotate(dest, keep)
    _remove_stale_partials(dest)
    return BackupResult(final, final.stat().st_size, removed)


def make_pg_backup(dsn: str, dest: Path, keep: int = DEFAULT_KEEP, now: datetime | None = None) -> BackupResult:
    """Dump the PostgreSQL database `dsn` into `dest` with pg_dump as a new checked backup, then keep only the
    newest `keep` dumps."""
    if keep < 1:
        raise ValueError(f"keep at least one backup, not {keep}")
    dest = Path(dest).absolute()
    pg_dump, pg_restore = shutil.which("pg_dump"), shutil.which("pg_restore")
    if pg_dump is None or pg_restore is None:
        raise BackupError(
            "pg_dump is not installed: install PostgreSQL's client programs (apt-get install postgresql-client), "
            "as new as the server",
            EXIT_FAILED,
        )
    _prepare_destination(dest, 0)
    partial = _new_partial(dest)
    try:
        # The password goes by the environment, not the command line, where any user could read it (ps).
        env = {**os.environ, "PGCONNECT_TIMEOUT": "10"}
        password = url_password(dsn)
        if password:
            env["PGPASSWORD"] = password
        dumped = subprocess.run(
            [pg_dump, "--format=custom", "--no-password", f"--file={partial}", f"--dbname={_without_password(dsn)}"],
            capture_output=True, text=True, env=env, check=False,
        )
        if dumped.returncode != 0:
            raise _pg_failure(dumped.stderr, dsn)
        listed = subprocess.run([pg_restore, "--list", str(partial)], capture_output=True, text=True, check=False)
        if listed.returncode != 0 or "TABLE DATA" not in listed.stdout:
            reason = (listed.stderr.strip().splitlines() or ["no table in it"])[-1]
            raise BackupError(f"the dump failed its check (pg_restore --list: {reason})", EXIT_CORRUPT)
        with partial.open("rb+") as copy:
            os.fsync(copy.fileno())
        final = _put_in_place(partial, dest, DUMP, now)
    except BaseException:
        _remove_partial(partial)
        raise
    removed = rotate(dest, keep, kind=DUMP)
    _remove_stale_partials(dest)
    return BackupResult(final, final.stat().st_size, removed)


def _without_password(dsn: str) -> str:
    password = url_password(dsn)
    if not password:
        return dsn
    head, _, query = dsn.partition("?")
    head = head.replace(f":{password}@", "@", 1)
    kept = [part for part in query.split("&") if part and part.partition("=")[0].lower() != "password"]
    return head + ("?" + "&".join(kept) if kept else "")


def _pg_failure(stderr: str, dsn: str) -> BackupError:
    """pg_dump's last words as one line, the password left out."""
    lines = [line.strip().removeprefix("pg_dump: error: ") for line in stderr.strip().splitlines() if line.strip()]
    reason = " ".join(lines) or "pg_dump failed"
    password = url_password(dsn)
    if password:
        reason = reason.replace(password, "***")
    reason = reason.replace(dsn, mask_url(dsn))
    if "connection to server" in reason or "could not connect" in reason or "Connection refused" in reason:
        return BackupError(f"cannot reach the database {mask_url(dsn)}: {reason}", EXIT_NO_DATABASE)
    if "No space left" in reason:
        return BackupError(f"no space left: {reason}", EXIT_NO_SPACE)
    return BackupError(f"pg_dump failed: {reason}", EXIT_FAILED)


def _put_in_place(partial: Path, dest: Path, kind: str, now: datetime | None) -> Path:
    """Rename the finished partial file to its backup name (never over an existing file), durably."""
    final = _final_name(dest, now or datetime.now(UTC), kind)
    try:
        os.link(partial, final)  # fails rather than replace a file that appeared meanwhile
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        os.replace(partial, final)  # a file system without hard links: the name was free a moment ago
    else:
        os.unlink(partial)
    _fsync_directory(dest)
    return final


def rotate(dest: Path, keep: int, kind: str = SQLITE) -> list[Path]:
    """Delete the oldest backups of `kind` made by this tool beyond the newest `keep`; returns what was
    deleted."""
    ours = []
    for path in Path(dest).iterdir():
        match = BACKUP_NAME.match(path.name)
        if match and match["kind"] == kind and path.is_file() and not path.is_symlink():
            ours.append(((match["stamp"], int(match["n"] or 1)), path))
    ours.sort()
    doomed = [path for _, path in ours[: max(0, len(ours) - keep)]]
    for path in doomed:
        path.unlink()
    return doomed


# ---- steps ------------------------------------------------------------------------------------------------


def _open_source(database: Path) -> sqlite3.Connection:
    if not database.exists():
        raise BackupError(
            f"no database at {database} (set DATABASE_PATH in the environment or in .env of the working "
            f"directory, as for the bot)",
            EXIT_NO_DATABASE,
        )
    if not database.is_file():
        raise BackupError(f"{database} is not a file", EXIT_NO_DATABASE)
    try:
        # mode=rw: never create a database that is not there. (Read-write, as a WAL reader updates -shm.)
        source = sqlite3.connect(f"{database.as_uri()}?mode=rw", uri=True, isolation_level=None)
    except sqlite3.Error as err:
        raise BackupError(f"cannot open the database {database}: {err}", EXIT_NO_DATABASE) from err
    try:
        source.execute("PRAGMA busy_timeout = 10000")
        source.execute("SELECT COUNT(*) FROM sqlite_schema").fetchone()
    except sqlite3.Error as err:
        source.close()
        if getattr(err, "sqlite_errorcode", None) == sqlite3.SQLITE_NOTADB:
            raise BackupError(f"{database} is not an SQLite database", EXIT_NO_DATABASE) from err
        raise BackupError(f"cannot read the database {database}: {err}", EXIT_NO_DATABASE) from err
    return source


def _prepare_destination(dest: Path, needed: int) -> None:
    try:
        if not dest.exists():
            dest.mkdir(parents=True, mode=PRIVATE_FOLDER)
            dest.chmod(PRIVATE_FOLDER)  # mkdir's mode passes through the umask
    except FileExistsError:
        pass  # made meanwhile
    except OSError as err:
        raise _failure(err, f"cannot write backups to {dest}") from err
    if not dest.is_dir():
        raise BackupError(f"cannot write backups to {dest}: it is not a folder", EXIT_DESTINATION)
    free = shutil.disk_usage(dest).free
    if free < needed:
        raise BackupError(
            f"no space left in {dest}: the backup needs about {needed} bytes, {free} are free", EXIT_NO_SPACE
        )


def _new_partial(dest: Path) -> Path:
    try:
        handle, name = tempfile.mkstemp(prefix=PARTIAL_PREFIX, suffix=PARTIAL_SUFFIX, dir=dest)  # mode 0600
    except OSError as err:
        raise _failure(err, f"cannot write backups to {dest}") from err
    os.close(handle)
    return Path(name)


def _copy(source: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """All pages in one step: one consistent snapshot (steps would restart whenever the bot commits)."""
    source.backup(target, pages=-1)


def _write_copy(source: sqlite3.Connection, partial: Path) -> None:
    try:
        target = sqlite3.connect(partial, isolation_level=None)
        try:
            _copy(source, target)
            # The copy inherits WAL mode; a rollback-journal file is complete on its own (no -wal beside it).
            # The bot switches a restored file back to WAL when it opens it.
            target.execute("PRAGMA journal_mode = DELETE").fetchone()
            verdict = [row[0] for row in target.execute("PRAGMA integrity_check").fetchall()]
        finally:
            target.close()
        if verdict != ["ok"]:
            raise BackupError(f"the copy failed its integrity check: {'; '.join(verdict[:5])}", EXIT_CORRUPT)
        with partial.open("rb+") as copy:
            os.fsync(copy.fileno())
    except (sqlite3.Error, OSError) as err:
        raise _failure(err, f"the backup into {partial.parent} failed") from err


def _final_name(dest: Path, now: datetime, kind: str = SQLITE) -> Path:
    stamp = now.astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    path, n = dest / f"schnapsen-{stamp}.{kind}", 1
    while path.exists() or path.is_symlink():  # a second backup within the same second
        n += 1
        path = dest / f"schnapsen-{stamp}-{n}.{kind}"
    return path


def _fsync_directory(dest: Path) -> None:
    handle = os.open(dest, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _remove_partial(partial: Path) -> None:
    for suffix in ("", *_SQLITE_SIDE_FILES):
        try:
            os.unlink(f"{partial}{suffix}")
        except FileNotFoundError:
            pass
        except OSError:
            pass  # nothing more can be done; a later run removes stale partial files


def _remove_stale_partials(dest: Path) -> None:
    cutoff = time.time() - STALE_PARTIAL_SECONDS
    for path in dest.glob(f"{PARTIAL_PREFIX}*{PARTIAL_SUFFIX}"):
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                _remove_partial(path)
        except OSError:
            pass


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _failure(err: BaseException, doing: str) -> BackupError:
    if isinstance(err, BackupError):
        return err
    if isinstance(err, sqlite3.Error):
        code = getattr(err, "sqlite_errorcode", None)
        if code == sqlite3.SQLITE_FULL:
            return BackupError(f"no space left: {doing}: {err}", EXIT_NO_SPACE)
        if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM):
            return BackupError(f"{doing}: {err}", EXIT_DESTINATION)
        if code == sqlite3.SQLITE_NOTADB:
            return BackupError(f"{doing}: the database is not an SQLite database: {err}", EXIT_NO_DATABASE)
        return BackupError(f"{doing}: {err}", EXIT_FAILED)
    if isinstance(err, OSError):
        reason = err.strerror or str(err)
        if err.errno in _NO_SPACE:
            return BackupError(f"no space left: {doing}: {reason}", EXIT_NO_SPACE)
        if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EEXIST, errno.ENOENT):
            return BackupError(f"{doing}: {reason}", EXIT_DESTINATION)
        return BackupError(f"{doing}: {reason}", EXIT_FAILED)
    return BackupError(f"{doing}: {type(err).__name__}: {err}", EXIT_FAILED)


# ---- command line -----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.backup",
        description=(__doc__ or "").replace("``", "").replace("*", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dest", type=Path, help="folder for the backups (created if missing)")
    parser.add_argument(
        "--keep", type=int, default=DEFAULT_KEEP,
        help=f"how many of its own backups to keep in DEST, newest first (default {DEFAULT_KEEP})",
    )
    add_database_option(parser)
    args = parser.parse_args(argv)
    if args.keep < 1:
        parser.error("--keep must be at least 1")
    try:
        try:
            configured = parse_database_url(database_from_args(args))
        except (SettingsError, ValueError) as err:
            raise BackupError(str(err).rstrip("."), 2) from None
        if configured.dialect == "postgresql":
            result = make_pg_backup(configured.dsn, args.dest, keep=args.keep)
        else:
            result = make_backup(Path(configured.path), args.dest, keep=args.keep)
    except BackupError as err:
        print(f"backup failed: {err}", file=sys.stderr)
        return err.exit_code
    except Exception as err:  # whatever else: one line, no traceback
        print(f"backup failed: {_failure(err, 'unexpected error')}", file=sys.stderr)
        return _failure(err, "").exit_code
    checked = "pg_restore reads it" if result.path.suffix == ".dump" else "integrity ok"
    print(f"backup written: {result.path} ({result.size} bytes, {checked})")
    for path in result.removed:
        print(f"removed old backup: {path}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
