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
import signal
import sys
from pathlib import Path

import discord
import yarl

from bot.client import make_bot
from bot.shards import ShardRange
from tests.bot.schnapsen.harness import test_settings


async def serve(args: argparse.Namespace) -> None:
    discord.http.Route.BASE = args.api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(args.gateway)
    settings = dataclasses.replace(
        test_settings(Path(args.database), token=args.token, log_level="INFO"),
        database_path=args.database,
        shards=ShardRange.parse(args.shard_count, args.shard_ids),
        click_inbox_poll=args.inbox_poll,
    )
    bot = make_bot(settings)
    bot._connection.guild_ready_timeout = 0.2  # discord.py's default waits 2 s before `ready`
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)

    @bot.event
    async def on_ready() -> None:
        print("READY", flush=True)

    async with bot:
        runner = asyncio.create_task(bot.start(settings.token))
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({runner, stopped}, return_when=asyncio.FIRST_COMPLETED)
        await bot.close()
        if runner.done() and runner.exception() is not None:
            raise runner.exception()  # type: ignore[misc]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--shard-count", required=True)
    parser.add_argument("--shard-ids", required=True)
    parser.add_argument("--inbox-poll", type=float, default=2.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(serve(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
