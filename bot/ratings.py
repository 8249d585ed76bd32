"""``python -m bot.ratings rebuild``: recompute every skill rating from the stored Bummerl results, in order.

A change of the rating model (docs/ratings.md) never loses history: the ratings and their history rows are
derived data, rebuilt from ``bummerl_results`` in one transaction (the bot may keep running: its writes wait
for the transaction: 5,000 Bummerl took 0.9 s here, far below the bot's 5 s busy timeout). Each guild's
``rated_min_people`` of today applies to its whole history.

The database path is read like the bot reads it (``DATABASE_PATH`` from the environment or ``.env``); a
missing database is an error (exit 3), not a new empty one. Exit 0 when done, 2 for wrong arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.db import Database
from bot.db.database import parse_database_url
from bot.game import ratings
from bot.settings import database_path_from_env

EXIT_OK = 0
EXIT_NO_DATABASE = 3


async def rebuild(database: Path | str) -> int:
    db = await Database.open(database)
    try:
        return await ratings.rebuild(db)
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.ratings", description="Skill ratings of the bot.")
    commands = parser.add_subparsers(dest="command", required=True)
    rebuild_command = commands.add_parser("rebuild", help="recompute every rating from the stored results")
    rebuild_command.add_argument(
        "--database", type=Path, default=None,
        help="the database file (default: DATABASE_PATH from the environment or .env, as the bot reads it)",
    )
    args = parser.parse_args(argv)
    if args.database is None and parse_database_url(database_path_from_env()).dialect == "postgresql":
        rated = asyncio.run(rebuild(database_path_from_env()))
        print(f"ratings rebuilt: {rated} rated Bummerl")
        return EXIT_OK
    database = args.database if args.database is not None else Path(parse_database_url(database_path_from_env()).path)
    if not database.is_file():
        print(f"no database at {database} (set DATABASE_PATH or pass --database)", file=sys.stderr)
        return EXIT_NO_DATABASE
    rated = asyncio.run(rebuild(database))
    print(f"ratings rebuilt: {rated} rated Bummerl")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
