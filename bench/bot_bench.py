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
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import pstats
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.settings import Settings
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeInteraction, FakeMessage, FakeUser

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
    fake: FakeDiscord, database: Path, args: argparse.Namespace
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
        command += ["--profile", args.profile]
    if args.cold:
        command.append("--cold")
    child = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), 120)
    if line.strip() != b"READY":
        raise RuntimeError(f"the bot process did not start: {line!r}")
    return child


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
    fake = FakeDiscord(record_requests=False, keep_history=False)
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
    clicked: set[str] = set()
    await asyncio.gather(*(t.play(deals, clicked) for t in tables))
    elapsed = time.monotonic() - started
    clicks = [c for t in tables for c in t.clicks]
    await fake.wait_for(
        lambda: all(c.response is not None or c.rejected_callbacks for c in clicks),
        timeout=WAIT,
        what="every click to be answered",
    )

    # Let the bot finish what the last clicks started (the next deal's DMs) before it is stopped.
    def settled() -> bool:
        return all(len(fake.dm_messages(user)) > t.finished_deals() for t in tables for user in t.people)

    with contextlib.suppress(AssertionError):
        await fake.wait_for(settled, timeout=30, what="the next deal's hands")
    latencies = [c.response_latency * 1000 for c in clicks if c.response_latency is not None]
    turnarounds = [s * 1000 for t in tables for s in t.turnarounds]
    refused = sum(1 for c in clicks if c.followups)
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


def main() -> None:
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
    args = parser.parse_args()
    if args.tables is None:
        args.tables = 100 if args.mode == "open" else 50
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
