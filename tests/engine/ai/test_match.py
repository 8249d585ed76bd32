"""A short duplicate match in CI: pimc must not lose to greedy (the full benchmark is bench/ai_match.py)."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from engine.ai.arena import duplicate_pair, fresh_deals, load_deals

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


def test_fresh_deals_are_dealt_as_the_fixed_list_was() -> None:
    """The benches' --fresh-seed deals follow the fixed list's convention: its seeds 100000-101999 dealt anew
    give its deals, so fresh seeds outside that range are new deals of the same kind."""
    fixed = load_deals(str(DEALS))
    assert fresh_deals(fixed[0][0], 50) == fixed[:50]
    assert fresh_deals(104000, 3)[0][0] == 104000 and fresh_deals(104000, 0) == []
