"""``python -m bot [--sync]``: start the bot with the token from the environment or ``.env``.

Exit status 0 when stopped, 2 for a configuration error (a wrong or out-of-range setting, a database that
cannot be opened or reached, a token Discord refuses, no network to Discord at login), 1 for anything else
(Discord down at login). Every error before the bot runs is one line on standard error, never a secret.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys

from bot.settings import Settings, SettingsError

EXIT_CONFIGURATION = 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Run the Bauernschnapsen Discord bot (settings from the environment or .env: docs/deploy.md).",
        epilog=(
            "Exit status: 0 stopped, 2 configuration error (one line on standard error; not worth restarting),\n"
            "1 another failure."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sync", action="store_true", help="sync the slash commands even if unchanged")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except SettingsError as err:
        return _cannot_start(str(err), EXIT_CONFIGURATION)
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stdout,
    )
    from bot.client import StartError, run

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run(settings, force_sync=args.sync))
    except SettingsError as err:
        return _cannot_start(str(err), EXIT_CONFIGURATION)
    except StartError as err:
        return _cannot_start(str(err), err.exit_code)
    return 0


def _cannot_start(reason: str, status: int) -> int:
    print(f"Cannot start: {reason}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
