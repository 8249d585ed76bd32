"""Bugs found by the chaos run (bench/chaos.py), each reproduced here on its own against the fake Discord."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import CurrentTable, Table, current_button


def escaped_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """ERROR records that no handler of the bot wrote: exceptions that escaped to discord.py or asyncio."""
    return [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.levelno >= logging.ERROR and not r.name.startswith("bot.")
    ]


@contextlib.contextmanager
def logged(predicate: Callable[[logging.LogRecord], bool]) -> Iterator[asyncio.Event]:
    """An event set once a log record matching ``predicate`` is written (by any logger)."""
    seen = asyncio.Event()

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if predicate(record):
                seen.set()

    handler = Watch(logging.DEBUG)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield seen
    finally:
        root.removeHandler(handler)


@pytest.mark.parametrize(
    ("status", "code"),
    [(404, 10062), (400, 40060)],
    ids=["interaction expired", "interaction answered already"],
)
async def test_a_refusal_that_cannot_be_answered_does_not_escape(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture, status: int, code: int
) -> None:
    """A click the service refuses (here: Sit by someone who sits already) whose ephemeral answer fails
    because the interaction expired or was acknowledged already (a lost reply to an answer that took effect)
    is logged by the bot, not left to discord.py's "Ignoring exception in dynamic item callback"."""
    alice = world.add_player("alice")
    await world.start_bot()
    table = await world.open_table(alice, start=False)
    assert table.seat_of(alice.id) == 0
    fake_discord.fail_next("POST", "/interactions/*/*/callback", status=status, code=code)
    lobby = await world.table_message()
    def answered_or_escaped(record: logging.LogRecord) -> bool:
        if record.name.startswith("bot."):
            return "sit:1" in record.getMessage() and record.levelno >= logging.WARNING
        return record.levelno >= logging.ERROR

    with logged(answered_or_escaped) as handled:
        await fake_discord.click(alice, lobby, label="Sit East")
        await asyncio.wait_for(handled.wait(), 10)
    assert escaped_errors(caplog) == []


async def test_a_hand_sent_again_after_storing_it_failed_is_brought_up_to_date(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """A deal's hand DM is sent, but storing its message id fails (storage full for a moment); the game moves
    on meanwhile, and the send is repeated. Discord answers the repeat with the first message (same nonce),
    which still shows the older position: it must be edited to the present, not taken to show it, or its
    owner is left on their turn with buttons that are out of date (a table that stands still)."""
    world.settings = dataclasses.replace(world.settings, retry_first=0.02, retry_max=0.1)
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [None, None, None], start=False, target=2)
    real_set_dm = bot.service.seating.set_dm
    calls: list[Any] = []
    gate = asyncio.Event()

    async def set_dm(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        await fake_discord.changed()  # the fake looks again only on a change it sees: this one it cannot
        if len(calls) == 1:  # the first hand's record: held until the game moved on, then the disk is full
            await gate.wait()
            raise sqlite3.OperationalError("database or disk is full")
        return await real_set_dm(*args, **kwargs)

    bot.service.seating.set_dm = set_dm  # type: ignore[method-assign]
    start = await fake_discord.click(alice, await world.table_message(), label="Start")
    await start.wait_response()
    await fake_discord.wait_for(lambda: calls, what="the first hand DM to be sent")
    sent_at = table.version
    await world.play([alice], until=lambda t: t.version > sent_at and t.deal is not None and t.deal.to_act == 0)
    gate.set()
    dms = fake_discord.dm_messages(alice)
    assert len(dms) == 1, "the repeated send shows the same message (nonce), not a second one"

    def up_to_date() -> bool:
        return table.deal is not None and table.deal.to_act == 0 and current_button(dms[0], table.version) is not None

    await fake_discord.wait_for(up_to_date, what="alice's hand DM to show her turn at the present position")


async def test_a_hand_sent_before_a_restart_but_never_stored_is_brought_up_to_date(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """As above, across a restart: the bot sent the hand DM but stopped before its message id was stored
    (storage full, then killed); the game had moved on. The restarted bot sends the hand again, gets the first
    message back (same nonce) and must edit it to the present instead of taking it to show the present."""
    world.settings = dataclasses.replace(world.settings, retry_first=0.02, retry_max=0.1)
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [None, None, None], start=False, target=2)
    calls: list[Any] = []

    async def set_dm(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        await fake_discord.changed()  # the fake looks again only on a change it sees: this one it cannot
        raise sqlite3.OperationalError("database or disk is full")

    bot.service.seating.set_dm = set_dm  # type: ignore[method-assign]
    start = await fake_discord.click(alice, await world.table_message(), label="Start")
    await start.wait_response()
    await fake_discord.wait_for(lambda: calls, what="the first hand DM to be sent")
    sent_at = table.version
    await world.play([alice], until=lambda t: t.version > sent_at and t.deal is not None and t.deal.to_act == 0)
    await world.stop_bot()
    await world.start_bot()
    table = CurrentTable(world, world.live.id)
    assert table.deal is not None and table.deal.to_act == 0
    dms = fake_discord.dm_messages(alice)
    assert len(dms) == 1

    def up_to_date() -> bool:
        return current_button(dms[0], table.version) is not None

    await fake_discord.wait_for(up_to_date, what="alice's hand DM to show her turn at the present position")
    assert len(fake_discord.dm_messages(alice)) == 1, "the repeated send shows the same message (nonce)"


async def test_a_table_message_whose_id_could_not_be_stored_is_not_posted_twice(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """The new table's message is posted, but storing its message id fails (storage full for a moment), so the
    post is retried: the retry must store the message it posted, not post a second lobby beside it (a
    channel with two live lobbies of one table, where the older one is never edited again)."""
    world.settings = dataclasses.replace(world.settings, retry_first=0.02, retry_max=0.1)
    alice = world.add_player("alice")
    bot = await world.start_bot()
    real = bot.service.seating.set_table_message
    failed: list[Any] = []

    async def set_table_message(*args: Any, **kwargs: Any) -> Any:
        if len(failed) < 2:
            failed.append(args)
            await fake_discord.changed()  # the fake looks again only on a change it sees: this one it cannot
            raise sqlite3.OperationalError("database or disk is full")
        return await real(*args, **kwargs)

    bot.service.seating.set_table_message = set_table_message  # type: ignore[method-assign]
    await world.command(alice, "new")
    await fake_discord.wait_for(lambda: world.live.row.table_message_id is not None, what="the stored message")
    lobbies = [m for m in world.channel.messages if m.embeds and m.buttons]
    assert len(failed) == 2
    assert [m.id for m in lobbies] == [world.live.row.table_message_id], "one lobby, the one stored"
    assert any("table message failed" in r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)


async def test_a_hand_dm_click_that_storage_refuses_is_logged_with_its_table(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture
) -> None:
    """A click on a hand DM whose action cannot be stored (storage full for a moment) is answered as an error
    and logged at ERROR naming its table: a DM has no table of its own, the button's id names it."""
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.no_ai_delay()
    table = await world.open_table(alice, [None, None, None], target=2)

    async def refused(*args: Any, **kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database or disk is full")

    def alices_button() -> tuple[Any, str] | None:
        hand = world.hand_message(alice)
        button = current_button(hand, table.version) if hand is not None and table.deal.to_act == 0 else None
        return None if button is None else (hand, str(button["custom_id"]))

    hand, custom_id = await fake_discord.wait_for(alices_button, what="alice's turn in her hand DM")
    bot.service.act = refused  # type: ignore[method-assign]
    click = await fake_discord.click(alice, hand, custom_id)
    await click.wait_response()
    await fake_discord.wait_for(lambda: click.followups or click.messages, what="the answer")
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and "unexpected error" in r.getMessage()]
    assert len(errors) == 1 and f"table={table.id} " in errors[0], errors
