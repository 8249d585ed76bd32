"""Finished Bummerl, per-guild player statistics, team tallies and the leaderboard."""

from __future__ import annotations

from collections.abc import Sequence

from bot.vocabulary import LeaderboardSort

from .core import Repository, Row
from .models import (
    BummerlRow,
    LeaderboardEntry,
    LeaderboardPage,
    Player,
    PlayerDealStats,
    PlayerRating,
    PlayerStats,
    Tally,
    pair_key,
)

_STATS_COLUMNS = (
    "guild_id, user_id, display_name, bummerl_won, bummerl_lost, deals_played, deals_won, game_points,"
    " contracts_declared, contracts_made"
)

# Ranking keys per sort; a rank is shared only when every key is equal. Fixed strings, never user input.
_RANK_ORDER: dict[LeaderboardSort, str] = {
    "rating": "mu - 3 * sigma DESC, games DESC",  # the conservative estimate people see
    "bummerl": "bummerl_won DESC, bummerl_lost ASC, game_points DESC",
    "winrate": (
        "CAST(bummerl_won AS DOUBLE PRECISION) / (bummerl_won + bummerl_lost) DESC, bummerl_won DESC, game_points DESC"
    ),
    "points": "game_points DESC, deals_won DESC, bummerl_won DESC",
}

# The players a board ranks, with the statistics' columns (and a rating's, NULL where there is none), and
# how many games count for the minimum: rated Bummerl on the rating board (AI identities included, with
# empty statistics), Bummerl played on the others (people only).
_PLAYERS_SQL = f"""
    SELECT {_STATS_COLUMNS}, NULL AS mu, NULL AS sigma, bummerl_won + bummerl_lost AS games
    FROM player_stats WHERE guild_id = ?
"""
_RATED_PLAYERS_SQL = """
    SELECT r.guild_id, r.player_id AS user_id, COALESCE(p.display_name, '') AS display_name,
           COALESCE(p.bummerl_won, 0) AS bummerl_won, COALESCE(p.bummerl_lost, 0) AS bummerl_lost,
           COALESCE(p.deals_played, 0) AS deals_played, COALESCE(p.deals_won, 0) AS deals_won,
           COALESCE(p.game_points, 0) AS game_points, COALESCE(p.contracts_declared, 0) AS contracts_declared,
           COALESCE(p.contracts_made, 0) AS contracts_made, r.mu, r.sigma, r.games
    FROM ratings AS r LEFT JOIN player_stats AS p ON p.guild_id = r.guild_id AND p.user_id = r.player_id
    WHERE r.guild_id = ?
"""


def _ranking_sql(sort: LeaderboardSort) -> str:
    """The guild's ranked players (parameters: guild_id, minimum games)."""
    players = _RATED_PLAYERS_SQL if sort == "rating" else _PLAYERS_SQL
    return f"""
        SELECT *, RANK() OVER (ORDER BY {_RANK_ORDER[sort]}) AS rank
        FROM ({players}) AS players WHERE games >= ?
    """


def _min_played(sort: LeaderboardSort, min_games: int) -> int:
    # A win rate needs at least one Bummerl.
    return max(min_games, 1) if sort == "winrate" else max(min_games, 0)


def _stats_from_row(row: Row) -> PlayerStats:
    return PlayerStats(
        guild_id=row["guild_id"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        bummerl_won=row["bummerl_won"],
        bummerl_lost=row["bummerl_lost"],
        deals_played=row["deals_played"],
        deals_won=row["deals_won"],
        game_points=row["game_points"],
        contracts_declared=row["contracts_declared"],
        contracts_made=row["contracts_made"],
    )


def _entry_from_row(row: Row) -> LeaderboardEntry:
    rating = None if row["mu"] is None else PlayerRating(row["user_id"], row["mu"], row["sigma"], row["games"])
    return LeaderboardEntry(rank=int(row["rank"]), stats=_stats_from_row(row), rating=rating)


def _bummerl_from_row(row: Row) -> BummerlRow:
    return BummerlRow(
        guild_id=row["guild_id"],
        table_id=row["table_id"],
        winners=(Player(row["winner1_id"], row["winner1_name"]), Player(row["winner2_id"], row["winner2_name"])),
        losers=(Player(row["loser1_id"], row["loser1_name"]), Player(row["loser2_id"], row["loser2_name"])),
        kind=row["kind"],
        count=row["count"],
        score_winner=row["score_winner"],
        score_loser=row["score_loser"],
        finished_at=row["finished_at"],
        id=row["id"],
        ai_strength=row["ai_strength"],
    )


def _ordered(pair1: tuple[int, int], pair2: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int], bool]:
    """The tally row's pair order, and whether `pair1` is stored second."""
    if pair1 == pair2:
        raise ValueError(f"a pair cannot play against itself: {pair1}")
    return (pair1, pair2, False) if pair1 < pair2 else (pair2, pair1, True)


class StatsRepo(Repository):
    # ---- Bummerl ------------------------------------------------------------------------------------

    async def record_bummerl(self, result: BummerlRow) -> int:
        """Everything a finished Bummerl changes: its history row, both pairs' players' Bummerl counts
        (+1 each, humans only) and the pairs' tally (+`count`). Returns the new history row's id."""
        (w1, w2), (l1, l2) = result.winners, result.losers
        winner_pair, loser_pair = pair_key(w1.user_id, w2.user_id), pair_key(l1.user_id, l2.user_id)
        _ordered(winner_pair, loser_pair)  # refuse a pair against itself before writing anything
        async with self._core.transaction():
            row = await self._core.fetch_one(
                """
                INSERT INTO bummerl_results (guild_id, table_id, winner1_id, winner1_name, winner2_id,
                                             winner2_name, loser1_id, loser1_name, loser2_id, loser2_name,
                                             kind, count, score_winner, score_loser, finished_at,
                                             ai_strength)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                RETURNING id
                """,
                (
                    result.guild_id,
                    result.table_id,
                    w1.user_id,
                    w1.display_name,
                    w2.user_id,
                    w2.display_name,
                    l1.user_id,
                    l1.display_name,
                    l2.user_id,
                    l2.display_name,
                    result.kind,
                    result.count,
                    result.score_winner,
                    result.score_loser,
                    result.finished_at,
                    result.ai_strength,
                ),
            )
            assert row is not None
            await self.add_bummerl_stats(result.guild_id, result.winners, result.losers)
            await self.add_tally(result.guild_id, winner_pair, loser_pair, result.count)
        return int(row["id"])

    async def bummerl_results_of_table(self, table_id: int) -> list[BummerlRow]:
        rows = await self._core.fetch_all(
            "SELECT * FROM bummerl_results WHERE table_id = ? ORDER BY id", (table_id,)
        )
        return [_bummerl_from_row(row) for row in rows]

    async def all_bummerl_results(self) -> list[BummerlRow]:
        """Every finished Bummerl of every guild, in the order they were stored (for a ratings rebuild)."""
        return [_bummerl_from_row(row) for row in await self._core.fetch_all("SELECT * FROM bummerl_results ORDER BY id")]

    # ---- player statistics --------------------------------------------------------------------------

    async def add_bummerl_stats(
        self, guild_id: int, winners: Sequence[Player], losers: Sequence[Player]
    ) -> None:
        """+1 Bummerl won / lost for each human (AI players are skipped). `record_bummerl` calls this."""
        async with self._core.transaction():
            for players, won in ((winners, 1), (losers, 0)):
                for player in players:
                    if player.user_id is None:
                        continue
                    await self._core.execute(
                        """
                        INSERT INTO player_stats (guild_id, user_id, display_name, bummerl_won, bummerl_lost)
                        VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (guild_id, user_id) DO UPDATE SET
                            display_name = excluded.display_name,
                            bummerl_won = player_stats.bummerl_won + excluded.bummerl_won,
                            bummerl_lost = player_stats.bummerl_lost + excluded.bummerl_lost
                        """,
                        (guild_id, player.user_id, player.display_name, won, 1 - won),
                    )

    async def add_deal_stats(self, guild_id: int, players: Sequence[PlayerDealStats]) -> None:
        """Add one finished deal to each human's statistics (one statement per person, sent together)."""
        async with self._core.transaction():
            await self._core.execute_many(
                """
                INSERT INTO player_stats (guild_id, user_id, display_name, deals_played, deals_won,
                                          game_points, contracts_declared, contracts_made)
                VALUES (?, ?, ?, 1, ?, ?, ?, ?)
                ON CONFLICT (guild_id, user_id) DO UPDATE SET
                    display_name = excluded.display_name,
                    deals_played = player_stats.deals_played + 1,
                    deals_won = player_stats.deals_won + excluded.deals_won,
                    game_points = player_stats.game_points + excluded.game_points,
                    contracts_declared = player_stats.contracts_declared + excluded.contracts_declared,
                    contracts_made = player_stats.contracts_made + excluded.contracts_made
                """,
                [
                    (guild_id, stats.user_id, stats.display_name, stats.won, stats.game_points, stats.declared,
                     stats.made)
                    for stats in players
                ],
            )

    async def get_player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        row = await self._core.fetch_one(
            f"SELECT {_STATS_COLUMNS} FROM player_stats WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        return None if row is None else _stats_from_row(row)

    # ---- team tallies -------------------------------------------------------------------------------

    async def add_tally(
        self, guild_id: int, winner_pair: tuple[int, int], loser_pair: tuple[int, int], count: int = 1
    ) -> None:
        """Add `count` Bummerl to the winners' tally against the losers. Pairs come from `pair_key`."""
        winner_pair, loser_pair = pair_key(*winner_pair), pair_key(*loser_pair)
        first, second, winner_is_second = _ordered(winner_pair, loser_pair)
        first_wins, second_wins = (0, count) if winner_is_second else (count, 0)
        async with self._core.transaction():
            await self._core.execute(
                """
                INSERT INTO team_tallies (guild_id, pair1_low, pair1_high, pair2_low, pair2_high,
                                          pair1_wins, pair2_wins)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (guild_id, pair1_low, pair1_high, pair2_low, pair2_high) DO UPDATE SET
                    pair1_wins = team_tallies.pair1_wins + excluded.pair1_wins,
                    pair2_wins = team_tallies.pair2_wins + excluded.pair2_wins
                """,
                (guild_id, *first, *second, first_wins, second_wins),
            )

    async def get_tally(
        self, guild_id: int, pair1: tuple[int, int], pair2: tuple[int, int]
    ) -> tuple[int, int]:
        """(Bummerl won by pair1, Bummerl won by pair2) against each other; (0, 0) when they never met."""
        first, second, swapped = _ordered(pair_key(*pair1), pair_key(*pair2))
        row = await self._core.fetch_one(
            """
            SELECT pair1_wins, pair2_wins FROM team_tallies
            WHERE guild_id = ? AND pair1_low = ? AND pair1_high = ? AND pair2_low = ? AND pair2_high = ?
            """,
            (guild_id, *first, *second),
        )
        if row is None:
            return (0, 0)
        wins = (int(row["pair1_wins"]), int(row["pair2_wins"]))
        return (wins[1], wins[0]) if swapped else wins

    async def tallies_of_pair(self, guild_id: int, pair: tuple[int, int]) -> list[Tally]:
        """The pair's tally against every pair it played, most Bummerl played first."""
        pair = pair_key(*pair)
        rows = await self._core.fetch_all(
            """
            SELECT * FROM (
                SELECT pair2_low AS opp_low, pair2_high AS opp_high, pair1_wins AS wins, pair2_wins AS losses
                FROM team_tallies WHERE guild_id = ? AND pair1_low = ? AND pair1_high = ?
                UNION ALL
                SELECT pair1_low, pair1_high, pair2_wins, pair1_wins
                FROM team_tallies WHERE guild_id = ? AND pair2_low = ? AND pair2_high = ?
            ) AS tallies
            ORDER BY wins + losses DESC, opp_low, opp_high
            """,
            (guild_id, *pair, guild_id, *pair),
        )
        return [Tally(pair, (row["opp_low"], row["opp_high"]), row["wins"], row["losses"]) for row in rows]

    # ---- leaderboard --------------------------------------------------------------------------------

    async def leaderboard(
        self,
        guild_id: int,
        sort: LeaderboardSort = "bummerl",
        min_games: int = 0,
        offset: int = 0,
        limit: int = 10,
    ) -> LeaderboardPage:
        """One page of the guild's leaderboard. `min_games` counts Bummerl played, rated Bummerl on the rating
        board (win rate needs >= 1)."""
        minimum = _min_played(sort, min_games)
        async with self._core.reading():
            rows = await self._core.fetch_all(
                f"{_ranking_sql(sort)} ORDER BY rank, lower(display_name), user_id LIMIT ? OFFSET ?",
                (guild_id, minimum, limit, offset),
            )
            total = await self._core.fetch_one(f"SELECT COUNT(*) AS n FROM ({_ranking_sql(sort)}) AS ranked", (guild_id, minimum))
        assert total is not None
        return LeaderboardPage(tuple(_entry_from_row(row) for row in rows), int(total["n"]))

    async def rank_of(
        self, guild_id: int, user_id: int, sort: LeaderboardSort = "bummerl", min_games: int = 0
    ) -> LeaderboardEntry | None:
        """The user's place on that leaderboard, or None when they are not on it."""
        row = await self._core.fetch_one(
            f"SELECT * FROM ({_ranking_sql(sort)}) AS ranked WHERE user_id = ?",
            (guild_id, _min_played(sort, min_games), user_id),
        )
        return None if row is None else _entry_from_row(row)
