"""The game record of every table: deals (seed and hands), their actions, and finished deals' results."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .core import Repository, Row
from .errors import RecordConflict, TableNotFound
from .models import DealResultRow, StoredDeal, TableRecord
from .tables import BUMP_VERSION

# One statement on the hot path: it inserts nothing unless the deal is the running one.
APPEND_ACTION = """
    INSERT INTO actions (table_id, deal_no, seq, action, created_at)
    SELECT CAST(?1 AS BIGINT), CAST(?2 AS INTEGER),
           (SELECT COALESCE(MAX(seq) + 1, 0) FROM actions WHERE table_id = ?1 AND deal_no = ?2),
           CAST(?3 AS TEXT), CAST(?4 AS BIGINT)
    WHERE ?2 = (SELECT MAX(deal_no) FROM deals WHERE table_id = ?1)
      AND NOT EXISTS (SELECT 1 FROM deal_results WHERE table_id = ?1 AND deal_no = ?2)
    RETURNING seq
"""


class RecordsRepo(Repository):
    async def start_deal(
        self, table_id: int, deal_no: int, dealer: int, seed: int, hands: Sequence[Sequence[str]], now: int
    ) -> None:
        """Record a new deal. Deals are numbered 0, 1, 2, ... per table; each starts after the last finished.

        `hands` are the four hands in seat order N, E, S, W, each in deal order. `seed` fits 63 bits.
        """
        if len(hands) != 4:
            raise ValueError(f"a deal has four hands, not {len(hands)}")
        hands_json = json.dumps([list(hand) for hand in hands])
        async with self._core.transaction():
            row = await self._core.fetch_one(
                """
                SELECT EXISTS (SELECT 1 FROM game_tables WHERE id = ?1) AS table_exists,
                       (SELECT COUNT(*) FROM deals WHERE table_id = ?1) AS deals,
                       (SELECT COUNT(*) FROM deal_results WHERE table_id = ?1) AS finished
                """,
                (table_id,),
            )
            assert row is not None
            if not row["table_exists"]:
                raise TableNotFound(table_id)
            if deal_no != row["deals"]:
                raise RecordConflict(f"table {table_id} has {row['deals']} deals; the next is not {deal_no}")
            if row["finished"] != row["deals"]:
                raise RecordConflict(f"table {table_id}: deal {deal_no - 1} is still running")
            await self._core.execute(
                "INSERT INTO deals (table_id, deal_no, dealer, seed, hands_json, started_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (table_id, deal_no, dealer, seed, hands_json, now),
            )

    async def append_action(self, table_id: int, deal_no: int, action: str, now: int) -> int:
        """Append an accepted action (e.g. "N play HA") to the running deal; returns its seq (0, 1, ...)."""
        async with self._core.transaction():
            inserted = await self._core.fetch_one(APPEND_ACTION, (table_id, deal_no, action, now))
            if inserted is None:
                await self._refuse_action(table_id, deal_no)
        assert inserted is not None
        return int(inserted["seq"])

    async def append_move(
        self, table_id: int, deal_no: int, action: str, now: int, *, guild_id: int | None = None
    ) -> tuple[int, int]:
        """Append an accepted action and count it in the table's position version, as one write known in full
        before it starts (a click's whole write: `fetch_chain_alone`, in the caller's transaction or a
        transaction of its own confined to ``guild_id``); returns its seq and the new version. Neither is
        stored when the action is refused."""
        inserted, *counted = await self._core.fetch_chain_alone(
            [(APPEND_ACTION, (table_id, deal_no, action, now)), (BUMP_VERSION, (now, table_id))], guild_id=guild_id
        )
        if not inserted:
            await self._refuse_action(table_id, deal_no)
        if not counted or not counted[0]:
            raise TableNotFound(table_id)
        return int(inserted[0]["seq"]), int(counted[0][0]["version"])

    async def _refuse_action(self, table_id: int, deal_no: int) -> None:
        finished = await self._core.fetch_one(
            "SELECT 1 FROM deal_results WHERE table_id = ? AND deal_no = ?", (table_id, deal_no)
        )
        state = "finished" if finished else "not the running deal"
        raise RecordConflict(f"table {table_id}: deal {deal_no} is {state}")

    async def load_record(self, table_id: int) -> TableRecord:
        """Everything needed to rebuild the table's state: rules, first dealer, every deal and action."""
        async with self._core.reading():
            table = await self._core.fetch_one(
                "SELECT rules_json, first_dealer, practice FROM game_tables WHERE id = ?", (table_id,)
            )
            if table is None:
                raise TableNotFound(table_id)
            deals = await self._core.fetch_all(
                """
                SELECT d.deal_no, d.dealer, d.seed, d.hands_json, d.started_at,
                       r.deal_no IS NOT NULL AS finished
                FROM deals AS d LEFT JOIN deal_results AS r USING (table_id, deal_no)
                WHERE d.table_id = ? ORDER BY d.deal_no
                """,
                (table_id,),
            )
            actions = await self._core.fetch_all(
                "SELECT deal_no, action FROM actions WHERE table_id = ? ORDER BY deal_no, seq", (table_id,)
            )
        actions_by_deal: dict[int, list[str]] = {}
        for row in actions:
            actions_by_deal.setdefault(row["deal_no"], []).append(row["action"])
        return TableRecord(
            table_id=table_id,
            rules_json=table["rules_json"],
            first_dealer=table["first_dealer"],
            deals=tuple(_deal_from_row(row, actions_by_deal.get(row["deal_no"], [])) for row in deals),
            practice=bool(table["practice"]),
        )

    async def latest_deal_no(self, table_id: int) -> int | None:
        """The number of the table's latest deal (running or finished); None before its first."""
        row = await self._core.fetch_one("SELECT COUNT(*) AS deals FROM deals WHERE table_id = ?", (table_id,))
        deals = 0 if row is None else int(row["deals"])
        return deals - 1 if deals else None

    async def finished_deal_nos(self, table_id: int) -> list[int]:
        rows = await self._core.fetch_all(
            "SELECT deal_no FROM deal_results WHERE table_id = ? ORDER BY deal_no", (table_id,)
        )
        return [int(row["deal_no"]) for row in rows]

    async def record_deal_result(self, result: DealResultRow) -> None:
        """Mark the deal finished; no more actions may be appended to it."""
        async with self._core.transaction():
            try:
                await self._core.execute(
                    """
                    INSERT INTO deal_results (table_id, deal_no, contract, declarer_seat, winner_team,
                                              game_points, multiplier, reason, finished_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    (
                        result.table_id,
                        result.deal_no,
                        result.contract,
                        result.declarer_seat,
                        result.winner_team,
                        result.game_points,
                        result.multiplier,
                        result.reason,
                        result.finished_at,
                    ),
                )
            except Exception as err:
                if self._core.violated(err) in ("unique", "foreign_key"):
                    raise RecordConflict(
                        f"table {result.table_id}: deal {result.deal_no} is missing or already finished"
                    ) from err
                raise

    async def deal_results(self, table_id: int) -> list[DealResultRow]:
        rows = await self._core.fetch_all(
            """
            SELECT table_id, deal_no, contract, declarer_seat, winner_team, game_points, multiplier, reason,
                   finished_at
            FROM deal_results WHERE table_id = ? ORDER BY deal_no
            """,
            (table_id,),
        )
        return [DealResultRow(**dict(row)) for row in rows]


def _deal_from_row(row: Row, actions: list[str]) -> StoredDeal:
    return StoredDeal(
        deal_no=row["deal_no"],
        dealer=row["dealer"],
        seed=row["seed"],
        hands=tuple(tuple(hand) for hand in json.loads(row["hands_json"])),
        actions=tuple(actions),
        started_at=row["started_at"],
        finished=bool(row["finished"]),
    )
