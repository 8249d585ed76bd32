"""Storage speed on both engines: what one accepted click costs the database.

A click is stored as the service stores it: one transaction bumping the table's version and appending the
action. Measured sequentially (commit latency, one table) and with many tables writing at once (clicks per
second), plus the read a restart or replay makes (`load_record` of a table with 40 actions). SQLite runs with
`synchronous=FULL` (the bot's default); PostgreSQL in a throwaway local cluster with fsync on (unix socket),
started with the machine's server binaries as the tests do.

    python bench/storage_bench.py [--clicks 400] [--tables 20] [--per-table 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.db import Database, TableRow
from devtools.pgcluster import Cluster, server_binaries

HANDS = [[f"c{seat}{n}" for n in range(5)] for seat in range(4)]
NOW = 1_700_000_000


async def new_table(db: Database, channel_id: int) -> TableRow:
    table = await db.tables.create_table(
        guild_id=1, channel_id=channel_id, host_id=11, rules_json='"standard"', deck="french", turn_seconds=60,
        language="en", first_dealer=0, now=NOW,
    )
    await db.records.start_deal(table.id, 0, dealer=0, seed=7, hands=HANDS, now=NOW)
    return table


async def click(db: Database, table: TableRow) -> None:
    """What a click writes: its action and the version it moves to (bot/game/core.py)."""
    await db.records.append_move(table.id, 0, "N play c00", NOW)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def measure(url: str, clicks: int, tables: int, per_table: int) -> dict[str, float]:
    db = await Database.open(url, synchronous="FULL")
    try:
        table = await new_table(db, 1)
        latencies = []
        for _ in range(clicks):
            started = time.perf_counter()
            await click(db, table)
            latencies.append((time.perf_counter() - started) * 1000)
        many = [await new_table(db, 100 + n) for n in range(tables)]

        async def play(one: TableRow) -> None:
            for _ in range(per_table):
                await click(db, one)

        started = time.perf_counter()
        await asyncio.gather(*(play(one) for one in many))
        elapsed = time.perf_counter() - started
        reads = []
        for one in many:
            started = time.perf_counter()
            await db.records.load_record(one.id)
            reads.append((time.perf_counter() - started) * 1000)
    finally:
        await db.close()
    return {
        "click_p50_ms": round(statistics.median(latencies), 2),
        "click_p95_ms": round(percentile(latencies, 0.95), 2),
        "concurrent_clicks_per_s": round(tables * per_table / elapsed, 1),
        "load_record_p50_ms": round(statistics.median(reads), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=400)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--per-table", type=int, default=40)
    args = parser.parse_args()
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        figures["sqlite"] = asyncio.run(
            measure(str(Path(folder) / "bench.sqlite3"), args.clicks, args.tables, args.per_table)
        )
    binaries = server_binaries()
    if binaries is None:
        print("no PostgreSQL server binaries: only SQLite measured", file=sys.stderr)
    else:
        cluster = Cluster(binaries, durable=True)
        try:
            cluster.start()
            figures["postgresql"] = asyncio.run(measure(cluster.dsn(), args.clicks, args.tables, args.per_table))
        finally:
            cluster.stop()
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
