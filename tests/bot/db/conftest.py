import sqlite3
from collections.abc import Awaitable, Callable

import asyncpg
import pytest

from bot.db import Database, TableRow

CREATED_AT = 1_700_000_000

# What a broken constraint or a refusing trigger raises, on either engine.
INTEGRITY_ERRORS = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)

MakeTable = Callable[..., Awaitable[TableRow]]


@pytest.fixture
def make_table(db: Database) -> MakeTable:
    """Open a lobby, created at `CREATED_AT` (unix seconds) with first dealer W."""

    async def make(channel_id: int = 500, guild_id: int = 1, host_id: int = 11) -> TableRow:
        return await db.tables.create_table(
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            rules_json='"standard"',
            deck="doppeldeutsch",
            turn_seconds=60,
            language="en",
            first_dealer=3,
            now=CREATED_AT,
        )

    return make


@pytest.fixture(params=["sqlite", "postgresql"])
def database_engine(request: pytest.FixtureRequest) -> str:
    """Every storage test runs on both engines."""
    return str(request.param)
