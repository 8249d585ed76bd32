from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot import render
from bot.schnapsen import clickanswers
from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import Table


@pytest.fixture(scope="session", autouse=True)
def warm_renderer() -> Iterator[None]:
    """Load the card art once per run, before any bot starts: each bot also preloads it in the background
    at start-up, and a test should not race that."""
    for deck in render.DECK_STYLES:
        render.preload(deck)
    yield


@pytest_asyncio.fixture
async def world(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[Table]:
    """A guild with a channel; the bot is stopped before the fake goes away, so that its last edits still
    reach the fake (the fake_discord fixture undoes its redirect before it stops the clients)."""
    table = Table(fake_discord, tmp_path / "bot.sqlite3")
    yield table
    if table.bot is not None:
        await table.stop_bot()


@pytest.fixture
def patient_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    """A click repeating its person's move is taken as such within ``clickanswers.REPEAT_WINDOW`` of the move;
    a loaded machine may take longer than that between a test's two clicks, whose point is not the window
    (test_repeated_clicks.py tests it)."""
    monkeypatch.setattr(clickanswers, "REPEAT_WINDOW", 600.0)
