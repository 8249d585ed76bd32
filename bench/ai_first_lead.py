"""Does a correction learned from play-outs pick better FIRST leads than the opening book (issue 40)? The first
lead of a deal, the book's (engine/ai/opening.py, pimc's values with 400 worlds), alone loses 0.383 game points
per deal against open-card play (bench/ai_oracle.py --where), and played out by pimc the lead best in hindsight
gets far more than the book's (bench/ai_oracle.py --first-lead).

Run from the repository root:

    python bench/ai_first_lead.py --play 2000 --fresh-seed 2400000 --out first.jsonl
    python bench/ai_first_lead.py --fit first.jsonl

``--play`` deals normal games (trump by greedy's rule, every bid passed) and, at the forehand's first lead,
keeps every legal lead with the book's value and noise for it, whether the book (pimc's choice from the
book's values) and greedy choose it, and its result for the leader's team played out by pimc at every seat
from the true deal (bench/ai_oracle.lead_result: one play-out per lead, all of a deal's leads from the same
deal and seeds, so they are paired), and its open-card value in that deal. One JSON line per deal, written
as it is done.

``--fit`` computes each lead's features from the hand, trump and book values (``FEATURES``), fits on the
first two thirds of the deals (by seed) a linear model of the result within each deal (each deal's means
removed, a small ridge; bench/ai_lead_correction.within) and judges it on the last third: the result of the
lead the model prefers less that of the book's lead, per deal, with its 95% interval. It also prints how far
the book's lead and its second choice (the next best book value) play out apart and how noisily, also with
each lead's open-card value in the true deal taken out: what a player trained on play-outs would have to see
through.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.ai_lead_correction import judged, judged_gains, within
from bench.ai_oracle import BUDGET_MS, first_lead_state, interval, lead_result, open_card_values
from engine.actions import PlayCard
from engine.ai import greedy, pimc
from engine.ai.arena import Hands, fresh_deals
from engine.cards import CARD_POINTS, RANKS
from engine.ruleset import STANDARD
from engine.views import view_for

FEATURES = (
    "book value",  # the book's value of the lead (game points for the leader's team)
    "book best",  # the lead of the book's highest value
    "book rank",  # the place of its value among the leads (0 the best) / 5
    "trump",  # a trump led
    "points",  # the card's points / 11
    "ace",  # an Ace led
    "ten",  # a Ten led
    "suit length",  # cards held in the led suit / 5
    "holds ace",  # the hand holds the led suit's Ace (the card itself counts)
    "holds ten",
    "holds king",
    "holds ober",
    "highest",  # the hand's highest card of its suit
    "sure",  # every card above it in its suit is in the hand: it wins the trick
    "singleton",  # the hand's only card of its suit
    "marriage",  # the marriage announced with it / 40
    "breaks pair",  # a King or Ober led without the marriage its mate in hand makes
    "trump x trumps",  # a trump led, times the trumps held / 5 (a plain card led: the deal's mean removes it)
    "trump x top trump",  # a trump led, times the strength of the highest trump held / 5 (Ace 5 ... Unter 1)
    "unguarded ten",  # a Ten led without its Ace in hand
    "greedy",  # greedy's lead
)
_STRENGTH = {rank: 5 - i for i, rank in enumerate(RANKS)}  # A 5, T 4, K 3, Q 2, J 1


def lead_features(
    hand: list[str], trump: str, card: str, marriage: int, value: float, rank: int, greedys: bool
) -> list[float]:
    """A lead's features, in ``FEATURES`` order."""
    suit, led = card[0], card[1]
    ranks = {held[1] for held in hand if held[0] == suit}
    trumps = [held for held in hand if held[0] == trump]
    top_trump = max((_STRENGTH[held[1]] for held in trumps), default=0)
    is_trump = suit == trump
    above = {r for r in RANKS if _STRENGTH[r] > _STRENGTH[led]}
    mate = {"K": "Q", "Q": "K"}.get(led)
    return [
        value,
        float(rank == 0),
        rank / 5,
        float(is_trump),
        CARD_POINTS[card] / 11,
        float(led == "A"),
        float(led == "T"),
        len(ranks) / 5,
        float("A" in ranks),
        float("T" in ranks),
        float("K" in ranks),
        float("Q" in ranks),
        float(all(_STRENGTH[r] <= _STRENGTH[led] for r in ranks)),
        float(above <= ranks),
        float(len(ranks) == 1),
        marriage / 40,
        float(mate is not None and mate in ranks and not marriage),
        is_trump * len(trumps) / 5,
        is_trump * top_trump / 5,
        float(led == "T" and "A" not in ranks),
        float(greedys),
    ]


def deal_leads(deal: tuple[int, int, Hands]) -> dict[str, Any]:
    """The forehand's first lead of one deal: each legal lead with the book's value, the book's and greedy's
    choice, and its result played out."""
    seed, dealer, hands = deal
    state, decision = first_lead_state(dealer, hands)
    leader = state.to_act
    assert leader is not None and state.trump is not None
    view = view_for(state, leader)
    evaluations = pimc.evaluate(view, STANDARD, seed * 1000 + decision, BUDGET_MS)
    book = pimc.best_action(view, evaluations, STANDARD)
    greedys = greedy.choose(view, STANDARD)
    open_values = open_card_values(state, leader)
    leads = []
    for evaluation in evaluations:
        lead = evaluation.action
        assert isinstance(lead, PlayCard)
        leads.append({
            "card": lead.card, "marriage": lead.marriage or 0, "value": evaluation.value,
            "noise": evaluation.noise, "worlds": evaluation.worlds, "book": lead == book,
            "greedy": lead == greedys, "result": lead_result(state, lead, seed, decision),
            "open": open_values[lead],
        })  # fmt: skip
    return {"seed": seed, "leader": leader, "trump": state.trump, "hand": list(view.hand), "leads": leads}


def rows_of(deal: dict[str, Any]) -> list[dict[str, Any]]:
    """A deal's leads as bench/ai_lead_correction's fitting code reads them (``x``, ``chosen``, ``result``)."""
    values = sorted((lead["value"] for lead in deal["leads"]), reverse=True)
    return [
        {
            "seed": deal["seed"],
            "lead": f"{lead['card']}+{lead['marriage']}",
            "x": lead_features(
                deal["hand"], deal["trump"], lead["card"], lead["marriage"], lead["value"],
                values.index(lead["value"]), lead["greedy"],
            ),
            "chosen": lead["book"],
            "result": lead["result"],
        }
        for lead in deal["leads"]
    ]  # fmt: skip


def report_play_out_noise(deals: list[dict[str, Any]]) -> None:
    """How far apart and how noisily the book's lead and its second choice (the next best book value) play out,
    once each: what a player trained on play-outs would have to see through."""
    seconds = [(next(lead for lead in deal["leads"] if lead["book"]), max(
        (lead for lead in deal["leads"] if not lead["book"]), key=lambda lead: lead["value"]
    )) for deal in deals if len(deal["leads"]) > 1]  # fmt: skip
    gaps = [b["result"] - s["result"] for b, s in seconds]
    mean, spread = interval(gaps)
    print(f"the book's lead less its second choice, each played out once: {mean:+.3f} ± {spread:.3f} per deal, "
          f"standard deviation {statistics.stdev(gaps):.2f} (the book's values "
          f"{statistics.fmean(b['value'] - s['value'] for b, s in seconds):+.3f} apart)")
    if all("open" in lead for pair in seconds for lead in pair):  # files written since the open-card value
        # Each play-out less the lead's open-card value in the true deal: does the deal's own value, a control
        # variate, take out most of the noise?
        corrected = [(b["result"] - b["open"]) - (s["result"] - s["open"]) for b, s in seconds]
        mean, spread = interval(corrected)
        print(f"the same, each less its open-card value in the true deal: {mean:+.3f} ± {spread:.3f} per deal, "
              f"standard deviation {statistics.stdev(corrected):.2f}")


def fit(path: str, folds: int = 0) -> None:
    with open(path, encoding="utf-8") as lines:
        deals = [json.loads(line) for line in lines if line.strip()]
    groups = sorted((rows_of(deal) for deal in deals if len(deal["leads"]) > 1), key=lambda g: g[0]["seed"])
    seeds = sorted(group[0]["seed"] for group in groups)
    cut = seeds[len(seeds) * 2 // 3]
    train = [group for group in groups if group[0]["seed"] < cut]
    test = [group for group in groups if group[0]["seed"] >= cut]
    print(f"{len(groups)} first leads ({sum(map(len, groups))} leads; {len(train)} deals to fit, {len(test)} to "
          f"judge: seeds {seeds[0]}-{cut - 1} and {cut}-{seeds[-1]})")
    book, _ = interval([next(r for r in g if r["chosen"])["result"] for g in groups])
    mean_lead, _ = interval([sum(r["result"] for r in g) / len(g) for g in groups])
    best, _ = interval([max(r["result"] for r in g) for g in groups])
    print(f"per deal for the leader's team, all deals: the book's lead {book:+.3f}, the mean legal lead "
          f"{mean_lead:+.3f}, the lead best in hindsight {best:+.3f}")
    report_play_out_noise(deals)
    weights = within(train)
    print("weights: " + ", ".join(f"{name} {weight:+.3f}" for name, weight in zip(FEATURES, weights, strict=True)))
    for name, data in (("judged", test), ("fitted", train)):
        mean, spread, changed = judged(data, weights)
        print(f"{name}: the model's lead less the book's {mean:+.4f} ± {spread:.4f} game points per deal "
              f"({changed:.1%} of the deals' results changed)")
    value_only = [1.0 if name == "book value" else 0.0 for name in FEATURES]
    mean, spread, _ = judged(test, value_only)
    print(f"judged: the book's highest value less the book's lead (its tie rule) {mean:+.4f} ± {spread:.4f}")
    if folds > 1:  # every deal judged once, by the model fitted on the other folds (blocks of seeds)
        gains = []
        for fold in range(folds):
            block = groups[fold * len(groups) // folds : (fold + 1) * len(groups) // folds]
            rest = [group for group in groups if group not in block]
            gains.extend(judged_gains(block, within(rest)))
        mean, spread = interval(gains)
        print(f"{folds}-fold, every deal judged: the model's lead less the book's {mean:+.4f} ± {spread:.4f} per deal")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--play", type=int, help="play this many deals and write their first leads to --out")
    parser.add_argument("--fresh-seed", type=int, default=2400000)
    parser.add_argument("--out", help="where --play writes (JSON lines, one per deal)")
    parser.add_argument("--fit", metavar="FILE", help="fit and judge the correction on a file --play wrote")
    parser.add_argument("--folds", type=int, default=0, help="with --fit: also judge every deal by K-fold fits")
    args = parser.parse_args()
    if args.play:
        if not args.out:
            parser.error("--play needs --out")
        with open(args.out, "a", encoding="utf-8") as out:  # one process: a run cut short keeps its deals
            for deal in fresh_deals(args.fresh_seed, args.play):
                out.write(json.dumps(deal_leads(deal)) + "\n")
                out.flush()
    if args.fit:
        fit(args.fit, args.folds)
    if not args.play and not args.fit:
        parser.error("say --play N --out FILE, or --fit FILE")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
