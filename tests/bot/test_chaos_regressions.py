"""Bugs found by the chaos run (bench/chaos.py), each reproduced here on its own against the fake Discord."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator

import pytest

from tests.bot.harness import Table
from tests.fakediscord import FakeDiscord


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
