"""The bot process of bench/bot_bench.py: the real SchnapsenBot on a temporary database, talking to the fake
Discord of the parent process. Prints ``READY`` once connected and, on SIGTERM, one JSON line with its peak
memory (and the profile file, with --profile).

    python bench/bot_bench_child.py --api http://127.0.0.1:PORT/api/v10 --gateway ws://127.0.0.1:PORT/ \
        --token TOKEN --database /tmp/x.sqlite3 [--profile out.prof] [--cold]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import resource
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.child_bot import bot_for_fake_discord
from bot import render


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


async def serve(args: argparse.Namespace) -> dict[str, object]:
    bot = bot_for_fake_discord(
        api=args.api,
        gateway=args.gateway,
        token=args.token,
        database=args.database,
        edit_interval=args.edit_interval,
        log_level="WARNING",
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)

    @bot.event
    async def on_ready() -> None:
        print("READY", flush=True)

    async with bot:
        runner = asyncio.create_task(bot.start(bot.settings.token))
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({runner, stopped}, return_when=asyncio.FIRST_COMPLETED)
        rss_before_close = current_rss_kb()
        await bot.close()
        if runner.done() and runner.exception() is not None:
            raise runner.exception()  # type: ignore[misc]
    return {
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rss_at_stop_kb": rss_before_close,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--api", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--database", required=True)
    parser.add_argument("--edit-interval", type=float, required=True)
    parser.add_argument("--profile", help="write a cProfile of the whole run to this file")
    parser.add_argument("--cold", action="store_true", help="do not build the card palettes before starting")
    args = parser.parse_args()
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
