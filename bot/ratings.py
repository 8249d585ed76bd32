"""Recompute every skill rating from the stored Bummerl results, in order.

    python -m bot.ratings rebuild [--database URL]

A change of the rating model (docs/ratings.md) never loses history: the ratings and their history rows are
derived data, rebuilt from bummerl_results in one transaction. The bot may keep running: its writes wait for
the transaction (5,000 Bummerl took 0.9 s here, far below the bot's 5 s busy timeout). Each guild's
rated_min_people of today applies to its whole history.

The database is named as the bot names it: --database sqlite:///path, postgresql://user:password@host/db or
a file path; without it, DATABASE_URL or else DATABASE_PATH from the environment or .env, as the bot reads
them. A missing SQLite file is an error, not a new empty database.

Exit status: 0 done; 2 wrong arguments, a malformed database URL, or a database that cannot be opened or
reached (one line on standard error); 3 no SQLite database at that path.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.connect import open_database
from bot.db.database import parse_database_url
from bot.game import ratings
from bot.settings import SettingsError, add_database_option, database_from_args

PROG = "python -m bot.ratings"
EXIT_OK = 0
EXIT_BAD_CONFIGURATION = 2
EXIT_NO_DATABASE = 3


async def rebuild(database: Path | str) -> int:
    """Rebuild the ratings of `database` (a path or URL); the number of rated Bummerl. `SettingsError` when
    it cannot be opened."""
    db = await open_database(str(database))
    try:
        return await ratings.rebuild(db)
    finally:
        await db.close()


def parser() -> argparse.ArgumentParser:
    described = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = described.add_subparsers(dest="command", required=True, metavar="COMMAND")
    rebuild_command = commands.add_parser(
        "rebuild", help="recompute every rating from the stored results",
        description="Recompute every skill rating from the stored Bummerl results, in one transaction.",
    )
    add_database_option(rebuild_command)
    return described


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        database = database_from_args(args)
        target = parse_database_url(database)
        if target.dialect == "sqlite" and not Path(target.path).is_file():
            print(
                f"{PROG}: no database at {Path(target.path).absolute()} (pass --database, or set DATABASE_PATH; "
                ".env is read in the working directory)",
                file=sys.stderr,
            )
            return EXIT_NO_DATABASE
        rated = asyncio.run(rebuild(database))
    except (SettingsError, ValueError) as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return EXIT_BAD_CONFIGURATION
    print(f"ratings rebuilt: {rated} rated Bummerl")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
