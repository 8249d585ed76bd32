"""The bot under load: the fake Discord runs here, the real bot in a child process (bench/bot_bench_child.py).

Run from the repository root:

    python bench/bot_bench.py                  # 50 tables play concurrently, 2 deals each
    python bench/bot_bench.py --tables 20 --deals 3
    python bench/bot_bench.py --mode open      # 100 open tables (lobbies and started games): peak memory
    python bench/bot_bench.py --profile /tmp/bot.prof   # cProfile of the bot process, top entries printed

In "play" mode every table has four simulated people who click the first enabled button of their DM as soon
as it shows one (no pacing anywhere). Printed: per-interaction processing time (the fake's clock, from
dispatching INTERACTION_CREATE to the bot's callback arriving), the time from a click until the next
player's buttons are shown, deals per second, refused clicks, and the bot process's peak memory.
Targets: p95 <= 50 ms with 50 tables; peak memory <= 150 MB with 100 open tables.

Human pace and capacity (issues 14 and 25):

    python bench/bot_bench.py --pace human --tables 40 --seconds 30
    python bench/bot_bench.py --pace human --find-capacity                       # one process, four people
    python bench/bot_bench.py --pace human --find-capacity --ai-seats 3 --tables 1 --ai-delay-ms 1200
    python bench/bot_bench.py --pace human --find-capacity --ai-seats 2 --tables 1   # two people, two AI
    python bench/bot_bench.py --pace human --find-capacity --processes 2 --database postgresql
    python bench/bot_bench.py --pace human --processes 2 --database postgresql --cpu-quota 0.5 \
        --tables 30 --paired-rounds 6        # 1 process at 30 tables against 2 at 54, alternating

Each person clicks the first enabled game button of their hand a random 1-4 s (--seed) after it appears.
A step opens its tables (over --start-spread seconds), waits 12 s, then measures --seconds of play; its figure is the time from a
person's click until the next buttons for any person of that table appear (a hand showing a new
position's buttons, a turn notice, a rematch), as the fake Discord receives them. With --ai-seats 3
(one person, three AI seats added in the lobby) or 2 (two people, two AI seats) the AI moves in between
are part of that time; the AI's deliberate pause is the guild setting ai_delay_ms (--ai-delay-ms, default 0;
the product ships 1200), and a second p95 leaves out the AI's turns: from the bot's driver taking an AI
turn up (its pause, any wait for the AI and its decision) until the move is handed to storage, recorded by
the bot process. A click still without next buttons 5 s after the window counts as slower than any.
--find-capacity doubles the tables from --tables while a step keeps p95 < 300 ms with no click refused
(with AI seats: the p95 without the AI's turns, and a second criterion: at most 1% of the window's AI decisions below
full strength, i.e. answered by greedy or, with issue 25's scheduler, given a lowered budget, as the AI
logs them at WARNING), then bisects. Each bot process is pinned to one core (--bot-cpus; its AI workers
inherit it), the fake Discord and the people run on the other cores; or, with --cpu-quota F, each bot
process and its AI workers may use F of a core (a cgroup quota, root only) and nothing is pinned: two
processes at 0.4 of a core each, with the rest of a 2-core machine left to the fake Discord and
PostgreSQL, show how two processes on a core each scale (a fraction F of a core does each click's work 1/F
times slower, so the latency target becomes 300 ms / F). --processes 2 --database postgresql runs two
sharded processes (shard 0 and 1 of 2) on a throwaway PostgreSQL cluster (fsync on), guilds on both
shards; a DM click always reaches the process of shard 0, which hands a click for a shard-1 table on to
its owner through the click inbox (--hands channel: people click hands shown in the channel instead).

Per step also printed: cores busy (bot, parent, whole machine: the machine may be shared), on PostgreSQL
commits/s and how often a transaction waits for an advisory lock, and per deal finished in the window:
the bot process's own CPU (by thread: the event loop that applies, stores and sends; the render pool; the
database thread; others) apart from its AI worker processes' CPU, the images it drew by kind, and the
messages it sent or edited by where (DM, ephemeral, channel).

Discord's rate limits (issue 28): with --discord-limits the fake Discord enforces them (the global 50
requests/s per bot token, the per-channel message buckets, the 30046 rule, the invalid-request ban:
devtools/fakediscord/limits.py; the settings are printed) and answers 429s that discord.py must wait out:

    python bench/bot_bench.py --pace human --tables 20 --discord-limits                  # the calls per click
    python bench/bot_bench.py --pace human --tables 20 --hands channel --discord-limits
    python bench/bot_bench.py --pace human --find-capacity --discord-limits              # tables per bot token
    python bench/bot_bench.py --pace human --find-capacity --discord-limits --table-message-by-bot-token
    python bench/bot_bench.py --pace human --tables 100 --discord-limits --start-spread 0   # deals in step

Real tables start at different moments, so --find-capacity starts its tables one after the other over 60 s
(--start-spread, about one deal at human pace; other runs start them together unless given); --start-spread 0
is the worst case, every table dealing at once as after a restart of the bot. A table message is edited
through its latest click's token (Start, Rematch) for 14 minutes, which every step of the bench is within;
--table-message-by-bot-token makes the bot edit it with the bot token, as in a longer Bummerl.

Every run (both paces) prints the REST calls per accepted click, split into the bot token's (bound by the
global limit) and the interaction tokens' (exempt), by route, with the 429s the fake answered (global,
per-route, 30046) and, counted in the bot process, how many discord.py waited out and how many it raised to
the bot; with --find-capacity a step then also must raise no 429 to the bot. Several processes share one bot
token, and so one global bucket.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import math
import os
import pstats
import random
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.settings import Settings
from devtools.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeInteraction, FakeMessage, FakeUser
from devtools.pgcluster import Cluster, server_binaries

CHILD = Path(__file__).with_name("bot_bench_child.py")
PRODUCT_EDIT_INTERVAL = Settings(token="unused").edit_interval
GAME_VERBS = ("trump", "auf", "bid", "pass", "dbl", "play", "mar")
SEATS = ("North", "East", "South", "West")
WAIT = 120.0  # generous: under load a step may queue behind many others, but it must come


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def game_button(message: FakeMessage, clicked: set[str]) -> str | None:
    """The first enabled game button on the message, unless its position (table and version) was played."""
    for button in message.buttons:
        custom_id = str(button.get("custom_id", ""))
        parts = custom_id.split(":")
        if len(parts) == 5 and parts[0] == "bs" and parts[3] in GAME_VERBS and not button.get("disabled"):
            return custom_id if position(custom_id) not in clicked else None
    return None


def refused_by_bot(click: FakeInteraction) -> bool:
    """Whether the bot answered a click with a word to its clicker (an ephemeral follow-up): not accepted. A
    follow-up in a DM is the clicker's next hand, sent through that click's token."""
    return any(message.ephemeral for message in click.followups)


def refusal(click: FakeInteraction) -> str | None:
    """The bot's word to the clicker when it refused the click, else None: a plain-text answer, as the callback
    (type 4) or a follow-up (a hand, the next deal's included, always comes as an embed)."""
    answers = list(click.followups)
    if click.response is not None and click.response.type == 4:
        answers += click.messages[:1]
    for message in answers:
        if message.content and not message.embeds:
            return message.content
    return None


def position(custom_id: str) -> str:
    """``bs:<table>:<version>:...`` -> ``<table>:<version>``: one click per position."""
    return ":".join(custom_id.split(":")[1:3])


class BenchTable:
    def __init__(self, fake: FakeDiscord, guild: FakeGuild, number: int) -> None:
        self.fake = fake
        self.channel: FakeChannel = guild.add_text_channel(f"table-{number}")
        self.people: list[FakeUser] = []
        for seat in range(4):
            user = fake.add_user(f"p{number}-{seat}")
            guild.add_member(user)
            self.people.append(user)
        self.clicks: list[FakeInteraction] = []
        self.turnarounds: list[float] = []
        self.rematches = 0
        # Result messages seen so far (counted incrementally: the wait predicates run on every change of
        # the fake, and rescanning every channel each time would eat the CPU the bot is measured on).
        self._scanned = 0
        self._results = 0
        self._bummerls = 0
        # Per person: (DM message id, when it last changed) -> the button found there, so that an unchanged
        # DM is not searched again on every change of the fake.
        self._looked: dict[int, tuple[tuple[int, float], str | None]] = {}

    def button_for(self, user: FakeUser, clicked: set[str]) -> tuple[FakeMessage, str] | None:
        dms = self.fake.dm_messages(user)
        if not dms:
            return None
        message = dms[-1]
        key = (message.id, message.history[-1].at if message.history else 0.0)
        cached = self._looked.get(user.id)
        if cached is None or cached[0] != key:
            cached = (key, game_button(message, set()))
            self._looked[user.id] = cached
        custom_id = cached[1]
        if custom_id is None or position(custom_id) in clicked:
            return None
        return message, custom_id

    def _scan_results(self) -> None:
        messages = self.channel.messages
        for message in messages[self._scanned :]:
            if "result.png" in message.filenames:
                self._results += 1
                self._bummerls += "Bummerl" in message.visible_text
        self._scanned = len(messages)

    def table_message(self) -> FakeMessage | None:
        for message in reversed(self.channel.messages):
            if "result.png" in message.filenames:  # a deal's result (its "Review my play" is no table button)
                continue
            # A turn notice carries a table button too, but no embed.
            if message.embeds and any(str(b.get("custom_id", "")).startswith("bs:") for b in message.buttons):
                return message
        return None

    def bummerls_over(self) -> int:
        self._scan_results()
        return self._bummerls

    def finished_deals(self) -> int:
        self._scan_results()
        return self._results

    async def open(self, seated: int = 4, start: bool = True) -> None:
        host = self.people[0]
        command = await self.fake.slash(host, self.channel, "schnapsen", "new")
        await command.wait_followups(1, timeout=WAIT)
        for seat in range(1, seated):
            lobby = await self.fake.wait_for(self.table_message, timeout=WAIT, what="the lobby")
            click = await self.fake.click(self.people[seat], lobby, label=f"Sit {SEATS[seat]}")
            await click.wait_response(timeout=WAIT)
        if start:
            lobby = await self.fake.wait_for(self.table_message, timeout=WAIT, what="the lobby")
            click = await self.fake.click(host, lobby, label="Start")
            await click.wait_response(timeout=WAIT)

    def hands_delivered(self) -> bool:
        return all(self.fake.dm_messages(user) for user in self.people)

    async def play(self, deals: int, clicked: set[str]) -> None:
        """Click as the four people until ``deals`` deals are finished; after a Bummerl, ask for a rematch."""
        last_click: float | None = None
        while True:

            def next_step() -> tuple[Any, ...] | None:
                if self.finished_deals() >= deals:
                    return ("done",)
                for user in self.people:
                    found = self.button_for(user, clicked)
                    if found is not None:
                        return ("click", user, *found)
                # After a Bummerl the table message offers a rematch; ask for it once per Bummerl.
                message = self.table_message()
                if (
                    message is not None
                    and any(b.get("label") == "Rematch" for b in message.buttons)
                    and self.rematches < self.bummerls_over()
                ):
                    return ("rematch", message)
                return None

            step = await self.fake.wait_for(next_step, timeout=WAIT, what=f"a move at #{self.channel.name}")
            if step[0] == "done":
                return
            if step[0] == "rematch":
                self.rematches += 1
                click = await self.fake.click(self.people[0], step[1], label="Rematch")
                last_click = None
                continue
            _, user, message, custom_id = step
            now = time.monotonic()
            if last_click is not None:
                self.turnarounds.append(now - last_click)
            clicked.add(position(custom_id))
            click = await self.fake.click(user, message, custom_id)
            self.clicks.append(click)
            last_click = now


async def start_child(
    fake: FakeDiscord,
    database: Path | str,
    args: argparse.Namespace,
    *,
    shards: str | None = None,
    cpu: int | None = None,
    quota: CpuQuota | None = None,
    time_ai: bool = False,
) -> asyncio.subprocess.Process:
    command = [
        sys.executable,
        str(CHILD),
        "--api",
        fake.api_base,
        "--gateway",
        fake.gateway_url,
        "--token",
        fake.token,
        "--database",
        str(database),
        "--edit-interval",
        str(args.edit_interval),
    ]
    if args.profile:
        command += ["--profile", profile_file(args.profile, shards)]
    if args.cold:
        command.append("--cold")
    if getattr(args, "table_message_by_bot_token", False):
        command.append("--table-message-by-bot-token")
    if shards is not None:
        command += ["--shards", shards]
    if cpu is not None:
        command += ["--cpu", str(cpu)]
    if time_ai:
        command.append("--time-ai")
    if getattr(args, "web_port", None):
        command += ["--web-port", str(args.web_port)]
    child = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    if quota is not None:
        quota.add(child.pid)  # at once: it has not started its AI workers yet, and they inherit the cgroup
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), 120)
    if line.strip() != b"READY":
        raise RuntimeError(f"the bot process did not start: {line!r}")
    return child


class CpuQuota:
    """A cgroup that lets its processes use at most ``fraction`` of one core in every period of ``period_ms``.
    Two bot processes with a quota each, beside a fake Discord and PostgreSQL with cores of their own, show
    on two cores what two processes on a core each would carry. A process over its share is stopped for the
    rest of the period (and one stopped while it holds a database lock the other process waits for stops
    that one too), so a shorter period comes closer to a slower core; yet with 2 ms on this machine the same step
    varied far more than with 10 ms (the kernel's throttling at that rate costs more than it models). Needs
    a writable cgroup ``cpu`` controller (root): v2 or v1."""

    def __init__(self, fraction: float, name: str, period_ms: float = 10.0) -> None:
        period_us = round(period_ms * 1000)
        quota_us = round(fraction * period_us)
        root = Path("/sys/fs/cgroup")
        controllers = root / "cgroup.controllers"  # only on cgroup v2
        if controllers.exists() and "cpu" in controllers.read_text().split():
            self.folder = root / name
            self.folder.mkdir(exist_ok=True)
            (self.folder / "cpu.max").write_text(f"{quota_us} {period_us}")
        else:
            self.folder = root / "cpu" / name
            self.folder.mkdir(exist_ok=True)
            (self.folder / "cpu.cfs_period_us").write_text(str(period_us))
            (self.folder / "cpu.cfs_quota_us").write_text(str(quota_us))

    @staticmethod
    def usable() -> str | None:
        """Why no quota can be set here, or None."""
        try:
            probe = CpuQuota(0.5, f"schnapsen-bench-probe-{os.getpid()}")
            probe.remove()
        except OSError as err:
            return f"no writable cgroup cpu controller ({err.strerror}: {err.filename})"
        return None

    def add(self, pid: int) -> None:
        """Put ``pid`` under the quota; processes it starts later (the AI workers) are under it too."""
        (self.folder / "cgroup.procs").write_text(str(pid))

    def periods(self) -> tuple[int, int]:
        """(periods in which its processes ran, periods in which the quota held them back) so far."""
        fields = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
        return int(fields.get("nr_periods", 0)), int(fields.get("nr_throttled", 0))

    def remove(self, *, tries: int = 1) -> None:
        """Remove the cgroup; a bot's AI workers may still be leaving it, so it is tried ``tries`` times, 0.1 s
        apart (a cgroup with a process in it cannot be removed)."""
        for attempt in range(tries):
            try:
                self.folder.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if attempt + 1 < tries:
                    time.sleep(0.1)
        print(f"could not remove the cgroup {self.folder}: remove it by hand (rmdir)", file=sys.stderr)


def profile_file(profile: str, shards: str | None) -> str:
    """Each sharded process profiles into a file of its own: PROFILE.shard0, PROFILE.shard1."""
    return profile if shards is None else f"{profile}.shard{shards.split('/')[0]}"


async def stop_child(child: asyncio.subprocess.Process) -> dict[str, Any]:
    child.send_signal(signal.SIGTERM)
    assert child.stdout is not None
    output = await asyncio.wait_for(child.stdout.read(), 120)
    await child.wait()
    lines = [line for line in output.decode().splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def run(args: argparse.Namespace) -> None:
    fake = FakeDiscord(record_requests=False, keep_history=False, check_spec=SPEC_CHECK_IN_BENCHES)
    if args.discord_limits:
        fake.enforce_limits()
    print(fake.limits.describe(), flush=True)
    await fake.start()
    admin = fake.add_user("admin")
    guild = fake.add_guild("Bench", owner=admin)
    tables = [BenchTable(fake, guild, number) for number in range(args.tables)]
    with tempfile.TemporaryDirectory() as folder:
        child = await start_child(fake, Path(folder) / "bench.sqlite3", args)
        try:
            if args.mode == "open":
                await open_tables(fake, tables, child.pid)
            else:
                await play_tables(fake, tables, args.deals, args.edit_interval)
        finally:
            report = await stop_child(child)
            await fake.stop()

    def mb(key: str) -> str:
        return f"{report[key] / 1024:.1f} MB" if key in report else "unknown"

    if args.mode == "play":
        print(
            f"429s discord.py met over the whole run: waited out and retried {report.get('http_429_retried', 0)},"
            f" raised to the bot {report.get('http_429_surfaced', 0)}"
        )
        if "bad_answers" in report:  # the bot's own count (bot/schnapsen/badanswers.py), at its stop
            print(f"bad answers the bot counted in its last 10 minutes: {report['bad_answers']}")
    print(
        f"bot process peak memory: {mb('peak_rss_kb')} overall; {mb('serving_peak_rss_kb')} while serving"
        f" (after start-up, whose peak was {mb('startup_peak_rss_kb')}: card art preloaded in"
        f" {report.get('preload_seconds', 0)} s); RSS at stop {mb('rss_at_stop_kb')}"
    )
    if args.profile:
        print(f"\nprofile of the bot process ({args.profile}), top by own time:")
        pstats.Stats(args.profile).sort_stats("tottime").print_stats(25)


async def open_tables(fake: FakeDiscord, tables: list[BenchTable], pid: int) -> None:
    lobbies, games = tables[: len(tables) // 2], tables[len(tables) // 2 :]
    started = time.monotonic()
    await asyncio.gather(*(t.open(seated=2, start=False) for t in lobbies), *(t.open() for t in games))
    await fake.wait_for(lambda: all(t.hands_delivered() for t in games), timeout=WAIT, what="every hand")
    latencies = [c.response_latency * 1000 for c in fake.interactions if c.response_latency is not None]
    late = sum(1 for c in fake.interactions if c.rejected_callbacks)
    print(
        f"{len(lobbies)} lobbies and {len(games)} started games open in {time.monotonic() - started:.1f} s;"
        f" bot process RSS now {rss_kb(pid) / 1024:.1f} MB"
    )
    print(
        f"while opening: {len(fake.interactions)} interactions, answer p95 {percentile(latencies, 0.95):.0f} ms,"
        f" max {max(latencies):.0f} ms, answered too late (over 3 s) {late}"
    )


async def play_tables(fake: FakeDiscord, tables: list[BenchTable], deals: int, edit_interval: float) -> None:
    opened = time.monotonic()
    await asyncio.gather(*(t.open() for t in tables))
    started = time.monotonic()
    calls_before = rest_calls(fake)
    clicked: set[str] = set()
    await asyncio.gather(*(t.play(deals, clicked) for t in tables))
    elapsed = time.monotonic() - started
    clicks = [c for t in tables for c in t.clicks]
    await fake.wait_for(
        lambda: all(c.response is not None or c.rejected_callbacks for c in clicks),
        timeout=WAIT,
        what="every click to be answered",
    )
    accepted = sum(1 for c in clicks if c.response is not None and not refused_by_bot(c) and c.response.type != 4)
    rest = rest_figures(fake, calls_before, rest_calls(fake), accepted, time.monotonic() - started)

    # Let the bot finish what the last clicks started (the next deal's DMs) before it is stopped.
    def settled() -> bool:
        return all(len(fake.dm_messages(user)) > t.finished_deals() for t in tables for user in t.people)

    with contextlib.suppress(AssertionError):
        await fake.wait_for(settled, timeout=30, what="the next deal's hands")
    latencies = [c.response_latency * 1000 for c in clicks if c.response_latency is not None]
    turnarounds = [s * 1000 for t in tables for s in t.turnarounds]
    refused = sum(1 for c in clicks if refused_by_bot(c))
    late = sum(1 for c in fake.interactions if c.rejected_callbacks)
    finished = sum(t.finished_deals() for t in tables)
    print(
        f"{len(tables)} tables, four people each, {deals} deal(s) per table "
        f"(lobbies opened and started in {started - opened:.1f} s); the bot coalesces edits of one message "
        f"to one per {edit_interval:g} s"
    )
    print(f"game clicks: {len(clicks)} in {elapsed:.1f} s; refused {refused}; callbacks too late {late}")
    print(
        f"interaction processing (event sent -> callback received): median {statistics.median(latencies):.1f} ms,"
        f" p95 {percentile(latencies, 0.95):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms,"
        f" max {max(latencies):.1f} ms"
    )
    print(
        f"click -> next player's buttons shown: median {statistics.median(turnarounds):.0f} ms,"
        f" p95 {percentile(turnarounds, 0.95):.0f} ms"
    )
    print(f"deals finished: {finished} in {elapsed:.1f} s = {finished / elapsed:.2f} deals/s")
    print(rest_line(rest))


# --- REST calls by kind: what counts against the bot token's global limit, and what Discord refused ----------


def rest_calls(fake: FakeDiscord) -> dict[str, Any]:
    """The fake's counters now: requests by route, 429s by kind, invalid answers (401/403/429)."""
    stats = fake.limiter.stats
    return {
        "hits": collections.Counter(fake.hits),
        "refused": collections.Counter(stats.refused),
        "emptied": collections.Counter(stats.emptied),
        "invalid": stats.invalid,
        "banned": stats.banned_requests,
    }


def rest_figures(
    fake: FakeDiscord, before: dict[str, Any], after: dict[str, Any], accepted: int, seconds: float
) -> dict[str, Any]:
    """REST calls between two ``rest_calls`` per accepted click, split into the bot token's (bound by the global
    limit) and the interaction tokens' (exempt), by route ("METHOD /template"); retries of a 429 count as calls."""
    calls = after["hits"] - before["hits"]
    routes: dict[str, dict[str, int]] = {"bot token": {}, "interaction token": {}}
    for route, count in calls.items():
        kind = "interaction token" if fake.uses_interaction_token(route.split(" ", 1)[1]) else "bot token"
        routes[kind][route] = count
    return {
        "accepted_clicks": accepted,
        "seconds": seconds,
        "routes": routes,
        "global_calls": sum(routes["bot token"].values()),
        "interaction_calls": sum(routes["interaction token"].values()),
        "rate_limited": dict(after["refused"] - before["refused"]),
        "emptied": dict(after["emptied"] - before["emptied"]),
        "invalid": after["invalid"] - before["invalid"],
        "banned": after["banned"] - before["banned"],
    }


def rest_line(rest: dict[str, Any], retried: int | None = None, surfaced: int | None = None) -> str:
    clicks = max(1, rest["accepted_clicks"])

    def routes(kind: str) -> str:
        ordered = sorted(rest["routes"][kind].items(), key=lambda item: -item[1])
        return ", ".join(f"{route} {count / clicks:.2f}" for route, count in ordered) or "none"

    refused = rest["rate_limited"]
    met = f"; discord.py waited out {retried}, raised to the bot {surfaced}" if retried is not None else ""
    banned = f"; {rest['banned']} refused by a ban" if rest["banned"] else ""
    emptied = ", ".join(f"{name} {count}" for name, count in sorted(rest["emptied"].items())) or "none"
    return (
        f"REST calls per accepted click ({rest['accepted_clicks']} accepted): bot token (global limit) "
        f"{rest['global_calls'] / clicks:.2f} [{routes('bot token')}]; interaction token (exempt) "
        f"{rest['interaction_calls'] / clicks:.2f} [{routes('interaction token')}]; bot-token calls "
        f"{rest['global_calls'] / rest['seconds']:.1f}/s; 429s answered: global {refused.get('global', 0)}, "
        f"route {refused.get('route', 0)}, 30046 {refused.get('old message', 0)}{met}; route buckets left empty "
        f"(discord.py then waits for their reset) {emptied}; invalid answers (401/403/429) {rest['invalid']} "
        f"({rest['invalid'] / rest['seconds']:.2f}/s){banned}"
    )


# --- human pace: people who think, a fixed wall time per step, and the search for capacity ---------------------

THINK_SECONDS = (1.0, 4.0)  # a person looks at their new buttons this long before clicking
TARGET_P95_MS = 300.0
OPENING_AT_ONCE = 16  # tables opening at the same time, per bot process on a whole core
CAPACITY_START_SPREAD = 60.0  # --find-capacity's tables start over this many seconds: about one deal
SETTLE_SECONDS = 12.0  # after the last table started: the opening burst is over, channel hands are open
# The fake Discord of a bench does not check each request against Discord's API spec (the test suite does,
# request by request): the check is jsonschema in Python, about 60% of the fake's core at 40 tables of quick
# clickers, and a fake that slow delays every answer by more than the network latency the bench models.
SPEC_CHECK_IN_BENCHES = False
GRACE_SECONDS = 5.0  # after the window: a click made in it may still see its next buttons
SHOW_MY_CARDS = "Show my cards"
ADD_AI = "Add AI player"


class WatchedDiscord(FakeDiscord):
    """The fake Discord, telling the bench about a message the moment it is created or edited. Hundreds of
    paced tables cannot each re-check the world after every request (``wait_for``): the parent would spend
    more CPU than the bot it measures."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.watchers: list[Callable[[FakeMessage], None]] = []

    def _apply(self, message: FakeMessage, payload: dict[str, Any], files: dict[int, Any], *,
               editing: bool, allow_empty: bool) -> None:  # fmt: skip
        super()._apply(message, payload, files, editing=editing, allow_empty=allow_empty)
        for watcher in self.watchers:
            watcher(message)


class StepFailed(Exception):
    """A step could not be played through (the bot answered too late or not at all): it was not served."""


class PacedRun:
    """The people of every table of one step: routes each changed message to its table, and holds the clock."""

    def __init__(
        self, fake: WatchedDiscord, seed: int, think_seconds: tuple[float, float] = THINK_SECONDS
    ) -> None:
        self.fake = fake
        self.rng = random.Random(seed)
        self.think_seconds = think_seconds  # how long a person looks at new buttons before clicking
        self.table_of_user: dict[int, PacedTable] = {}
        self.table_of_channel: dict[int, PacedTable] = {}
        self.thinking: set[asyncio.Task[None]] = set()
        self.stopping = False
        # When the bot sent or edited a message, by where: "dm" (hands), "ephemeral" (hands in the channel),
        # "channel" (table messages, notices, results).
        self.changes: dict[str, list[float]] = {"dm": [], "ephemeral": [], "channel": []}
        fake.watchers.append(self.watch)

    def watch(self, message: FakeMessage) -> None:
        channel = message.channel
        where = "dm" if channel.is_dm else "ephemeral" if message.ephemeral else "channel"
        self.changes[where].append(time.monotonic())
        if channel.is_dm:
            person = channel.recipient
        elif message.ephemeral and message.interaction is not None:
            person = message.interaction.user
        else:
            table = self.table_of_channel.get(channel.id)
            if table is not None:
                table.channel_changed(message)
            return
        if person is not None and (table := self.table_of_user.get(person.id)) is not None:
            table.hand_changed(person, message)

    def think_then(self, click: Callable[..., Awaitable[None]], *on: Any) -> None:
        """``click(*on)`` once the person has thought it over (unless the run stopped meanwhile)."""
        delay = self.rng.uniform(*self.think_seconds)

        async def later() -> None:
            await asyncio.sleep(delay)
            if not self.stopping:
                await click(*on)

        task = asyncio.create_task(later())
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)

    async def stop(self) -> None:
        self.stopping = True
        for task in list(self.thinking):
            task.cancel()
        await asyncio.gather(*self.thinking, return_exceptions=True)


def enabled_button(message: FakeMessage, custom_id: str) -> bool:
    return not message.deleted and any(
        b.get("custom_id") == custom_id and not b.get("disabled") for b in message.buttons
    )


class PacedTable:
    """One table: four people, or a host and three AI seats. Each person clicks the first enabled game button
    of their hand 1-4 s after it appears. Measured: from a person's click until the next buttons for any
    person at the table appear (a hand with a new position's buttons, a turn notice, a rematch)."""

    def __init__(self, run: PacedRun, guild: FakeGuild, number: int, people: int) -> None:
        self.run = run
        self.fake = run.fake
        self.channel: FakeChannel = guild.add_text_channel(f"table-{number}")
        self.people: list[FakeUser] = []
        for seat in range(people):
            user = self.fake.add_user(f"p{number}-{seat}")
            guild.add_member(user)
            self.people.append(user)
            run.table_of_user[user.id] = self
        run.table_of_channel[self.channel.id] = self
        self.bot_table_id = 0
        self.positions_seen: set[str] = set()
        self.positions_clicked: set[str] = set()
        self.notices_seen: set[int] = set()
        self.results: dict[int, float] = {}  # result message id -> when it was posted: a deal finished
        self.rematch_asked = False
        self.last_click: float | None = None
        self.turnarounds: list[tuple[float, float]] = []  # (click, next buttons shown), monotonic seconds
        self.clicks: list[tuple[float, FakeInteraction]] = []

    async def open(self, ai_seats: int, hands_in_channel: bool) -> None:
        host = self.people[0]
        if hands_in_channel:
            for person in self.people:
                await self.answered(
                    await self.fake.slash(person, self.channel, "schnapsen", "prefs", hand="channel")
                )
        command = await self.answered(await self.fake.slash(host, self.channel, "schnapsen", "new"))
        await command.wait_followups(1, timeout=WAIT)
        for seat in range(1, 4):
            lobby = await self.fake.wait_for(self.lobby, timeout=WAIT, what="the lobby")
            if seat > 3 - ai_seats:
                await self.answered(await self.fake.click(host, lobby, label=ADD_AI))
            else:
                await self.answered(
                    await self.fake.click(self.people[seat], lobby, label=f"Sit {SEATS[seat]}")
                )
        lobby = await self.fake.wait_for(self.lobby, timeout=WAIT, what="the lobby")
        self.bot_table_id = int(str(lobby.button("Start")["custom_id"]).split(":")[1])
        start = await self.fake.click(host, lobby, label="Start")
        self.start_clicked(start)
        await self.answered(start)

    def start_clicked(self, click: FakeInteraction) -> None:
        """The host pressed Start (bench/player_view.py times the table message from here)."""

    async def answered(self, interaction: FakeInteraction) -> FakeInteraction:
        """The interaction once answered; an answer after Discord's 3 s fails the step (the person saw
        "This interaction failed"): the bot is past what it can serve."""
        await self.fake.wait_for(
            lambda: interaction.response is not None or interaction.rejected_callbacks,
            timeout=WAIT,
            what=f"an answer to {interaction.describe()}",
        )
        if interaction.response is None:
            raise StepFailed(
                f"{interaction.describe()} was answered after Discord's 3 s while the tables opened"
            )
        return interaction

    def lobby(self) -> FakeMessage | None:
        for message in reversed(self.channel.messages):
            if any(b.get("label") == "Start" for b in message.buttons):
                return message
        return None

    def buttons_shown(self) -> None:
        if self.last_click is not None:
            self.turnarounds.append((self.last_click, time.monotonic()))
            self.last_click = None

    def hand_changed(self, person: FakeUser, message: FakeMessage) -> None:
        custom_id = game_button(message, set())
        if custom_id is None or position(custom_id) in self.positions_seen:
            return
        self.positions_seen.add(position(custom_id))
        self.rematch_asked = False
        self.buttons_shown()
        self.run.think_then(self.play, person, message, custom_id)

    def channel_changed(self, message: FakeMessage) -> None:
        if message.id not in self.results and "result.png" in message.filenames:
            self.results[message.id] = time.monotonic()
        for button in message.buttons:
            if button.get("disabled"):
                continue
            custom_id = str(button.get("custom_id", ""))
            if button.get("label") == SHOW_MY_CARDS and message.id not in self.notices_seen:
                # A turn notice: the person to act has no hand open in the channel; it opens one.
                person = next((p for p in self.people if f"<@{p.id}>" in message.content), None)
                if person is not None:
                    self.notices_seen.add(message.id)
                    self.buttons_shown()
                    self.run.think_then(self.press, person, message, custom_id)
                return
            if button.get("label") == "Rematch" and not self.rematch_asked:
                self.rematch_asked = True
                self.buttons_shown()
                self.run.think_then(self.press, self.people[0], message, custom_id)
                return

    async def play(self, person: FakeUser, message: FakeMessage, custom_id: str) -> None:
        where = position(custom_id)
        if where in self.positions_clicked or not enabled_button(message, custom_id):
            return  # somebody moved on meanwhile (the newer buttons are handled when they appear)
        self.positions_clicked.add(where)
        clicked = self.last_click = time.monotonic()
        self.clicks.append((clicked, await self.fake.click(person, message, custom_id)))

    async def press(self, person: FakeUser, message: FakeMessage, custom_id: str) -> None:
        if enabled_button(message, custom_id):
            await self.fake.click(person, message, custom_id)


def cpu_seconds(pid: int) -> float:
    """User and system time of a process and all its descendants (the AI workers, which a thread of it
    starts), the reaped ones included, from /proc."""
    own, descendants = process_cpu_seconds(pid)
    return own + descendants


def process_cpu_seconds(pid: int) -> tuple[float, float]:
    """(the process's own user and system time, its descendants' including the reaped ones), from /proc: for a
    bot process, the bot's own work and its AI workers'."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    own = (int(fields[11]) + int(fields[12])) / tick  # utime, stime (all its threads)
    descendants = (int(fields[13]) + int(fields[14])) / tick  # cutime, cstime: reaped children
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            descendants += sum(cpu_seconds(int(child)) for child in (task / "children").read_text().split())
    return own, descendants


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far: how much the other engineer's work took too."""
    fields = [int(f) for f in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(fields) - idle) / tick, sum(fields) / tick


def mark_threads(children: list[asyncio.subprocess.Process]) -> None:
    """Each bot process notes its threads' CPU time by role (bench/bot_bench_child.py), at the window's start
    and end."""
    for child in children:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signal.SIGUSR1)


def thread_seconds(reports: list[dict[str, Any]]) -> dict[str, float]:
    """CPU seconds the bot processes spent in the window by thread role (event loop, render, database, other),
    from their first and last marks."""
    found: dict[str, float] = {}
    for report in reports:
        marks = report.get("cpu_marks", [])
        if len(marks) < 2:
            continue
        first, last = marks[0], marks[-1]
        for role, seconds in last.items():
            if role not in ("at", "process") and ":" not in role:  # "ai:...", "http:...": counters
                found[role] = found.get(role, 0.0) + seconds - first.get(role, 0.0)
    return found


def draws_within(reports: list[dict[str, Any]], start: float, end: float) -> dict[str, int]:
    """Images the bot processes drew in the window, by kind (table, turn, hand, result)."""
    found: dict[str, int] = {}
    for report in reports:
        for kind, at in report.get("draws", []):
            if start <= at < end:
                found[kind] = found.get(kind, 0) + 1
    return found


def ai_seconds_within(spans: list[tuple[float, float]], start: float, end: float) -> float:
    return sum(max(0.0, min(end, span_end) - max(start, span_start)) for span_start, span_end in spans)


class Postgres:
    """A throwaway PostgreSQL cluster (as devtools/pgcluster.py makes it, fsync on) with a fresh database per step."""

    def __init__(self) -> None:
        binaries = server_binaries()
        if binaries is None:
            raise SystemExit("no PostgreSQL server binaries (initdb, pg_ctl) on this machine")
        self.cluster = Cluster(binaries, durable=True)
        self.steps = 0

    def __enter__(self) -> Postgres:
        self.cluster.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.cluster.stop()

    async def fresh_database(self) -> str:
        import asyncpg

        self.steps += 1
        self.name = f"bench{self.steps}"
        connection = await asyncpg.connect(self.cluster.dsn())
        try:
            await connection.execute(f"CREATE DATABASE {self.name}")
        finally:
            await connection.close()
        return self.cluster.dsn(self.name)

    async def watch_write_lock(self, until: asyncio.Event) -> dict[str, float]:
        """Every 50 ms until ``until``: how many transactions wait for the bots' advisory locks (the write lock,
        taken alone or shared, and a guild's lock: bot/db/postgres.py); and commits per second."""
        import asyncpg

        connection = await asyncpg.connect(self.cluster.dsn(self.name))
        commits = "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        waiting_query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        try:
            started, first = time.monotonic(), await connection.fetchval(commits)
            waiting: list[int] = []
            while not until.is_set():
                waiting.append(await connection.fetchval(waiting_query))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(until.wait(), 0.05)
            elapsed, last = time.monotonic() - started, await connection.fetchval(commits)
        finally:
            await connection.close()
        return {
            "lock_waiting_mean": statistics.fmean(waiting) if waiting else 0.0,
            "lock_contended_share": sum(1 for w in waiting if w) / len(waiting) if waiting else 0.0,
            "commits_per_s": (last - first) / elapsed,
        }


async def paced_step(args: argparse.Namespace, table_count: int, postgres: Postgres | None) -> dict[str, Any]:
    """Open ``table_count`` tables, let their people play for ``args.seconds``; the step's figures."""
    fake = WatchedDiscord(record_requests=False, keep_history=False, check_spec=SPEC_CHECK_IN_BENCHES)
    if args.discord_limits:
        fake.enforce_limits()
    await fake.start()
    run = PacedRun(fake, args.seed)
    admin = fake.add_user("admin")
    sharded = args.processes > 1
    guilds = [
        fake.add_guild(f"Bench {shard}", owner=admin, shard=(shard, args.processes) if sharded else None)
        for shard in range(args.processes)
    ]
    people = 4 - args.ai_seats
    tables = [PacedTable(run, guilds[n % len(guilds)], n, people) for n in range(table_count)]
    children: list[asyncio.subprocess.Process] = []
    reports: list[dict[str, Any]] = []
    quotas = (
        [
            CpuQuota(args.cpu_quota, f"schnapsen-bench-{os.getpid()}-{index}", args.quota_period_ms)
            for index in range(args.processes)
        ]
        if args.cpu_quota
        else []
    )
    with tempfile.TemporaryDirectory() as folder:
        database = await postgres.fresh_database() if postgres else str(Path(folder) / "bench.sqlite3")
        try:
            for index in range(args.processes):  # one after the other: the first migrates the database
                children.append(await start_child(
                    fake, database, args, shards=f"{index}/{args.processes}" if sharded else None,
                    cpu=args.bot_cpus[index], quota=quotas[index] if quotas else None,
                    time_ai=args.ai_seats > 0,
                ))  # fmt: skip
            for guild in guilds:  # the AI's deliberate pause before a move (0: only the bot's own time counts)
                channel = next(iter(guild.channels.values()))
                settings = await fake.slash(
                    admin, channel, "schnapsen", "settings", ai_delay_ms=args.ai_delay_ms
                )
                await settings.wait_response(timeout=WAIT)
            # Something else the bot does meanwhile (bench/web_bench.py: viewers of its web pages), set up
            # now and running through the measured window; its figures come back with the step's.
            hook = getattr(args, "window_hook", None)
            if hook is not None:
                await hook.prepare(fake, admin, guilds)
            # Tables open a few at a time (people do not open dozens in one second), fewer on a part of a core.
            opening = asyncio.Semaphore(max(2, round(OPENING_AT_ONCE * (args.cpu_quota or 1.0) * args.processes)))

            async def open_one(number: int, table: PacedTable) -> None:
                # Real tables start at different moments, so their deals do not end together: table n opens
                # n / count of the spread in (--start-spread; 0: all at once, the in-step worst case).
                await asyncio.sleep(args.start_spread * number / len(tables))
                async with opening:
                    await table.open(args.ai_seats, args.hands == "channel")

            opened = time.monotonic()
            await asyncio.gather(*(open_one(number, table) for number, table in enumerate(tables)))
            open_seconds = time.monotonic() - opened
            await asyncio.sleep(SETTLE_SECONDS)
            mark_threads(children)
            calls_start = rest_calls(fake)
            start, cpu_start, busy_start = (
                time.monotonic(),
                [process_cpu_seconds(c.pid) for c in children],
                machine_busy_seconds(),
            )
            periods_start = [quota.periods() for quota in quotas]
            parent_start = sum(os.times()[:2])
            window_over = asyncio.Event()
            lock_watch = asyncio.create_task(postgres.watch_write_lock(window_over)) if postgres else None
            beside = asyncio.create_task(hook.during(args.seconds, tables)) if hook is not None else None
            await asyncio.sleep(args.seconds)
            window_over.set()
            hook_figures = await beside if beside is not None else None
            database_figures = await lock_watch if lock_watch is not None else {}
            throttled = [
                (held - held_before) / max(1, ran - ran_before)
                for (ran_before, held_before), (ran, held) in zip(
                    periods_start, [quota.periods() for quota in quotas], strict=True
                )
            ]
            end, cpu_end, busy_end = (
                time.monotonic(),
                [process_cpu_seconds(c.pid) for c in children],
                machine_busy_seconds(),
            )
            mark_threads(children)
            calls_end = rest_calls(fake)
            parent_end = sum(os.times()[:2])
            # Nobody clicks any more; a click of the window may still see its next buttons.
            run.stopping = True
            await asyncio.sleep(GRACE_SECONDS)
            await run.stop()
        finally:
            try:
                await run.stop()
                for child in children:
                    reports.append(await stop_child(child))
                await fake.stop()
            finally:
                for quota in quotas:
                    quota.remove(tries=50)
    window = end - start
    spans: dict[int, list[tuple[float, float]]] = {}
    turns: dict[int, list[tuple[float, float]]] = {}  # the AI's turns: its pause, any wait, its decision
    for report in reports:
        for table_id, span_start, span_end in report.get("ai_spans", []):
            spans.setdefault(table_id, []).append((span_start, span_end))
        for table_id, span_start, span_end in report.get("ai_turns", []):
            turns.setdefault(table_id, []).append((span_start, span_end))
    if not turns:
        turns = spans
    full: list[float] = []
    without_ai: list[float] = []
    unanswered = 0
    for table in tables:
        for clicked, shown in table.turnarounds:
            if start <= clicked < end:
                full.append((shown - clicked) * 1000)
                ai = ai_seconds_within(turns.get(table.bot_table_id, []), clicked, shown)
                without_ai.append((shown - clicked - ai) * 1000)
        if table.last_click is not None and start <= table.last_click < end:
            unanswered += 1  # no next buttons within the grace: counted as slower than anything
    full += [math.inf] * unanswered
    without_ai += [math.inf] * unanswered
    clicks = [i for t in tables for at, i in t.clicks if start <= at < end]
    answers = [i.response_latency * 1000 for i in clicks if i.response_latency is not None]
    refused = sum(1 for i in clicks if i.response_type == 4 or refused_by_bot(i))
    rest = rest_figures(fake, calls_start, calls_end, len(clicks) - refused, window)
    busy = (busy_end[0] - busy_start[0]) / (busy_end[1] - busy_start[1]) * (os.cpu_count() or 1)
    deals = sum(1 for t in tables for at in t.results.values() if start <= at < end)
    bot_cpu = sum(e[0] - s[0] for s, e in zip(cpu_start, cpu_end, strict=True))
    ai_cpu = sum(e[1] - s[1] for s, e in zip(cpu_start, cpu_end, strict=True))
    # The AI's criterion counts the window's decisions (the opening burst of a step is not what it serves),
    # where the bot noted its AI queue's counters at the window's edges; else the whole run's.
    windowed = all(len(r.get("cpu_marks", [])) >= 2 and "ai:fallbacks" in r["cpu_marks"][0] for r in reports)
    if windowed:
        fallbacks = sum(r["cpu_marks"][-1]["ai:fallbacks"] - r["cpu_marks"][0]["ai:fallbacks"] for r in reports)
        lowered = sum(
            r["cpu_marks"][-1].get("ai:reduced", 0) - r["cpu_marks"][0].get("ai:reduced", 0) for r in reports
        )
        decisions = sum(1 for one in spans.values() for span_start, _ in one if start <= span_start < end)
    else:
        fallbacks = sum(report.get("ai_fallbacks", 0) for report in reports)
        lowered = sum(
            report.get("ai_lowered", report.get("ai_warning_lines", {}).get("lowered", 0)) for report in reports
        )
        decisions = sum(len(one) for one in spans.values())
    return {
        "tables": table_count,
        "open_seconds": round(open_seconds, 1),
        "clicks_per_s": len(clicks) / window,
        "refused": refused,
        "unanswered": unanswered,
        "answer_p95_ms": percentile(answers, 0.95) if answers else math.nan,
        "next_median_ms": statistics.median(full) if full else math.nan,
        "next_p95_ms": percentile(full, 0.95) if full else math.nan,
        "next_p95_without_ai_ms": percentile(without_ai, 0.95) if without_ai else math.nan,
        "turnarounds": len(full),
        "ai_decisions": decisions,
        "ai_counted": "in the window" if windowed else "over the whole step",
        "ai_fallbacks": fallbacks,
        "ai_lowered": lowered,
        "ai_below_full": fallbacks + lowered,
        "ai_warning_samples": [line for report in reports for line in report.get("ai_warning_samples", [])],
        "deals": deals,
        "bot_cpu_per_deal": bot_cpu / deals if deals else math.nan,
        "ai_cpu_per_deal": ai_cpu / deals if deals else math.nan,
        "bot_threads_per_deal": {
            role: seconds / deals if deals else math.nan for role, seconds in thread_seconds(reports).items()
        },
        "draws_per_deal": {
            kind: count / deals if deals else math.nan for kind, count in draws_within(reports, start, end).items()
        },
        "messages_per_deal": {
            where: sum(1 for at in times if start <= at < end) / deals if deals else math.nan
            for where, times in run.changes.items()
        },
        "bot_cores": [round((sum(e) - sum(s)) / window, 2) for s, e in zip(cpu_start, cpu_end, strict=True)],
        "bot_own_core": round(bot_cpu / window, 2),
        "ai_core": round(ai_cpu / window, 2),
        "parent_core": round((parent_end - parent_start) / window, 2),
        "machine_cores": round(busy, 2),
        "throttled": throttled,
        "rest": rest,
        "http_429_retried": marked_between(reports, "http:429 retried"),
        "http_429_surfaced": marked_between(reports, "http:429 surfaced"),
        "bot_rss_at_stop_kb": [report.get("rss_at_stop_kb", 0) for report in reports],
        "bot_serving_peak_rss_kb": [report.get("serving_peak_rss_kb", 0) for report in reports],
        **({"beside": hook_figures} if hook_figures is not None else {}),
        **database_figures,
    }


def marked_between(reports: list[dict[str, Any]], key: str) -> int:
    """How much a counter the bot processes note with each mark grew in the window (first to last mark)."""
    return sum(
        int(r["cpu_marks"][-1].get(key, 0) - r["cpu_marks"][0].get(key, 0))
        for r in reports
        if len(r.get("cpu_marks", [])) >= 2
    )


async def measured_step(args: argparse.Namespace, table_count: int, postgres: Postgres | None) -> dict[str, Any]:
    """``paced_step``'s figures, or a failed step's when it could not be played through."""
    try:
        return await paced_step(args, table_count, postgres)
    except (StepFailed, AssertionError) as err:  # AssertionError: the fake's wait_for timed out
        return failed_step(table_count, str(err))


def failed_step(count: int, reason: str) -> dict[str, Any]:
    """A step that could not be played through: it keeps no criterion."""
    return {"tables": count, "failed": reason, "refused": 0, "next_p95_ms": math.inf,
            "next_p95_without_ai_ms": math.inf, "ai_fallbacks": math.inf, "ai_below_full": math.inf,
            "ai_decisions": 0, "http_429_surfaced": math.inf}  # fmt: skip


def step_line(step: dict[str, Any], ai_seats: int) -> str:
    if "failed" in step:
        return f"{step['tables']:5d} tables: not served: {step['failed']}"
    without = (
        f" (AI turns left out: p95 {step['next_p95_without_ai_ms']:.0f}; of the "
        f"{step['ai_decisions']} AI decisions {step['ai_counted']} {step['ai_fallbacks']} fell back to greedy, "
        f"{step['ai_lowered']} had their budget lowered)"
        if ai_seats
        else ""
    )
    quota = (
        f"; the quota held a bot back in {'+'.join(f'{t:.0%}' for t in step['throttled'])} of the quota periods it ran in"
        if step.get("throttled")
        else ""
    )
    database = (
        f"; PostgreSQL {step['commits_per_s']:.0f} commits/s, a write or guild lock awaited in "
        f"{step['lock_contended_share']:.0%} of samples ({step['lock_waiting_mean']:.2f} waiting on average)"
        if "commits_per_s" in step
        else ""
    )
    return (
        f"{step['tables']:5d} tables: {step['clicks_per_s']:6.1f} clicks/s; click -> next buttons median "
        f"{step['next_median_ms']:.0f} ms, p95 {step['next_p95_ms']:.0f} ms{without}; answer p95 "
        f"{step['answer_p95_ms']:.0f} ms; refused {step['refused']}, no next buttons {step['unanswered']}; "
        f"cores busy: bot {'+'.join(str(c) for c in step['bot_cores'])}, parent {step['parent_core']}, "
        f"machine {step['machine_cores']} of {os.cpu_count()} (opened in {step['open_seconds']} s)"
        f"{quota}{database}\n        {cost_line(step)}"
        f"\n        {rest_line(step['rest'], step['http_429_retried'], step['http_429_surfaced'])}"
    )


def cost_line(step: dict[str, Any]) -> str:
    """The step's CPU per finished deal: the bot's own (by thread role) and its AI workers', and what the bot
    drew and sent per deal."""

    def per_deal(figures: dict[str, float], unit: str = "") -> str:
        return ", ".join(f"{name} {value:.3g}{unit}" for name, value in sorted(figures.items())) or "none"

    threads = {role: seconds * 1000 for role, seconds in step.get("bot_threads_per_deal", {}).items()}
    samples = step.get("ai_warning_samples") or []
    return (
        f"{step['deals']} deals finished in the window; per deal: bot CPU {step['bot_cpu_per_deal'] * 1000:.0f} ms "
        f"({per_deal(threads, ' ms')}), AI CPU {step['ai_cpu_per_deal'] * 1000:.0f} ms; images drawn "
        f"{per_deal(step['draws_per_deal'])}; messages sent or edited {per_deal(step['messages_per_deal'])}; "
        f"cores: bot {step['bot_own_core']}, AI workers {step['ai_core']}"
        + (f"; AI warnings e.g. {samples[0]!r}" if samples else "")
    )


MOST_BELOW_FULL = 0.01  # AI seats: at most this share of AI decisions may fall back to greedy or be cut short


def target_p95_ms(cpu_quota: float | None) -> float:
    """The latency a step must keep: 300 ms on a whole core; on a fraction of a core every click's work takes
    proportionally longer, so the target stretches with it (a bot on half a core is a bot on a core half as
    fast)."""
    return TARGET_P95_MS / (cpu_quota or 1.0)


def criteria(
    ai_seats: int, cpu_quota: float | None = None, discord_limits: bool = False
) -> dict[str, Callable[[dict[str, Any]], bool]]:
    """What a step must keep to count as served: the latency of the people's turns (with AI seats, the AI's
    decisions left out: they take their own time, budget and hard cap, under any load), no refused click, and
    with AI seats, the AI itself (few decisions answered by greedy for want of a free worker or of time)."""
    key = "next_p95_without_ai_ms" if ai_seats else "next_p95_ms"
    target = target_p95_ms(cpu_quota)
    found: dict[str, Callable[[dict[str, Any]], bool]] = {
        f"click -> next buttons p95{', AI decisions left out,' if ai_seats else ''} under {target:.0f} ms "
        "and no click refused"
        + (", no 429 that discord.py raised to the bot" if discord_limits else ""): lambda step: bool(
            step[key] < target
            and step["refused"] == 0
            and (not discord_limits or step["http_429_surfaced"] == 0)
        )
    }
    if ai_seats:
        found[
            f"at most {MOST_BELOW_FULL:.0%} of AI decisions below full strength (greedy or a lowered budget)"
        ] = lambda step: bool(
            step["ai_below_full"] <= MOST_BELOW_FULL * max(1, step["ai_decisions"])
        )
    return found


async def run_paced(args: argparse.Namespace) -> None:
    if None not in args.bot_cpus:
        pin_parent(args.bot_cpus)
    print(describe_setup(args), flush=True)
    postgres = Postgres() if args.database == "postgresql" else None
    with postgres if postgres is not None else contextlib.nullcontext():
        if args.find_capacity:
            await find_capacity(args, postgres)
        elif args.paired_rounds:
            await paired_steps(args, postgres)
        else:
            print(step_line(await paced_step(args, args.tables, postgres), args.ai_seats), flush=True)
    if args.profile:
        for index in range(args.processes):
            shards = f"{index}/{args.processes}" if args.processes > 1 else None
            print(
                f"\nprofile of bot process {index} ({profile_file(args.profile, shards)}), top by own time:"
            )
            pstats.Stats(profile_file(args.profile, shards)).sort_stats("tottime").print_stats(20)


async def find_capacity(args: argparse.Namespace, postgres: Postgres | None) -> None:
    """Double the tables from ``--tables`` while any criterion holds, then bisect ``--bisect`` times for each
    criterion between the most tables that kept it and the fewest that did not."""
    steps: dict[int, dict[str, Any]] = {}
    held = criteria(args.ai_seats, args.cpu_quota, args.discord_limits)

    async def step_of(count: int) -> dict[str, Any]:
        if count not in steps:
            steps[count] = await measured_step(args, count, postgres)
            print(step_line(steps[count], args.ai_seats), flush=True)
        return steps[count]

    count = args.tables
    while count <= args.max_tables:
        step = await step_of(count)
        if not any(keeps(step) for keeps in held.values()):
            break
        count *= 2

    def bounds(keeps: Callable[[dict[str, Any]], bool]) -> tuple[int | None, int | None]:
        """The most tables that kept it below the fewest that did not, and those fewest."""
        failed = min((n for n, step in steps.items() if not keeps(step)), default=None)
        kept = max(
            (n for n, step in steps.items() if keeps(step) and (failed is None or n < failed)), default=None
        )
        return kept, failed

    for keeps in held.values():
        for _ in range(args.bisect):
            kept, failed = bounds(keeps)
            if kept is None or failed is None or failed - kept <= 1:
                break
            await step_of((kept + failed) // 2)
    for name, keeps in held.items():
        kept, failed = bounds(keeps)
        if kept is None:
            print(f"capacity ({name}): not even {min(steps)} table(s)")
            continue
        beyond = f"; {failed} did not" if failed is not None else " (the most tried: --max-tables)"
        print(f"capacity ({name}): {kept} tables, {steps[kept]['clicks_per_s']:.1f} clicks/s{beyond}")


async def paired_steps(args: argparse.Namespace, postgres: Postgres | None) -> None:
    """One process at ``--tables`` against ``--processes`` at ``--pair-ratio`` times the tables, back to back,
    for ``--paired-rounds`` rounds (which goes first alternates): at that ratio of tables, is the latency of
    several processes no higher than one's? Pairs a few minutes apart see the same machine, which a capacity
    search of each, minutes or hours apart on a VM whose speed moves, does not."""
    single = argparse.Namespace(**{**vars(args), "processes": 1, "bot_cpus": [None]})
    more = round(args.tables * args.pair_ratio)
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for round_no in range(1, args.paired_rounds + 1):
        order = [(single, args.tables), (args, more)]
        if round_no % 2 == 0:
            order.reverse()
        steps: dict[int, dict[str, Any]] = {}
        for step_args, count in order:
            steps[step_args.processes] = await measured_step(step_args, count, postgres)
            print(
                f"round {round_no}, {step_args.processes} process(es): "
                + step_line(steps[step_args.processes], args.ai_seats),
                flush=True,
            )
        pairs.append((steps[1], steps[args.processes]))
    one = [pair[0]["next_p95_ms"] for pair in pairs]
    several = [pair[1]["next_p95_ms"] for pair in pairs]
    at_most = sum(1 for a, b in zip(one, several, strict=True) if b <= a)
    clicks = [pair[1].get("clicks_per_s", math.nan) / pair[0].get("clicks_per_s", math.nan) for pair in pairs]
    print(
        f"paired: {args.processes} processes at {more} tables against 1 at {args.tables} ({more / args.tables:.2f}x):"
        f" p95 at most one process's in {at_most} of {len(pairs)} pairs; mean p95 {statistics.fmean(several):.0f}"
        f" against {statistics.fmean(one):.0f} ms; clicks/s {statistics.fmean(clicks):.2f}x"
    )


def pin_parent(bot_cpus: list[int | None]) -> None:
    """The fake Discord and the people run on the cores the bots do not (when there are any left)."""
    rest = set(os.sched_getaffinity(0)) - set(bot_cpus)
    if rest:
        os.sched_setaffinity(0, rest)


def describe_setup(args: argparse.Namespace) -> str:
    seats = {0: "four people", 2: "two people and two AI seats", 3: "one person and three AI seats"}[args.ai_seats]
    processes = (
        "one bot process" if args.processes == 1 else f"{args.processes} bot processes (shards i of n)"
    )
    cores = (
        f"pinned to core(s) {','.join(map(str, args.bot_cpus))}" if None not in args.bot_cpus else "not pinned"
    )
    if args.cpu_quota:
        cores += (
            f", each with its AI workers limited to {args.cpu_quota:g} of a core (cgroup quota per "
            f"{args.quota_period_ms:g} ms; the latency "
            f"target stretches to {target_p95_ms(args.cpu_quota):.0f} ms)"
        )
    return (
        f"human pace: {seats} per table, each thinking {THINK_SECONDS[0]:g}-{THINK_SECONDS[1]:g} s (seed "
        f"{args.seed}); {processes} on {args.database}, {cores}; "
        f"hands by {'DM' if args.hands == 'dm' else 'ephemeral message in the channel'}; the AI's pause before "
        f"a move (ai_delay_ms) {args.ai_delay_ms}; "
        + (
            f"the tables start one after the other over {args.start_spread:g} s (--start-spread)"
            if args.start_spread
            else "the tables start together, their deals in step (--start-spread 0)"
        )
        + ("; table messages edited with the bot token (--table-message-by-bot-token)"
           if args.table_message_by_bot_token else "; table messages edited through their latest click's token")
        + f"; {args.seconds:g} s measured per step after every table started; edits of one "
        f"message coalesced to one per {args.edit_interval:g} s\n{limits_description(args)}"
    )


def limits_description(args: argparse.Namespace) -> str:
    """The fake Discord's rate-limit settings as this run uses them."""
    fake = FakeDiscord()
    if args.discord_limits:
        fake.enforce_limits()
    return fake.limits.describe()


def make_parser() -> argparse.ArgumentParser:
    """The bench's options (bench/web_bench.py runs its human-pace steps with them too)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=("play", "open"), default="play")
    parser.add_argument("--tables", type=int, help="tables (default 50 to play, 100 to open)")
    parser.add_argument("--deals", type=int, default=2, help="deals each table plays (play mode)")
    parser.add_argument(
        "--edit-interval",
        type=float,
        default=PRODUCT_EDIT_INTERVAL,
        help="the bot's coalescing of edits to one message (default: the product's own setting, "
        f"{PRODUCT_EDIT_INTERVAL} s); 0 sends every change at once, the worst case",
    )
    parser.add_argument("--profile", help="cProfile the bot process into this file and print the top")
    parser.add_argument(
        "--cold", action="store_true", help="the bot loads its card art on first use (no preload)"
    )
    parser.add_argument(
        "--pace",
        choices=("instant", "human"),
        default="instant",
        help="instant: people click as soon as buttons show (--deals per table); human: each thinks 1-4 s "
        "first, and the tables play for --seconds",
    )
    parser.add_argument("--seed", type=int, default=1, help="the people's thinking times (human pace)")
    parser.add_argument(
        "--ai-seats",
        type=int,
        choices=(0, 2, 3),
        default=0,
        help="human pace: 3 = one person and three AI seats, 2 = two people and two AI seats",
    )
    parser.add_argument(
        "--ai-delay-ms",
        type=int,
        default=0,
        help="human pace: the guild's ai_delay_ms, the AI's deliberate pause before a move (default 0; the "
        "product ships 1200); the pause is left out of the latency figure with the AI's decisions",
    )
    parser.add_argument(
        "--processes", type=int, choices=(1, 2), default=1, help="bot processes (2: shards 0, 1 of 2)"
    )
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--hands",
        choices=("dm", "channel"),
        default="dm",
        help="where people see and click their hand (default dm; with two processes a DM click for a shard-1 "
        "table goes through the click inbox)",
    )
    parser.add_argument(
        "--bot-cpus", help="core of each bot process, comma-separated (default: the last core; 0,1 for two)"
    )
    parser.add_argument(
        "--cpu-quota",
        type=float,
        help="human pace: limit each bot process and its AI workers to this fraction of a core (a cgroup CPU "
        "quota; needs root); without --bot-cpus the bots are then not pinned. Two processes at 0.4 each on "
        "two cores leave the fake Discord and PostgreSQL room: one-core-each scaling, shrunk",
    )
    parser.add_argument(
        "--quota-period-ms",
        type=float,
        default=10.0,
        help="--cpu-quota's period (default 10 ms; shorter comes closer to a slower core, but 2 ms gave erratic "
        "results on this machine; the quota is at least 1 ms, so a fraction F needs a period of at least 1/F ms)",
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="human pace: measured time per step")
    parser.add_argument(
        "--table-message-by-bot-token",
        action="store_true",
        help="human pace: the bot remembers no click on a table message, so it edits it with the bot token: the "
        "worst case for the token, as in a Bummerl past its Start click's 14 minutes (within them the click's "
        "token edits it, off the global limit)",
    )
    parser.add_argument(
        "--start-spread",
        type=float,
        help="human pace: the tables start one after the other, evenly over this many seconds, so that their "
        f"deals do not start and end in step as they would not on Discord (default {CAPACITY_START_SPREAD:g} "
        "with --find-capacity, about one deal at human pace, else 0); 0 starts them together, the worst case",
    )
    parser.add_argument(
        "--find-capacity",
        action="store_true",
        help="human pace: double the tables from --tables while the p95 stays under 300 ms, then bisect",
    )
    parser.add_argument(
        "--bisect", type=int, default=2, help="bisection steps after doubling (--find-capacity)"
    )
    parser.add_argument("--max-tables", type=int, default=1280, help="the most tables --find-capacity tries")
    parser.add_argument(
        "--paired-rounds",
        type=int,
        default=0,
        help="human pace, with --processes N and --cpu-quota: this many pairs of one process at --tables against"
        " N processes at --pair-ratio times the tables, back to back",
    )
    parser.add_argument("--pair-ratio", type=float, default=1.8, help="the tables of N processes per table of one")
    parser.add_argument(
        "--discord-limits",
        action="store_true",
        help="the fake Discord enforces Discord's rate limits (global 50/s per bot token, per-channel message "
        "buckets, the 30046 rule, the invalid-request ban), answering 429s discord.py must wait out; with "
        "--find-capacity a step must also raise no 429 to the bot",
    )
    return parser


def main() -> None:
    parser = make_parser()
    args = parser.parse_args()
    if args.pace == "instant":
        if args.tables is None:
            args.tables = 100 if args.mode == "open" else 50
        asyncio.run(run(args))
        return
    if args.processes > 1 and args.database != "postgresql":
        parser.error("several processes share a PostgreSQL database: add --database postgresql")
    if args.tables is None:
        args.tables = 20
    if args.start_spread is None:
        args.start_spread = CAPACITY_START_SPREAD if args.find_capacity else 0.0
    if args.paired_rounds and (args.find_capacity or args.processes < 2 or not args.cpu_quota):
        parser.error("--paired-rounds compares --processes 2 or more with one, each under --cpu-quota")
    cpus = sorted(os.sched_getaffinity(0))
    if args.cpu_quota:
        if not 0 < args.cpu_quota <= 1:
            parser.error("--cpu-quota is a fraction of one core: above 0, at most 1")
        if args.cpu_quota * args.quota_period_ms < 1:
            parser.error("--cpu-quota times --quota-period-ms must be at least 1 ms (the kernel's least quota)")
        if (why := CpuQuota.usable()) is not None:
            parser.error(f"--cpu-quota: {why}")
    if args.bot_cpus:
        args.bot_cpus = [int(cpu) for cpu in args.bot_cpus.split(",")]
    elif args.cpu_quota:
        args.bot_cpus = [None] * args.processes
    else:
        args.bot_cpus = cpus[-args.processes :] if len(cpus) >= args.processes else cpus * args.processes
    if len(args.bot_cpus) != args.processes:
        parser.error("--bot-cpus names one core per bot process")
    asyncio.run(run_paced(args))


if __name__ == "__main__":
    main()
