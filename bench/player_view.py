"""What the players see, and when (issue 35): the real bot in a child process pinned to one core (as
bench/bot_bench.py runs it), four people per table, through the fake Discord with a latency each way.

Run from the repository root:

    python bench/player_view.py                                    # 40 tables by DM, human pace, 80 ms
    python bench/player_view.py --pace quick                       # quick clickers (0.1-0.2 s)
    python bench/player_view.py --hands channel                    # hands shown ephemerally in the channel
    python bench/player_view.py --tables 20 --seconds 30 --latency-ms 0

Every REST call takes effect in the fake --latency-ms after the bot sent it and answers as long after that;
every gateway event (a click's INTERACTION_CREATE) reaches the bot --latency-ms after the fake emitted it
(devtools/fakediscord/latency.py: 80 ms each way is typical of a server far from Discord). The fake enforces
Discord's rate limits (--no-discord-limits turns them off). People think --pace human 1-3 s or --pace quick
0.1-0.2 s before each click on the first enabled game button of their hand: their DM (--hands dm) or the
ephemeral hand "Show my cards" opens in the channel (--hands channel). Someone whose own message still offers
the card they clicked a thinking time later clicks it again (at most twice), as soon as their client lets them:
Discord's client disables every button of a message while an interaction from it waits for its answer
(discord/discord-api-docs#4730), so a second click comes only after the first click's answer reached the
person (or its three seconds passed: "interaction failed") and left the card on offer, e.g. a deferred update
whose edit has not come yet. It repeats the move the first made: the bot acknowledges it with a deferred
update that shows nothing (a DM), or answers it with the hand as it stands (a hand in the channel); the
position's version keeps it from making a move of its own. --impatient-clients lets people click again while
the first click is still waiting (the bench's model before it followed the client), which costs the bot an
interaction more per quick click.

The tables start one after the other over --start-spread seconds, the bot settles for 12 s, then --seconds
are measured. Per accepted game click in that window, from the click (the moment the fake created the
interaction) until the person sees it, i.e. until the fake put it into effect plus the latency on the way back
to the person's client:

(a) the clicker's own message shows the click: the clicked hand no longer offers that position's buttons,
    by the callback of type 7 or by an edit, whichever came first;
(b) the next person's buttons: any hand of the table shows enabled buttons of a newer position (in the
    channel: or a turn notice asks someone to open theirs; after a Bummerl, Rematch);
(c) the table message shows the played card (card clicks only): its table image's alt text names the card
    (as the card's button named it) or a card played after it, or the deal ended since the click (a result);
(d) after Start (every table's, during the opening): the table message shows the deal, i.e. leaves the lobby.

Each as p50 / p95 / max; a click whose view never came within 5 s after the window is counted as never (and
as infinitely slow in the percentiles). Then where an accepted click's time goes inside the bot (its steps,
timed in the bot's process from the click's snowflake: the way to the bot, to its handler, the move stored,
the answer drawn, the answer's round trip), which tells a wait on the CPU from a wait in a queue. Beside
them: the REST calls per accepted click on the bot token's
global limit (calls not through an interaction token, as bot_bench.py counts them), and the clicks answered
"out of date"; how busy the bot's core was and how late its event loop woke a task sleeping 10 ms (every wait
of the bot, on Discord or the database, waits as long again), and the same for the fake Discord and the people
(a late fake delays every figure it measures). The bot runs the working tree as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bot_bench import (
    GRACE_SECONDS,
    OPENING_AT_ONCE,
    PRODUCT_EDIT_INTERVAL,
    SETTLE_SECONDS,
    SHOW_MY_CARDS,
    SPEC_CHECK_IN_BENCHES,
    PacedRun,
    PacedTable,
    WatchedDiscord,
    enabled_button,
    game_button,
    percentile,
    pin_parent,
    position,
    refusal,
    rest_calls,
    rest_figures,
    rest_line,
    start_child,
    stop_child,
)
from bench.child_bot import watch_lateness
from devtools.fakediscord import FakeGuild, FakeInteraction, FakeMessage, FakeUser

ROOT = Path(__file__).resolve().parents[1]
PACES = {"human": (1.0, 3.0), "quick": (0.1, 0.2)}
CARD_VERBS = ("play", "mar")
MOST_REPEATS = 2  # a person clicks an unchanged card again at most this often
# Discord's client shows "This interaction failed" (and lets its buttons be clicked again) when no answer came
# within an interaction's three seconds.
INTERACTION_FAILS_AFTER = 3.0
TABLE_IMAGE = "table.png"


def stale_text() -> str:
    """The bot's English refusal of a button whose position has moved on (its catalogue, read as data)."""
    with contextlib.suppress(OSError, ValueError, KeyError):
        return str(json.loads((ROOT / "bot" / "i18n" / "en.json").read_text(encoding="utf-8"))["error.stale"])
    return "out of date"


STALE = stale_text()


def accepted(click: FakeInteraction) -> bool:
    return click.response is not None and click.response.type != 4 and refusal(click) is None


def shows_position(message: FakeMessage, where: str) -> bool:
    """Whether the message still offers an enabled game button of the position ``table:version``."""
    return any(
        position(str(b.get("custom_id", ""))) == where and not b.get("disabled")
        for b in message.buttons
        if str(b.get("custom_id", "")).count(":") == 4
    )


def names(text: str, name: str | None) -> bool:
    return name is not None and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def card_name(message: FakeMessage, custom_id: str) -> str | None:
    """A card's name as the hand's own "play" button for that card says it (a marriage's card too)."""
    parts = custom_id.split(":")
    if parts[3] not in CARD_VERBS:
        return None
    card = parts[4][:2]
    for button in message.buttons:
        other = str(button.get("custom_id", "")).split(":")
        if len(other) == 5 and other[3] == "play" and other[4] == card:
            return str(button.get("label") or "") or None
    return None


@dataclass(eq=False)
class Click:
    """A person's first click on a position, and when they saw what it did (the fake's monotonic time of the
    change; the person sees it a latency later)."""

    interaction: FakeInteraction
    person: FakeUser
    message: FakeMessage
    custom_id: str
    card: str | None  # the card's name, for a card
    index: int  # its place among the table's clicks
    own: float | None = None  # (a)
    next: float | None = None  # (b)
    table: float | None = None  # (c), card clicks only
    table_by: str = ""  # what showed it: "its card", "a later card", "the deal's end"
    repeats: list[FakeInteraction] = field(default_factory=list)

    @property
    def at(self) -> float:
        return self.interaction.created_at

    @property
    def where(self) -> str:
        return position(self.custom_id)

    @property
    def version(self) -> int:
        return int(self.custom_id.split(":")[2])


class ViewTable(PacedTable):
    """One table of four people (bot_bench.py's paced table), with what each click looked like to them."""

    def __init__(self, run: PacedRun, guild: FakeGuild, number: int, *, clients_wait: bool = True) -> None:
        super().__init__(run, guild, number, 4)
        self.clients_wait = clients_wait  # a message's buttons wait for the answer to a click on it
        self.records: list[Click] = []
        self.waiting: dict[str, list[Click]] = {"own": [], "next": [], "table": []}
        self.start: FakeInteraction | None = None
        self.start_shown: float | None = None

    def start_clicked(self, click: FakeInteraction) -> None:
        self.start = click

    # --- what the people see --------------------------------------------------------------------------

    def hand_changed(self, person: FakeUser, message: FakeMessage) -> None:
        now = message.changed_at[-1]
        for click in list(self.waiting["own"]):
            if click.message is message and now >= click.at and not shows_position(message, click.where):
                click.own = now
                self.waiting["own"].remove(click)
        found = game_button(message, set())
        if found is not None:
            self.next_buttons(now, lambda click: int(found.split(":")[2]) > click.version)
        super().hand_changed(person, message)

    def next_buttons(self, now: float, newer: Any = lambda click: True) -> None:
        for click in list(self.waiting["next"]):
            if now >= click.at and newer(click):
                click.next = now
                self.waiting["next"].remove(click)

    def channel_changed(self, message: FakeMessage) -> None:
        now = message.changed_at[-1]
        labels = {b.get("label") for b in message.buttons if not b.get("disabled")}
        if SHOW_MY_CARDS in labels and len(message.changed_at) == 1:
            self.next_buttons(now)  # a turn notice: the next person is asked to open their hand
        elif message.embeds and "result.png" not in message.filenames and self.is_table_message(message):
            self.table_changed(message, now, labels)
        new_result = "result.png" in message.filenames and message.id not in self.results
        super().channel_changed(message)
        if new_result:
            self.deal_ended(now)

    def deal_ended(self, now: float) -> None:
        """A result came after the table message last changed (a deal that ended on a lead, whose card the table
        never shows, at the end of a Bummerl, when no later change follows): it shows the cards played before."""
        for click in list(self.waiting["table"]):
            if click.at <= now:
                click.table, click.table_by = now, "the deal's end"
                self.waiting["table"].remove(click)

    def is_table_message(self, message: FakeMessage) -> bool:
        return any(str(b.get("custom_id", "")).startswith(f"bs:{self.bot_table_id}:") for b in message.buttons)

    def table_changed(self, message: FakeMessage, now: float, labels: set[Any]) -> None:
        in_lobby = "Start" in labels
        if self.start is not None and self.start_shown is None and not in_lobby and now >= self.start.created_at:
            self.start_shown = now
        if "Rematch" in labels:
            self.next_buttons(now)
        image = next((a for a in message.attachments if a.filename == TABLE_IMAGE), None)
        alt = (image.description or "") if image is not None else ""
        dealt_since = [at for at in self.results.values() if at <= now]
        later_shown = -1  # the latest card click whose card the message names
        for click in reversed(self.records):
            if click.card is not None and click.at <= now and names(alt, click.card):
                later_shown = click.index
                break
        for click in list(self.waiting["table"]):
            if now < click.at:
                continue
            if click.index == later_shown:
                click.table_by = "its card"
            elif click.index < later_shown:
                click.table_by = "a later card"
            elif any(click.at < at for at in dealt_since) or (image is None and not in_lobby):
                click.table_by = "the deal's end"
            else:
                continue
            click.table = now
            self.waiting["table"].remove(click)

    # --- what the people do -----------------------------------------------------------------------------

    async def play(self, person: FakeUser, message: FakeMessage, custom_id: str) -> None:
        clicked = len(self.clicks)
        await super().play(person, message, custom_id)
        if len(self.clicks) == clicked:
            return  # the position had moved on meanwhile
        interaction = self.clicks[-1][1]
        click = Click(interaction, person, message, custom_id, card_name(message, custom_id), len(self.records))
        self.records.append(click)
        self.waiting["own"].append(click)
        self.waiting["next"].append(click)
        if click.card is not None:
            self.waiting["table"].append(click)
        if len(message.changed_at) and message.changed_at[-1] >= click.at:
            self.hand_changed(person, message)  # it changed while the click was being made
        self.run.think_then(self.click_again, click)

    async def click_again(self, click: Click) -> None:
        """The card is still offered a thinking time later: the person clicks it again, once their client lets
        them (while it waits for the answer to their last click, it looks again a thinking time later)."""
        if click.own is not None or len(click.repeats) >= MOST_REPEATS:
            return
        if not enabled_button(click.message, click.custom_id):
            return
        last = click.repeats[-1] if click.repeats else click.interaction
        if self.clients_wait and waits_for_answer(last, self.fake.latency, time.monotonic()):
            self.run.think_then(self.click_again, click)
            return
        click.repeats.append(await self.fake.click(click.person, click.message, click.custom_id))
        self.run.think_then(self.click_again, click)


def waits_for_answer(interaction: FakeInteraction, latency: float, now: float) -> bool:
    """Whether the person's client still waits, at ``now``, for the answer to ``interaction`` (the message's buttons
    disabled): until the answer reached them, ``latency`` after it took effect in the fake, or the interaction
    failed."""
    if interaction.response is None:
        return now < interaction.created_at + INTERACTION_FAILS_AFTER + latency
    return now < interaction.response.at + latency


# --- one run ------------------------------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> dict[str, Any]:
    fake = WatchedDiscord(record_requests=False, keep_history=False, check_spec=SPEC_CHECK_IN_BENCHES)
    if args.discord_limits:
        fake.enforce_limits()
    await fake.start()
    people = PacedRun(fake, args.seed, PACES[args.pace])
    admin = fake.add_user("admin")
    guild = fake.add_guild("Player view", owner=admin)
    tables = [ViewTable(people, guild, number, clients_wait=not args.impatient_clients) for number in range(args.tables)]
    report: dict[str, Any] = {}
    fake_load: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        child = await start_child(fake, Path(folder) / "bench.sqlite3", args, cpu=args.bot_cpu)
        try:
            # The latency from here on: the bot logs in and syncs quickly, then plays far from Discord.
            fake.latency = args.latency_ms / 1000
            opening = asyncio.Semaphore(OPENING_AT_ONCE)

            async def open_one(number: int, table: ViewTable) -> None:
                await asyncio.sleep(args.start_spread * number / len(tables))
                async with opening:
                    await table.open(0, args.hands == "channel")

            opened = time.monotonic()
            await asyncio.gather(*(open_one(number, table) for number, table in enumerate(tables)))
            open_seconds = time.monotonic() - opened
            await asyncio.sleep(SETTLE_SECONDS)
            calls_start, start = rest_calls(fake), time.monotonic()
            cpu_start, fake_cpu_start = bot_cpu_seconds(child.pid), bot_cpu_seconds(os.getpid())
            fake_late: list[tuple[float, float]] = []  # the fake's event loop (the people's too)
            watch = asyncio.create_task(watch_lateness(fake_late))
            await asyncio.sleep(args.seconds)
            watch.cancel()
            calls_end, end = rest_calls(fake), time.monotonic()
            cpu_end, fake_cpu_end = bot_cpu_seconds(child.pid), bot_cpu_seconds(os.getpid())
            fake_load["fake_core"] = round((fake_cpu_end - fake_cpu_start) / (end - start), 2)
            fake_load["fake_late"] = [late for _, late in fake_late]
            people.stopping = True
            await asyncio.sleep(GRACE_SECONDS)
        finally:
            await people.stop()
            report = await stop_child(child) | fake_load
            await fake.stop()
    return figures(args, fake, tables, start, end, open_seconds, calls_start, calls_end, cpu_end - cpu_start, report)


# The steps of an accepted click inside the bot (bench/bot_bench_child.py, ClickSteps), each timed from the
# one before it, the first from the click: the way to the bot (the latency and the bot's reading of it),
# waiting for the handler to run, the move's checks and storage, drawing the answer, and the callback's round
# trip to Discord.
STEPS = ("to the bot", "to its handler", "stored", "answer drawn", "answer's round trip")


def p50_p95(values: list[float]) -> list[float] | None:
    return [round(statistics.median(values), 1), round(percentile(values, 0.95), 1)] if values else None


def bot_cpu_seconds(pid: int) -> float:
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return math.nan


def figures(
    args: argparse.Namespace,
    fake: WatchedDiscord,
    tables: list[ViewTable],
    start: float,
    end: float,
    open_seconds: float,
    calls_start: dict[str, Any],
    calls_end: dict[str, Any],
    bot_cpu: float,
    report: dict[str, Any],
) -> dict[str, Any]:
    back = args.latency_ms / 1000  # on the way from Discord to the person's client

    def seen(clicks: list[Click], attribute: str) -> list[float]:
        return [
            (getattr(c, attribute) + back - c.at) * 1000 if getattr(c, attribute) is not None else math.inf
            for c in clicks
        ]

    clicks = [c for t in tables for c in t.records if start <= c.at < end]
    taken = [c for c in clicks if accepted(c.interaction)]
    cards = [c for c in taken if c.card is not None]
    unnamed = sum(1 for t in tables for c in t.records if start <= c.at < end and c.card is None
                  and c.custom_id.split(":")[3] in ("play", "mar"))  # fmt: skip
    starts = [
        (t.start_shown + back - t.start.created_at) * 1000 if t.start_shown is not None else math.inf
        for t in tables
        if t.start is not None
    ]
    by_callback = sum(
        1
        for c in taken
        if c.own is not None
        and c.interaction.response is not None
        and c.interaction.response.type == 7
        and abs(c.interaction.response.at - c.own) < 0.005
    )
    every_click = [i for t in tables for at, i in t.clicks if start <= at < end] + [
        r for t in tables for c in t.records if start <= c.at < end for r in c.repeats
    ]
    stale = sum(1 for i in every_click if STALE in (refusal(i) or ""))
    repeats = [r for c in clicks for r in c.repeats]
    rest = rest_figures(fake, calls_start, calls_end, len(taken), end - start)
    window = end - start
    noted = report.get("click_steps", {})
    steps = [s for s in (noted.get(str(c.interaction.id), []) for c in taken) if len(s) == len(STEPS)]
    return {
        "tables": len(tables),
        "hands": args.hands,
        "pace": args.pace,
        "latency_ms": args.latency_ms,
        "open_seconds": round(open_seconds, 1),
        "window_seconds": round(window, 1),
        "clicks": len(clicks),
        "accepted": len(taken),
        "clicks_per_s": round(len(taken) / window, 1),
        "own": seen(taken, "own"),
        "own_by_callback": by_callback,
        "next": seen(taken, "next"),
        "table": seen(cards, "table"),
        "table_by": dict(collections.Counter(c.table_by for c in cards if c.table is not None)),
        "cards_unnamed": unnamed,
        "start": starts,
        "second_clicks": len(repeats),
        # A second click repeats the move its first made: on a DM it is acknowledged with a deferred update that
        # shows nothing (type 6), on a hand in the channel answered with the hand as it stands (type 7).
        "second_clicks_acknowledged": sum(
            1 for r in repeats if r.response is not None and r.response.type == 6 and refusal(r) is None
        ),
        "second_clicks_shown": sum(1 for r in repeats if r.response is not None and r.response.type == 7),
        "out_of_date": stale,
        "first_clicks_refused": sum(1 for c in clicks if refusal(c.interaction) is not None),
        # No callback within Discord's 3 s (the person saw "This interaction failed"), or none at all.
        "first_clicks_unanswered": sum(1 for c in clicks if c.interaction.response is None),
        "rest": rest,
        "bot_core": round(bot_cpu / window, 2),
        # What saturates the core: every interaction costs, a second click on a stale message as well.
        "bot_cpu_ms_per_interaction": round(1000 * bot_cpu / max(1, len(clicks) + len(repeats)), 2),
        "fake_core": report.get("fake_core"),
        "bot_late_ms": p50_p95([ms for at, ms in report.get("loop_late", []) if start <= at <= end]),
        "fake_late_ms": p50_p95(report.get("fake_late", [])),  # a late fake delays every figure it measures
        "http_429_retried": report.get("http_429_retried", 0),
        "http_429_surfaced": report.get("http_429_surfaced", 0),
        # Each step's share of the clicks' time, from the step before it (the first from the click).
        "steps": {
            name: p50_p95([s[n] - (s[n - 1] if n else 0.0) for s in steps]) for n, name in enumerate(STEPS)
        },
        "steps_clicks": len(steps),
    }


# --- the printout -------------------------------------------------------------------------------------------


def ms(value: float) -> str:
    return "never" if math.isinf(value) else f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def row(what: str, values: list[float]) -> str:
    if not values:
        return f"| {what} | - | - | - | 0 | - |"
    never = sum(1 for v in values if math.isinf(v))
    return (
        f"| {what} | {ms(statistics.median(values))} | {ms(percentile(values, 0.95))} | {ms(max(values))} "
        f"| {len(values)} | {never} |"
    )


def describe(args: argparse.Namespace) -> str:
    think = PACES[args.pace]
    hands = "DM" if args.hands == "dm" else "ephemeral hand in the channel"
    limits = "Discord's rate limits enforced" if args.discord_limits else "no rate limits"
    again = "while it waits for its answer" if args.impatient_clients else "once its answer came"
    return (
        f"player view: {args.tables} tables of four people, hands by {hands}, {args.pace} pace "
        f"({think[0]:g}-{think[1]:g} s a click, seed {args.seed}; a card still offered is clicked again {again}); "
        f"{args.latency_ms:g} ms each way; bot on core "
        f"{args.bot_cpu}; {limits}; tables started over {args.start_spread:g} s, {args.seconds:g} s measured; "
        f"{working_tree()}"
    )


def working_tree() -> str:
    def git(*command: str) -> str:
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            return subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return ""

    commit = git("rev-parse", "--short", "HEAD").strip() or "unknown commit"
    changed = git("status", "--porcelain", "--", "bot", "engine").strip()
    return f"commit {commit}" + (" with uncommitted changes in bot/ or engine/" if changed else "")


def print_report(args: argparse.Namespace, found: dict[str, Any]) -> None:
    f = found
    print(describe(args))
    print(
        f"accepted game clicks in the window: {f['accepted']} ({f['clicks_per_s']} a second); first clicks refused "
        f"{f['first_clicks_refused']}, not answered within 3 s {f['first_clicks_unanswered']}; tables opened in "
        f"{f['open_seconds']} s; bot core busy {f['bot_core']} ({f['bot_cpu_ms_per_interaction']} ms of CPU per interaction, "
        f"first and second clicks), its event loop late p50 / p95 {f['bot_late_ms']} "
        f"ms; the fake's and the people's core busy {f['fake_core']}, their event loop late p50 / p95 "
        f"{f['fake_late_ms']} ms"
    )
    print("| what a player sees, from the click (+ the latency back to their client) | p50 | p95 | max | clicks | never |")
    print("|---|---|---|---|---|---|")
    print(row(f"(a) the clicker's own message shows the click ({f['own_by_callback']} by a type 7 answer)", f["own"]))
    print(row("(b) the next person's buttons come", f["next"]))
    shown_by = ", ".join(f"{count} by {how}" for how, count in sorted(f["table_by"].items()))
    print(row(f"(c) the table message shows the played card ({shown_by})", f["table"]))
    print(row("(d) after Start, the table message shows the deal (every table)", f["start"]))
    rest = f["rest"]
    print(
        f"bot-token calls per accepted click: {rest['global_calls'] / max(1, rest['accepted_clicks']):.2f}; "
        f"clicks answered \"out of date\": {f['out_of_date']}; second clicks on a message not updated yet: "
        f"{f['second_clicks']}, acknowledged as a repeat of the move made {f['second_clicks_acknowledged']}, "
        f"answered with the hand as it stands {f['second_clicks_shown']}"
        + (f"; card clicks whose card had no name on its hand: {f['cards_unnamed']}" if f["cards_unnamed"] else "")
    )
    print(rest_line(rest, f["http_429_retried"], f["http_429_surfaced"]))
    split = "; ".join(f"{name} {value}" for name, value in f["steps"].items())
    print(
        f"where an accepted click's time goes in the bot ({f['steps_clicks']} answered by type 7), "
        f"each step's p50 / p95 ms from the one before: {split}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--hands", choices=("dm", "channel"), default="dm")
    parser.add_argument("--pace", choices=tuple(PACES), default="human")
    parser.add_argument("--latency-ms", type=float, default=80.0, help="each way, REST and gateway (default 80)")
    parser.add_argument("--seconds", type=float, default=60.0, help="the measured window (default 60)")
    parser.add_argument(
        "--start-spread", type=float, default=20.0, help="the tables start one after the other over this long"
    )
    parser.add_argument("--seed", type=int, default=1, help="the people's thinking times")
    parser.add_argument("--bot-cpu", type=int, help="the bot's core (default: the last)")
    parser.add_argument(
        "--no-discord-limits", dest="discord_limits", action="store_false", help="the fake enforces no rate limits"
    )
    parser.add_argument(
        "--impatient-clients",
        action="store_true",
        help="people click again while their first click still waits for its answer (Discord's client does not let them)",
    )
    parser.add_argument("--json", action="store_true", help="also print one JSON line with every figure")
    args = parser.parse_args()
    # What bench/bot_bench.py's start_child reads: the bot as shipped.
    args.edit_interval, args.profile, args.cold, args.table_message_by_bot_token = (
        PRODUCT_EDIT_INTERVAL, None, False, False,
    )  # fmt: skip
    if args.bot_cpu is None:
        args.bot_cpu = sorted(os.sched_getaffinity(0))[-1]
    pin_parent([args.bot_cpu])
    found = asyncio.run(run(args))
    print_report(args, found)
    if args.json:
        print(json.dumps({k: v for k, v in found.items()}, default=str))


if __name__ == "__main__":
    main()
