"""The bot process of bench/bot_bench.py: the real SchnapsenBot on a temporary database, talking to the fake
Discord of the parent process. Prints ``READY`` once connected and, on SIGTERM, one JSON line with its peak
memory (and the profile file, with --profile), and with --time-ai every AI decision's table and span (the
parent leaves the AI's search time out of a latency figure with it).

    python bench/bot_bench_child.py --api http://127.0.0.1:PORT/api/v10 --gateway ws://127.0.0.1:PORT/ \
        --token TOKEN --database /tmp/x.sqlite3 [--profile out.prof] [--cold] \
        [--shards 0/2] [--cpu 1] [--time-ai]

The database is a file (SQLite) or a postgresql:// URL. ``--cpu`` pins this process, and so the AI worker
processes it starts, to that core.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.child_bot import add_fake_discord_arguments, bot_for_fake_discord, run_until_sigterm
from bot import render
from bot.client import SchnapsenBot
from bot.shards import ShardRange

# The drivers seed an AI decision with table id * SEED_STRIDE + version (bot/schnapsen/drivers.py).
SEED_STRIDE = 1_000_003


def status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def current_rss_kb() -> int:
    return status_kb("VmRSS")


def reset_peak_rss() -> bool:
    """Linux: start VmHWM (the peak RSS) afresh, so the peak while serving is told apart from start-up."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def time_ai_decisions(bot: SchnapsenBot, spans: list[tuple[int, float, float]]) -> None:
    """Record (table id, start, end) of every AI decision, on the machine-wide monotonic clock the parent reads
    too. Wrapped once the bot's setup has made its AI players."""
    setup = bot.setup_hook

    async def setup_then_time() -> None:
        await setup()
        decide = bot.ai.decide

        async def timed(view: object, strength: str, seed: int) -> object:
            started = time.monotonic()
            try:
                return await decide(view, strength, seed)  # type: ignore[arg-type]
            finally:
                spans.append((seed // SEED_STRIDE, started, time.monotonic()))

        bot.ai.decide = timed  # type: ignore[assignment, method-assign]

    bot.setup_hook = setup_then_time  # type: ignore[method-assign]


async def serve(args: argparse.Namespace) -> dict[str, object]:
    shards = None
    if args.shards:
        ids, count = args.shards.split("/")
        shards = ShardRange.parse(count, ids)
    bot = bot_for_fake_discord(
        api=args.api,
        gateway=args.gateway,
        token=args.token,
        database=args.database,
        edit_interval=args.edit_interval,
        log_level="WARNING",
        shards=shards,
    )
    ai_spans: list[tuple[int, float, float]] = []
    if args.time_ai:
        time_ai_decisions(bot, ai_spans)
    rss_before_close = 0

    def measure_rss() -> None:
        nonlocal rss_before_close
        rss_before_close = current_rss_kb()

    await run_until_sigterm(bot, before_close=measure_rss)
    report: dict[str, object] = {
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rss_at_stop_kb": rss_before_close,
    }
    if args.time_ai:
        worker = getattr(bot.ai, "_worker", None)
        # Decisions the search did not answer in time (no free worker, or past the hard cap): greedy played.
        report["ai_fallbacks"] = getattr(worker, "fallbacks", 0)
        report["ai_spans"] = [[table, round(start, 4), round(end, 4)] for table, start, end in ai_spans]
    return report


def main() -> int:
    parser = argparse.ArgumentParser()
    add_fake_discord_arguments(parser)
    parser.add_argument("--edit-interval", type=float, required=True)
    parser.add_argument("--profile", help="write a cProfile of the whole run to this file")
    parser.add_argument("--cold", action="store_true", help="do not build the card palettes before starting")
    parser.add_argument(
        "--shards", help="IDS/COUNT: hold these of COUNT shards (SHARD_IDS/SHARD_COUNT), e.g. 1/2"
    )
    parser.add_argument(
        "--cpu", type=int, help="pin this process (and the AI workers it starts) to this core"
    )
    parser.add_argument("--time-ai", action="store_true", help="report every AI decision's table and span")
    args = parser.parse_args()
    if args.cpu is not None:
        # Before anything starts: the AI worker processes inherit the pinning, so the bot's whole work is
        # measured on one core.
        os.sched_setaffinity(0, {args.cpu})
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    started = time.perf_counter()
    if not args.cold:
        # The bench's tables use the default deck; a bot that has rendered once has built its palette, and
        # building it in several render threads at once (what a cold bot does) costs seconds each.
        render.preload("doppeldeutsch")
    warmup = time.perf_counter() - started
    startup_peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    serving_peak_known = reset_peak_rss()
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    report = asyncio.run(serve(args))
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    report["preload_seconds"] = round(warmup, 3)
    report["startup_peak_rss_kb"] = startup_peak_kb
    if serving_peak_known:
        report["serving_peak_rss_kb"] = status_kb("VmHWM")
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
