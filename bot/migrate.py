"""The old name of ``python -m bot.copydata``: it did nothing but copy data, and was easily taken for the
schema migrations (those run by themselves when the bot starts). It only says the new name."""

from __future__ import annotations

import sys

NEW_NAME = "python -m bot.copydata"


def main() -> int:
    print(
        f"python -m bot.migrate is now {NEW_NAME} (it copies data between databases; schema migrations run "
        f"by themselves when the bot starts): run {NEW_NAME} --help.",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
