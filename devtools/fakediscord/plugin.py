"""pytest fixtures for the fake Discord. Load with ``pytest_plugins = ["devtools.fakediscord.plugin"]``."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest_asyncio

from devtools.fakediscord.server import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A running fake on 127.0.0.1 (free port) with discord.py redirected to it.

    On teardown every client started through it is closed, and the test fails if the fake itself crashed
    while answering (a bug in the fake or a request it could not parse). With ``FAKE_DISCORD_LIMITS=1`` in the
    environment every test runs under Discord's rate limits (``limits.py``), as the bot would meet them.
    """
    fake = FakeDiscord()
    if os.environ.get("FAKE_DISCORD_LIMITS") == "1":
        fake.enforce_limits()
    await fake.start()
    try:
        with fake.redirect():
            yield fake
    finally:
        await fake.stop()
    if fake.internal_errors:
        raise AssertionError("fake Discord failed internally:\n" + "\n".join(fake.internal_errors))
