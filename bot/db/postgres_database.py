"""`PostgresDatabase`: the bot's storage on PostgreSQL, imported only when a database URL names it (the
driver, asyncpg, is needed by nobody else)."""

from __future__ import annotations

from .database import Database
from .postgres import PostgresCore


class PostgresDatabase(PostgresCore, Database):
    """The bot's storage on a PostgreSQL server, which several bot processes may share."""
