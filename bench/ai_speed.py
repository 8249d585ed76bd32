"""Decision time of an AI player per decision kind (card play, trump, bid, kontra): p50, p95 and max.

Plays seeded deals of the full game (the fixed list in bench/data/) in one process with the given player in
every seat and times every decision that has more than one legal action.

    python bench/ai_speed.py --player pimc --deals 40 --budget-ms 150

``--clock cpu`` times each decision by the CPU time of the process (``time.process_time``) instead of wall
time: on a machine shared with other jobs it shows what the search costs, not how long it waited for a core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai.arena import load_deals, play_deal

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def percentile(sorted_values: list[float], share: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(share * len(sorted_values)) - 1))
    return sorted_values[index]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--player", default="pimc")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    times: dict[str, list[float]] = {}
    for seed, dealer, hands in load_deals(str(DEALS))[: args.deals]:
        outcome = play_deal(
            hands, dealer, seed, (args.player,) * 4, budget_ms=args.budget_ms, timed=True, clock=clock
        )
        for kind, seconds in outcome.timings:
            times.setdefault(kind, []).append(seconds * 1000)
    report = {
        "player": args.player,
        "deals": args.deals,
        "budget_ms": args.budget_ms,
        "clock": args.clock,
        "decisions_ms": {},
    }
    for kind in ("card", "trump", "bid", "kontra"):
        values = sorted(times.get(kind, []))
        if values:
            report["decisions_ms"][kind] = {  # type: ignore[index]
                "count": len(values),
                "p50": round(percentile(values, 0.50), 1),
                "p95": round(percentile(values, 0.95), 1),
                "max": round(values[-1], 1),
            }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
