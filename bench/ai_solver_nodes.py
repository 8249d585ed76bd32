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
import dataclasses
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import PLAY, STANDARD, Contract, DealState, apply_unchecked, deal_hands, legal_actions, new_deal
from engine.ai import solver as solver_module
from engine.ai.compact import INDEX, Position, Table, mask_of
from engine.cards import partner_of
from engine.ruleset import Ruleset

CONTRACTS = tuple(c for c in Contract if c not in (Contract.FARBRINGERL, Contract.TRUMPFFARBRINGERL))
RULES = (
    STANDARD,
    dataclasses.replace(STANDARD, undertrump_required=False),
    dataclasses.replace(STANDARD, schnapser_marriages="additive", schnapser_leader="declarer"),
    dataclasses.replace(
        STANDARD, partner_sits_out=frozenset({Contract.BETTLER, Contract.GANG, Contract.ZEHNERLOCH})
    ),
)


def start(seed: int, contract: Contract, rules: Ruleset) -> tuple[DealState, Table]:
    rng = random.Random(seed)
    dealer = rng.randrange(4)
    state = new_deal(rules, dealer, deal_hands(seed, dealer))
    trump = rng.choice("HDCS")
    declarer = rng.randrange(4)
    sitting_out = partner_of(declarer) if contract in rules.partner_sits_out else None
    table = Table(rules, contract, trump, declarer, sitting_out)
    state = state._replace(
        phase=PLAY, trump=trump, contract=contract, declarer=declarer, sitting_out=sitting_out,
        to_act=table.first_leader(state.forehand),
    )  # fmt: skip
    return state, table


def position(state: DealState) -> Position:
    marriages = [0, 0]
    for m in state.marriages:
        marriages[m.seat & 1] += m.value
    assert state.to_act is not None
    return Position(
        [mask_of(h) for h in state.hands],
        state.to_act,
        [(seat, INDEX[card]) for seat, card in state.trick],
        len(state.tricks) + 1,
        list(state.team_cards),
        list(state.team_tricks),
        marriages,
    )


def groups(count: int) -> Iterator[tuple[Table, list[Position]]]:
    """Per deal and contract: its table and up to eight unfinished positions of that deal."""
    made = 0
    seed = 0
    while made < count:
        seed += 1
        # Half the deals are the normal game, the AI's most common card play.
        contract = Contract.NORMAL if seed % 2 else CONTRACTS[seed // 2 % len(CONTRACTS)]
        rules = RULES[seed // 7 % len(RULES)]
        state, table = start(seed, contract, rules)
        rng = random.Random(seed)
        found = []
        for _ in range(8):
            walked = state
            for _ in range(rng.choice((0, 0, 1, 2, 3, 4, 5, 6, 8, 10))):
                if walked.finished:
                    break
                walked, _ = apply_unchecked(walked, walked.to_act, rng.choice(legal_actions(walked)))
            if not walked.finished:
                found.append(position(walked))
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
    classes = solver_module.solver_classes()
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
        "solver": args.solver if args.solver != "auto" else solver_module.KIND,
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
