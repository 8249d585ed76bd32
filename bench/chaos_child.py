"""The bot process of bench/chaos.py: the real SchnapsenBot on the bench's database, talking to the fake
Discord of the parent process, with the faults the parent asks for injected *here* (bench code, not product
code). Prints ``READY`` once connected for the first time; SIGTERM stops it cleanly; the parent kills it with
SIGKILL (its whole process group, AI workers included) to simulate a crash.

Faults injected in this process:

- SIGUSR1: storage writes fail for ``--storage-fault-seconds``: every ``DatabaseCore.transaction`` started, and
  every write inside one, raises ``sqlite3.OperationalError("database or disk is full")``.
- SIGUSR2: one AI worker process is killed with SIGKILL (``AiWorker.worker_pids()`` when the bot has it, else
  the live children from ``multiprocessing.active_children()``).
- ``--overrun-rate``: that fraction of AI searches is given a hard cap of 1 ms, so the search overruns.

Bench shims (only where the bot does not do it itself yet):

- ``--target``: new tables play their Bummerl to this many game points (the rules JSON of a created table).
- If the bot does not log ``accepted table=<id> deal=<n> seq=<s> action=<text>`` itself (bot/game/core.py
  has no such line), this process logs it after ``TableService.act`` returned, i.e. after the commit, from the
  logger ``bench.shim``; the parent says which source it used.

    python bench/chaos_child.py --api http://127.0.0.1:PORT/api/v10 --gateway ws://127.0.0.1:PORT/ \
        --token TOKEN --database /tmp/x.sqlite3 --log /tmp/bot.log [--target 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import json
import logging
import multiprocessing
import os
import random
import signal
import sqlite3
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.child_bot import add_fake_discord_arguments, bot_for_fake_discord, run_until_sigterm
from bot import render
from bot.client import SchnapsenBot
from bot.settings import Settings

log = logging.getLogger("bench.chaos_child")
ACCEPTED_TEXT = "accepted table="
storage_failing_until = 0.0
the_bot: SchnapsenBot | None = None


def storage_failing() -> bool:
    return time.monotonic() < storage_failing_until


def patch_storage() -> None:
    from bot.db.core import DatabaseCore

    original_transaction = DatabaseCore.transaction
    original_execute = DatabaseCore.execute

    @asynccontextmanager
    async def transaction(self: Any) -> Any:
        if storage_failing():
            raise sqlite3.OperationalError("database or disk is full")
        async with original_transaction(self):
            yield

    async def execute(self: Any, sql: str, params: Any = ()) -> int:
        if storage_failing():
            raise sqlite3.OperationalError("database or disk is full")
        return await original_execute(self, sql, params)

    DatabaseCore.transaction = transaction  # type: ignore[method-assign]
    DatabaseCore.execute = execute  # type: ignore[method-assign]


def patch_target(target: int) -> None:
    """Tables created from now on play to ``target`` game points (what tests/bot/schnapsen/harness.py does per lobby)."""
    from bot.db.tables import TablesRepo

    original = TablesRepo.create_table

    async def create_table(self: Any, *args: Any, **kwargs: Any) -> Any:
        if "rules_json" in kwargs:
            rules = json.loads(kwargs["rules_json"])
            rules = {"preset": rules} if isinstance(rules, str) else dict(rules)
            rules["target"] = target
            kwargs["rules_json"] = json.dumps(rules)
        return await original(self, *args, **kwargs)

    TablesRepo.create_table = create_table  # type: ignore[method-assign]


def bot_logs_accepted() -> bool:
    for path in (Path(__file__).resolve().parents[1] / "bot").rglob("*.py"):
        if ACCEPTED_TEXT in path.read_text(encoding="utf-8"):
            return True
    return False


def patch_accepted_log() -> None:
    """Log an accepted action the way the bot is to: after ``act`` returned (its action committed)."""
    from bot.db.records import RecordsRepo
    from bot.game.service import TableService

    appended: contextvars.ContextVar[list[tuple[int, int, int, str]] | None] = contextvars.ContextVar(
        "appended", default=None
    )
    original_append = RecordsRepo.append_action
    original_act = TableService.act
    shim = logging.getLogger("bench.shim")

    async def append_action(self: Any, table_id: int, deal_no: int, action: str, now: int) -> int:
        seq = await original_append(self, table_id, deal_no, action, now)
        found = appended.get()
        if found is not None:
            found.append((table_id, deal_no, seq, action))
        return seq

    async def act(self: Any, *args: Any, **kwargs: Any) -> Any:
        found: list[tuple[int, int, int, str]] = []
        token = appended.set(found)
        try:
            outcome = await original_act(self, *args, **kwargs)
        finally:
            appended.reset(token)
        for table_id, deal_no, seq, action in found:
            shim.info("accepted table=%d deal=%d seq=%d action=%s", table_id, deal_no, seq, action)
        return outcome

    RecordsRepo.append_action = append_action  # type: ignore[method-assign]
    TableService.act = act  # type: ignore[method-assign]


def patch_ai_overruns(rate: float, rng: random.Random) -> None:
    try:
        from bot.ai_worker import AiWorker
    except ImportError:
        return
    original = AiWorker.decide

    async def decide(
        self: Any,
        view: Any,
        player: str = "pimc",
        seed: int = 0,
        budget_ms: int = 150,
        hard_cap_ms: int = 2000,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        if rng.random() < rate:
            log.info("chaos: AI search given a 1 ms hard cap")
            hard_cap_ms = 1
        return await original(self, view, player, seed, budget_ms, hard_cap_ms, *args, **kwargs)

    AiWorker.decide = decide  # type: ignore[method-assign]


def sabotage_ai() -> None:
    """AI seats never move: every table with an AI seat must be reported as stalled (a check of the bench)."""
    from bot.schnapsen.drivers import Drivers

    async def no_move(self: Any, table: Any, *_: Any) -> None:
        log.info("sabotage: AI move at table %s skipped", table.id)

    Drivers._ai_move = no_move  # type: ignore[method-assign]


def worker_pids() -> list[int]:
    worker = getattr(getattr(the_bot, "ai", None), "_worker", None)
    if worker is not None and hasattr(worker, "worker_pids"):
        with contextlib.suppress(Exception):
            return list(worker.worker_pids())
    return [child.pid for child in multiprocessing.active_children() if child.pid is not None]


def kill_a_worker(rng: random.Random) -> None:
    pids = worker_pids()
    if not pids:
        log.info("chaos: no AI worker to kill")
        return
    pid = rng.choice(pids)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    log.info("chaos: killed AI worker %d", pid)


async def serve(args: argparse.Namespace) -> None:
    global the_bot, storage_failing_until
    bot = bot_for_fake_discord(
        api=args.api,
        gateway=args.gateway,
        token=args.token,
        database=args.database,
        edit_interval=args.edit_interval,
        log_level="INFO",
    )
    the_bot = bot
    rng = random.Random(args.seed)
    loop = asyncio.get_running_loop()

    def storage_fault() -> None:
        global storage_failing_until
        storage_failing_until = time.monotonic() + args.storage_fault_seconds
        log.info("chaos: storage writes fail for %.1f s", args.storage_fault_seconds)

    loop.add_signal_handler(signal.SIGUSR1, storage_fault)
    loop.add_signal_handler(signal.SIGUSR2, kill_a_worker, rng)

    def storage_works_again() -> None:  # a clean stop stores what it still has to
        global storage_failing_until
        storage_failing_until = 0.0

    await run_until_sigterm(bot, before_close=storage_works_again)


def main() -> int:
    parser = argparse.ArgumentParser()
    add_fake_discord_arguments(parser)
    parser.add_argument("--log", required=True, help="the bot's log (appended to: one file per bench run)")
    parser.add_argument("--edit-interval", type=float, default=Settings(token="x").edit_interval)
    parser.add_argument("--target", type=int, help="game points to win a Bummerl (default: the rules')")
    parser.add_argument("--storage-fault-seconds", type=float, default=2.0)
    parser.add_argument("--overrun-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sabotage", choices=("ai",), help="break the bot on purpose (to check the bench)")
    args = parser.parse_args()
    handler = logging.FileHandler(args.log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("discord").setLevel(logging.WARNING)  # its INFO lines are connection chatter
    logging.getLogger("bot.game.core").setLevel(logging.DEBUG)  # its "accepted table=" line per click
    log.info("chaos child started pid=%d", os.getpid())
    patch_storage()
    if args.target:
        patch_target(args.target)
    if not bot_logs_accepted():
        log.info("bench shim: the bot does not log accepted actions; the bench logs them after act()")
        patch_accepted_log()
    patch_ai_overruns(args.overrun_rate, random.Random(args.seed + 1))
    if args.sabotage == "ai":
        sabotage_ai()
    render.preload("doppeldeutsch")
    asyncio.run(serve(args))
    log.info("chaos child stopped cleanly pid=%d", os.getpid())
    return 0


if __name__ == "__main__":
    sys.exit(main())
