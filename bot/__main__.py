"""``python -m bot [--sync]``: start the bot with the token from the environment or ``.env``.
``python -m bot doctor``: check the settings, the database, the install and (when Discord can be reached) the
token, the commands and each server's permissions, one line each (``bot/doctor.py``).
``python -m bot --version``: the version (CHANGELOG.md says what each brought).

Exit status 0 when stopped, 2 for a permanent fault (a wrong or out-of-range setting, a database the bot cannot
use, a schema newer than the code, a token Discord refuses): one line on standard error, never a secret, and
systemd does not restart it. A transient fault (no network or DNS yet, Discord's 5xx, a database server still
starting) is waited out with a WARNING per try; exit status 1 when it lasted past the patience (10 minutes) or
for anything else, which systemd restarts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from bot.settings import Settings, SettingsError
from bot.version import version

EXIT_CONFIGURATION = 2


def parser() -> argparse.ArgumentParser:
    described = argparse.ArgumentParser(
        prog="python -m bot",
        description="Run the Bauernschnapsen Discord bot (settings from the environment or .env: docs/deploy.md).",
        epilog=(
            "Exit status: 0 stopped, 2 a permanent fault (one line on standard error; not worth restarting),\n"
            "1 a transient fault that outlasted 10 minutes of tries, or another failure (worth restarting)."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    described.add_argument("--version", action="version", version=f"Bauernschnapsen {version()}")
    described.add_argument("--sync", action="store_true", help="sync the slash commands even if unchanged")
    commands = described.add_subparsers(dest="command", metavar="COMMAND")
    from bot.doctor import add_doctor_command

    add_doctor_command(commands)
    return described


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "doctor":
        from bot.doctor import main as doctor

        return doctor(args)
    try:
        settings = Settings.from_env()
    except SettingsError as err:
        return _cannot_start(str(err), EXIT_CONFIGURATION)
    from bot import logs

    logs.configure(settings.log_level, settings.log_levels)
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
