"""Chaos: whole Bummerl played against the fake Discord while faults of every kind are injected at random.

The fake Discord runs here; the real bot runs in a child process (bench/chaos_child.py) on one database that
survives its restarts: a SQLite file, or with ``--database postgresql`` a database of a throwaway PostgreSQL
cluster (the machine's initdb and pg_ctl, as the tests make it). Run from the repository root:

    python bench/chaos.py                                   # 25 tables x 3 Bummerl to 24, 25 kill -9 restarts
    python bench/chaos.py --tables 3 --bummerl 1 --target 3 --restarts 3 --restart-every 6 --duration 80
    python bench/chaos.py --json                            # also one JSON line with every figure
    python bench/chaos.py --database postgresql             # the bot on PostgreSQL
    python bench/chaos.py --discord-limits                  # and the fake enforces Discord's rate limits
    python bench/chaos.py --discord-limits --global-limit 3 # a token budget a few tables come close to (CI)
    python bench/chaos.py --latency-ms 80                   # 80 ms each way between the bot and Discord

People are UI-only: each clicks what their own messages show. With open DMs: an enabled game button of the
newest hand DM. With closed DMs (some players close them mid-deal): "My hand" on the table message, then the
buttons of that ephemeral hand. Anyone who sees nothing change at the table for a while also asks for "My hand",
as a person would; so does anyone told that a button of their ephemeral hand is out of date (an ephemeral hand
whose click was cut off by a kill -9 is never updated again, and the refusal says to use the newest message).
A click that changed nothing is repeated after a few seconds if the button is still shown.
In the lobby the seated people take their seats and the host presses Start (empty seats become AI players:
some tables have one or two); after a Bummerl a player presses Rematch until the table has played --bummerl.

Faults, at random (seeded): a probability per REST request of a 429 (retry_after, X-RateLimit-* headers
including X-RateLimit-Scope; now and then global) or a 500/502/503/504 on every route the bot uses except the
login calls, and at a higher rate (--post-fault-rate) on message creates: results, notices and hand DMs
(some 5xx arrive after the request took effect, as when Discord's answer is lost); players who
close their DMs mid-deal (403 50007 from then on, on sends and edits); gateway closes with resumable and
non-resumable codes, op 7 reconnects, op 9 invalid sessions (resumable and not); storage write failures for a
few seconds (SIGUSR1 to the child); AI worker processes killed mid-search (SIGUSR2) and searches given a 1 ms
hard cap; and ``kill -9`` of the bot's whole process group followed by a restart on the same database.

Figures and how they are measured:

- Bummerl finished / started: from the database at the end (``bummerl_results`` rows; a table that is
  ``playing`` has one more started). Every started Bummerl must finish, and every table must have played
  --bummerl of them, before --duration. A table that has played its --bummerl while restarts are still to
  come (fewer than --restarts so far) plays on with a Rematch, so that every restart falls into play however
  quickly the Bummerl went.
- Accepted clicks missing from the stored record (must be 0): every log line
  ``accepted table=<id> deal=<n> seq=<s> action=<text>`` (the bot logs it after the action committed) whose
  (table, deal, seq, action) is not a row of ``actions`` at the end. A click in flight when the bot was killed
  was never logged as accepted, so it is not counted. A run in which not one accepted click was logged fails
  (the line moved or is filtered, and the check would check nothing).
- Acknowledged game clicks missing from the stored record (must be 0): a game click the fake saw acknowledged
  (a callback of type 6 or 7, or a deferred type 5 and then a follow-up, with no refusal in words after it:
  the player was told it was taken) whose move is not in the record at the end. Each click is at a position
  (its button's table and version) where one move can be stored: of the acknowledged clicks of a position, one
  is accounted for if its move (the clicker's seat and the button's action, in record notation) is stored in
  the deal that ran when it was made (deals.started_at, one second either way); each other one was lost, as a
  click acknowledged before its commit is when a kill -9 comes in between and it is clicked again after the
  restart. A click the bot logged as the repeat of a stored move (``repeat table=``: a quick second click,
  acknowledged within 3 s of that move) claims that move, not one of its own, and is lost only if the move is
  missing. With every restart at a random instant of play (below) this is the issue-35 check that only what
  is stored is acknowledged.
- Tables without progress for 30 s while someone was to act (must be 0): the parent reads
  ``game_tables.version`` of every ``playing`` table once a second from the database (read-only). The clock
  of a table runs only while the bot is up and connected (from its READY after a start to the kill, and while
  the fake has a connected gateway session) and no storage fault window is open; it restarts at every change
  of the version. A table whose clock reaches --stall-seconds counts once (per version it stalled at); what
  each of its people sees and did lately is written to stalls.txt next to the bot's log (--keep keeps both).
- Unhandled exceptions in the bot's log (must be 0). The log is parsed into records
  (``time LEVEL logger: message`` plus continuation lines such as a traceback). Counted as unhandled: any
  ERROR or CRITICAL record of a logger outside ``bot.*`` and ``bench.*`` (asyncio's "Task exception was never
  retrieved" and "Exception in callback", discord.py's "Ignoring exception in ...", aiosqlite, the root
  logger), and every traceback in the child's stderr (an exception that escaped logging). ERROR records of the
  bot's own ``bot.*`` loggers are its supervised failures (logged with the table id and retried): counted and
  shown separately as "supervised failures (retried)", not as unhandled.
- Duplicate result messages (must be 0), counted both ways: channel messages sharing an ``r<table>.<deal>``
  nonce beyond the first, and result messages (those with result.png) beyond the deals finished
  (``deal_results`` rows) of the table. Also: finished deals whose result was never posted (must be 0),
  checked after the faults stop and the bot has had --settle seconds to catch up.
- Hand DMs never sent (must be 0): per person, the deals of their table (``deals`` rows) against the hand
  DMs they received for that table; a person who closed their DMs is owed only the deals dealt more than 30 s
  before. Checked after the settle time like the results.
- Also: hand DMs sharing an ``h<table>.<deal>.<seat>`` nonce beyond the first (must be 0), table messages
  beyond one per table (must be 0: a post repeated because storing its message id failed shows as a second
  lobby), and tables that never left the lobby (they fail the run through their unfinished Bummerl).
- Restarts come every --restart-every seconds (jittered), but after every --quiet-every of them there is
  none for --stall-seconds + 15 s: a restart restores every table and restarts its driver, which would hide a
  table that stalls until something restarts the bot (the other faults go on meanwhile). Each kill comes at a
  random instant of play: once the pause is over, when a deal runs at some table (not while every table is
  in its lobby or between Bummerl), a further 0-1 s drawn at random (so that it is in step neither with the
  once-a-second reading of the database nor with the people's 0.2 s ticks); the summary says how many kills
  came while a deal ran.
- Faults injected, per kind, counted where they happened: the HTTP faults the fake answered, the gateway
  faults it carried out, the DMs it closed; in the bot process (its log lines ``chaos fault injected: <kind>``)
  the storage fault windows it opened, every write it refused in them (by the core method), the AI workers
  it killed and the AI searches it gave a 1 ms cap (and how often the AI fell back to greedy). A kind the
  parent asked for (SIGUSR1, SIGUSR2) that never once took effect in the bot fails the run: a patch that
  misses its target would otherwise pass for a fault survived.
- With --discord-limits the fake Discord also enforces Discord's rate limits (devtools/fakediscord/limits.py,
  the settings bench/bot_bench.py --discord-limits uses, printed in the summary), on top of the injected
  faults. --global-limit makes the token's budget smaller than Discord's 50 a second (the bot's pacer then
  keeps to 45/50 of it, as it does of 50): a few tables of instant clickers then come close to the budget,
  as many at human pace do to the real one. Either way the summary shows the REST calls per accepted click
  from the first click to the end of the settling (bot token, bound by the global limit, and interaction
  tokens, by route), the 429s the fake's buckets answered (global, route, 30046) and the 429s discord.py met, injected ones included: waited out and
  retried (its "rate limited" warnings in the log) and raised to the bot (chaos_child logs each one).
- Restarts survived: kill -9 restarts after which the bot was READY again. A restart that did not come up,
  or a bot process that exited on its own, is counted and fails the run.

Exit status: 0 only if every must-be-0 figure is 0 and every Bummerl was finished.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bot_bench import refusal, rest_calls, rest_figures, rest_line
from bench.bot_bench_child import is_429_retry
from bench.chaos_child import SURFACED_429_TEXT
from bot.schnapsen.pacing import TOKEN_PACE
from devtools.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeInteraction, FakeMessage, FakeUser
from devtools.fakediscord.limits import DiscordLimits

CHILD = Path(__file__).with_name("chaos_child.py")
DISCORD_GLOBAL_LIMIT = DiscordLimits.global_limit  # the bot token's requests a second
GAME_VERBS = ("trump", "auf", "bid", "pass", "dbl", "play", "mar")
BUTTON_ID = re.compile(r"bs:(\d+):(\d+):([a-z]+):(\w*)")
RESULT_VERBS = {"review"}  # the buttons of a deal's result message
SEATS = ("North", "East", "South", "West")
HAND_TITLE = "Your hand"
STALE_ANSWER = "out of date"  # the bot's refusal of a button whose position has moved on
ACCEPTED = re.compile(r"accepted table=(\d+) deal=(\d+) seq=(\d+) action=(.+)$")
REPEAT = re.compile(r"repeat table=\d+ version=\d+ interaction=(\d+)$")
# A click on a position left, on a hand in the channel, answered with the hand as it stands and the word that the
# button was out of date (bot.schnapsen.components.log_moved_on): told it was not taken, it claims no move.
MOVED_ON = re.compile(r"moved on table=\d+ version=\d+ interaction=(\d+)$")
INJECTED = re.compile(r"chaos fault injected: (\S+)$")  # bench/chaos_child.py's line per fault that happened
AI_FALLBACK = "fell back to greedy"  # bot.ai_worker's warning when a search failed or overran its cap
RECORD_START = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (\w+) ([\w.]+): (.*)$")
RESULT_NONCE = re.compile(r"r(\d+)\.(\d+)$")
HAND_NONCE = re.compile(r"h(\d+)\.(\d+)\.(\d)$")
# discord.py's login calls are left alone: a bot that cannot log in is a deployment problem, not a table's.
FAULT_EXCLUDE = ("/users/@me", "/oauth2/applications/@me", "/gateway", "/gateway/bot")
RECLICK_AFTER = 3.0  # a click that changed nothing is repeated after this long if the button is still there
LOOK_AGAIN_AFTER = 8.0  # nothing changed at the table this long: ask for "My hand"
TICK = 0.2
REMATCH_SETTLES = 10.0  # seconds after a Rematch click within which the table may still start a Bummerl


def now() -> float:
    return time.monotonic()


def changed_at(message: FakeMessage | None) -> float:
    if message is None:
        return 0.0
    return message.history[-1].at if message.history else 0.0


def game_buttons(message: FakeMessage | None) -> list[str]:
    if message is None:
        return []
    found = []
    for button in message.buttons:
        match = BUTTON_ID.fullmatch(str(button.get("custom_id", "")))
        if match and match[3] in GAME_VERBS and not button.get("disabled"):
            found.append(match[0])
    return found


def extra_table_messages(channel: FakeChannel) -> int:
    """Table messages (an embed with a table's own buttons; not a result, a turn notice or an ephemeral hand)
    beyond the one each table has: a post repeated after its first try took effect shows as a second lobby."""
    per_table: collections.Counter[int] = collections.Counter()
    for message in channel.all_messages:
        if message.deleted or message.ephemeral or not message.embeds:
            continue
        found = (BUTTON_ID.fullmatch(str(b.get("custom_id", ""))) for b in message.buttons)
        per_table.update({int(match[1]) for match in found if match and match[3] not in RESULT_VERBS})
    return sum(count - 1 for count in per_table.values())


def is_hand(message: FakeMessage) -> bool:
    return bool(message.embeds) and str(message.embeds[0].get("title", "")).startswith(HAND_TITLE)


# --------------------------------------------------------------------------------------------- the people


@dataclass(eq=False)
class Person:
    user: FakeUser
    seat: int
    clicks: dict[tuple[int, str, float], float] = field(default_factory=dict)
    hand_asks: list[FakeInteraction] = field(default_factory=list)
    ephemeral_hand: FakeMessage | None = None
    asked_at: float = 0.0
    asked_for: float = -1.0  # the table message change the last "My hand" answered
    closed_at: float | None = None  # wall time the person closed their DMs
    sit_asks: list[FakeInteraction] = field(default_factory=list)
    recent: collections.deque[FakeInteraction] = field(default_factory=lambda: collections.deque(maxlen=12))

    def told_seated(self) -> bool:
        """The bot answered one of this person's Sit clicks with "You sit ..." or "You already sit here"."""
        for ask in self.sit_asks:
            for message in ask.messages:
                if message.content.startswith("You sit") or "already sit at this table" in message.content:
                    return True
        return False

    @property
    def dms_open(self) -> bool:
        return self.user.dms_open

    def told_out_of_date(self, hand: FakeMessage) -> bool:
        """A click on ``hand`` since it last changed was refused as out of date ("Use the newest message")."""
        since = changed_at(hand)
        return any(
            ask.message is not None
            and ask.message.id == hand.id
            and ask.created_at >= since
            and STALE_ANSWER in (refusal(ask) or "")  # a follow-up, or the click's own answer (type 4)
            for ask in self.recent
        )

    def may_click(self, message: FakeMessage, custom_id: str) -> bool:
        key = (message.id, custom_id, changed_at(message))
        last = self.clicks.get(key)
        if last is not None and now() - last < RECLICK_AFTER:
            return False
        self.clicks[key] = now()
        if len(self.clicks) > 200:
            for old in sorted(self.clicks, key=self.clicks.__getitem__)[:100]:
                del self.clicks[old]
        return True

    def hand_message(self, fake: FakeDiscord) -> FakeMessage | None:
        """Where this person sees their hand: the newest DM, or (DMs closed) the newest ephemeral hand."""
        for ask in self.hand_asks:
            original = ask.original
            fresh = original is not None and not original.loading and is_hand(original)
            if fresh and (self.ephemeral_hand is None or original.id > self.ephemeral_hand.id):  # type: ignore[union-attr]
                self.ephemeral_hand = original
        self.hand_asks = [ask for ask in self.hand_asks if ask.original is None or ask.original.loading]
        self.hand_asks = [ask for ask in self.hand_asks if now() - ask.created_at < 30]
        if self.dms_open:
            dms = fake.dm_messages(self.user)
            newer = dms and (self.ephemeral_hand is None or dms[-1].id > self.ephemeral_hand.id)
            if dms and (newer or game_buttons(dms[-1])):
                return dms[-1]
        return self.ephemeral_hand


@dataclass(frozen=True)
class GameClick:
    """A click on a game button, kept to judge after the run whether an acknowledged one was stored."""

    interaction: FakeInteraction
    seat: int
    wall_time: float  # time.time() at the click: which deal ran then (deals.started_at is in unix seconds)


@dataclass
class Stats:
    clicks: int = 0
    click_failures: int = 0  # the fake could not deliver (bot not connected, message changed under the click)
    hand_asks: int = 0
    rematches: int = 0
    new_commands: int = 0


class ChaosTable:
    def __init__(self, bench: Chaos, guild: FakeGuild, number: int, ai_seats: int) -> None:
        self.bench = bench
        self.fake = bench.fake
        self.number = number
        self.channel: FakeChannel = guild.add_text_channel(f"chaos-{number}")
        self.humans = 4 - ai_seats
        self.people: list[Person] = []
        for seat in range(self.humans):
            user = self.fake.add_user(f"c{number}-{seat}")
            guild.add_member(user)
            self.people.append(Person(user, seat))
        self.rng = random.Random(bench.args.seed * 7919 + number)
        self._scanned = 0
        self._table_message: FakeMessage | None = None
        self.last_new = -1e9
        self.host_action_at: dict[str, float] = {}
        self.rematch_pressed_at = -1e9

    @property
    def host(self) -> Person:
        return self.people[0]

    def table_message(self) -> FakeMessage | None:
        messages = self.channel.all_messages
        for message in messages[self._scanned :]:
            verbs = {found[3] for b in message.buttons if (found := BUTTON_ID.fullmatch(str(b.get("custom_id", ""))))}
            # A deal's result is no table message, nor is a turn notice (a table button too, but no embed).
            if not message.ephemeral and message.embeds and verbs and not verbs <= RESULT_VERBS:
                self._table_message = message
        self._scanned = len(messages)
        if self._table_message is not None and self._table_message.deleted:
            self._table_message = None
            self._scanned = 0
        return self._table_message

    def db_row(self) -> dict[str, Any] | None:
        return self.bench.db_tables.get(self.channel.id)

    def wants_more(self, row: dict[str, Any]) -> bool:
        """Fewer than --bummerl played, or restarts still to come (so that they fall into play)."""
        return row["bummerl"] < self.bench.args.bummerl or self.bench.restarts_pending()

    def done(self) -> bool:
        """Finished and wanting no more, and no Rematch pressed lately: one that the bot may still be carrying
        out (the database is read once a second) starts a Bummerl that must be played too."""
        row = self.db_row()
        return (
            row is not None
            and row["status"] == "finished"
            and not self.wants_more(row)
            and now() - self.rematch_pressed_at > REMATCH_SETTLES
        )

    async def click(self, person: Person, message: FakeMessage, custom_id: str) -> FakeInteraction | None:
        try:
            interaction = await self.fake.click(person.user, message, custom_id)
        except (LookupError, ValueError, PermissionError, RuntimeError):
            self.bench.stats.click_failures += 1
            return None
        self.bench.stats.clicks += 1
        person.recent.append(interaction)
        button = BUTTON_ID.fullmatch(custom_id)
        if button is not None and button[3] in GAME_VERBS:
            self.bench.game_clicks.append(GameClick(interaction, person.seat, time.time()))
        return interaction

    def describe(self) -> list[str]:
        """What each person sees and did lately (written when the table stalls, to find out why)."""
        lines = []
        message = self.table_message()
        if message is not None:
            shown = [f"{b.get('label')}={b.get('custom_id')}" for b in message.buttons]
            lines.append(f"  table message {message.id} changed {now() - changed_at(message):.0f} s ago: {shown}")
        for person in self.people:
            hand = person.hand_message(self.fake)
            lines.append(
                f"  seat {person.seat} {person.user.name} dms_open={person.dms_open} "
                f"hand={None if hand is None else hand.id} ephemeral={hand is not None and hand.ephemeral} "
                f"changed {now() - changed_at(hand):.0f} s ago buttons={game_buttons(hand)} "
                f"asked {now() - person.asked_at:.0f} s ago"
            )
            for ask in person.recent:
                answers = [
                    (m.id, "hand" if is_hand(m) else m.content[:70], game_buttons(m)) for m in ask.messages
                ]
                lines.append(
                    f"    {now() - ask.created_at:5.0f} s ago {ask.custom_id} response={ask.response_type} "
                    f"rejected={len(ask.rejected_callbacks)} -> {answers}"
                )
        return lines

    async def run(self, stop: asyncio.Event) -> None:
        # Until the end, not until done: a table done may come back (a Rematch pressed as its last restart
        # came), and its people play that Bummerl too.
        while not stop.is_set():
            if not self.done():
                with contextlib.suppress(Exception):
                    await self.step()
            await asyncio.sleep(TICK)

    async def step(self) -> None:
        row = self.db_row()
        message = self.table_message()
        status = row["status"] if row is not None else None
        if message is None or status is None:
            if now() - self.last_new > 10.0 and self.bench.bot_ready:
                self.last_new = now()
                self.bench.stats.new_commands += 1
                with contextlib.suppress(RuntimeError, LookupError, ValueError):
                    await self.fake.slash(self.host.user, self.channel, "schnapsen", "new")
            return
        if status == "lobby":
            await self.lobby(message)
        elif status == "finished" and row is not None and self.wants_more(row):
            await self.press(self.host, message, "Rematch")
        elif status == "playing":
            await self.play(message)

    async def press(self, person: Person, message: FakeMessage, label: str) -> FakeInteraction | None:
        for button in message.buttons:
            if button.get("label") == label and not button.get("disabled"):
                if person.may_click(message, str(button["custom_id"])):
                    if label == "Rematch":
                        self.bench.stats.rematches += 1
                        self.rematch_pressed_at = now()
                    return await self.click(person, message, str(button["custom_id"]))
                return None
        return None

    async def lobby(self, message: FakeMessage) -> None:
        """Each person takes their seat; the host starts once every seat shows taken, or once everyone was
        told they sit there (the lobby message may be behind: a person believes the bot's answer)."""
        labels = {b.get("label"): b for b in message.buttons}
        waiting = False
        for person in self.people:
            sit = labels.get(f"Sit {SEATS[person.seat]}")
            if sit is None or sit.get("disabled") or person.told_seated():
                continue
            waiting = True
            interaction = await self.press(person, message, f"Sit {SEATS[person.seat]}")
            if interaction is not None:
                person.sit_asks.append(interaction)
        if not waiting:
            await self.press(self.host, message, "Start")

    def choose(self, buttons: list[str]) -> str:
        """Mostly pass in the bidding (so that most deals are plain games and a Bummerl takes several deals),
        otherwise any button shown."""
        passes = [b for b in buttons if b.split(":")[3] == "pass"]
        if passes and self.rng.random() < 0.85:
            return passes[0]
        return buttons[self.rng.randrange(len(buttons))]

    async def play(self, message: FakeMessage) -> None:
        table_changed = changed_at(message)
        for person in self.people:
            hand = person.hand_message(self.fake)
            buttons = game_buttons(hand)
            told_stale = hand is not None and hand.ephemeral and buttons and person.told_out_of_date(hand)
            if hand is not None and buttons and not told_stale:
                choice = self.choose(buttons)
                if person.may_click(hand, choice):
                    await self.click(person, hand, choice)
                continue
            last_seen = max(table_changed, changed_at(hand))
            quiet = now() - max(last_seen, person.asked_at) > LOOK_AGAIN_AFTER
            closed_and_new = (
                not person.dms_open and person.asked_for != table_changed and (now() - person.asked_at > 1.0)
            )
            stale_again = told_stale and now() - person.asked_at > RECLICK_AFTER
            if quiet or closed_and_new or stale_again:
                my_hand = next((b for b in message.buttons if b.get("label") == "My hand"), None)
                if my_hand is None:
                    continue
                person.asked_at, person.asked_for = now(), table_changed
                interaction = await self.click(person, message, str(my_hand["custom_id"]))
                if interaction is not None:
                    self.bench.stats.hand_asks += 1
                    person.hand_asks.append(interaction)


# --------------------------------------------------------------------------------------------- the bench


@dataclass
class Faults:
    gateway: collections.Counter[str] = field(default_factory=collections.Counter)
    storage_windows: int = 0
    worker_kills: int = 0
    dm_closes: int = 0


class StoredData:
    """The parent's look at the bot's database (only the bot writes it): a SQLite file opened read-only, or a
    database of a throwaway PostgreSQL cluster (devtools/pgcluster.py) read through asyncpg on a thread of its
    own (the parent's loop is busy being Discord)."""

    def __init__(self, engine: str, folder: Path) -> None:
        self.engine = engine
        self.path = folder / "chaos.sqlite3"
        self.cluster: Any = None
        self.reader = ThreadPoolExecutor(1, thread_name_prefix="chaos-db")

    def start(self) -> str:
        """Make the database; what the bot is to open (a file path or a postgresql:// URL)."""
        if self.engine == "sqlite":
            return str(self.path)
        from devtools.pgcluster import Cluster, server_binaries

        binaries = server_binaries()
        if binaries is None:
            raise SystemExit("no PostgreSQL server binaries (initdb, pg_ctl) on this machine")
        self.cluster = Cluster(binaries)
        self.cluster.start()
        self.reader.submit(asyncio.run, self._pg("CREATE DATABASE chaos", admin=True)).result()
        return str(self.cluster.dsn("chaos"))

    def stop(self) -> None:
        self.reader.shutdown()
        if self.cluster is not None:
            self.cluster.stop()

    def exists(self) -> bool:
        return self.engine == "postgresql" or self.path.exists()

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        if self.engine == "sqlite":
            with contextlib.closing(sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5)) as db:
                return db.execute(sql).fetchall()
        return self.reader.submit(asyncio.run, self._pg(sql)).result()

    async def _pg(self, sql: str, *, admin: bool = False) -> list[tuple[Any, ...]]:
        import asyncpg

        connection = await asyncpg.connect(self.cluster.dsn("postgres" if admin else "chaos"))
        try:
            return [tuple(row) for row in await connection.fetch(sql)]
        finally:
            await connection.close()


class Chaos:
    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args = args
        self.folder = folder
        self.stored = StoredData(args.database, folder)
        self.database = ""  # what the bot opens: set when the database is made (run)
        self.log_path = folder / "bot.log"
        self.stderr_path = folder / "bot-stderr.log"
        # --latency-ms: every REST call and gateway event that far between the bot and the fake, each way
        # (devtools/fakediscord/latency.py); a click acknowledged before its commit then stays unstored that
        # much longer, so a kill falls between the two more often.
        self.fake = FakeDiscord(record_requests=False, keep_history=False, latency=args.latency_ms / 1000)
        if args.discord_limits:
            self.fake.enforce_limits(global_limit=args.global_limit)
        self.rest_counts: list[tuple[float, dict[str, Any]]] = []  # (when, rest_calls): play starts, settled
        self.rng = random.Random(args.seed)
        self.stats = Stats()
        self.faults = Faults()
        self.child: asyncio.subprocess.Process | None = None
        self.bot_ready = False
        self.restarts = 0
        self.restarts_in_play = 0  # kills while a deal ran at some table
        self.restart_failures = 0
        self.restarts_over = False  # the restarter stopped (all done, or the faults stopped)
        self.unexpected_exits = 0
        self.db_tables: dict[int, dict[str, Any]] = {}
        self.storage_until = 0.0
        self.stalls: dict[tuple[int, int], float] = {}
        self._clock = 0.0  # the "healthy" clock of the stall rule
        self._versions: dict[int, tuple[int, float]] = {}
        self.tables: list[ChaosTable] = []
        self.game_clicks: list[GameClick] = []
        self.http_rule: Any = None
        self.post_rule: Any = None
        self.stderr_file: Any = None
        self.lifecycle = asyncio.Lock()  # one start or kill of the bot process at a time
        self._gateway_turn = 0

    # --- the bot process ---------------------------------------------------------------------------

    async def start_child(self) -> bool:
        command = [
            sys.executable,
            str(CHILD),
            "--api",
            self.fake.api_base,
            "--gateway",
            self.fake.gateway_url,
            "--token",
            self.fake.token,
            "--database",
            self.database,
            "--log",
            str(self.log_path),
            "--storage-fault-seconds",
            str(self.args.storage_fault_seconds),
            "--overrun-rate",
            str(self.args.overrun_rate),
            "--seed",
            str(self.rng.randrange(1 << 30)),
        ]
        if self.args.edit_interval is not None:
            command += ["--edit-interval", str(self.args.edit_interval)]
        if self.args.discord_limits and self.args.global_limit != DISCORD_GLOBAL_LIMIT:
            # The bot keeps to 45 of Discord's 50 a second: to the same share of a smaller budget.
            command += ["--token-pace", str(max(1, self.args.global_limit * TOKEN_PACE // DISCORD_GLOBAL_LIMIT))]
        if self.args.target:
            command += ["--target", str(self.args.target)]
        if self.args.sabotage:
            command += ["--sabotage", self.args.sabotage]
        self.child = await asyncio.create_subprocess_exec(
            *command, stdout=asyncio.subprocess.PIPE, stderr=self.stderr_file, start_new_session=True
        )
        assert self.child.stdout is not None
        try:
            line = await asyncio.wait_for(self.child.stdout.readline(), self.args.start_timeout)
        except TimeoutError:
            line = b""
        if line.strip() != b"READY":
            await self.kill_child()
            return False
        self.bot_ready = True
        return True

    async def kill_child(self) -> None:
        child, self.child = self.child, None
        self.bot_ready = False
        if child is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        await child.wait()

    async def stop_child(self) -> None:
        """SIGTERM and a clean stop; the whole group is killed if it does not stop in time."""
        child = self.child
        if child is None:
            return
        self.bot_ready = False
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(child.wait(), 30)
        self.child = child
        await self.kill_child()

    async def start_until_up(self) -> None:
        for _ in range(3):
            if await self.start_child():
                return
            self.restart_failures += 1
        raise RuntimeError(f"the bot did not start three times in a row; see {self.log_path}")

    def restarts_pending(self) -> bool:
        return not self.restarts_over and self.restarts < self.args.restarts

    async def restarter(self, stop: asyncio.Event) -> None:
        try:
            await self._restart_every_few_seconds(stop)
        finally:
            self.restarts_over = True

    async def _restart_every_few_seconds(self, stop: asyncio.Event) -> None:
        while not stop.is_set() and self.restarts < self.args.restarts:
            pause = self.args.restart_every * self.rng.uniform(0.5, 1.5)
            if self.restarts and self.restarts % self.args.quiet_every == 0:
                # A restart rebuilds every table and restarts its driver, which would hide a table that
                # stalls; a quiet stretch longer than the stall limit lets such a table show.
                pause = self.args.stall_seconds + 15
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)
            # A kill at a random instant of play: not while every table is in its lobby or between Bummerl
            # (the early restarts would fall into the lobbies), and not in step with the once-a-second look at
            # the database (which the wait for play follows) nor with the people's ticks.
            while not stop.is_set() and not self.someone_plays():
                await asyncio.sleep(TICK)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.rng.uniform(0.0, 1.0))
            if stop.is_set():
                return
            async with self.lifecycle:
                self.restarts_in_play += self.someone_plays()
                await self.kill_child()
                self.restarts += 1
                await self.start_until_up()

    def someone_plays(self) -> bool:
        """A deal runs at some table (as the database said at its last reading) and the bot is up."""
        return self.bot_ready and any(row["status"] == "playing" for row in self.db_tables.values())

    async def watch_child(self, stop: asyncio.Event) -> None:
        """A bot process that exits by itself is restarted (as systemd would) and counted."""
        while not stop.is_set():
            await asyncio.sleep(0.5)
            async with self.lifecycle:
                child = self.child
                if child is not None and child.returncode is not None:
                    self.unexpected_exits += 1
                    self.child = None
                    self.bot_ready = False
                    await self.start_until_up()

    # --- faults -----------------------------------------------------------------------------------------

    def signal_child(self, number: int) -> bool:
        child = self.child
        if child is None or child.returncode is not None:
            return False
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(number)
            return True
        return False

    async def fault_injector(self, stop: asyncio.Event) -> None:
        args = self.args
        per_second = {
            "gateway": args.gateway_faults / 60,
            "storage": args.storage_faults / 60,
            "worker": args.worker_kills / 60,
            "dms": args.dm_closes / 60,
        }
        # Each kind also comes at least once early on (every --each-fault-every s the next kind not seen yet),
        # so that a short run meets every fault.
        pending = ["storage", "gateway", "worker", "dms", "gateway", "storage", "gateway"]
        next_guaranteed = now() + args.each_fault_every
        while not stop.is_set():
            await asyncio.sleep(1.0)
            if not self.bot_ready:
                continue
            due = {kind for kind, rate in per_second.items() if self.rng.random() < rate}
            if pending and now() >= next_guaranteed:
                due.add(pending.pop(0))
                next_guaranteed = now() + args.each_fault_every
            if "gateway" in due:
                await self.gateway_fault()
            if "storage" in due and self.signal_child(signal.SIGUSR1):
                self.faults.storage_windows += 1
                self.storage_until = now() + args.storage_fault_seconds
            if "worker" in due and self.signal_child(signal.SIGUSR2):
                self.faults.worker_kills += 1
            if "dms" in due:
                self.close_someones_dms()

    async def gateway_fault(self) -> None:
        kinds = ("close 4000", "op 9", "close 4009", "op 9 resumable", "close 1001", "op 7", "close 4007")
        kind = kinds[self._gateway_turn % len(kinds)]  # in turn, so that even a short run meets several
        self._gateway_turn += 1
        try:
            if kind.startswith("close"):
                await self.fake.drop_gateway(code=int(kind.split()[1]))
            elif kind == "op 7":
                await self.fake.request_reconnect()
            else:
                await self.fake.invalidate_session(resumable=kind == "op 9 resumable")
        except (RuntimeError, ConnectionError):
            return
        self.faults.gateway[kind] += 1

    def close_someones_dms(self) -> None:
        people = [p for t in self.tables if not t.done() for p in t.people if p.dms_open]
        closed = sum(1 for t in self.tables for p in t.people if not p.dms_open)
        everyone = sum(len(t.people) for t in self.tables)
        if people and closed < self.args.dm_close_max * everyone:
            person = self.rng.choice(people)
            self.fake.close_dms(person.user)
            person.closed_at = time.time()
            self.faults.dm_closes += 1

    # --- watching the database ------------------------------------------------------------------------

    def read_db(self) -> dict[int, dict[str, Any]]:
        if not self.stored.exists():
            return {}
        rows = self.stored.query("SELECT id, channel_id, status, version FROM game_tables")
        bummerl = dict(self.stored.query("SELECT table_id, COUNT(*) FROM bummerl_results GROUP BY table_id"))
        found: dict[int, dict[str, Any]] = {}
        for table_id, channel_id, status, version in rows:
            if status == "closed" and channel_id in found:
                continue
            found[channel_id] = {
                "id": table_id,
                "status": status,
                "version": version,
                "bummerl": bummerl.get(table_id, 0),
            }
        return found

    def healthy(self) -> bool:
        session = self.fake.active_session
        return self.bot_ready and now() >= self.storage_until and session is not None and session.connected

    async def watcher(self, stop: asyncio.Event) -> None:
        last = now()
        while not stop.is_set():
            await asyncio.sleep(1.0)
            with contextlib.suppress(Exception):  # the bot may hold the file; it is read again in a second
                self.db_tables = await asyncio.to_thread(self.read_db)
            moment = now()
            if self.healthy():
                self._clock += moment - last
            last = moment
            for row in self.db_tables.values():
                if row["status"] != "playing":
                    self._versions.pop(row["id"], None)
                    continue
                seen = self._versions.get(row["id"])
                if seen is None or seen[0] != row["version"]:
                    self._versions[row["id"]] = (row["version"], self._clock)
                    continue
                quiet = self._clock - seen[1]
                if quiet >= self.args.stall_seconds and (row["id"], row["version"]) not in self.stalls:
                    self.stalls[(row["id"], row["version"])] = quiet
                    print(
                        f"  stall: table {row['id']} at version {row['version']} for {quiet:.0f} s",
                        flush=True,
                    )
                    self.describe_stall(row)

    def describe_stall(self, row: dict[str, Any]) -> None:
        """Write what the people of a stalled table see to stalls.txt next to the bot's log."""
        table = next((t for t in self.tables if (t.db_row() or {}).get("id") == row["id"]), None)
        lines = [f"{time.strftime('%H:%M:%S')} table {row['id']} stalled at version {row['version']}"]
        if table is not None:
            with contextlib.suppress(Exception):
                lines += table.describe()
        with (self.folder / "stalls.txt").open("a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")

    # --- the run ------------------------------------------------------------------------------------

    async def setup_world(self) -> FakeUser:
        admin = self.fake.add_user("admin")
        guild = self.fake.add_guild("Chaos", owner=admin)
        for number in range(self.args.tables):
            ai_seats = 0
            if self.args.ai_tables and number % self.args.ai_tables == self.args.ai_tables - 1:
                ai_seats = 1 + number // self.args.ai_tables % 2
            self.tables.append(ChaosTable(self, guild, number, ai_seats))
        return admin

    async def no_ai_delay(self, admin: FakeUser) -> None:
        channel = self.tables[0].channel
        for _ in range(10):
            command = await self.fake.slash(admin, channel, "schnapsen", "settings", ai_delay_ms=0)
            with contextlib.suppress(AssertionError):
                await command.wait_response(timeout=10)
                return
        raise RuntimeError("the bot never answered /schnapsen settings")

    async def run(self) -> dict[str, Any]:
        self.database = await asyncio.to_thread(self.stored.start)
        await self.fake.start()
        started = now()
        self.stderr_file = self.stderr_path.open("ab")
        try:
            with self.fake.redirect():
                admin = await self.setup_world()
                await self.start_until_up()
                await self.no_ai_delay(admin)
                self.rest_counts.append((now(), rest_calls(self.fake)))
                # Message creates (results, notices, hand DMs) first, at their own rate; then every route.
                self.post_rule = self.fake.random_faults(
                    "POST",
                    "/channels/{channel_id}/messages",
                    probability=self.args.post_fault_rate,
                    retry_after=(0.05, 1.5),
                    applied_fraction=0.3,
                    seed=self.args.seed + 1,
                )
                self.http_rule = self.fake.random_faults(
                    probability=self.args.http_fault_rate,
                    retry_after=(0.05, 1.5),
                    applied_fraction=0.3,
                    exclude=FAULT_EXCLUDE,
                    seed=self.args.seed,
                )
                stop_faults, stop_all = asyncio.Event(), asyncio.Event()
                helpers = [
                    asyncio.create_task(self.watcher(stop_all)),
                    asyncio.create_task(self.watch_child(stop_all)),
                    asyncio.create_task(self.fault_injector(stop_faults)),
                    asyncio.create_task(self.restarter(stop_faults)),
                ]
                players = [asyncio.create_task(table.run(stop_all)) for table in self.tables]
                progress = asyncio.create_task(self.report_progress(stop_all, started))
                deadline = started + self.args.duration
                while now() < deadline and not all(t.done() for t in self.tables):
                    await asyncio.sleep(1.0)
                    if all(t.done() for t in self.tables) or any(
                        task.done() and task.exception() for task in helpers[:2]
                    ):
                        break
                played_for = now() - started
                stop_faults.set()
                self.http_rule.active = self.post_rule.active = False
                await asyncio.gather(*helpers[2:], return_exceptions=True)
                async with self.lifecycle:
                    if self.child is None:
                        await self.start_until_up()
                settled = await self.settle()
                self.rest_counts.append((now(), rest_calls(self.fake)))
                stop_all.set()
                await asyncio.gather(*players, *helpers[:2], progress, return_exceptions=True)
                await self.stop_child()
                return self.figures(played_for, settled)
        finally:
            await self.kill_child()
            await self.fake.stop()
            self.stderr_file.close()
            self.stored.stop()

    async def report_progress(self, stop: asyncio.Event, started: float) -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 15)
            if not self.args.json or self.args.verbose:
                finished = sum(min(row["bummerl"], self.args.bummerl) for row in self.db_tables.values())
                print(
                    f"  {now() - started:5.0f} s: Bummerl finished {finished}/"
                    f"{self.args.tables * self.args.bummerl}, restarts {self.restarts}, "
                    f"stalls {len(self.stalls)}, clicks {self.stats.clicks}",
                    flush=True,
                )

    async def settle(self) -> bool:
        """Faults are off: give the bot time to post every finished deal's result and every hand."""
        deadline = now() + self.args.settle
        while now() < deadline:
            if not self.missing_results() and not self.missing_hands() and self.bot_ready:
                return True
            await asyncio.sleep(1.0)
        return False

    # --- the figures -----------------------------------------------------------------------------------

    def finished_deals(self) -> dict[int, int]:
        return dict(self.stored.query("SELECT table_id, COUNT(*) FROM deal_results GROUP BY table_id"))

    def result_messages(self) -> dict[int, list[FakeMessage]]:
        """Result messages per table id (channel -> table by the database)."""
        tables_of_channel = {channel_id: row["id"] for channel_id, row in self.read_db().items()}
        found: dict[int, list[FakeMessage]] = collections.defaultdict(list)
        for table in self.tables:
            table_id = tables_of_channel.get(table.channel.id)
            if table_id is None:
                continue
            found[table_id] = [m for m in table.channel.messages if "result.png" in m.filenames]
        return found

    def missing_hands(self) -> int:
        """Deals for which a person with open DMs never got a hand DM. A person who closed their DMs is owed
        the hands of the deals dealt more than 30 s before (a restart may have delayed the rest)."""
        deals = self.stored.query("SELECT table_id, started_at FROM deals")
        tables_of_channel = {channel_id: row["id"] for channel_id, row in self.read_db().items()}
        missing = 0
        for table in self.tables:
            table_id = tables_of_channel.get(table.channel.id)
            if table_id is None:
                continue
            title = f"table {table_id} "
            for person in table.people:
                until = person.closed_at - 30 if person.closed_at is not None else float("inf")
                owed = sum(1 for deal_table, started in deals if deal_table == table_id and started < until)
                channel = self.fake.dm_channel(person.user)
                got = (
                    0
                    if channel is None
                    else sum(
                        1
                        for m in channel.all_messages
                        if not m.deleted and is_hand(m) and title in str(m.embeds[0].get("title", "")) + " "
                    )
                )
                missing += max(0, owed - got)
        return missing

    def missing_results(self) -> int:
        results = self.result_messages()
        return sum(
            max(0, count - len(results.get(table_id, [])))
            for table_id, count in self.finished_deals().items()
        )

    def figures(self, played_for: float, settled: bool) -> dict[str, Any]:
        stored = set(self.stored.query("SELECT table_id, deal_no, seq, action FROM actions"))
        statuses = dict(self.stored.query("SELECT id, status FROM game_tables"))
        bummerl = dict(self.stored.query("SELECT table_id, COUNT(*) FROM bummerl_results GROUP BY table_id"))
        finished = sum(bummerl.values())
        started = finished + sum(1 for status in statuses.values() if status == "playing")
        found = parse_log(self.log_path)
        accepted, supervised, in_bot = found.accepted, found.supervised, found.injected
        unhandled = found.unhandled + stderr_tracebacks(self.stderr_path)
        missing = sorted(key for key in accepted if key not in stored)
        dealt = self.stored.query("SELECT table_id, deal_no, started_at FROM deals")
        acknowledged, unstored, unstored_examples = acknowledged_unstored(
            self.game_clicks, stored, dealt, found.repeats, found.moved_on
        )
        nonce_dupes = 0
        for table in self.tables:
            seen = collections.Counter(
                m.nonce
                for m in table.channel.all_messages
                if m.nonce and RESULT_NONCE.fullmatch(m.nonce) and not m.deleted
            )
            nonce_dupes += sum(count - 1 for count in seen.values())
        hand_dupes = 0
        for person in (p for t in self.tables for p in t.people):
            channel = self.fake.dm_channel(person.user)
            if channel is not None:
                seen = collections.Counter(
                    m.nonce
                    for m in channel.all_messages
                    if m.nonce and HAND_NONCE.fullmatch(m.nonce) and not m.deleted
                )
                hand_dupes += sum(count - 1 for count in seen.values())
        table_message_dupes = sum(extra_table_messages(table.channel) for table in self.tables)
        never_started = sum(1 for t in self.tables if (t.db_row() or {}).get("status") in (None, "lobby"))
        results, deals = self.result_messages(), self.finished_deals()
        extra_results = sum(
            max(0, len(messages) - deals.get(table_id, 0)) for table_id, messages in results.items()
        )
        missing_results = self.missing_results()
        wanted = self.args.tables * self.args.bummerl
        (began, before), (ended, after) = self.rest_counts
        return {
            "discord_limits": self.fake.limits.describe(),
            # The REST calls from the first click to the end of the settling, and the 429s: the fake's own
            # (its buckets, with --discord-limits; the injected faults are under "faults") and discord.py's.
            "rest": rest_figures(self.fake, before, after, len(accepted), ended - began),
            "http_429_retried": found.http_429_retried,
            "http_429_surfaced": found.http_429_surfaced,
            "bummerl_finished": finished,
            "bummerl_started": started,
            "bummerl_wanted": wanted,
            "accepted_actions_logged": len(accepted),
            "accepted_log_source": found.source,
            "accepted_missing_from_record": len(missing),
            "missing_examples": [list(key) for key in missing[:5]],
            "acknowledged_clicks": acknowledged,
            "acknowledged_repeats": len(found.repeats),  # quick second clicks acknowledged as their move's repeat
            "moved_on_shown": len(found.moved_on),  # clicks on a position left shown their hand in the channel
            "acknowledged_unstored": unstored,
            "acknowledged_unstored_examples": unstored_examples,
            "tables_stalled_30s": len({table_id for table_id, _ in self.stalls}),
            "stalls": [
                {"table": t, "version": v, "seconds": round(s)} for (t, v), s in sorted(self.stalls.items())
            ],
            "unhandled_exceptions": len(unhandled),
            "unhandled_examples": unhandled[:5],
            "supervised_failures": sum(supervised.values()),
            "supervised_kinds": dict(supervised.most_common(8)),
            "duplicate_results_by_nonce": nonce_dupes,
            "duplicate_results_by_deal": extra_results,
            "results_never_posted": missing_results,
            "hand_dms_never_sent": self.missing_hands(),
            "duplicate_hand_dms_by_nonce": hand_dupes,
            "duplicate_table_messages": table_message_dupes,
            "tables_never_started": never_started,
            "settled": settled,
            "restarts_survived": self.restarts,
            "restarts_in_play": self.restarts_in_play,
            "restart_failures": self.restart_failures,
            "unexpected_exits": self.unexpected_exits,
            "faults": {
                "http": {
                    str(status): self.http_rule.fired[status] + self.post_rule.fired[status]
                    for status in sorted(set(self.http_rule.fired) | set(self.post_rule.fired))
                },
                "http_after_effect": self.http_rule.applied + self.post_rule.applied,
                "gateway": dict(self.faults.gateway),
                "storage_windows": self.faults.storage_windows,
                "ai_worker_kills": self.faults.worker_kills,
                "dm_closes": self.faults.dm_closes,
                "kill_9_restarts": self.restarts,
                # Counted by the bot process where each fault really happened (signals above are only asks).
                "in_bot": dict(sorted(in_bot.items())),
                "storage_writes_refused": sum(refused_writes(in_bot).values()),
                "ai_fell_back_to_greedy": found.ai_fallbacks,
            },
            "faults_asked_but_never_injected": never_injected(self.faults, in_bot),
            "clicks": self.stats.clicks,
            "my_hand_asks": self.stats.hand_asks,
            "seconds": round(played_for, 1),
        }


# --------------------------------------------------------------------------------------------- the logs


@dataclass
class LogFindings:
    accepted: set[tuple[int, int, int, str]] = field(default_factory=set)
    repeats: set[int] = field(default_factory=set)  # interactions acknowledged as the repeat of a stored move
    moved_on: set[int] = field(default_factory=set)  # interactions answered with their hand and "out of date"
    unhandled: list[str] = field(default_factory=list)  # first lines
    supervised: collections.Counter[str] = field(default_factory=collections.Counter)  # by kind
    source: str = "bot"  # who logged the accepted lines ("bot" or "bench shim")
    injected: collections.Counter[str] = field(default_factory=collections.Counter)  # faults that happened
    ai_fallbacks: int = 0
    http_429_retried: int = 0  # discord.py waited out a 429 (an injected one or the fake's buckets') and retried
    http_429_surfaced: int = 0  # discord.py gave up and raised the 429 to the bot


def parse_log(path: Path) -> LogFindings:
    found = LogFindings()
    if not path.exists():
        return found
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        record = RECORD_START.match(line)
        if record is None:
            continue  # a continuation line (traceback) of the record before
        level, logger, message = record.groups()
        accepted = ACCEPTED.search(message)
        if accepted:
            found.accepted.add((int(accepted[1]), int(accepted[2]), int(accepted[3]), accepted[4]))
            if logger == "bench.shim":
                found.source = "bench shim (the bot does not log accepted actions yet)"
            continue
        repeat = REPEAT.search(message)
        if repeat:
            found.repeats.add(int(repeat[1]))
            continue
        moved_on = MOVED_ON.search(message)
        if moved_on:
            found.moved_on.add(int(moved_on[1]))
            continue
        fault = INJECTED.search(message)
        if fault and logger.startswith("bench"):
            found.injected[fault[1]] += 1
            continue
        if logger == "bot.ai_worker" and AI_FALLBACK in message:
            found.ai_fallbacks += 1
        if is_429_retry(logger, message):
            found.http_429_retried += 1
        elif logger.startswith("bench") and message == SURFACED_429_TEXT:
            found.http_429_surfaced += 1
        if level not in ("ERROR", "CRITICAL"):
            continue
        if logger == "bot" or logger.startswith("bot."):
            found.supervised[f"{logger}: {re.sub(r'[0-9]+', 'N', message)[:90]}"] += 1
        elif not logger.startswith("bench"):
            found.unhandled.append(f"{logger}: {message[:160]}")
    return found


def refused_writes(in_bot: collections.Counter[str] | dict[str, int]) -> dict[str, int]:
    """The storage writes refused in the fault windows, by the core method that refused them."""
    return {
        kind.removeprefix("storage-"): count
        for kind, count in in_bot.items()
        if kind.startswith("storage-") and kind != "storage-window"
    }


def never_injected(asked: Faults, in_bot: collections.Counter[str]) -> list[str]:
    """Fault kinds the parent asked the bot for whose injection never once took effect there: a patch that
    misses its target (renamed, overridden) shows here instead of passing as a fault survived."""
    broken = []
    if asked.storage_windows and not refused_writes(in_bot):
        broken.append(f"{asked.storage_windows} storage fault windows, not one write refused")
    if asked.worker_kills and not in_bot["ai-worker-killed"]:
        broken.append(f"{asked.worker_kills} AI worker kills asked, none killed")
    return broken


def stderr_tracebacks(path: Path) -> list[str]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    found = []
    for index, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)") or line.startswith("Exception ignored in"):
            tail = next((later for later in lines[index + 1 :] if later and not later.startswith(" ")), line)
            found.append(f"stderr: {tail[:160]}")
    return found


def acknowledged(click: FakeInteraction) -> bool:
    """Whether the player was told the click was taken: a deferred update (type 6) or an update of the
    clicked message (type 7), or a deferred answer (type 5) and then a follow-up, and no refusal after it."""
    response = click.response
    if response is None or refusal(click) is not None:
        return False
    return response.type in (6, 7) or (response.type == 5 and bool(click.followups))


def acknowledged_unstored(
    clicks: list[GameClick],
    stored: set[tuple[Any, ...]],
    deals: list[tuple[Any, ...]],
    repeats: collections.abc.Set[int] = frozenset(),
    moved_on: collections.abc.Set[int] = frozenset(),
) -> tuple[int, int, list[str]]:
    """(acknowledged game clicks, those whose move is missing from the stored record, examples).

    A click is at a position (its button's table and version), where one move can be stored. Of the
    acknowledged clicks of one position, one is accounted for if the move of one of them is in the record of
    the deal that ran when it was made (deals.started_at, unix seconds, one second either way); every other
    acknowledged click of that position was lost, e.g. acknowledged, then killed before its commit, then
    clicked again after the restart and stored that time. A click the bot logged as the repeat of a stored
    move (``repeats``, interaction ids: a quick second click, acknowledged once that move is stored) claims
    that move rather than one of its own: it is lost only if that move is not in the record of a deal that
    ran in the ``REPEAT_WINDOW`` before it. A click answered with its hand in the channel as it stands, saying
    the button was out of date (``moved_on``, interaction ids), was not taken and claims nothing."""
    from bot.schnapsen.clickanswers import REPEAT_WINDOW
    from bot.schnapsen.components import GameActionButton
    from bot.schnapsen.ids import ButtonId
    from engine import format_action

    starts: dict[int, list[tuple[int, int]]] = collections.defaultdict(list)
    for table_id, deal_no, started_at in deals:
        starts[int(table_id)].append((int(started_at), int(deal_no)))
    for table_deals in starts.values():
        table_deals.sort()
    record: dict[tuple[int, int], set[str]] = collections.defaultdict(set)
    for table_id, deal_no, _, action in stored:
        record[(int(table_id), int(deal_no))].add(str(action))

    def in_record(click: GameClick, table_id: int, lookback: float = 0.0) -> bool:
        button = ButtonId.parse(str(click.interaction.custom_id))
        action = GameActionButton.action_of(button) if button is not None else None
        if action is None:
            return False
        text = format_action(click.seat, action)
        table_deals = starts.get(table_id, [])
        for index, (started, deal_no) in enumerate(table_deals):
            following = table_deals[index + 1][0] if index + 1 < len(table_deals) else None
            ran = started <= click.wall_time + 1 and (
                following is None or following >= click.wall_time - 1 - lookback
            )
            if ran and text in record[(table_id, deal_no)]:
                return True
        return False

    by_position: dict[tuple[int, int], list[GameClick]] = collections.defaultdict(list)
    lost: list[GameClick] = []
    repeated = 0
    for click in clicks:
        if acknowledged(click.interaction) and int(click.interaction.id) not in moved_on:
            match = BUTTON_ID.fullmatch(str(click.interaction.custom_id))
            if match is None:
                continue
            if repeats and int(click.interaction.id) in repeats:
                repeated += 1
                # Its move may be the last of a deal that ended since, in the window a repeat is taken in.
                if not in_record(click, int(match[1]), lookback=REPEAT_WINDOW):
                    lost.append(click)
            else:
                by_position[(int(match[1]), int(match[2]))].append(click)
    for (table_id, _), group in sorted(by_position.items()):
        # The latest one whose move is stored made it (an earlier one was acknowledged and lost, then clicked again).
        kept = next((click for click in reversed(group) if in_record(click, table_id)), None)
        lost += [click for click in group if click is not kept]
    examples = [
        f"{click.interaction.custom_id} by seat {click.seat}, answered with type "
        f"{click.interaction.response_type} {time.strftime('%H:%M:%S', time.localtime(click.wall_time))}"
        for click in lost[:5]
    ]
    return repeated + sum(len(group) for group in by_position.values()), len(lost), examples


def must_be_zero(figures: dict[str, Any]) -> dict[str, int]:
    return {
        "accepted clicks missing from the record": figures["accepted_missing_from_record"],
        "acknowledged clicks missing from the record": figures["acknowledged_unstored"],
        "tables without progress (stall limit)": figures["tables_stalled_30s"],
        "unhandled exceptions": figures["unhandled_exceptions"],
        "duplicate results (same nonce)": figures["duplicate_results_by_nonce"],
        "duplicate results (more than deals)": figures["duplicate_results_by_deal"],
        "results never posted": figures["results_never_posted"],
        "hand DMs never sent": figures["hand_dms_never_sent"],
        "duplicate hand DMs (same nonce)": figures["duplicate_hand_dms_by_nonce"],
        "table messages beyond one per table": figures["duplicate_table_messages"],
        "restarts that did not come up": figures["restart_failures"],
        "bot exits nobody asked for": figures["unexpected_exits"],
        "fault kinds asked for but never injected": len(figures["faults_asked_but_never_injected"]),
        # No accepted click logged at all: the check of lost clicks checked nothing (a log line that moved).
        "runs without one accepted click logged": int(figures["accepted_actions_logged"] == 0),
    }


def print_report(figures: dict[str, Any], args: argparse.Namespace, folder: Path | None) -> None:
    f = figures
    print(
        f"chaos: {args.tables} tables, {args.bummerl} Bummerl each to "
        f"{args.target or 24} game points, seed {args.seed}, {args.database}, {f['seconds']} s"
        + (f", {args.latency_ms:g} ms each way between the bot and Discord" if args.latency_ms else "")
    )
    print(
        f"Bummerl finished / started: {f['bummerl_finished']} / {f['bummerl_started']} "
        f"(wanted {f['bummerl_wanted']})"
    )
    print(
        f"clicks accepted by the bot that are missing from the stored record: "
        f"{f['accepted_missing_from_record']} (of {f['accepted_actions_logged']} accepted; logged by "
        f"{f['accepted_log_source']})"
    )
    print(
        f"game clicks acknowledged to the player but missing from the stored record (kill -9 at random "
        f"instants of play): {f['acknowledged_unstored']} (of {f['acknowledged_clicks']} acknowledged; "
        f"{f.get('acknowledged_repeats', 0)} clicks acknowledged as the repeat of a stored move; "
        f"{f.get('moved_on_shown', 0)} clicks on a position left answered with the hand in the channel as it "
        "stands, told so, not counted)"
    )
    for example in f["acknowledged_unstored_examples"]:
        print(f"    {example}")
    print(
        f"tables that made no progress for {args.stall_seconds:g} s while someone was to act: "
        f"{f['tables_stalled_30s']}"
    )
    for stall in f["stalls"][:10]:
        print(f"    table {stall['table']} stood at version {stall['version']} for {stall['seconds']} s")
    print(f"unhandled exceptions in the bot's log: {f['unhandled_exceptions']}")
    for example in f["unhandled_examples"]:
        print(f"    {example}")
    print(f"supervised failures (retried): {f['supervised_failures']}")
    for kind, count in f["supervised_kinds"].items():
        print(f"    {count:5d} x {kind}")
    print(
        f"duplicate result messages: {f['duplicate_results_by_nonce']} by nonce, "
        f"{f['duplicate_results_by_deal']} beyond the deals finished; results never posted: "
        f"{f['results_never_posted']}"
    )
    print(
        f"hand DMs never sent: {f['hand_dms_never_sent']}; "
        f"duplicate hand DMs (same nonce): {f['duplicate_hand_dms_by_nonce']}; table messages beyond one per "
        f"table: {f['duplicate_table_messages']}; tables that never started: {f['tables_never_started']}"
    )
    print(
        f"restarts survived: {f['restarts_survived']}, {f['restarts_in_play']} of them while a deal ran "
        f"(did not come up: {f['restart_failures']}; "
        f"exits nobody asked for: {f['unexpected_exits']})"
    )
    faults = f["faults"]
    print(
        f"faults injected: HTTP {faults['http']} ({faults['http_after_effect']} after taking effect); "
        f"gateway {faults['gateway']}; DMs closed {faults['dm_closes']}; kill -9 restarts "
        f"{faults['kill_9_restarts']}"
    )
    in_bot = faults["in_bot"]
    print(
        f"faults in the bot process (asked / happened): storage windows {faults['storage_windows']} / "
        f"{in_bot.get('storage-window', 0)}, writes refused in them {faults['storage_writes_refused']} "
        f"{refused_writes(in_bot)}; "
        f"AI workers killed {faults['ai_worker_kills']} / {in_bot.get('ai-worker-killed', 0)}; "
        f"AI searches given a 1 ms cap {in_bot.get('ai-1ms-cap', 0)} (AI fell back to greedy "
        f"{faults['ai_fell_back_to_greedy']} times)"
    )
    for problem in f["faults_asked_but_never_injected"]:
        print(f"    NOT INJECTED: {problem}")
    print(f"clicks {f['clicks']}, 'My hand' asks {f['my_hand_asks']}")
    print(f["discord_limits"])
    print(
        "from the first click to the end of the settling (accepted clicks as the bot logged them; discord.py's "
        "429s include the injected ones):\n    "
        + rest_line(f["rest"], f["http_429_retried"], f["http_429_surfaced"])
    )
    if folder is not None:
        kept = "database" if args.database == "sqlite" else "no database (the PostgreSQL cluster is gone)"
        print(f"bot log and {kept} kept in {folder}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="the bot's engine: a SQLite file (default) or a throwaway PostgreSQL cluster (initdb, pg_ctl)",
    )
    parser.add_argument("--bummerl", type=int, default=3, help="Bummerl each table plays (default 3)")
    parser.add_argument(
        "--target", type=int, default=0, help="game points that win a Bummerl (default: the rules' own, 24)"
    )
    parser.add_argument(
        "--ai-tables", type=int, default=2, help="every n-th table has one or two AI seats (0: none)"
    )
    parser.add_argument("--restarts", type=int, default=25, help="kill -9 restarts at most (default 25)")
    parser.add_argument(
        "--restart-every", type=float, default=6.0, help="seconds between restarts (jittered)"
    )
    parser.add_argument(
        "--quiet-every",
        type=int,
        default=5,
        help="after this many restarts, none for --stall-seconds + 15 s (so stalls can show)",
    )
    parser.add_argument("--duration", type=float, default=1800.0, help="cap on the playing time in seconds")
    parser.add_argument(
        "--settle",
        type=float,
        default=30.0,
        help="seconds the bot has after the faults stop to post what it owes",
    )
    parser.add_argument("--http-fault-rate", type=float, default=0.03, help="probability per REST request")
    parser.add_argument(
        "--post-fault-rate",
        type=float,
        default=0.1,
        help="probability per message create (POST .../messages)",
    )
    parser.add_argument("--gateway-faults", type=float, default=3.0, help="per minute")
    parser.add_argument("--storage-faults", type=float, default=2.0, help="per minute")
    parser.add_argument("--storage-fault-seconds", type=float, default=2.0)
    parser.add_argument("--worker-kills", type=float, default=3.0, help="AI workers killed per minute")
    parser.add_argument("--overrun-rate", type=float, default=0.05, help="AI searches given a 1 ms cap")
    parser.add_argument("--dm-closes", type=float, default=2.0, help="players closing their DMs per minute")
    parser.add_argument("--dm-close-max", type=float, default=0.25, help="at most this share of players")
    parser.add_argument(
        "--each-fault-every",
        type=float,
        default=4.0,
        help="seconds between the first faults of each kind (so that short runs meet them all)",
    )
    parser.add_argument("--stall-seconds", type=float, default=30.0)
    parser.add_argument("--start-timeout", type=float, default=60.0)
    parser.add_argument(
        "--edit-interval", type=float, help="the bot's edit coalescing (default: the product's)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=0.0,
        help="each way between the bot and the fake Discord, for every REST call and gateway event (default 0)",
    )
    parser.add_argument(
        "--discord-limits",
        action="store_true",
        help="the fake Discord also enforces Discord's rate limits (as bench/bot_bench.py --discord-limits), "
        "on top of the injected faults",
    )
    parser.add_argument(
        "--global-limit",
        type=int,
        default=DISCORD_GLOBAL_LIMIT,
        help="with --discord-limits: the bot token's requests a second the fake allows (Discord's 50); the bot's "
        "pacer keeps to the same share of a smaller one, which a few tables then come close to",
    )
    parser.add_argument(
        "--sabotage",
        choices=("ai",),
        help="check the bench: the bot's AI seats never move, so it must report stalls",
    )
    parser.add_argument("--json", action="store_true", help="also print one JSON line with every figure")
    parser.add_argument("--keep", action="store_true", help="keep the bot log and the database")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="chaos-"))
    try:
        figures = asyncio.run(Chaos(args, folder).run())
    except BaseException:
        args.keep = True
        print(f"chaos: the bench itself failed; bot log and database kept in {folder}", file=sys.stderr)
        raise
    zeros = must_be_zero(figures)
    unfinished = figures["bummerl_finished"] < figures["bummerl_wanted"] or (
        figures["bummerl_finished"] < figures["bummerl_started"]
    )
    failed = any(zeros.values()) or unfinished
    keep = args.keep or failed
    print_report(figures, args, folder if keep else None)
    if failed:
        broken = [name for name, value in zeros.items() if value]
        if unfinished:
            broken.append("Bummerl not finished")
        print("FAILED: " + "; ".join(broken))
    if args.json:
        figures["ok"] = not failed
        print(json.dumps(figures))
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
