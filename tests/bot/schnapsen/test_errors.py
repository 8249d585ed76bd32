"""The one error path: a failure nobody foresaw, in a button or a command, is logged with its context and
answered with an apology only the user sees; the bot serves the next click as usual."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import Table, ephemeral_reply

GENERIC = "Something went wrong on our side."


def unexpected_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR and "unexpected error" in r.getMessage()]


async def test_a_button_that_fails_unexpectedly_is_answered_and_logged_with_its_context(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    anna, bert = world.add_player("anna"), world.add_player("bert")
    bot = await world.start_bot()
    table = await world.open_table(anna, start=False)

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    take_seat = bot.service.take_seat
    monkeypatch.setattr(bot.service, "take_seat", broken)
    click = await fake_discord.click(bert, await world.table_message(), label="Sit East")
    assert GENERIC in await ephemeral_reply(click)
    [record] = unexpected_errors(caplog)
    assert f"user={bert.id}" in record.getMessage() and f"table={table.id}" in record.getMessage()
    assert f"custom_id=bs:{table.id}:0:sit:1" in record.getMessage() and record.exc_info is not None

    monkeypatch.setattr(bot.service, "take_seat", take_seat)
    click = await fake_discord.click(bert, await world.table_message(), label="Sit East")
    assert "East" in await ephemeral_reply(click)


async def test_a_command_that_fails_unexpectedly_is_answered_and_logged_with_its_context(
    fake_discord: FakeDiscord, world: Table, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    anna = world.add_player("anna")
    bot = await world.start_bot()

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(bot.service.guilds, "guild_settings", broken)
    interaction = await fake_discord.slash(anna, world.channel, "schnapsen", "new")
    assert GENERIC in await ephemeral_reply(interaction)
    [record] = unexpected_errors(caplog)
    assert f"user={anna.id}" in record.getMessage() and "command=schnapsen new" in record.getMessage()
    assert record.exc_info is not None
