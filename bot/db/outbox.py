"""The outbox: what a stored change must announce, kept until it has been delivered."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .core import Repository
from .models import OutboxEntry, OutboxKind


class OutboxRepo(Repository):
    async def add_announcements(
        self, table_id: int, announcements: Sequence[tuple[OutboxKind, dict[str, Any]]], now: int
    ) -> None:
        """Owe several announcements, to arrive in this order (one statement each, sent together); called inside
        the transaction of the change they announce."""
        if not announcements:
            return
        async with self._core.transaction():
            await self._core.execute_many(
                "INSERT INTO outbox (table_id, kind, payload_json, created_at) VALUES (?, ?, ?, ?)",
                [(table_id, kind, json.dumps(payload, separators=(",", ":")), now) for kind, payload in announcements],
            )

    async def pending_announcements(self, table_id: int | None = None) -> list[OutboxEntry]:
        """What is still owed, oldest first (of one table, or of all)."""
        where, params = ("WHERE table_id = ?", (table_id,)) if table_id is not None else ("", ())
        rows = await self._core.fetch_all(
            f"SELECT id, table_id, kind, payload_json, created_at FROM outbox {where} ORDER BY id", params
        )
        return [
            OutboxEntry(row["id"], row["table_id"], row["kind"], json.loads(row["payload_json"]), row["created_at"])
            for row in rows
        ]

    async def announcement_delivered(self, entry_id: int) -> None:
        """Forget a delivered announcement (one already forgotten is left so): a write known in full."""
        delete = "DELETE FROM outbox WHERE id = ? RETURNING id"
        await self._core.fetch_chain_alone([(delete, (entry_id,))], unordered=True)  # a delete by id checks nothing
