"""The monthly leagues' cost: how long ``/schnapsen daily league`` takes to read a server's league, and what a
month's ladder stores.

A server of ``--players`` people who each played ``--days`` days of the month before and of this month (six
deals a day, par stored for every day) is written straight into a fresh SQLite database (the rows an attempt
leaves: attempt and six scores; no table rows, which the league does not read). Printed: the first read of
this month's league (which builds and stores this month's ladder from last month's finish), a later read
(the ladder stored), and the bytes the ladder adds (growth of the VACUUMed file).

    python bench/daily_league.py [--players 1000] [--days 30]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.db import Database
from bot.db.daily import DailyPar
from bot.game import daily, dailyleague
from bot.game.daily import League
from bot.game.service import TableService

GUILD = 1
THIS_MONTH = "2026-12"


async def fill(db: Database, players: int, days: int) -> None:
    rng = random.Random(7)
    table_id = 0
    async with db.transaction():
        for month in (dailyleague.previous_month(THIS_MONTH), THIS_MONTH):
            for day in dailyleague.days_of_month(month)[:days]:
                await db.daily.day_secret(day, rng.getrandbits(62), 0)
                for deal_no in range(daily.DAILY_DEALS):
                    await db.daily.store_par(day, DailyPar(deal_no, rng.randint(-3, 3), ()), 0)
                for user in range(1, players + 1):
                    table_id += 1
                    await db.daily.start_attempt(
                        day=day, user_id=user, guild_id=GUILD, table_id=table_id, display_name=f"p{user}", now=user
                    )
                    for deal_no in range(daily.DAILY_DEALS):
                        await db.daily.record_deal(table_id, deal_no, rng.randint(-3, 3))
                    await db.daily.finish_attempt(table_id, user)


def file_bytes(path: Path) -> int:
    with sqlite3.connect(path) as conn:  # a second connection: the bot's own runs writes in transactions only
        conn.execute("VACUUM")
    return path.stat().st_size


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--days", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "league.sqlite3"
        db = await Database.open(path)
        try:
            first, again, filled, building, reading, grown = await measure(db, path, args.players, args.days)
        finally:
            await db.close()  # else its connection's thread keeps the process alive after an error
    assert first == again and first.settled
    print(f"{args.players} players x {args.days} days in each of two months (filled in {filled:.1f} s)")
    print(f"divisions: {len(first.divisions)} of up to {dailyleague.DIVISION_SIZE}")
    print(f"first read (builds and stores this month's ladder): {building * 1000:.0f} ms")
    print(f"later read (ladder stored): {reading * 1000:.0f} ms")
    print(f"ladder storage: {grown} bytes ({grown / args.players:.0f} per person)")


async def measure(db: Database, path: Path, players: int, days: int) -> tuple[League, League, float, float, float, int]:
    """Fill the database, then read this month's league twice: both leagues, the seconds each step took and
    the bytes the stored ladder added."""
    started = time.perf_counter()
    await fill(db, players, days)
    filled = time.perf_counter() - started
    noon = dt.datetime.fromisoformat(f"{THIS_MONTH}-{min(days, 28):02d}T12:00:00+00:00").timestamp()
    service = TableService(db, clock=lambda: noon)
    before = file_bytes(path)
    started = time.perf_counter()
    first = await service.daily.league(GUILD)
    building = time.perf_counter() - started
    grown = file_bytes(path) - before
    started = time.perf_counter()
    again = await service.daily.league(GUILD)
    reading = time.perf_counter() - started
    return first, again, filled, building, reading, grown


if __name__ == "__main__":
    asyncio.run(main())
