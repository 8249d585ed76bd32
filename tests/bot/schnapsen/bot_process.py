"""A real bot in a process of its own, pointed at the fake Discord of the test that started it: how the
two-process tests run one process per shard range on one database.

    python -m tests.bot.schnapsen.bot_process --api URL --gateway URL --token TOKEN \
        --database postgresql://... --shard-count 2 --shard-ids 1

Prints ``READY`` once connected; SIGTERM stops it cleanly. A test kills it (SIGKILL to its process group,
AI workers included) to simulate a crash. Settings are the tests' own (no pacing), with the shard range.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import sys
from pathlib import Path

from bench.child_bot import add_fake_discord_arguments, point_at_fake_discord, run_until_sigterm
from bot.client import make_bot
from bot.shards import ShardRange
from tests.bot.schnapsen import harness


async def serve(args: argparse.Namespace) -> None:
    point_at_fake_discord(args.api, args.gateway)
    settings = dataclasses.replace(
        harness.test_settings(Path(args.database), token=args.token, log_level="INFO"),
        database_path=args.database,  # a URL: test_settings takes a path
        shards=ShardRange.parse(args.shard_count, args.shard_ids),
        click_inbox_poll=args.inbox_poll,
    )
    bot = make_bot(settings)
    bot._connection.guild_ready_timeout = 0.2  # discord.py's default waits 2 s before `ready`
    await run_until_sigterm(bot)


def main() -> int:
    parser = argparse.ArgumentParser()
    add_fake_discord_arguments(parser)
    parser.add_argument("--shard-count", required=True)
    parser.add_argument("--shard-ids", required=True)
    parser.add_argument("--inbox-poll", type=float, default=2.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(serve(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
