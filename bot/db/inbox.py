"""The click inbox: clicks the process Discord sent them to hands to the process serving their table.

The receiver stores a click with the shard of the table's guild; the owner takes the clicks of its shards in
order, applies each as if it had arrived there, and deletes it. On PostgreSQL the storing transaction also
sends `NOTIFY schnapsen_clicks` with the shard, which wakes the owner (`listen_for_clicks`); without it the
owner finds the click when it next looks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .core import Repository

CLICKS_CHANNEL = "schnapsen_clicks"  # the NOTIFY channel; its payload is the owner's shard


@dataclass(frozen=True, slots=True)
class InboxClick:
    id: int
    table_id: int
    shard: int
    interaction: dict[str, Any]  # Discord's INTERACTION_CREATE payload as the receiver got it
    received_at: int


class ClickInboxRepo(Repository):
    async def post_click(self, table_id: int, shard: int, interaction: dict[str, Any], now: int) -> int:
        """Store a click for the process holding `shard` (and wake it, where the engine can). It waits for no
        other process's write: each click is a row of its own."""
        row = await self._core.insert_notifying(
            "INSERT INTO click_inbox (table_id, shard, interaction_json, received_at) VALUES (?, ?, ?, ?)"
            " RETURNING id",
            (table_id, shard, json.dumps(interaction, separators=(",", ":")), now),
            CLICKS_CHANNEL,
            str(shard),
        )
        return int(row["id"])

    async def clicks_for(self, shards: Sequence[int], *, limit: int = 100) -> list[InboxClick]:
        """The waiting clicks of `shards`, oldest first."""
        if not shards:
            return []
        marks = ", ".join("?" for _ in shards)
        rows = await self._core.fetch_all(
            "SELECT id, table_id, shard, interaction_json, received_at FROM click_inbox"
            f" WHERE shard IN ({marks}) ORDER BY id LIMIT ?",
            (*shards, limit),
        )
        return [
            InboxClick(row["id"], row["table_id"], row["shard"], json.loads(row["interaction_json"]), row["received_at"])
            for row in rows
        ]

    async def click_done(self, click_id: int) -> None:
        async with self._core.unordered_write():  # a delete by id checks nothing
            await self._core.execute("DELETE FROM click_inbox WHERE id = ?", (click_id,))
