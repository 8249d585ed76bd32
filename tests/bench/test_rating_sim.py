"""The rating simulation of bench/rating_sim.py still runs and still meets the target it was chosen by: one
seed of per-Bummerl Plackett-Luce updates orders 16 players of known strength with Spearman >= 0.9 after 100
Bummerl per player (seeded, so the figure is the same on every run)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_per_bummerl_updates_recover_the_true_order_after_100_bummerl_per_player() -> None:
    spec = importlib.util.spec_from_file_location("rating_sim", ROOT / "bench" / "rating_sim.py")
    assert spec is not None and spec.loader is not None
    sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sim)
    figures = sim.run("PlackettLuce", "bummerl", seed=0)
    spearman, kendall = figures[100]
    assert spearman >= 0.9 and -1 <= kendall <= 1
    assert sim.spearman([1, 2, 3], [1, 2, 3]) == 1 and sim.kendall([1, 2, 3], [3, 2, 1]) == -1
