"""The AI queue under bursts: how long decisions take, how many fell back to greedy or were cut down.

Every burst asks ``--tables`` AI decisions at the same moment (as many tables whose AI is to act at once, the
worst case of a busy server), through one ``bot.ai_worker.AiWorker`` as the bot uses it, and waits for all of
them; ``--bursts`` bursts back to back. The decisions are taken from the fixed deals (bench/data/), every
decision of a greedy play-through with a choice (trump, bids, Kontra, cards), cycled. The process and its
workers are pinned to the first ``--cores`` cores it may use. Prints the latency from asking to the answer
(p50, p95, max), the decisions that fell back to greedy, were searched with less than their budget, or at the
floor; with ``--check``, also whether every decision searched with its full budget gave the very action
``engine.ai.choose_action`` gives in this process for the same view, seed and budget (a quiet machine's).

    python bench/ai_queue_bench.py --cores 1 --tables 10 --bursts 5 --budget-ms 150 --check
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.ai_worker import AiWorker
from engine import PlayerView, apply, legal_actions, new_deal, view_for
from engine.ai import choose_action
from engine.ai.arena import load_deals

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def percentile(sorted_values: list[float], share: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(share * len(sorted_values)) - 1))
    return sorted_values[index]


def decisions(count: int) -> list[PlayerView]:
    """``count`` views of a seat with a choice, from greedy play-throughs of the fixed deals."""
    from engine import STANDARD

    views: list[PlayerView] = []
    for _seed, dealer, hands in load_deals(str(DEALS)):
        state = new_deal(STANDARD, dealer, hands)
        while not state.finished:
            seat = state.to_act
            assert seat is not None
            view = view_for(state, seat)
            if len(legal_actions(state)) > 1:
                views.append(view)
                if len(views) == count:
                    return views
            state, _ = apply(state, seat, choose_action(view, "greedy"))
    return views


async def run(args: argparse.Namespace, views: list[PlayerView]) -> tuple[list[float], AiWorker, list[int]]:
    worker = AiWorker(overload_wait=args.overload_wait)
    await worker.start()
    latencies: list[float] = []
    actions: list[tuple[int, object]] = []

    async def timed(index: int) -> None:
        started = time.monotonic()
        action = await worker.decide(views[index], "pimc", index, args.budget_ms, args.hard_cap_ms)
        latencies.append(time.monotonic() - started)
        actions.append((index, action))

    try:
        for burst in range(args.bursts):
            first = burst * args.tables
            await asyncio.gather(*(timed(first + table) for table in range(args.tables)))
    finally:
        await worker.close()
    mismatches = []
    if args.check and worker.reduced == 0 and worker.fallbacks == 0:
        for index, action in actions:
            if action != choose_action(views[index], "pimc", index, args.budget_ms):
                mismatches.append(index)
    return latencies, worker, mismatches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=1, help="pin to this many of the cores we may use")
    parser.add_argument("--tables", type=int, default=10, help="decisions asked at once per burst")
    parser.add_argument("--bursts", type=int, default=5)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--hard-cap-ms", type=int, default=1000)
    parser.add_argument("--overload-wait", type=float, default=1.0, help="AiWorker(overload_wait=)")
    parser.add_argument("--check", action="store_true", help="compare each full-budget action with a quiet one")
    args = parser.parse_args()
    cores = sorted(os.sched_getaffinity(0))[: args.cores]
    os.sched_setaffinity(0, cores)  # the workers inherit it
    views = decisions(args.tables * args.bursts)
    args.bursts = len(views) // args.tables
    cpu = time.process_time()
    latencies, worker, mismatches = asyncio.run(run(args, views))
    ordered = sorted(latencies)
    print(
        f"{len(ordered)} decisions in {args.bursts} bursts of {args.tables} on {len(cores)} core(s) "
        f"({worker.workers} worker(s)), budget {args.budget_ms} ms, hard cap {args.hard_cap_ms} ms: "
        f"latency p50 {statistics.median(ordered):.2f} s, p95 {percentile(ordered, 0.95):.2f} s, "
        f"max {ordered[-1]:.2f} s; greedy fallbacks {worker.fallbacks}, budget cut {worker.reduced} "
        f"(at the floor {worker.floor_hits}); this process's CPU {time.process_time() - cpu:.2f} s"
    )
    if args.check:
        if worker.reduced or worker.fallbacks:
            print("check skipped: some decisions were cut down or fell back (run with a larger --overload-wait)")
        else:
            print(f"actions equal to a quiet in-process search: {len(ordered) - len(mismatches)} of {len(ordered)}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
