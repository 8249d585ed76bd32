"""A short duplicate match in CI: pimc must not lose to greedy (the full benchmark is bench/ai_match.py)."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from engine.ai.arena import duplicate_pair, load_deals

DEALS = Path(__file__).resolve().parents[3] / "bench" / "data" / "deals.jsonl"
MATCH_DEALS = 200
BUDGET_MS = 10


def _margin(deal) -> float:  # type: ignore[no-untyped-def]
    seed, dealer, hands = deal
    margin, _ = duplicate_pair(hands, dealer, seed, "pimc", "greedy", normal_only=False, budget_ms=BUDGET_MS)
    return margin


def test_pimc_beats_greedy_over_200_duplicate_deals() -> None:
    deals = load_deals(str(DEALS))[:MATCH_DEALS]
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        margins = list(pool.map(_margin, deals, chunksize=8))
    assert len(margins) == MATCH_DEALS
    assert sum(margins) > 0, f"pimc lost to greedy by {-sum(margins) / MATCH_DEALS * 100:.1f} per 100 deals"
