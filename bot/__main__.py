"""``python -m bot [--sync]``: start the bot with the token from the environment or ``.env``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys

from bot.settings import Settings, SettingsError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Run the Bauernschnapsen Discord bot.")
    parser.add_argument("--sync", action="store_true", help="sync the slash commands even if unchanged")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except SettingsError as err:
        print(f"Cannot start: {err}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        stream=sys.stdout,
    )
    from bot.client import run

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(settings, force_sync=args.sync))
    return 0


if __name__ == "__main__":
    sys.exit(main())
