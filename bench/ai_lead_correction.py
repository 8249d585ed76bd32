"""Does a learned correction of pimc's lead values pick better leads (issue 40)? Leads hold nine tenths of what
pimc loses against open cards (bench/ai_oracle.py --where), and pimc values a lead by solving worlds with open
cards, as if everyone saw everything after it.

Run from the repository root:

    python bench/ai_lead_correction.py --play 4000 --fresh-seed 2300000 --out leads.jsonl
    python bench/ai_lead_correction.py --fit leads.jsonl

``--play`` plays normal games with pimc at every seat; at each lead of tricks 2-4 with more than one card to
lead, it keeps every legal lead's pimc value, its play-model features (engine/ai/playmodel.py) and its result
when played out by pimc at every seat from the true deal (one play-out per lead, all from the same deal, so
the leads of one decision are compared on the same cards). ``--fit`` fits, on the first two thirds of the
deals, a linear model of the result from the pimc value and the features within each decision (each decision's
means removed), and judges it on the last third: the mean result of the lead the model prefers less that of
pimc's lead, per lead decision, with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ai_oracle import BUDGET_MS, interval, pimc_card, played_out
from engine.actions import Action, PlayCard, format_action
from engine.ai import greedy, pimc, playmodel
from engine.ai.arena import Hands, fresh_deals, play_normal
from engine.ai.knowledge import table_of
from engine.cards import team_of
from engine.deal import new_deal
from engine.rules import apply_unchecked
from engine.ruleset import STANDARD
from engine.state import DealState
from engine.views import view_for

NAMES = ("pimc value", *playmodel.FEATURES, "marriage")
RIDGE = 1e-3  # per decision: keeps features that never vary at a lead (smear, give) at 0


def lead_rows(deal: tuple[int, int, Hands]) -> list[dict[str, Any]]:
    seed, dealer, hands = deal
    rows: list[dict[str, Any]] = []
    pimcs = pimc_card(seed)

    def card(state: DealState, seat: int, decision: int) -> Action:
        view = view_for(state, seat)
        if view.trick or not 2 <= len(view.witnessed) // 4 + 1 <= 4:
            return pimcs(state, seat, decision)
        evaluations = pimc.evaluate(view, STANDARD, seed * 1000 + decision, BUDGET_MS)
        action = pimc.best_action(view, evaluations, STANDARD)
        table = table_of(view, STANDARD)
        assert table is not None
        greedys = greedy.choose(view, STANDARD)
        assert isinstance(greedys, PlayCard)
        features = playmodel.features(view, table, greedys.card)  # a view is the moment the model reads
        sign = 1 if team_of(seat) == 0 else -1
        for evaluation in evaluations:
            lead = evaluation.action
            assert isinstance(lead, PlayCard)
            after, _ = apply_unchecked(state, seat, lead)
            rows.append({
                "decision": f"{seed}:{decision}", "seed": seed, "lead": format_action(seat, lead),
                "x": [evaluation.value, *features[lead.card], (lead.marriage or 0) / 40],
                "chosen": lead == action, "result": sign * played_out(after, seed, decision + 1),
            })  # fmt: skip
        return action

    play_normal(new_deal(STANDARD, dealer, hands), card)
    return rows


def within(groups: list[list[dict[str, Any]]]) -> list[float]:
    """Least squares of the result on x with each decision's means removed (a small ridge)."""
    k = len(groups[0][0]["x"])
    a = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    for group in groups:
        mean_x = [sum(column) / len(group) for column in zip(*(row["x"] for row in group), strict=True)]
        mean_y = sum(row["result"] for row in group) / len(group)
        for row in group:
            dx = [value - mean for value, mean in zip(row["x"], mean_x, strict=True)]
            dy = row["result"] - mean_y
            for p in range(k):
                b[p] += dx[p] * dy
                for q in range(k):
                    a[p][q] += dx[p] * dx[q]
    for p in range(k):
        a[p][p] += RIDGE * len(groups)
    return solve(a, b)


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gauss-Jordan elimination with partial pivoting (the ridge keeps ``a`` regular)."""
    k = len(b)
    m = [[*row, value] for row, value in zip(a, b, strict=True)]
    for column in range(k):
        pivot = max(range(column, k), key=lambda row: abs(m[row][column]))
        m[column], m[pivot] = m[pivot], m[column]
        for row in range(k):
            if row != column:
                factor = m[row][column] / m[column][column]
                m[row] = [x - factor * y for x, y in zip(m[row], m[column], strict=True)]
    return [m[i][k] / m[i][i] for i in range(k)]


def judged_gains(groups: list[list[dict[str, Any]]], weights: list[float]) -> list[float]:
    """Per decision, the result of the lead the model prefers less that of the lead chosen (pimc's, the book's)."""
    gains = []
    for group in groups:
        chosen = next(row for row in group if row["chosen"])
        preferred = max(group, key=lambda row: sum(w * x for w, x in zip(weights, row["x"], strict=True)))
        gains.append(preferred["result"] - chosen["result"])
    return gains


def judged(groups: list[list[dict[str, Any]]], weights: list[float]) -> tuple[float, float, float]:
    """Per decision, the result of the lead the model prefers less pimc's: mean, 95% half-width, share changed."""
    gains = judged_gains(groups, weights)
    mean, spread = interval(gains)
    return mean, spread, sum(1 for g in gains if g) / len(gains)


def fit(path: str) -> None:
    by_decision: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    with open(path, encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            by_decision[row["decision"]].append(row)
    groups = [group for group in by_decision.values() if len({row["lead"] for row in group}) > 1]
    seeds = sorted({group[0]["seed"] for group in groups})
    cut = seeds[len(seeds) * 2 // 3]
    train = [group for group in groups if group[0]["seed"] < cut]
    test = [group for group in groups if group[0]["seed"] >= cut]
    weights = within(train)
    hindsight = [max(r["result"] for r in g) - next(r for r in g if r["chosen"])["result"] for g in test]
    print(f"{len(groups)} lead decisions of tricks 2-4 ({len(train)} to fit, {len(test)} to judge; seeds from {cut} judged)")
    print("weights: " + ", ".join(f"{name} {weight:+.3f}" for name, weight in zip(NAMES, weights, strict=True)))
    for name, data in (("judged", test), ("fitted", train)):
        mean, spread, changed = judged(data, weights)
        print(f"{name}: the model's lead less pimc's {mean:+.4f} ± {spread:.4f} game points per decision "
              f"({changed:.1%} of the leads changed)")
    print(f"the lead best in hindsight less pimc's (one play-out each, an upper bound): "
          f"{sum(hindsight) / len(hindsight):+.3f} per decision")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--play", type=int, help="play this many deals and write their leads to --out")
    parser.add_argument("--fresh-seed", type=int, default=2300000)
    parser.add_argument("--out", help="where --play writes (JSON lines)")
    parser.add_argument("--fit", metavar="FILE", help="fit and judge the correction on a file --play wrote")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.play:
        if not args.out:
            parser.error("--play needs --out")
        with ProcessPoolExecutor(args.workers) as pool, open(args.out, "w", encoding="utf-8") as out:
            for rows in pool.map(lead_rows, fresh_deals(args.fresh_seed, args.play), chunksize=4):
                out.writelines(json.dumps(row) + "\n" for row in rows)
    if args.fit:
        fit(args.fit)
    if not args.play and not args.fit:
        parser.error("say --play N --out FILE, or --fit FILE")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
