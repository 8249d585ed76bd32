"""Storage chores of the bot itself: pruning old action logs and the digest of the synced slash commands."""

from __future__ import annotations

from collections.abc import Callable

from bot.db import Database
from bot.db.retention import retention_cutoff

COMMAND_HASH_KEY = "command_hash"


class Housekeeping:
    def __init__(self, db: Database, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    async def prune_old_action_logs(self, retention_days: int) -> int:
        """Drop the action logs of tables closed more than ``retention_days`` ago (0: keep them forever);
        statistics, tallies and finished Bummerl stay. Returns how many tables were pruned."""
        cutoff = retention_cutoff(int(self.clock()), retention_days)
        return 0 if cutoff is None else await self.db.retention.prune_closed_tables(cutoff)

    async def command_hash(self) -> str | None:
        """The digest of the slash commands as last synced with Discord."""
        return await self.db.meta.get(COMMAND_HASH_KEY)

    async def set_command_hash(self, digest: str) -> None:
        await self.db.meta.set(COMMAND_HASH_KEY, digest)
