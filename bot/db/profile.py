"""Read-only queries behind a player's profile: what they declared and made per contract, the Kontra they said,
and the partners they played Bummerl with. Everything is counted from rows other code already stores (deal
results, seats, the action log, Bummerl results); no table of its own.

A finished deal is credited to the person who sits in its seat *now*: the seats table keeps no history, so the
deals of someone who left a running game (the AI took their seat) count for nobody, and the action log of a
closed table is pruned after the retention period (its Kontra are then no longer counted).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import DOUBLING_WORDS
from engine.cards import SEAT_NAMES

from .core import Repository

# A doubling action in the log is "<seat letter> <word>" (engine.format_action), e.g. "S kontra".
_SEAT_LETTERS = "".join(SEAT_NAMES)


@dataclass(frozen=True, slots=True)
class ContractTally:
    """How often the player declared one contract (its record id, e.g. "bettler") and how often it was made."""

    contract: str
    declared: int
    made: int


@dataclass(frozen=True, slots=True)
class KontraTally:
    said: int  # doubling actions (Kontra, Re, Subkontra) the player made in finished deals
    won: int  # of those, the ones in deals their team won


@dataclass(frozen=True, slots=True)
class PartnerTally:
    user_id: int
    display_name: str  # as stored with their latest Bummerl together
    together: int  # Bummerl played as partners
    won: int  # of those, won


def _doubling_actions() -> str:
    """SQL: the doubling words as said by the seat ``s.seat``, e.g. ('N kontra', 'N re', 'N subkontra')."""
    seat = f"substr('{_SEAT_LETTERS}', s.seat + 1, 1)"
    return "(" + ", ".join(f"{seat} || ' {word}'" for word in DOUBLING_WORDS) + ")"


class ProfileRepo(Repository):
    async def contract_tallies(self, guild_id: int, user_id: int) -> list[ContractTally]:
        """Per contract the player declared in this guild's finished deals: declared and made (the declarer's
        team won the deal), in the order of the contract ids."""
        rows = await self._core.fetch_all(
            """
            SELECT r.contract, COUNT(*) AS declared, SUM(CASE WHEN r.winner_team = r.declarer_seat % 2 THEN 1 ELSE 0 END) AS made
            FROM deal_results AS r
            JOIN game_tables AS g ON g.id = r.table_id
            JOIN seats AS s ON s.table_id = r.table_id AND s.seat = r.declarer_seat
            WHERE g.guild_id = ? AND s.user_id = ? AND g.practice = 0
            GROUP BY r.contract ORDER BY r.contract
            """,
            (guild_id, user_id),
        )
        return [ContractTally(row["contract"], int(row["declared"]), int(row["made"])) for row in rows]

    async def kontra_tally(self, guild_id: int, user_id: int) -> KontraTally:
        """The doublings the player said in this guild's finished deals, and how many of those deals their
        team won."""
        row = await self._core.fetch_one(
            f"""
            SELECT COUNT(*) AS said, COALESCE(SUM(CASE WHEN r.winner_team = s.seat % 2 THEN 1 ELSE 0 END), 0) AS won
            FROM actions AS a
            JOIN deal_results AS r ON r.table_id = a.table_id AND r.deal_no = a.deal_no
            JOIN game_tables AS g ON g.id = a.table_id
            JOIN seats AS s ON s.table_id = a.table_id
            WHERE g.guild_id = ? AND s.user_id = ? AND g.practice = 0 AND a.action IN {_doubling_actions()}
            """,
            (guild_id, user_id),
        )
        assert row is not None
        return KontraTally(int(row["said"]), int(row["won"]))

    async def partners(self, guild_id: int, user_id: int, min_together: int = 1) -> list[PartnerTally]:
        """The people the player partnered in this guild's finished Bummerl at least ``min_together`` times,
        best first: most won together, then fewest lost, then most played. AI partners are not listed."""
        rows = await self._core.fetch_all(
            """
            WITH pairs AS (
                SELECT id, winner2_id AS partner, winner2_name AS name, 1 AS won FROM bummerl_results
                WHERE guild_id = ?1 AND winner1_id = ?2
                UNION ALL
                SELECT id, winner1_id, winner1_name, 1 FROM bummerl_results WHERE guild_id = ?1 AND winner2_id = ?2
                UNION ALL
                SELECT id, loser2_id, loser2_name, 0 FROM bummerl_results WHERE guild_id = ?1 AND loser1_id = ?2
                UNION ALL
                SELECT id, loser1_id, loser1_name, 0 FROM bummerl_results WHERE guild_id = ?1 AND loser2_id = ?2
            )
            SELECT partner, COUNT(*) AS together, SUM(won) AS won,
                   (SELECT latest.name FROM pairs AS latest WHERE latest.partner = pairs.partner
                    ORDER BY latest.id DESC LIMIT 1) AS name
            FROM pairs WHERE partner IS NOT NULL
            GROUP BY partner HAVING COUNT(*) >= ?3
            ORDER BY SUM(won) DESC, COUNT(*) - SUM(won) ASC, COUNT(*) DESC, partner
            """,
            (guild_id, user_id, min_together),
        )
        # The name is the one stored with their latest Bummerl together (written so both engines agree).
        return [
            PartnerTally(int(row["partner"]), row["name"], int(row["together"]), int(row["won"]))
            for row in rows
        ]
