"""Move a server's data from one database to another, e.g. from SQLite to PostgreSQL:

    python -m bot.migrate --from sqlite:///schnapsen.sqlite3 --to postgresql://bot@localhost/schnapsen

Both are brought to the newest schema first; every table is copied with its ids in one transaction of the
target, whose numbering then continues past the highest id. A target that already holds rows is refused
unless `--replace` is given (its rows are then deleted in the same transaction). Prints a JSON summary of the
rows copied per table. Stop the bot first: rows written during the copy would not be moved. Exit status 2
with one sentence on bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.db import Database, StorageError
from bot.db.database import parse_database_url
from bot.db.transfer import clear_all, copy_all, row_counts

EXIT_BAD_INPUT = 2


class MoveRefused(Exception):
    """Bad input; the message is the one sentence shown."""


async def move(source_url: str, target_url: str, *, replace: bool = False) -> dict[str, object]:
    try:
        source, target = parse_database_url(source_url), parse_database_url(target_url)
    except ValueError as err:
        raise MoveRefused(str(err)) from err
    if source == target:
        raise MoveRefused("--from and --to name the same database.")
    if source.dialect == "sqlite" and not Path(source.path).is_file():
        raise MoveRefused(f"there is no SQLite database at {source.path}.")
    source_db = await _open(source_url, "--from")
    try:
        target_db = await _open(target_url, "--to")
        try:
            if any((await row_counts(target_db)).values()) and not replace:
                raise MoveRefused("the target database already holds rows; pass --replace to overwrite them.")
            async with target_db.transaction():
                if replace:
                    await clear_all(target_db)
                copied = await copy_all(source_db, target_db)
        finally:
            await target_db.close()
    finally:
        await source_db.close()
    return {"from": source.dialect, "to": target.dialect, "rows": dict(copied)}


async def _open(url: str, option: str) -> Database:
    try:
        return await Database.open(url)
    except StorageError as err:
        raise MoveRefused(f"{option}: {err}.") from err
    except (OSError, ConnectionError) as err:
        raise MoveRefused(f"{option}: cannot connect to the database ({err}).") from err
    except Exception as err:  # asyncpg's errors (a wrong password, a missing database) are not imported here
        raise MoveRefused(f"{option}: cannot open the database ({type(err).__name__}: {err}).") from err


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.migrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", required=True, help="sqlite:///path, a file path, or postgresql://...")
    parser.add_argument("--to", dest="target", required=True, help="postgresql://..., sqlite:///path or a file path")
    parser.add_argument("--replace", action="store_true", help="delete the rows the target already holds")
    args = parser.parse_args(argv)
    try:
        summary = asyncio.run(move(args.source, args.target, replace=args.replace))
    except MoveRefused as err:
        print(f"bot.migrate: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
