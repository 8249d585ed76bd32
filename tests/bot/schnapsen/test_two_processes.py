"""Two bot processes on one PostgreSQL, each holding one shard of two, end to end: a table in a guild on shard
1 is played by four people clicking their hand DMs, which Discord sends to shard 0's process; that process
hands each click to the owner through the database's click inbox. The owner is killed mid-deal, a click made
while it is down waits in the inbox, and the restarted owner applies it and play goes on to the deal's end.
Then both stop and one process holding both shards takes the table on from the database. Nothing is lost:
the stored actions are exactly the accepted clicks, in order.

Each process is a real bot in a process of its own (``bot_process.py``), talking to this test's fake Discord
over loopback."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest_asyncio

import engine
from bot.db import Database
from bot.schnapsen.components import GameActionButton
from bot.schnapsen.ids import ButtonId
from devtools.fakediscord import FakeChannel, FakeDiscord, FakeInteraction, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import button_version, game_buttons, is_result_message, refusals

ROOT = Path(__file__).resolve().parents[3]
SEATS = ("North", "East", "South", "West")
START_TIMEOUT = 90.0  # a cold process imports discord.py, Pillow and the engine, and starts its AI workers
STEP_TIMEOUT = 30.0


class BotProcesses:
    """The bot processes of one test, by the shard ids they hold; every one is stopped at the end."""

    def __init__(self, fake: FakeDiscord, database: str, logs: Path) -> None:
        self.fake, self.database, self.logs = fake, database, logs
        self.running: dict[str, asyncio.subprocess.Process] = {}
        self.starts = 0

    async def start(self, shard_ids: str) -> None:
        self.starts += 1
        log = (self.logs / f"bot-{shard_ids}-{self.starts}.log").open("w")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.bot.schnapsen.bot_process",
            "--api", self.fake.api_base, "--gateway", self.fake.gateway_url, "--token", self.fake.token,
            "--database", self.database, "--shard-count", "2", "--shard-ids", shard_ids,
            "--inbox-poll", "30",  # a click is taken when the owner is woken by NOTIFY, not by looking
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log, start_new_session=True,
        )  # fmt: skip
        log.close()
        assert process.stdout is not None
        try:
            line = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)
        except TimeoutError:  # says so with the process's log, and leaves no process behind
            line = b"nothing after %d s" % START_TIMEOUT
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
        assert line.strip() == b"READY", f"the bot on shard {shard_ids} did not start ({line!r}): {self.log_tail(shard_ids)}"
        self.running[shard_ids] = process

    async def kill(self, shard_ids: str) -> None:
        """A crash: SIGKILL to the process and its AI workers; nothing is flushed or closed."""
        process = self.running.pop(shard_ids)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()

    async def stop_all(self) -> None:
        for shard_ids, process in list(self.running.items()):
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                await self.kill(shard_ids)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # AI workers a clean stop left behind, if any
        self.running.clear()

    def log_tail(self, shard_ids: str) -> str:
        return (self.logs / f"bot-{shard_ids}-{self.starts}.log").read_text()[-3000:]


@pytest_asyncio.fixture
async def processes(fake_discord: FakeDiscord, pg_url: str, tmp_path: Path) -> AsyncIterator[BotProcesses]:
    bots = BotProcesses(fake_discord, pg_url, tmp_path)
    yield bots
    await bots.stop_all()


def newest_hand(fake: FakeDiscord, people: list[FakeUser]) -> tuple[FakeUser, FakeMessage, dict[str, str]] | None:
    """Who is to act and what they see: the newest position (button version) any hand DM offers."""
    found = None
    for person in people:
        dms = fake.dm_messages(person)
        if not dms:
            continue
        for button in game_buttons(dms[-1]):
            parsed = ButtonId.parse(button["custom_id"])
            assert parsed is not None
            if found is None or parsed.version > found[0]:
                found = (parsed.version, person, dms[-1], button)
    return None if found is None else found[1:]


def stored_text(seat: int, custom_id: str) -> str:
    """How the action of a game button clicked at ``seat`` is stored."""
    parsed = ButtonId.parse(custom_id)
    assert parsed is not None
    action = GameActionButton.action_of(parsed)
    assert action is not None
    return engine.format_action(seat, action)


async def wait_until(fake: FakeDiscord, predicate: Callable[[], object], what: str) -> None:
    await fake.wait_for(predicate, timeout=STEP_TIMEOUT, what=what)


async def logged(path: Path, pattern: str, what: str) -> str:
    """A process's log once a line of it matches ``pattern``. A log file gives nothing to await: it is read
    again every 50 ms, for up to STEP_TIMEOUT."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STEP_TIMEOUT
    while not re.search(pattern, text := path.read_text()):
        if loop.time() > deadline:
            raise AssertionError(f"{path.name} never logged {what} ({pattern!r}):\n{text}")
        await asyncio.sleep(0.05)
    return text


async def open_table(fake: FakeDiscord, channel: FakeChannel, people: list[FakeUser]) -> FakeMessage:
    """The first person opens a table in the channel, the others sit down in order, and the host starts."""
    command = await fake.slash(people[0], channel, "schnapsen", "new")
    await command.wait_response()

    def lobby() -> FakeMessage | None:
        return next((m for m in reversed(channel.messages) if any(b.get("label") == "Start" for b in m.buttons)), None)

    await wait_until(fake, lobby, "the lobby")
    for seat, person in enumerate(people[1:], start=1):
        message = lobby()
        assert message is not None
        click = await fake.click(person, message, label=f"Sit {SEATS[seat]}")
        await click.wait_response()
        await wait_until(
            fake,
            lambda seat=seat: (m := lobby()) is not None and m.button(f"Sit {SEATS[seat]}").get("disabled"),
            f"{person.name} seated",
        )
    message = lobby()
    assert message is not None
    click = await fake.click(people[0], message, label="Start")
    await click.wait_response()
    await wait_until(fake, lambda: all(fake.dm_messages(person) for person in people), "every hand dealt")
    return message


async def test_two_processes_on_postgresql_play_a_deal_by_dm_through_a_crash_of_the_owner(
    fake_discord: FakeDiscord, processes: BotProcesses, pg_url: str
) -> None:
    fake = fake_discord
    admin = fake.add_user("admin")
    guild = fake.add_guild("Shard one", owner=admin, shard=(1, 2))
    channel = guild.add_text_channel("schnapsen")
    people = [fake.add_user(name) for name in ("anna", "bert", "cilli", "dieter")]
    for person in people:
        guild.add_member(person)
    await processes.start("0")
    await processes.start("1")
    assert sorted(tuple(identify["shard"]) for identify in fake.identifies[-2:]) == [(0, 2), (1, 2)]

    await open_table(fake, channel, people)
    accepted: list[str] = []  # the stored text of each accepted click's action, in order
    handed: list[FakeInteraction] = []
    crashed = False

    def results() -> list[FakeMessage]:
        return [m for m in channel.messages if is_result_message(m)]

    while not results():
        await wait_until(fake, lambda: newest_hand(fake, people) is not None or results(), "someone's turn")
        if results():
            break
        found = newest_hand(fake, people)
        assert found is not None
        person, message, button = found
        version, custom_id = button_version(button), button["custom_id"]
        if len(accepted) == 4 and not crashed:  # still in the auction or the first trick: mid-deal
            # The owner crashes; the next click reaches shard 0's process, which acknowledges it and keeps
            # it in the inbox until the owner is back.
            await processes.kill("1")
            crashed = True
        owner_down = "1" not in processes.running
        click = await fake.click(person, message, custom_id)
        response = await click.wait_response()
        # Shard 0's process stores the click in the inbox and then acknowledges it (type 6). The owner, woken at
        # that commit, may answer first with the hand the move made (type 7); not while it is down.
        assert response.type in ((6,) if owner_down else (6, 7)), (
            "a DM click for shard 1's table is acknowledged by shard 0's process, or answered by its owner"
        )
        handed.append(click)
        if crashed and "1" not in processes.running:
            await processes.start("1")  # the click waits in the inbox: the owner takes it when it starts

        def answered(click: FakeInteraction = click, version: int = version) -> bool:
            """The position moved on (or the deal ended), or the click was refused."""
            now = newest_hand(fake, people)
            moved = bool(results()) or (now is not None and button_version(now[2]) > version)
            return moved or bool(refusals(click))

        await wait_until(fake, answered, f"the click at position {version}")
        assert not refusals(click), f"the click at {version} was refused: {refusals(click)[0].content!r}"
        accepted.append(stored_text(people.index(person), custom_id))

    assert crashed and len(accepted) > 5
    # The two shared the token's budget (tokenshare.py), shard 0's process through the other's crash. Its first
    # split comes once it has listened for 3 s, maybe after the deal; and maybe after the restart, while the
    # killed process still counts (it lapses 3 s after its last announcement): then it says 3.
    shard_0_log = await logged(
        processes.logs / "bot-0-1.log", r"the bot token's budget is shared by [23] process\(es\)", "the split"
    )
    assert "cannot share the bot token's budget" not in shard_0_log

    # The range moves by configuration: both stop, one process starts holding shards 0-1 and goes on with the
    # table from the database; a DM click is now applied where it arrives.
    await processes.stop_all()
    await processes.start("0-1")
    await wait_until(fake, lambda: newest_hand(fake, people) is not None, "someone's turn in the next deal")
    found = newest_hand(fake, people)
    assert found is not None
    person, message, button = found
    click = await fake.click(person, message, button["custom_id"])
    await wait_until(
        fake,
        lambda: (now := newest_hand(fake, people)) is not None
        and button_version(now[2]) > button_version(button),
        "the click applied by the process now holding both shards",
    )
    assert not click.followups
    accepted.append(stored_text(people.index(person), button["custom_id"]))
    db = await Database.open(pg_url)
    try:
        [table] = [row for row in await db.tables.list_open_tables() if row.guild_id == guild.id]
        record = await db.records.load_record(table.id)
        # (The next deal's hands may come before the result: a click on one counts as well.)
        assert [action for deal in record.deals for action in deal.actions] == accepted
        assert record.deals[0].finished
        assert await db.inbox.clicks_for((0, 1)) == []  # every handed click was taken and deleted
    finally:
        await db.close()
    # Every click was a DM click for shard 1's table, acknowledged by shard 0 (or answered by the owner first).
    assert all(click.response is not None and click.response.type in (6, 7) for click in handed)
