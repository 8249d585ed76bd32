"""Cost of one double-dummy search node, and a fingerprint of the solver's answers.

Solves a fixed list of positions (every played contract, the standard rules and the variants of the AI
tests, from the first lead and after random walks into the deal) the way the card play does: one solver
per deal and contract, its tables kept across positions, null-window searches from the last value, some
searches cut by a node limit. Prints the nodes searched, the CPU time per node and a hash of every
(value, node count) pair: two solvers with the same hash gave the same answers after the same work.

    python bench/ai_solver_nodes.py --solver pure
    python bench/ai_solver_nodes.py --solver compiled   # the accelerator (docs/ai.md), if built

``--positions`` sets the number of positions (the same first ones for the same number).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from devtools.positions import (
    PLAYED_CONTRACTS,
    RULE_VARIANTS,
    play_start,
    position_of_state,
    random_walk,
    table_of_state,
)
from engine.ai import solver as solver_module
from engine.ai.compact import Position, Table
from engine.contracts import Contract


def groups(count: int) -> Iterator[tuple[Table, list[Position]]]:
    """Per deal and contract: its table and up to eight unfinished positions of that deal."""
    made = 0
    seed = 0
    while made < count:
        seed += 1
        # Half the deals are the normal game, the AI's most common card play.
        contract = Contract.NORMAL if seed % 2 else PLAYED_CONTRACTS[seed // 2 % len(PLAYED_CONTRACTS)]
        rules = RULE_VARIANTS[seed // 7 % len(RULE_VARIANTS)]
        state = play_start(seed, contract, rules)
        table = table_of_state(state)
        rng = random.Random(seed)
        found = []
        for _ in range(8):
            walked = random_walk(state, rng, rng.choice((0, 0, 1, 2, 3, 4, 5, 6, 8, 10)))
            if not walked.finished:
                found.append(position_of_state(walked))
        found = found[: count - made]
        made += len(found)
        yield table, found


def run(solver_class: type, cases: list[tuple[Table, list[Position]]]) -> tuple[list[tuple[int, int]], int]:
    """(value, nodes so far) per search (value -99 where the node limit cut it), and the nodes searched."""
    answers = []
    nodes = 0
    for index, (table, positions) in enumerate(cases):
        solver = solver_class(table)
        last = 0
        for number, pos in enumerate(positions):
            # Every fifth deal's searches get a tight node limit, as the card play's budget does.
            solver.node_limit = solver.nodes + 3000 if index % 5 == 0 else 10**9
            try:
                value = solver.solve(pos) if number % 3 == 0 else solver.solve_mtd(pos, last)
                last = value
            except solver_module.SearchAborted:
                value = -99
            answers.append((value, solver.nodes))
        nodes += solver.nodes
    return answers, nodes


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--solver", choices=("auto", "pure", "compiled"), default="auto")
    parser.add_argument("--repeat", type=int, default=3, help="best CPU time of this many runs")
    args = parser.parse_args()
    # An older tree (before the accelerator) has only its pure solver: run this file from a copy placed
    # there with ``python -S`` to compare hashes with it.
    classes = getattr(solver_module, "solver_classes", lambda: {"pure": solver_module.Solver})()
    if args.solver != "auto" and args.solver not in classes:
        print(f"no {args.solver} solver here (built: {sorted(classes)})", file=sys.stderr)
        return 2
    solver_class = solver_module.Solver if args.solver == "auto" else classes[args.solver]
    cases = list(groups(args.positions))
    best = float("inf")
    for _ in range(args.repeat):
        started = time.process_time()
        answers, nodes = run(solver_class, cases)
        best = min(best, time.process_time() - started)
    digest = hashlib.sha256(json.dumps(answers).encode()).hexdigest()[:16]
    report = {
        "solver": args.solver if args.solver != "auto" else getattr(solver_module, "KIND", "pure"),
        "positions": args.positions,
        "nodes": nodes,
        "cpu_s": round(best, 3),
        "ns_per_node": round(best / nodes * 1e9),
        "answers_sha256": digest,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
