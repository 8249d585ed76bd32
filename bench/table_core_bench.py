"""What the table service costs the event loop per accepted action, without Discord: CPU seconds of this
process (``time.process_time``) per ``act``, over whole Bummerl played by four people on SQLite
(``synchronous=NORMAL``, so that the disk's fsync does not drown the figure), the first legal action each time.
Run it on two versions of the code to compare what the table core, its events and subscribers add.

    python bench/table_core_bench.py [--tables 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from itertools import count
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
from bot.db import Database
from bot.game.service import TableService

PEOPLE = (11, 12, 13, 14)


async def play(service: TableService, channel_id: int) -> tuple[int, float]:
    """Open a table, seat four people, play one Bummerl, close it; (actions, CPU seconds spent in ``act``)."""
    table = await service.open_table(
        guild_id=1, channel_id=channel_id, host_id=PEOPLE[0], host_name="p0", preset="standard", deck="french",
        turn_seconds=60, language="en",
    )
    for person in PEOPLE[1:]:
        table = await service.take_seat(table.id, person, f"p{person}", None)
    table = await service.start(table.id, PEOPLE[0])
    actions, cpu = 0, 0.0
    while table.status == "playing":
        deal = table.deal
        assert deal is not None and deal.to_act is not None
        occupant = table.seats[deal.to_act]
        assert occupant is not None
        action = engine.legal_actions(deal)[0]
        began = time.process_time()
        outcome = await service.act(table.id, deal.to_act, action, table.version, user_id=occupant.user_id)
        cpu += time.process_time() - began
        actions += 1
        table = outcome.table
    await service.close(table.id)  # its people may sit down at the next table
    return actions, cpu


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=8, help="Bummerl per round (one table each, one after another)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    per_round = []
    with tempfile.TemporaryDirectory() as folder:
        for round_no in range(args.rounds):
            db = await Database.open(Path(folder) / f"bench{round_no}.db", synchronous="NORMAL")
            try:
                service = TableService(db, seed_source=count(1).__next__)
                actions, cpu = 0, 0.0
                for table_no in range(args.tables):
                    done, spent = await play(service, 1000 + table_no)
                    actions, cpu = actions + done, cpu + spent
            finally:
                await db.close()
            per_round.append(cpu / actions * 1000)
            print(f"round {round_no + 1}: {actions} actions, {cpu / actions * 1000:.3f} ms CPU per act")
    print(f"median of {args.rounds} rounds: {statistics.median(per_round):.3f} ms CPU per act")


if __name__ == "__main__":
    asyncio.run(main())
