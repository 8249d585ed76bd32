"""Copy all of the bot's data from one database to another, for example from SQLite to PostgreSQL:

    python -m bot.copydata --from sqlite:///schnapsen.sqlite3 --to postgresql://bot@localhost/schnapsen

Stop the bot first: rows written during the copy would not be copied. Both databases are brought to the
newest schema first (schema migrations also run by themselves whenever the bot starts; this command is only
for moving data). Every table is copied with its ids, in batches, in one transaction of the target, whose
numbering then continues past the highest id. A target that already holds rows is refused unless --replace
is given (its rows are then deleted in the same transaction). The source is left as it was.

A database is named as the bot names it: sqlite:///relative/path, sqlite:////absolute/path, a file path,
or postgresql://user:password@host/database.

Prints a JSON summary of the rows copied per table. Exit status 0 when copied; 2 with one sentence on
standard error for bad input, a database that cannot be opened or reached, or a target that holds rows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.connect import open_database
from bot.db import Database
from bot.db.database import DatabaseUrl, parse_database_url
from bot.db.transfer import clear_all, copy_all, row_counts
from bot.settings import SettingsError, checked_database

PROG = "python -m bot.copydata"
EXIT_BAD_INPUT = 2


class CopyRefused(Exception):
    """Bad input; the message is the one sentence shown."""


async def copy_database(source_url: str, target_url: str, *, replace: bool = False) -> dict[str, object]:
    """Copy every row from `source_url` to `target_url`; the summary printed as JSON."""
    try:
        source_url = checked_database(source_url, "--from", path_allowed=True)
        target_url = checked_database(target_url, "--to", path_allowed=True)
        source, target = parse_database_url(source_url), parse_database_url(target_url)
    except (SettingsError, ValueError) as err:
        raise CopyRefused(str(err)) from None
    if _same(source, target):
        raise CopyRefused("--from and --to name the same database.")
    if source.dialect == "sqlite" and not Path(source.path).is_file():
        raise CopyRefused(f"there is no SQLite database at {source.path} (--from).")
    source_db = await _open(source_url, "--from")
    try:
        target_db = await _open(target_url, "--to")
        try:
            if any((await row_counts(target_db)).values()) and not replace:
                raise CopyRefused("the target database already holds rows; pass --replace to overwrite them.")
            async with target_db.transaction():
                if replace:
                    await clear_all(target_db)
                copied = await copy_all(source_db, target_db)
        finally:
            await target_db.close()
    finally:
        await source_db.close()
    return {"from": source.dialect, "to": target.dialect, "rows": dict(copied)}


def _same(source: DatabaseUrl, target: DatabaseUrl) -> bool:
    if source.dialect == target.dialect == "sqlite":
        return os.path.abspath(source.path) == os.path.abspath(target.path)
    return source == target


async def _open(url: str, option: str) -> Database:
    try:
        return await open_database(url)
    except SettingsError as err:
        raise CopyRefused(f"{option}: {err}") from None


def parser() -> argparse.ArgumentParser:
    described = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    described.add_argument("--from", dest="source", metavar="URL", required=True, help="the database to copy from")
    described.add_argument("--to", dest="target", metavar="URL", required=True, help="the database to copy into")
    described.add_argument("--replace", action="store_true", help="delete the rows the target already holds")
    return described


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    args = parser().parse_args(argv)
    try:
        summary = asyncio.run(copy_database(args.source, args.target, replace=args.replace))
    except CopyRefused as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
