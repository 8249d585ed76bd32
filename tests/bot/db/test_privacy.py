"""Forgetting a person in storage, on both engines: what was theirs is gone (the tallies of the pairs they were
part of too), the records others played keep their shape with a pseudonym and "(removed)" in place of the
person, and everybody else's statistics, ratings and partners stay exactly as they were (also after a ratings
rebuild)."""

from __future__ import annotations

import pytest

from bot.db import REMOVED_NAME, AlreadySeated, BummerlRow, Database, Player, PlayerDealStats, PlayerPrefs
from bot.db.privacy import PSEUDONYM_CEILING
from bot.game import ratings
from tests.bot.db.conftest import MakeTable

GUILD, OTHER_GUILD = 1, 2
NOW = 1_700_000_300
ALICE, BOB, CAROL, DAVE = Player(21, "Alice"), Player(22, "Bob"), Player(23, "Carol"), Player(24, "Dave")
PSEUDONYM = PSEUDONYM_CEILING - 12345


async def closed_table_with_results(
    db: Database, make_table: MakeTable, guild_id: int, channel_id: int
) -> int:
    """A closed table where Alice and Bob beat Carol and Dave twice, then lost once; statistics, tallies and
    ratings (by a rebuild) as the bot keeps them."""
    table = await make_table(channel_id=channel_id, guild_id=guild_id, host_id=ALICE.user_id)
    for seat, player in enumerate((ALICE, CAROL, BOB, DAVE)):
        assert player.user_id is not None
        await db.seats.take_seat(table.id, seat, player.user_id, player.display_name)
    await db.seats.set_dm_message(table.id, 0, 9001, 9002)
    for winners, losers in [((ALICE, BOB), (CAROL, DAVE))] * 2 + [((CAROL, DAVE), (ALICE, BOB))]:
        await db.stats.record_bummerl(BummerlRow(guild_id, table.id, winners, losers, "bummerl", 1, 24, 10, NOW))
        await db.stats.add_tally(
            guild_id,
            (winners[0].user_id or 0, winners[1].user_id or 0),
            (losers[0].user_id or 0, losers[1].user_id or 0),
        )
    await db.stats.add_deal_stats(
        guild_id,
        [
            PlayerDealStats(p.user_id or 0, p.display_name, True, 2, False, False)
            for p in (ALICE, BOB, CAROL, DAVE)
        ],
    )
    await db.tables.set_status(table.id, "closed", NOW)
    return table.id


async def everything_of(db: Database, user_id: int) -> dict[str, object]:
    """What the storage keeps that names ``user_id`` anywhere."""
    places = {
        "player_stats": "SELECT COUNT(*) AS n FROM player_stats WHERE user_id = ?1",
        "ratings": "SELECT COUNT(*) AS n FROM ratings WHERE player_id = ?1",
        "rating_history": "SELECT COUNT(*) AS n FROM rating_history WHERE player_id = ?1",
        "team_tallies": "SELECT COUNT(*) AS n FROM team_tallies"
        " WHERE ?1 IN (pair1_low, pair1_high, pair2_low, pair2_high)",
        "player_prefs": "SELECT COUNT(*) AS n FROM player_prefs WHERE user_id = ?1",
        "bummerl_results": "SELECT COUNT(*) AS n FROM bummerl_results"
        " WHERE ?1 IN (winner1_id, winner2_id, loser1_id, loser2_id)",
        "seats": "SELECT COUNT(*) AS n FROM seats WHERE user_id = ?1",
        "hosts": "SELECT COUNT(*) AS n FROM game_tables WHERE host_id = ?1",
    }
    found = {}
    for place, sql in places.items():
        row = await db.core.fetch_one(sql, (user_id,))
        assert row is not None
        found[place] = int(row["n"])
    return found


async def others_view(db: Database) -> object:
    """What the other three see of their own: statistics, the tally of the pair without the person, ratings and
    partners."""
    view = []
    for guild_id in (GUILD, OTHER_GUILD):
        for player in (BOB, CAROL, DAVE):
            assert player.user_id is not None
            stats = await db.stats.get_player_stats(guild_id, player.user_id)
            view.append((guild_id, player.user_id, stats))
        view.append(await db.stats.get_tally(guild_id, (CAROL.user_id or 0, DAVE.user_id or 0), (0, 0)))
        view.append(await db.ratings.get_ratings(guild_id, [BOB.user_id or 0, CAROL.user_id or 0, DAVE.user_id or 0]))
        view.append([(p.together, p.won) for p in await db.profile.partners(guild_id, BOB.user_id or 0)])
    return view


async def test_a_person_is_forgotten_and_the_others_keep_everything(
    db: Database, make_table: MakeTable
) -> None:
    tables = [
        await closed_table_with_results(db, make_table, GUILD, 500),
        await closed_table_with_results(db, make_table, OTHER_GUILD, 600),
    ]
    await ratings.rebuild(db)
    await db.prefs.save_player_prefs(PlayerPrefs(ALICE.user_id or 0, "channel", "dealt"), NOW)
    assert ALICE.user_id is not None
    before = await everything_of(db, ALICE.user_id)
    assert all(before.values()), before
    others_before = await others_view(db)

    forgotten = await db.privacy.forget_person(ALICE.user_id, PSEUDONYM)

    assert forgotten.anything
    assert (forgotten.statistics, forgotten.prefs, forgotten.bummerl, forgotten.seats) == (2, 1, 6, 2)
    assert await everything_of(db, ALICE.user_id) == dict.fromkeys(before, 0)
    assert await db.prefs.get_player_prefs(ALICE.user_id) == PlayerPrefs(ALICE.user_id)
    # Records others played keep their shape: the place is the pseudonym's, the name is gone.
    for table_id in tables:
        for result in await db.stats.bummerl_results_of_table(table_id):
            alice = next(p for p in (*result.winners, *result.losers) if p.user_id == PSEUDONYM)
            assert alice.display_name == REMOVED_NAME
            assert ALICE.display_name not in {p.display_name for p in (*result.winners, *result.losers)}
        north = (await db.seats.seats_of(table_id))[0]
        assert (north.user_id, north.display_name, north.dm_channel_id, north.dm_message_id) == (
            None,
            REMOVED_NAME,
            None,
            None,
        )
    assert await others_view(db) == others_before
    # A rebuild from the stored Bummerl gives everybody else the ratings they had.
    await ratings.rebuild(db)
    assert await others_view(db) == others_before
    assert (await everything_of(db, ALICE.user_id))["ratings"] == 0
    # Asking again finds nothing more to do.
    assert not (await db.privacy.forget_person(ALICE.user_id, PSEUDONYM - 1)).anything


async def test_a_person_at_an_open_table_is_refused_and_nothing_changes(
    db: Database, make_table: MakeTable
) -> None:
    await closed_table_with_results(db, make_table, GUILD, 500)
    lobby = await make_table(channel_id=501, guild_id=GUILD, host_id=ALICE.user_id)
    assert ALICE.user_id is not None
    await db.seats.take_seat(lobby.id, 0, ALICE.user_id, ALICE.display_name)
    before = await everything_of(db, ALICE.user_id)
    with pytest.raises(AlreadySeated):
        await db.privacy.forget_person(ALICE.user_id, PSEUDONYM)
    assert await everything_of(db, ALICE.user_id) == before


async def test_ids_outside_their_ranges_are_refused(db: Database) -> None:
    with pytest.raises(ValueError):
        await db.privacy.forget_person(0, PSEUDONYM)
    with pytest.raises(ValueError):
        await db.privacy.forget_person(21, -2)  # an AI identity
