"""Fit the play model (engine/ai/playmodel.py) to the AI's own card choices in self-play of normal games.

    python tools/fit_play_model.py --play 600 --first-seed 920000 --out /tmp/choices.pickle
    python tools/fit_play_model.py --fit /tmp/choices.pickle [--held-out 0.25]

``--play N`` plays N normal games (trump by greedy's rule, every auction and doubling turn passed, as
``bench/ai_match.py --mode normal``) with pimc in all four seats at the budget of play (150 ms), from seeds
``--first-seed`` on, and stores every card decision with more than one card to choose from: the seat's
view and the card chosen. ``--fit FILE`` fits the weights by maximum likelihood (Newton's method; the
log-likelihood of a conditional logit is concave) on the first part of the decisions and prints them with
the mean log-likelihood per decision on the held-out rest, beside the flat model the inference used before
(greedy's card 0.75, the others alike) and the model with the weights of engine/ai/playmodel.py.
"""

from __future__ import annotations

import argparse
import math
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.actions import Action, PlayCard  # noqa: E402  (needs ROOT on the path when run as a script)
from engine.ai import choose_action, greedy, playmodel  # noqa: E402
from engine.ai.arena import play_normal  # noqa: E402
from engine.ai.knowledge import table_of  # noqa: E402
from engine.deal import deal_hands, new_deal  # noqa: E402
from engine.ruleset import STANDARD  # noqa: E402
from engine.state import DealState  # noqa: E402
from engine.views import PlayerView, view_for  # noqa: E402

BUDGET_MS = 150


def play(first_seed: int, games: int) -> list[tuple[PlayerView, str]]:
    decisions = []
    for seed in range(first_seed, first_seed + games):
        dealer = seed % 4

        def card(state: DealState, seat: int, number: int, seed: int = seed) -> Action:
            view = view_for(state, seat)
            action = choose_action(view, "pimc", seed * 1000 + number, BUDGET_MS, STANDARD)
            assert isinstance(action, PlayCard)
            if len({a.card for a in view.legal if isinstance(a, PlayCard)}) > 1:
                decisions.append((view, action.card))
            return action

        play_normal(new_deal(STANDARD, dealer, deal_hands(seed, dealer)), card)
        print(f"\r{seed - first_seed + 1} games, {len(decisions)} decisions", end="", file=sys.stderr)
    print(file=sys.stderr)
    return decisions


def rows_of(decisions: list[tuple[PlayerView, str]]) -> list[tuple[dict[str, list[float]], str]]:
    out = []
    for view, chosen in decisions:
        table = table_of(view, STANDARD)
        assert table is not None
        greedys = greedy.choose(view, STANDARD)
        assert isinstance(greedys, PlayCard)
        out.append((playmodel.features(view, table, greedys.card), chosen))
    return out


def log_likelihood(data: list[tuple[dict[str, list[float]], str]], weights: list[float]) -> float:
    return sum(math.log(playmodel.probabilities(rows, weights)[chosen]) for rows, chosen in data) / len(data)


def flat_log_likelihood(data: list[tuple[dict[str, list[float]], str]], agreement: float = 0.75) -> float:
    total = 0.0
    for rows, chosen in data:
        greedys = rows[chosen][0] == 1.0
        total += math.log(agreement if greedys else (1 - agreement) / (len(rows) - 1))
    return total / len(data)


def fit(data: list[tuple[dict[str, list[float]], str]], ridge: float = 1.0, steps: int = 30) -> list[float]:
    """Newton's method on the conditional logit's log-likelihood, with a small ridge penalty (some
    features are rare)."""
    k = len(playmodel.FEATURES)
    w = [0.0] * k
    for _ in range(steps):
        grad = [-ridge * x for x in w]
        hess = [[-ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for rows, chosen in data:
            probs = playmodel.probabilities(rows, w)
            mean = [sum(probs[c] * rows[c][i] for c in rows) for i in range(k)]
            x = rows[chosen]
            for i in range(k):
                grad[i] += x[i] - mean[i]
            for c, p in probs.items():
                d = [rows[c][i] - mean[i] for i in range(k)]
                for i in range(k):
                    if d[i]:
                        row = hess[i]
                        for j in range(k):
                            row[j] -= p * d[i] * d[j]
        step = _solve([row[:] for row in hess], [-g for g in grad])
        w = [wi + si for wi, si in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b (Gaussian elimination with partial pivoting)."""
    n = len(b)
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            if f:
                for c in range(col, n):
                    a[r][c] -= f * a[col][c]
                b[r] -= f * b[col]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (b[r] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--play", type=int, metavar="GAMES")
    parser.add_argument("--first-seed", type=int, default=920000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--fit", type=Path, metavar="FILE")
    parser.add_argument("--held-out", type=float, default=0.25)
    args = parser.parse_args()
    if args.play:
        if args.out is None:
            parser.error("--play needs --out")
        decisions = play(args.first_seed, args.play)
        args.out.write_bytes(pickle.dumps(decisions))
    if args.fit:
        decisions = pickle.loads(args.fit.read_bytes())
        data = rows_of(decisions)
        cut = int(len(data) * (1 - args.held_out))
        train, test = data[:cut], data[cut:] or data
        weights = fit(train)
        print(f"{len(train)} decisions fitted, {len(test)} held out")
        for name, value in zip(playmodel.FEATURES, weights, strict=True):
            print(f"  {name:12s} {value:+.3f}")
        print(f"held-out log-likelihood per decision: fitted {log_likelihood(test, weights):.4f}, "
              f"flat 0.75 {flat_log_likelihood(test):.4f}, "
              f"shipped {log_likelihood(test, list(playmodel.WEIGHTS)):.4f}")  # fmt: skip
        print("WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
