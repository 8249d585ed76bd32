"""Bounded storage: the action logs of tables closed long ago are pruned.

A closed table's actions are by far the largest part of the database (a few dozen rows per deal) and only a
replay needs them, which a closed table never gets: restarts restore only tables that are not closed, and a
closed table can never be reopened (a trigger refuses it). What stays: the table row, its seats, its deals
(seed, dealer and hands), deal results, finished Bummerl, player statistics and team tallies. Deleting actions
breaks no foreign key (nothing references `actions`); a pruned table's `load_record` gives its deals with no
actions.
"""

from __future__ import annotations

import asyncio

from .core import Repository

DAY_SECONDS = 86_400
BATCH_ROWS = 500  # actions deleted per transaction: a few milliseconds of holding the write lock


def retention_cutoff(now: int, days: int) -> int | None:
    """The `older_than` for `prune_closed_tables` when action logs are kept `days` days; `None` when
    `days` is 0 (keep them forever: do not prune)."""
    if days < 0:
        raise ValueError(f"retention is a number of days >= 0, not {days}")
    return None if days == 0 else now - days * DAY_SECONDS


class RetentionRepo(Repository):
    async def prune_closed_tables(self, older_than: int) -> int:
        """Delete the actions of every table that is closed and was last updated before `older_than` (unix
        seconds; closing a table sets `updated_at`). Returns how many tables lost actions (0 once done).

        Runs as many short transactions of at most `BATCH_ROWS` rows, so other writes get in between; call
        it outside a transaction (inside one it would join it and hold the lock to the end).
        """
        candidates = await self._core.fetch_all(
            """
            SELECT id FROM game_tables AS t
            WHERE status = 'closed' AND updated_at < ? AND EXISTS (SELECT 1 FROM actions WHERE table_id = t.id)
            ORDER BY id
            """,
            (older_than,),
        )
        pruned = 0
        for candidate in candidates:
            table_id = int(candidate["id"])
            deleted_any = False
            while True:
                async with self._core.transaction():
                    # The condition is checked again in the batch's own transaction.
                    deleted = await self._core.execute(
                        """
                        DELETE FROM actions WHERE (table_id, deal_no, seq) IN (
                            SELECT table_id, deal_no, seq FROM actions
                            WHERE table_id = ?1
                              AND EXISTS (SELECT 1 FROM game_tables
                                          WHERE id = ?1 AND status = 'closed' AND updated_at < ?2)
                            ORDER BY deal_no, seq
                            LIMIT ?3)
                        """,
                        (table_id, older_than, BATCH_ROWS),
                    )
                deleted_any = deleted_any or deleted > 0
                if deleted < BATCH_ROWS:
                    async with self._core.transaction():  # a review's marks mean nothing without the moves
                        await self._core.execute(
                            """
                            DELETE FROM deal_reviews WHERE table_id = ?1
                              AND EXISTS (SELECT 1 FROM game_tables
                                          WHERE id = ?1 AND status = 'closed' AND updated_at < ?2)
                            """,
                            (table_id, older_than),
                        )
                    break
                await asyncio.sleep(0)  # let waiting tasks have the connection
            pruned += deleted_any
        return pruned
