"""TableService.player_profile: the stored counts folded into a profile, with the player's rating."""

import pytest

from bot.db import BummerlRow, Database, DealResultRow, Player, PlayerDealStats
from bot.game.profile import BestPartner, FamilyRecord, ProfileQueries, ShownRating
from bot.game.service import TableService
from bot.vocabulary import CONTRACT_FAMILIES

GUILD = 5
NOW = 1_700_000_100
HANDS = [["HA"], ["DA"], ["CA"], ["SA"]]
ALICE, BOB, CAROL, DAVE = Player(21, "Alice"), Player(22, "Bob"), Player(23, "Carol"), Player(24, "Dave")


async def played_history(db: Database) -> None:
    """Alice (N) and Bob (S) against Carol (E) and Dave (W): deals, a Kontra and four Bummerl."""
    table = await db.tables.create_table(
        guild_id=GUILD, channel_id=9, host_id=21, rules_json='"standard"', deck="french", turn_seconds=60,
        language="en", first_dealer=0, now=NOW,
    )  # fmt: skip
    for seat, player in enumerate((ALICE, CAROL, BOB, DAVE)):
        await db.seats.take_seat(table.id, seat, player.user_id, player.display_name)
    deals = [("bettler", 0, 0, ()), ("ass_bettler", 0, 1, ("E kontra",)), ("gang", 0, 0, ("N kontra",))]
    for deal_no, (contract, declarer, winner, actions) in enumerate(deals):
        await db.records.start_deal(table.id, deal_no, dealer=3, seed=deal_no, hands=HANDS, now=NOW)
        for action in actions:
            await db.records.append_action(table.id, deal_no, action, NOW)
        await db.records.record_deal_result(
            DealResultRow(table.id, deal_no, contract, declarer, winner, 3, 1, "x", NOW)
        )
        await db.stats.add_deal_stats(
            GUILD,
            [
                PlayerDealStats(21, "Alice", won=winner == 0, game_points=3, declared=True, made=winner == 0),
            ],
        )
    for winners, losers in [((ALICE, BOB), (CAROL, DAVE))] * 3 + [((CAROL, DAVE), (ALICE, BOB))]:
        await db.stats.record_bummerl(BummerlRow(GUILD, table.id, winners, losers, "bummerl", 1, 24, 3, NOW))


async def test_a_profile_sums_up_what_storage_holds(db: Database, service: TableService) -> None:
    await played_history(db)
    profile = await service.profiles.player_profile(GUILD, ALICE.user_id)
    assert profile.display_name == "Alice" and profile.has_games
    assert (profile.bummerl_won, profile.bummerl_played, profile.deals_won, profile.deals_played) == (
        3,
        4,
        2,
        3,
    )
    assert profile.contracts == (
        FamilyRecord("normal", 0, 0),
        FamilyRecord("bettler", 2, 1),
        FamilyRecord("schnapser", 0, 0),
        FamilyRecord("all_tricks", 1, 1),
        FamilyRecord("farbringerl", 0, 0),
    )
    assert (profile.kontra_said, profile.kontra_won) == (1, 1)
    assert profile.best_partner == BestPartner(BOB.user_id, "Bob", together=4, won=3)
    assert profile.rating is None  # nobody is rated yet
    assert profile.rank == 1  # on the Bummerl leaderboard while unrated


async def test_a_player_without_games_gets_an_empty_profile(db: Database, service: TableService) -> None:
    profile = await service.profiles.player_profile(GUILD, 999)
    assert not profile.has_games and profile.display_name is None
    assert [record.family for record in profile.contracts] == list(CONTRACT_FAMILIES)
    assert all(record.declared == 0 for record in profile.contracts)
    assert profile.best_partner is None and profile.rank is None and profile.rating is None


async def test_the_players_rating_feeds_the_profile(
    db: Database, service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def rated(self: ProfileQueries, guild_id: int, user_id: int) -> ShownRating:
        return ShownRating(1480, 120, tuple(range(1000, 1030)), rank=7)

    monkeypatch.setattr(ProfileQueries, "player_rating", rated)
    profile = await service.profiles.player_profile(GUILD, 999)
    assert profile.rating is not None and profile.rank == 7
    assert profile.rating.history == tuple(range(1000, 1030))
