"""The bot process of bench/chaos.py: the real SchnapsenBot on the bench's database, talking to the fake
Discord of the parent process, with the faults the parent asks for injected *here* (bench code, not product
code). Prints ``READY`` once connected for the first time; SIGTERM stops it cleanly; the parent kills it with
SIGKILL (its whole process group, AI workers included) to simulate a crash.

Faults injected in this process:

- SIGUSR1: storage writes fail for ``--storage-fault-seconds``, on either engine: while the window is open every
  write of the engine's core (``SqliteCore``, ``PostgresCore``: each write method of ``CORE_WRITES`` the class
  defines itself) raises the driver's own "disk full" error: a transaction block at its start (and at its end,
  so that it rolls back, when the window opened meanwhile), a statement inside one, a one-statement write.
- SIGUSR2: one AI worker process is killed with SIGKILL (one of ``AiWorker.worker_pids()``).
- ``--overrun-rate``: that fraction of AI searches is given a hard cap of 1 ms, so the search overruns.

Every fault that really happened is logged as ``chaos fault injected: <kind>`` (a refused write as
``storage-<method>``); bench/chaos.py counts them per kind. Every patch goes through ``replace_method``, which
refuses (the child does not start) a method the class does not define itself or a subclass overrides: a patch
of a renamed or overridden method would otherwise silently inject nothing, as the storage patch of
``DatabaseCore`` did from 5183ae6 (when SqliteCore came to override it) until this check.

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
import contextvars
import functools
import json
import logging
import os
import random
import signal
import sqlite3
import sys
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bot_bench_child import RateLimits
from bench.child_bot import add_fake_discord_arguments, bot_for_fake_discord, run_until_sigterm
from bot import render
from bot.client import SchnapsenBot
from bot.settings import Settings

log = logging.getLogger("bench.chaos_child")
ACCEPTED_TEXT = "accepted table="
REPEAT_TEXT = "repeat table="  # a click acknowledged as the repeat of a stored move
MOVED_ON_TEXT = "moved on table="  # a click on a position left, shown its hand in the channel as it stands
FAULT_TEXT = "chaos fault injected: "  # bench/chaos.py counts these lines, per kind
# bench/chaos.py counts these lines: a 429 discord.py gave up on (a counter would die with a killed process).
SURFACED_429_TEXT = "discord.py raised a 429 to the bot"
storage_failing_until = 0.0
the_bot: SchnapsenBot | None = None


def storage_failing() -> bool:
    return time.monotonic() < storage_failing_until


def injected(kind: str) -> None:
    """Count one fault that really happened: the parent counts these lines in the log, per kind."""
    log.info("%s%s", FAULT_TEXT, kind)


def all_subclasses(cls: type) -> list[type]:
    subclasses: list[type] = list(cls.__subclasses__())
    return [found for sub in subclasses for found in (sub, *all_subclasses(sub))]


def replace_method(cls: type, name: str, make: Callable[[Any], Any]) -> None:
    """``cls.name = make(original)``, refused loudly when the patch could not take effect: ``cls`` does not
    define ``name`` itself (renamed, or moved to a base class, where patching ``cls`` would shadow the real
    one for ``cls`` only) or a loaded subclass overrides it (its instances would never run the patch)."""
    original = cls.__dict__.get(name)
    if original is None:
        raise RuntimeError(f"chaos: {cls.__qualname__} defines no {name} to patch (renamed or moved?)")
    overriding = [sub.__qualname__ for sub in all_subclasses(cls) if name in sub.__dict__]
    if overriding:
        raise RuntimeError(f"chaos: {cls.__qualname__}.{name} is overridden by {overriding}: a patch would not run")
    setattr(cls, name, make(original))


def engine_error(core: Any) -> Exception:
    """What a full disk looks like to the engine's driver."""
    if core.dialect == "postgresql":
        import asyncpg

        return asyncpg.exceptions.DiskFullError("could not extend file: No space left on device")
    return sqlite3.OperationalError("database or disk is full")


def refused(core: Any, where: str) -> Exception:
    injected(f"storage-{where}")
    return engine_error(core)


def failing_block(original: Any, where: str) -> Any:
    """A transaction block (``transaction``, ``unordered_write``) that raises at its start while storage
    fails, and at its end (so that its writes are rolled back) when the window opened meanwhile."""

    @asynccontextmanager
    async def block(self: Any, *args: Any, **kwargs: Any) -> Any:
        if storage_failing():
            raise refused(self, where)
        async with original(self, *args, **kwargs):
            yield
            if storage_failing():
                raise refused(self, f"{where}-end")

    return block


def failing_write(original: Any, where: str) -> Any:
    async def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        if storage_failing():
            raise refused(self, where)
        return await original(self, *args, **kwargs)

    return write


# Every way a core writes. An engine's core patches those it defines itself; the rest are DatabaseCore's, which
# write through the core's (patched) transaction: SQLite's unordered_write and insert_notifying, PostgreSQL's
# fetch_chain_alone. PostgreSQL has its own of the first two (its insert_notifying outside a transaction is one
# statement on the pool, no transaction()); SQLite its own fetch_chain_alone (a move, one trip of its own).
CORE_WRITES = ("transaction", "unordered_write", "execute", "execute_many", "insert_notifying", "fetch_chain_alone")
BLOCKS = {"transaction", "unordered_write"}
ENGINES = ("bot.db.sqlite", "bot.db.postgres")


def storage_cores() -> dict[type, list[str]]:
    """Each engine's core class and the write methods it defines itself (every engine module imported)."""
    import importlib

    from bot.db.core import DatabaseCore

    for module in ENGINES:
        importlib.import_module(module)
    found = {cls: [m for m in CORE_WRITES if m in cls.__dict__] for cls in all_subclasses(DatabaseCore)}
    for cls, methods in found.items():
        if not {"transaction", "execute"} <= set(methods):
            raise RuntimeError(f"chaos: {cls.__qualname__} has no transaction and execute of its own to patch")
    return found


def patch_storage() -> None:
    """While the window is open every write of either engine's core raises the driver's "disk full" error:
    a transaction block at its start or its end, a statement inside one, a single-statement write."""
    for cls, methods in storage_cores().items():
        for method in methods:
            wrap = failing_block if method in BLOCKS else failing_write
            replace_method(cls, method, functools.partial(wrap, where=method))


def patch_target(target: int) -> None:
    """Tables created from now on play to ``target`` game points (what tests/bot/schnapsen/harness.py does per lobby)."""
    from bot.db.tables import TablesRepo

    def make(original: Any) -> Any:
        async def create_table(self: Any, *args: Any, **kwargs: Any) -> Any:
            if "rules_json" not in kwargs:
                raise RuntimeError("chaos: create_table was called without rules_json=: --target cannot apply")
            rules = json.loads(kwargs["rules_json"])
            rules = {"preset": rules} if isinstance(rules, str) else dict(rules)
            rules["target"] = target
            kwargs["rules_json"] = json.dumps(rules)
            return await original(self, *args, **kwargs)

        return create_table

    replace_method(TablesRepo, "create_table", make)


def accepted_loggers() -> list[str]:
    """The loggers (module names) of the bot modules that log ``accepted table=``, ``repeat table=`` or ``moved on
    table=`` lines, wherever the lines move to: they log them at DEBUG, so each is set to DEBUG here."""
    root = Path(__file__).resolve().parents[1]
    return [
        ".".join(path.relative_to(root).with_suffix("").parts)
        for path in sorted((root / "bot").rglob("*.py"))
        if any(text in path.read_text(encoding="utf-8") for text in (ACCEPTED_TEXT, REPEAT_TEXT, MOVED_ON_TEXT))
    ]


def patch_accepted_log() -> None:
    """Log an accepted action the way the bot is to: after ``act`` returned (its action committed)."""
    from bot.db.records import RecordsRepo
    from bot.game.service import TableService

    appended: contextvars.ContextVar[list[tuple[int, int, int, str]] | None] = contextvars.ContextVar(
        "appended", default=None
    )
    shim = logging.getLogger("bench.shim")

    def make_append(original: Any) -> Any:
        async def append_move(self: Any, table_id: int, deal_no: int, action: str, now: int) -> tuple[int, int]:
            seq, version = await original(self, table_id, deal_no, action, now)
            found = appended.get()
            if found is not None:
                found.append((table_id, deal_no, seq, action))
            return int(seq), int(version)

        return append_move

    def make_act(original: Any) -> Any:
        async def act(self: Any, *args: Any, **kwargs: Any) -> Any:
            found: list[tuple[int, int, int, str]] = []
            token = appended.set(found)
            try:
                outcome = await original(self, *args, **kwargs)
            finally:
                appended.reset(token)
            for table_id, deal_no, seq, action in found:
                shim.info("accepted table=%d deal=%d seq=%d action=%s", table_id, deal_no, seq, action)
            return outcome

        return act

    replace_method(RecordsRepo, "append_move", make_append)
    replace_method(TableService, "act", make_act)


def patch_ai_overruns(rate: float, rng: random.Random) -> None:
    from bot.ai_worker import AiWorker

    def make(original: Any) -> Any:
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
                injected("ai-1ms-cap")
                hard_cap_ms = 1
            return await original(self, view, player, seed, budget_ms, hard_cap_ms, *args, **kwargs)

        return decide

    replace_method(AiWorker, "decide", make)


def sabotage_ai() -> None:
    """AI seats never move: every table with an AI seat must be reported as stalled (a check of the bench)."""
    from bot.schnapsen.drivers import Drivers

    async def no_move(self: Any, table: Any, *_: Any) -> None:
        log.info("sabotage: AI move at table %s skipped", table.id)

    replace_method(Drivers, "_ai_move", lambda _original: no_move)


def kill_a_worker(rng: random.Random) -> None:
    assert the_bot is not None
    worker = the_bot.ai.worker  # None only without the engine's AI: then there is nothing to kill
    pids = [] if worker is None else worker.worker_pids()
    if not pids:
        log.info("chaos: no AI worker to kill")
        return
    pid = rng.choice(pids)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        log.info("chaos: AI worker %d was gone already", pid)
        return
    injected("ai-worker-killed")


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
    if args.token_pace is not None:  # a smaller budget of the token's calls than Discord's (bench/chaos.py)
        bot.pacer.per_second = args.token_pace
    the_bot = bot
    rng = random.Random(args.seed)
    loop = asyncio.get_running_loop()

    def storage_fault() -> None:
        global storage_failing_until
        storage_failing_until = time.monotonic() + args.storage_fault_seconds
        injected("storage-window")  # the writes it refuses are counted one by one (storage-<where>)

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
    parser.add_argument("--token-pace", type=int, help="the bot token's requests a second the bot keeps to")
    parser.add_argument("--storage-fault-seconds", type=float, default=2.0)
    parser.add_argument("--overrun-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sabotage", choices=("ai",), help="break the bot on purpose (to check the bench)")
    args = parser.parse_args()
    handler = logging.FileHandler(args.log, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("discord").setLevel(logging.WARNING)  # its INFO lines are connection chatter
    loggers = accepted_loggers()
    for name in loggers:
        logging.getLogger(name).setLevel(logging.DEBUG)  # its "accepted table=", "repeat table=", "moved on" lines
    log.info("chaos child started pid=%d", os.getpid())
    patch_storage()
    if args.target:
        patch_target(args.target)
    if not loggers:
        log.info("bench shim: the bot does not log accepted actions; the bench logs them after act()")
        patch_accepted_log()
    patch_ai_overruns(args.overrun_rate, random.Random(args.seed + 1))
    RateLimits().count_surfaced(also=lambda: log.warning(SURFACED_429_TEXT))
    if args.sabotage == "ai":
        sabotage_ai()
    render.preload("doppeldeutsch")
    asyncio.run(serve(args))
    log.info("chaos child stopped cleanly pid=%d", os.getpid())
    return 0


if __name__ == "__main__":
    sys.exit(main())
