"""Fixtures shared by the tests of the bot's layers."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.db import Database


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "bot.db")
    try:
        yield database
    finally:
        await database.close()
