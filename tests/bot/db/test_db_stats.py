import dataclasses

import pytest

from bot.db import (
    BummerlRow,
    Database,
    Player,
    PlayerDealStats,
    PlayerStats,
    Tally,
    pair_key,
)
from bot.db.models import BummerlKind

GUILD = 1
NOW = 1_700_000_200
ALICE, BOB, CAROL, DAVE = Player(21, "Alice"), Player(22, "Bob"), Player(23, "Carol"), Player(24, "Dave")
AI = Player(None, "AI")


def bummerl(table_id: int, winners: tuple[Player, Player], losers: tuple[Player, Player],
            kind: BummerlKind = "bummerl", count: int = 1) -> BummerlRow:
    return BummerlRow(
        guild_id=GUILD, table_id=table_id, winners=winners, losers=losers, kind=kind, count=count,
        score_winner=24, score_loser=10, finished_at=NOW,
    )


async def test_a_bummerl_updates_history_players_and_tally(db: Database, make_table) -> None:
    table = await make_table()
    result = bummerl(table.id, (ALICE, AI), (BOB, CAROL), kind="schneider", count=2)
    result_id = await db.stats.record_bummerl(result)

    [stored] = await db.stats.bummerl_results_of_table(table.id)
    assert stored.id == result_id
    assert stored == dataclasses.replace(result, id=result_id)

    alice = await db.stats.get_player_stats(GUILD, ALICE.user_id)
    bob = await db.stats.get_player_stats(GUILD, BOB.user_id)
    assert alice is not None and (alice.bummerl_won, alice.bummerl_lost) == (1, 0)
    assert bob is not None and (bob.bummerl_won, bob.bummerl_lost) == (0, 1)
    assert await db.stats.get_player_stats(GUILD, 0) is None  # AI seats have no statistics
    assert await db.stats.get_tally(GUILD, (ALICE.user_id, 0), (BOB.user_id, CAROL.user_id)) == (2, 0)


async def test_deal_stats_add_up(db: Database) -> None:
    await db.stats.add_deal_stats(GUILD, [
        PlayerDealStats(21, "Alice", won=True, game_points=3, declared=True, made=True),
        PlayerDealStats(22, "Bob", won=False, game_points=0, declared=False, made=False),
    ])
    await db.stats.add_deal_stats(GUILD, [
        PlayerDealStats(21, "Alice W.", won=False, game_points=0, declared=True, made=False),
    ])
    assert await db.stats.get_player_stats(GUILD, 21) == PlayerStats(
        guild_id=GUILD, user_id=21, display_name="Alice W.", bummerl_won=0, bummerl_lost=0, deals_played=2,
        deals_won=1, game_points=3, contracts_declared=2, contracts_made=1,
    )
    assert await db.stats.get_player_stats(GUILD + 1, 21) is None  # statistics are per guild


async def test_tallies_are_stored_once_per_pair_of_pairs(db: Database) -> None:
    ab, cd = (21, 22), (23, 24)
    await db.stats.add_tally(GUILD, ab, cd)
    await db.stats.add_tally(GUILD, (24, 23), (22, 21), count=2)  # same pairs, listed the other way round
    await db.stats.add_tally(GUILD, cd, ab)
    assert await db.stats.get_tally(GUILD, ab, cd) == (1, 3)
    assert await db.stats.get_tally(GUILD, (22, 21), (24, 23)) == (1, 3)
    assert await db.stats.get_tally(GUILD, cd, ab) == (3, 1)
    assert await db.stats.get_tally(GUILD, ab, (21, 0)) == (0, 0)
    rows = await db.core.fetch_all("SELECT * FROM team_tallies")
    assert len(rows) == 1


async def test_tallies_of_a_pair_list_every_opponent(db: Database) -> None:
    alice_ai = pair_key(21, None)
    assert alice_ai == (0, 21)
    await db.stats.add_tally(GUILD, alice_ai, (22, 23))
    await db.stats.add_tally(GUILD, (22, 23), alice_ai)
    await db.stats.add_tally(GUILD, (0, 0), alice_ai)  # lost to two AI players
    assert await db.stats.tallies_of_pair(GUILD, (21, 0)) == [
        Tally((0, 21), (22, 23), wins=1, losses=1),
        Tally((0, 21), (0, 0), wins=0, losses=1),
    ]
    assert await db.stats.tallies_of_pair(GUILD + 1, (21, 0)) == []
    with pytest.raises(ValueError, match="against itself"):
        await db.stats.add_tally(GUILD, (21, 22), (22, 21))


async def seed_board(db: Database) -> None:
    """Alice 3-1 (10 pts), Bob 1-0 (30 pts), Carol 3-1 (10 pts), Dave 0-2 (50 pts), Erin never finished one."""
    for player, won, lost, points in ((ALICE, 3, 1, 10), (BOB, 1, 0, 30), (CAROL, 3, 1, 10), (DAVE, 0, 2, 50)):
        for _ in range(won):
            await db.stats.add_bummerl_stats(GUILD, [player], [])
        for _ in range(lost):
            await db.stats.add_bummerl_stats(GUILD, [], [player])
        await db.stats.add_deal_stats(GUILD, [PlayerDealStats(player.user_id, player.display_name, True, points,
                                                        False, False)])
    await db.stats.add_deal_stats(GUILD, [PlayerDealStats(25, "Erin", False, 0, False, False)])


def names(page) -> list[tuple[int, str]]:
    return [(entry.rank, entry.stats.display_name) for entry in page.entries]


async def test_leaderboard_by_bummerl_won(db: Database) -> None:
    await seed_board(db)
    page = await db.stats.leaderboard(GUILD, "bummerl")
    # Equal Bummerl won: fewer lost ranks higher.
    assert names(page) == [(1, "Alice"), (1, "Carol"), (3, "Bob"), (4, "Erin"), (5, "Dave")]
    assert page.total == 5


async def test_leaderboard_by_win_rate_needs_games(db: Database) -> None:
    await seed_board(db)
    assert names(await db.stats.leaderboard(GUILD, "winrate")) == [(1, "Bob"), (2, "Alice"), (2, "Carol"), (4, "Dave")]
    page = await db.stats.leaderboard(GUILD, "winrate", min_games=2)
    assert names(page) == [(1, "Alice"), (1, "Carol"), (3, "Dave")]
    assert page.total == 3
    assert page.entries[0].stats.win_rate == 0.75


async def test_leaderboard_by_points_and_paging(db: Database) -> None:
    await seed_board(db)
    assert names(await db.stats.leaderboard(GUILD, "points")) == [
        (1, "Dave"), (2, "Bob"), (3, "Alice"), (3, "Carol"), (5, "Erin")
    ]
    second_page = await db.stats.leaderboard(GUILD, "points", offset=2, limit=2)
    assert names(second_page) == [(3, "Alice"), (3, "Carol")]
    assert second_page.total == 5
    past_the_end = await db.stats.leaderboard(GUILD, "points", offset=10, limit=2)
    assert past_the_end.entries == () and past_the_end.total == 5
    assert (await db.stats.leaderboard(GUILD + 1)).total == 0


async def test_rank_of_a_player(db: Database) -> None:
    await seed_board(db)
    carol = await db.stats.rank_of(GUILD, CAROL.user_id, "bummerl")
    assert carol is not None and carol.rank == 1 and carol.stats.display_name == "Carol"
    dave = await db.stats.rank_of(GUILD, DAVE.user_id, "points")
    assert dave is not None and dave.rank == 1
    assert await db.stats.rank_of(GUILD, BOB.user_id, "winrate", min_games=2) is None
    assert await db.stats.rank_of(GUILD, 25, "winrate") is None  # no Bummerl finished yet
    assert await db.stats.rank_of(GUILD, 999, "bummerl") is None
