"""The bot process of bench/bot_bench.py: the real SchnapsenBot on a temporary database, talking to the fake
Discord of the parent process. Prints ``READY`` once connected and, on SIGTERM, one JSON line with its peak
memory (and the profile file, with --profile), and with --time-ai every AI decision's table and span, and every
AI turn's span from the driver taking it up (its deliberate pause included) until the move is stored (the
parent leaves those out of a latency figure). At each SIGUSR1 it notes the CPU time of its threads by role
(event loop, render pool, database, other), and it counts the images it draws: the parent reads both for the
window it measures; and the 429s discord.py waited out or raised to the bot.

    python bench/bot_bench_child.py --api http://127.0.0.1:PORT/api/v10 --gateway ws://127.0.0.1:PORT/ \
        --token TOKEN --database /tmp/x.sqlite3 [--profile out.prof] [--cold] \
        [--shards 0/2] [--cpu 1] [--time-ai]

The database is a file (SQLite) or a postgresql:// URL. ``--cpu`` pins this process, and so the AI worker
processes it starts, to that core.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import os
import re
import resource
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord
import discord.webhook.async_

from bench.child_bot import (
    add_fake_discord_arguments,
    bot_for_fake_discord,
    run_until_sigterm,
    watch_lateness,
)
from bot import render
from bot.client import SchnapsenBot
from bot.schnapsen import drivers
from bot.schnapsen.messages import Messages
from bot.settings import WebSettings
from bot.shards import ShardRange

# The drivers seed an AI decision with table id * SEED_STRIDE + version (bot/schnapsen/drivers.py).
SEED_STRIDE = 1_000_003


def status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def current_rss_kb() -> int:
    return status_kb("VmRSS")


def reset_peak_rss() -> bool:
    """Linux: start VmHWM (the peak RSS) afresh, so the peak while serving is told apart from start-up."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def time_ai_decisions(
    bot: SchnapsenBot, spans: list[tuple[int, float, float]], turns: list[tuple[int, float, float]]
) -> None:
    """Record (table id, start, end) of every AI decision, and of every AI turn (from the driver taking the
    turn up, its deliberate pause and any wait for a search included, until the service is asked to store
    the AI's move), on the machine-wide monotonic clock the parent reads too. Wrapped once the bot's setup
    has made its AI players."""
    setup = bot.setup_hook
    turn_started: dict[int, float] = {}
    ai_move = drivers.Drivers._ai_move

    async def timed_ai_move(self: drivers.Drivers, table: Any, *args: Any, **kwargs: Any) -> Any:
        turn_started[table.id] = time.monotonic()
        return await ai_move(self, table, *args, **kwargs)

    drivers.Drivers._ai_move = timed_ai_move  # type: ignore[method-assign]

    async def setup_then_time() -> None:
        await setup()
        decide = bot.ai.decide
        act = bot.service.act

        async def timed(view: Any, strength: Any, seed: int, *args: Any, **kwargs: Any) -> Any:
            started = time.monotonic()
            try:
                return await decide(view, strength, seed, *args, **kwargs)
            finally:
                spans.append((seed // SEED_STRIDE, started, time.monotonic()))

        async def timed_act(table_id: int, *args: Any, user_id: int | None, **kwargs: Any) -> Any:
            if user_id is None and (started := turn_started.pop(table_id, None)) is not None:
                turns.append((table_id, started, time.monotonic()))
            return await act(table_id, *args, user_id=user_id, **kwargs)

        bot.ai.decide = timed  # type: ignore[method-assign]
        bot.service.act = timed_act  # type: ignore[method-assign]

    bot.setup_hook = setup_then_time  # type: ignore[method-assign]


# The AI's WARNING lines: a decision answered by greedy, and (with the scheduler of issue 25) a search given
# fewer worlds or less time than its budget under load.
FELL_BACK = re.compile(r"greedy|random legal", re.IGNORECASE)
LOWERED = re.compile(r"lower|floor|fewer|reduc|shrunk|below full", re.IGNORECASE)


class AiWarnings(logging.Handler):
    """Counts the AI's WARNING lines by what they say: a greedy answer, a lowered budget, anything else."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.counts = {"fell_back": 0, "lowered": 0, "other": 0}
        self.samples: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith(("bot.ai", "bot.game.ai", "bot.game.sched")):
            return
        message = record.getMessage()
        kind = "fell_back" if FELL_BACK.search(message) else "lowered" if LOWERED.search(message) else "other"
        self.counts[kind] += 1
        if kind != "fell_back" and len(self.samples) < 5:
            self.samples.append(message[:200])


def is_429_retry(logger: str, message: str) -> bool:
    """Whether a log record is discord.py's WARNING that it met a 429 and waits it out before retrying."""
    return logger.startswith("discord.") and "rate limited" in message and "Retrying in" in message


class RateLimits(logging.Handler):
    """The 429s discord.py met in this process: the ones it waited out and retried (its WARNING "rate
    limited" lines, from the bot token's client and the interaction webhooks alike) and the ones it gave up
    on, raised to the bot as HTTPException 429 (five in a row, or a ban's answer without Via)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.retried = 0
        self.surfaced = 0

    def emit(self, record: logging.LogRecord) -> None:
        if is_429_retry(record.name, record.getMessage()):
            self.retried += 1

    def count_surfaced(self, also: Callable[[], None] | None = None) -> None:
        """Wrap discord.py's two request functions: a 429 that leaves them reached the bot (then ``also`` is
        called, e.g. to log it where a killed process's counter would be lost)."""
        for owner in (discord.http.HTTPClient, discord.webhook.async_.AsyncWebhookAdapter):
            original = owner.request

            async def counted(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                try:
                    return await _original(*args, **kwargs)
                except discord.HTTPException as error:
                    if error.status == 429:
                        self.surfaced += 1
                        if also is not None:
                            also()
                    raise

            owner.request = counted  # type: ignore[method-assign]


RATE_LIMITS = RateLimits()


class ShellCosts:
    """What the bot process spends, for the window the parent measures: the CPU time of its threads by role
    at each SIGUSR1, and every image it draws (kind, when; "table again" for a picture drawn before)."""

    def __init__(self) -> None:
        self.marks: list[dict[str, float]] = []
        self.draws: list[tuple[str, float]] = []
        self.bot: SchnapsenBot | None = None  # its AI queue's counters are noted with each mark
        self._drawn: set[int] = set()  # hashes of what was drawn: a repeat draws a picture drawn before

    def _seen(self, kind: str, args: tuple[Any, ...]) -> bool:
        try:
            key = hash((kind, args))
        except TypeError:
            return False
        seen = key in self._drawn
        self._drawn.add(key)
        return seen

    def wrap_renderers(self) -> None:
        for kind in ("table", "turn", "hand", "result"):
            name = f"render_{kind}"
            original = getattr(render, name)

            def counted(*args: Any, _original: Any = original, _kind: str = kind) -> Any:
                repeat = self._seen(_kind, args)
                self.draws.append((f"{_kind} again" if repeat else _kind, time.monotonic()))
                return _original(*args)

            setattr(render, name, counted)

    def mark(self, *_: object) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        roles: dict[str, float] = {"at": time.monotonic()}
        for thread in threading.enumerate():
            try:
                fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            seconds = (int(fields[11]) + int(fields[12])) / tick
            role = thread_role(thread)
            roles[role] = roles.get(role, 0.0) + seconds
        roles["process"] = sum(os.times()[:2])
        roles["http:429 retried"] = RATE_LIMITS.retried
        roles["http:429 surfaced"] = RATE_LIMITS.surfaced
        worker = getattr(getattr(self.bot, "ai", None), "_worker", None)
        for counter in ("fallbacks", "reduced"):  # decisions answered by greedy, searched with a lowered budget
            if isinstance(value := getattr(worker, counter, None), int):
                roles[f"ai:{counter}"] = value
        self.marks.append(roles)


COSTS = ShellCosts()


class ClickSteps:
    """Where each move click's time goes inside the bot, in ms from the click (its snowflake's moment): when
    the router saw Discord's payload, the button's handler began, the move was stored (its answer begins), the
    answer was drawn (it is sent), and Discord answered the callback. Recorded by wrapping those functions;
    bench/player_view.py prints them for the accepted clicks of its window."""

    def __init__(self) -> None:
        self.steps: dict[int, list[float]] = {}

    def _note(self, interaction_id: int, step: int) -> None:
        steps = self.steps.get(interaction_id)
        if steps is not None and len(steps) == step:
            steps.append(round(time.time() * 1000 - ((interaction_id >> 22) + discord.utils.DISCORD_EPOCH), 1))

    def wrap(self) -> None:
        from bot.schnapsen import clickanswers, components, routing

        of_click, clicked = routing.button_of_click, components.GameActionButton.clicked
        answer_move, update_clicked = clickanswers.ClickAnswers.answer_move, clickanswers.update_clicked

        def seen(data: Any) -> Any:
            button = of_click(data)
            if button is not None and button.verb in components.GameActionButton.VERBS:
                self.steps[int(data["id"])] = []
                self._note(int(data["id"]), 0)
            return button

        async def handled(button: Any, interaction: Any, *args: Any, **kwargs: Any) -> None:
            self._note(interaction.id, 1)
            await clicked(button, interaction, *args, **kwargs)

        async def stored(answers: Any, interaction: Any, *args: Any, **kwargs: Any) -> None:
            self._note(interaction.id, 2)
            await answer_move(answers, interaction, *args, **kwargs)

        async def answered(interaction: Any, *args: Any, **kwargs: Any) -> None:
            self._note(interaction.id, 3)
            await update_clicked(interaction, *args, **kwargs)
            self._note(interaction.id, 4)

        routing.button_of_click = seen
        components.GameActionButton.clicked = handled  # type: ignore[method-assign,assignment]
        clickanswers.ClickAnswers.answer_move = stored  # type: ignore[method-assign,assignment]
        clickanswers.update_clicked = answered  # type: ignore[assignment]


CLICK_STEPS = ClickSteps()


def thread_role(thread: threading.Thread) -> str:
    if thread is threading.main_thread():
        return "event loop"
    if thread.name.startswith("render"):
        return "render"
    if getattr(getattr(thread, "_target", None), "__module__", "").startswith("aiosqlite"):
        return "database"
    if thread.name.startswith("asyncio"):  # asyncio.to_thread: the AI worker pipes' polls, greedy
        return "to_thread"
    return "other threads"


async def serve(args: argparse.Namespace) -> dict[str, object]:
    shards = None
    if args.shards:
        ids, count = args.shards.split("/")
        shards = ShardRange.parse(count, ids)
    bot = bot_for_fake_discord(
        api=args.api,
        gateway=args.gateway,
        token=args.token,
        database=args.database,
        edit_interval=args.edit_interval,
        log_level="WARNING",
        shards=shards,
        web=None if args.web_port is None else WebSettings(args.web_port, f"http://127.0.0.1:{args.web_port}"),
    )
    COSTS.bot = bot
    ai_spans: list[tuple[int, float, float]] = []
    ai_turns: list[tuple[int, float, float]] = []
    # On the event loop (a plain signal handler could interrupt a thread start holding threading's lock).
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, COSTS.mark)
    warnings = AiWarnings()
    logging.getLogger().addHandler(warnings)
    logging.getLogger().addHandler(RATE_LIMITS)
    if args.time_ai:
        time_ai_decisions(bot, ai_spans, ai_turns)
    rss_before_close = 0

    def measure_rss() -> None:
        nonlocal rss_before_close
        rss_before_close = current_rss_kb()

    lateness: list[tuple[float, float]] = []
    watch = asyncio.create_task(watch_lateness(lateness))
    await run_until_sigterm(bot, before_close=measure_rss)
    watch.cancel()
    report: dict[str, object] = {
        "loop_late": [[round(at, 3), round(late, 1)] for at, late in lateness],
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rss_at_stop_kb": rss_before_close,
    }
    if args.time_ai:
        worker = getattr(bot.ai, "_worker", None)
        # Decisions the search did not answer in time (no free worker, or past the hard cap): greedy played.
        report["ai_fallbacks"] = getattr(worker, "fallbacks", 0)
        report["ai_spans"] = [[table, round(start, 4), round(end, 4)] for table, start, end in ai_spans]
        report["ai_turns"] = [[table, round(start, 4), round(end, 4)] for table, start, end in ai_turns]
    report["click_steps"] = {str(interaction): steps for interaction, steps in CLICK_STEPS.steps.items()}
    report["ai_warning_lines"] = warnings.counts
    report["ai_warning_samples"] = warnings.samples
    # The AI queue's own count of decisions searched with less than their budget, where it keeps one (its
    # WARNING lines come at most once a minute).
    lowered = getattr(getattr(bot.ai, "_worker", None), "reduced", None)
    if isinstance(lowered, int):
        report["ai_lowered"] = lowered
    report["cpu_marks"] = COSTS.marks
    report["http_429_retried"] = RATE_LIMITS.retried
    report["http_429_surfaced"] = RATE_LIMITS.surfaced
    report["bad_answers"] = bot.bad_answers.summary()
    report["draws"] = [[kind, round(at, 4)] for kind, at in COSTS.draws]
    return report


def main() -> int:
    parser = argparse.ArgumentParser()
    add_fake_discord_arguments(parser)
    parser.add_argument("--edit-interval", type=float, required=True)
    parser.add_argument("--profile", help="write a cProfile of the whole run to this file")
    parser.add_argument("--cold", action="store_true", help="do not build the card palettes before starting")
    parser.add_argument(
        "--shards", help="IDS/COUNT: hold these of COUNT shards (SHARD_IDS/SHARD_COUNT), e.g. 1/2"
    )
    parser.add_argument(
        "--cpu", type=int, help="pin this process (and the AI workers it starts) to this core"
    )
    parser.add_argument("--time-ai", action="store_true", help="report every AI decision's table and span")
    parser.add_argument("--web-port", type=int, help="serve the web pages on this loopback port (docs/web.md)")
    parser.add_argument(
        "--table-message-by-bot-token",
        action="store_true",
        help="remember no click on a table message: it is edited with the bot token, as past its latest click's "
        "14 minutes",
    )
    args = parser.parse_args()
    if args.table_message_by_bot_token:
        Messages.remember_table_click = lambda self, table, interaction: None  # type: ignore[method-assign]
    if args.cpu is not None:
        # Before anything starts: the AI worker processes inherit the pinning, so the bot's whole work is
        # measured on one core.
        os.sched_setaffinity(0, {args.cpu})
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    COSTS.wrap_renderers()
    CLICK_STEPS.wrap()
    RATE_LIMITS.count_surfaced()
    started = time.perf_counter()
    if not args.cold:
        # The bench's tables use the default deck; a bot that has rendered once has built its palette, and
        # building it in several render threads at once (what a cold bot does) costs seconds each.
        render.preload("doppeldeutsch")
    warmup = time.perf_counter() - started
    startup_peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    serving_peak_known = reset_peak_rss()
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    report = asyncio.run(serve(args))
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    report["preload_seconds"] = round(warmup, 3)
    report["startup_peak_rss_kb"] = startup_peak_kb
    if serving_peak_known:
        report["serving_peak_rss_kb"] = status_kb("VmHWM")
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
