"""Duplicate match between two AI players over the fixed deal list (bench/data/deals.jsonl).

Each deal is played twice with the teams swapped; the score is half the difference of game points, so the
luck of the cards cancels. Prints game points per 100 deals for the first player with a 95% confidence
interval, per-contract bid and success counts, and Kontra counts. Exits 1 if the first player loses (the
mean is below zero), so CI can run it.

    python bench/ai_match.py --players pimc greedy --deals 2000 --mode normal --budget-ms 150
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai.arena import duplicate_pair, load_deals

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def _one(task: tuple) -> tuple[float, list[dict]]:  # type: ignore[type-arg]
    (seed, dealer, hands), first, second, normal_only, budget_ms = task
    margin, outcomes = duplicate_pair(hands, dealer, seed, first, second, normal_only, budget_ms)
    summary = []
    for index, outcome in enumerate(outcomes):
        first_team = 0 if index == 0 else 1  # the first player sits N/S in the first play, E/W in the second
        summary.append(
            {
                "contract": outcome.contract.id if outcome.contract is not None else None,
                "bid": outcome.bid,
                "by_first": outcome.declaring_team == first_team,
                "made": outcome.made,
                "kontra": outcome.kontra,
            }
        )
    return margin, summary


def run_match(
    first: str, second: str, deals: int, normal_only: bool, budget_ms: int, workers: int, first_deal: int = 0
) -> dict[str, object]:
    chosen = load_deals(str(DEALS))[first_deal : first_deal + deals]
    tasks = [(deal, first, second, normal_only, budget_ms) for deal in chosen]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_one, tasks, chunksize=4))
    margins = [margin for margin, _ in results]
    n = len(margins)
    mean = sum(margins) / n
    variance = sum((m - mean) ** 2 for m in margins) / (n - 1) if n > 1 else 0.0
    half_width = 1.96 * math.sqrt(variance / n)
    bids: Counter[str] = Counter()
    made: Counter[str] = Counter()
    kontras: Counter[str] = Counter()
    for _, summary in results:
        for play in summary:
            contract = play["contract"] or "none"
            who = first if play["by_first"] else second
            if play["bid"]:
                bids[f"{who} {contract}"] += 1
                made[f"{who} {contract}"] += bool(play["made"])
            kontras[contract] += play["kontra"]
    return {
        "players": [first, second],
        "mode": "normal" if normal_only else "full",
        "deals": n,
        "first_deal": first_deal,
        "games": 2 * n,
        "budget_ms": budget_ms,
        "points_per_100_deals": round(100 * mean, 2),
        "ci95": [round(100 * (mean - half_width), 2), round(100 * (mean + half_width), 2)],
        "bids": {key: {"bid": bids[key], "made": made[key]} for key in sorted(bids)},
        "kontra_re_said": dict(sorted(kontras.items())),
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", nargs=2, default=["pimc", "greedy"], metavar=("FIRST", "SECOND"))
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument(
        "--first-deal", type=int, default=0, help="start at this deal of the list (to split a long run)"
    )
    parser.add_argument("--mode", choices=("normal", "full"), default="full")
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    report = run_match(
        *args.players, args.deals, args.mode == "normal", args.budget_ms, args.workers, args.first_deal
    )
    print(json.dumps(report, indent=2))
    return 0 if report["points_per_100_deals"] >= 0 else 1  # type: ignore[operator]


if __name__ == "__main__":
    sys.exit(main())
