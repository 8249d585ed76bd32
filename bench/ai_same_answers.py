"""Whether this tree's AI chooses the same actions as an older commit's, decision by decision.

Plays the fixed deals (bench/data/deals.jsonl) as bench/ai_cost.py does (three ``pimc`` seats, a greedy
person at seat deal % 4); at every AI decision both trees answer the same question (each from a server
process of its own, bench/ai_ref_server.py) and the deal goes on with this tree's action. Prints the
decisions compared and those that differ (with the first few differences): a change meant to make the
search cheaper and nothing else must show none.

    python bench/ai_same_answers.py --deals 100 --ref 5a3c3c9
    BAUERNSCHNAPSEN_PURE_SOLVER=1 python bench/ai_same_answers.py ...   # this tree's pure-Python solver and sampler
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench.ai_match as match
from engine.actions import format_action
from engine.ai import knowledge, solver
from engine.ai.arena import Hands, load_deals, play_deal
from engine.rules import Action

_servers: dict[str, subprocess.Popen[str]] = {}


def _start_servers(roots: dict[str, str]) -> None:
    for name, root in roots.items():
        _servers[name] = match.start_server(root)


def _one(task: tuple[int, tuple[int, int, Hands], int]) -> tuple[int, list[dict[str, Any]]]:
    """One deal: (decisions compared, the differing ones)."""
    index, (seed, dealer, hands), budget_ms = task
    person = index % 4
    players = cast(
        tuple[str, str, str, str], tuple("greedy" if seat == person else "ai" for seat in range(4))
    )
    mine = match._ref_choose("pimc", None, _servers["this"])
    theirs = match._ref_choose("pimc", None, _servers["ref"])
    compared = 0
    differing: list[dict[str, Any]] = []

    def both(
        dealer: int, hands: Hands, history: list[tuple[int, Action]], seat: int, seed: int, budget_ms: int
    ) -> Action:
        nonlocal compared
        action = mine(dealer, hands, history, seat, seed, budget_ms)
        other = theirs(dealer, hands, history, seat, seed, budget_ms)
        compared += 1
        if action != other:
            differing.append(
                {
                    "deal": seed,
                    "decision": len(history),
                    "this": format_action(seat, action),
                    "ref": format_action(seat, other),
                }
            )
        return action

    play_deal(hands, dealer, seed, players, budget_ms=budget_ms, choosers={"ai": both})
    return compared, differing


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--ref", metavar="GITREF", default="5a3c3c9")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    deals = load_deals(str(match.DEALS))[args.first_deal : args.first_deal + args.deals]
    tasks = [(args.first_deal + i, deal, args.budget_ms) for i, deal in enumerate(deals)]
    root = match._worktree(args.ref)
    try:
        roots = {"this": str(match.ROOT), "ref": root}
        with ProcessPoolExecutor(args.workers, initializer=_start_servers, initargs=(roots,)) as pool:
            results = list(pool.map(_one, tasks))
    finally:
        match._remove_worktree(root)
    differing = [entry for _, entries in results for entry in entries]
    report = {
        "deals": len(results),
        "ref": args.ref,
        "solver_here": solver.KIND,  # the servers of this tree import the same files, in the same environment
        "sampler_here": knowledge.KIND,
        "decisions": sum(compared for compared, _ in results),
        "differing": len(differing),
        "first_differences": differing[:10],
    }
    print(json.dumps(report, indent=2))
    return 0 if not differing else 1


if __name__ == "__main__":
    sys.exit(main())
