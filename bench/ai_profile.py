"""cProfile of the AI's work on the first deals of the fixed list (three pimc seats, one greedy), in this
process: where the AI's CPU goes, by function.

    python bench/ai_profile.py --deals 30 --top 40
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai.arena import load_deals, play_deal

DEALS = Path(__file__).resolve().parent / "data" / "deals.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--no-profile", action="store_true", help="only the CPU time, no cProfile")
    args = parser.parse_args()
    deals = load_deals(str(DEALS))[: args.deals]
    profile = cProfile.Profile()
    started = time.process_time()
    if not args.no_profile:
        profile.enable()
    for index, (seed, dealer, hands) in enumerate(deals):
        players = tuple("greedy" if seat == index % 4 else "pimc" for seat in range(4))
        play_deal(hands, dealer, seed, players, budget_ms=args.budget_ms)  # type: ignore[arg-type]
    if not args.no_profile:
        profile.disable()
    cpu = time.process_time() - started
    print(f"{len(deals)} deals, CPU {cpu:.2f} s, {1000 * cpu / len(deals):.0f} ms per deal")
    if not args.no_profile:
        pstats.Stats(profile).sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
