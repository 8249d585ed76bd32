"""The daily deal's cost: how long the par of one day takes, and what a day stores.

Par is computed as the bot computes it (``bot.game.dailypar.ParComputer``): one AI worker process (the bot's
queue, ``AiWorker``), every decision the full-budget search at background priority, for each of the day's
deals. Printed per day: the wall time (with one worker, the worker's CPU time: nothing else runs) and per deal.

Storage, on SQLite: the bytes a day's secret and par add, and the bytes one attempt adds (its table, seats,
six deals and their actions, the attempt and its six scores), measured as the growth of the database file
(VACUUMed) after par for 60 days (a day's rows are smaller than a page) and ``--players`` attempts played by the first legal action of every seat.

Concurrent daily players per core, estimated: an attempt's three AI seats cost about three quarters of par's
worker CPU per deal (par plays four); a core holds ``--deal-seconds`` (a deal at human pace, 120 s by default)
divided by that (the AI alone: the bot process's own work per move, images, storage and Discord, is not counted).

    python bench/daily_par.py [--days 2] [--budget-ms 150] [--players 20] [--deal-seconds 120]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
from bot.ai_worker import AiWorker
from bot.db import Database
from bot.game import daily
from bot.game.dailypar import ParComputer
from bot.game.service import TableService

START = 1_764_720_000  # 2025-12-03 00:00 UTC
PAR_DAYS = 60


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of the processes (Linux /proc), in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks


async def time_par(days: int, budget_ms: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "par.sqlite3")
        worker = AiWorker(workers=1)
        await worker.start()
        try:
            computer = ParComputer(db, worker, budget_ms=budget_ms)
            seconds, cpu = [], []
            for n in range(days):
                day = daily.day_of(START + n * daily.SECONDS_PER_DAY)
                secret = await db.daily.day_secret(day, 1000 + n, START)
                started, cpu_before = time.perf_counter(), cpu_seconds(worker.worker_pids())
                await computer.ensure_par(day, secret)
                seconds.append(time.perf_counter() - started)
                cpu.append(cpu_seconds(worker.worker_pids()) - cpu_before)
            fallbacks = computer.fallbacks + worker.fallbacks
            print(f"{fallbacks} decisions fell back to greedy, {worker.reduced} searched with less", file=sys.stderr)
            return seconds, cpu
        finally:
            await worker.close()
            await db.close()


async def file_bytes(db: Database, path: Path) -> int:
    async with db.transaction():
        pass
    await db.close()
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("VACUUM")
    return path.stat().st_size


async def storage(players: int) -> dict[str, float]:
    clock = [float(START)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "storage.sqlite3"
        db = await Database.open(path)
        empty = await file_bytes(db, path)

        db = await Database.open(path)

        async def first_legal(view: engine.PlayerView, seed: int) -> engine.Action:
            return view.legal[0]

        for n in range(PAR_DAYS):  # many days: a day's rows are smaller than a page
            day = daily.day_of(START - n * daily.SECONDS_PER_DAY)
            secret = await db.daily.day_secret(day, 42 + n, START)
            for deal_no in range(daily.DAILY_DEALS):
                await db.daily.store_par(day, await daily.play_par(secret, deal_no, first_legal), START)
        with_par = await file_bytes(db, path)

        db = await Database.open(path)
        service = TableService(db, clock=lambda: clock[0])
        for user in range(1, players + 1):
            table = await service.daily.start(
                guild_id=1, dm_channel_id=10_000 + user, user_id=user, name=f"player {user}", deck="french", language="en"
            )
            while table.status == "playing":
                assert table.deal is not None and table.deal.to_act is not None
                seat = table.deal.to_act
                occupant = table.seats[seat]
                user_id = None if occupant is None else occupant.user_id
                outcome = await service.act(table.id, seat, engine.legal_actions(table.deal)[0], table.version, user_id=user_id)
                table = outcome.table
        played = await file_bytes(db, path)
    return {
        "day_secret_and_par_bytes": (with_par - empty) / PAR_DAYS,
        "bytes_per_attempt": (played - with_par) / players,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=2)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--deal-seconds", type=int, default=120, help="a deal's length at human pace")
    args = parser.parse_args()
    seconds, cpu = await time_par(args.days, args.budget_ms)
    sizes = await storage(args.players)
    # An attempt's AI plays three seats of four: about three quarters of par's CPU per deal.
    cpu_per_attempt_deal = 0.75 * sum(cpu) / len(cpu) / daily.DAILY_DEALS
    print(
        json.dumps(
            {
                "budget_ms": args.budget_ms,
                "deals_per_day": daily.DAILY_DEALS,
                "par_seconds_per_day": [round(s, 1) for s in seconds],
                "par_seconds_per_deal_mean": round(sum(seconds) / len(seconds) / daily.DAILY_DEALS, 2),
                "par_worker_cpu_seconds_per_day": [round(c, 1) for c in cpu],
                "attempt_ai_cpu_seconds_per_deal_estimate": round(cpu_per_attempt_deal, 3),
                f"daily_players_per_core_ai_only_at_{args.deal_seconds}s_a_deal": int(args.deal_seconds / cpu_per_attempt_deal),
                **sizes,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
