"""The profile's read-only queries: contracts declared and made, Kontra said and won, best partners."""

from bot.db import BummerlRow, Database, DealResultRow, Player
from bot.db.profile import ContractTally, KontraTally, PartnerTally

GUILD = 1
NOW = 1_700_000_200
HANDS = [["HA", "HT"], ["DA", "DT"], ["CA", "CT"], ["SA", "ST"]]
ALICE, BOB, CAROL, DAVE = Player(21, "Alice"), Player(22, "Bob"), Player(23, "Carol"), Player(24, "Dave")
AI = Player(None, "AI")


async def seated_table(db: Database, make_table, guild_id: int = GUILD, channel_id: int = 500) -> int:
    """A table with Alice N, Bob E, Carol S and an AI W."""
    table = await make_table(channel_id=channel_id, guild_id=guild_id)
    for seat, player in enumerate((ALICE, BOB, CAROL)):
        await db.seats.take_seat(table.id, seat, player.user_id, player.display_name)
    await db.seats.set_ai_seat(table.id, 3, "AI")
    return table.id


async def finish_deal(
    db: Database,
    table_id: int,
    deal_no: int,
    contract: str,
    declarer: int,
    winner: int,
    actions: tuple[str, ...] = (),
) -> None:
    await db.records.start_deal(table_id, deal_no, dealer=3, seed=deal_no, hands=HANDS, now=NOW)
    for action in actions:
        await db.records.append_action(table_id, deal_no, action, NOW)
    await db.records.record_deal_result(DealResultRow(table_id, deal_no, contract, declarer, winner, 2, 1, "66", NOW))


async def test_contracts_are_counted_per_contract_for_the_declarers_seat(db: Database, make_table) -> None:
    table_id = await seated_table(db, make_table)
    await finish_deal(db, table_id, 0, "bettler", declarer=0, winner=0)  # Alice makes a Bettler
    await finish_deal(db, table_id, 1, "bettler", declarer=0, winner=1)  # and fails one
    await finish_deal(db, table_id, 2, "schnapser", declarer=2, winner=0)  # Carol's, not Alice's
    await finish_deal(db, table_id, 3, "normal", declarer=0, winner=0)
    await finish_deal(db, table_id, 4, "gang", declarer=3, winner=1)  # the AI's
    assert await db.profile.contract_tallies(GUILD, ALICE.user_id) == [
        ContractTally("bettler", 2, 1),
        ContractTally("normal", 1, 1),
    ]
    assert await db.profile.contract_tallies(GUILD, CAROL.user_id) == [ContractTally("schnapser", 1, 1)]
    assert await db.profile.contract_tallies(GUILD, DAVE.user_id) == []
    assert await db.profile.contract_tallies(GUILD + 1, ALICE.user_id) == []  # per guild


async def test_kontra_counts_every_doubling_of_the_player_in_finished_deals(db: Database, make_table) -> None:
    table_id = await seated_table(db, make_table)
    await finish_deal(db, table_id, 0, "normal", 1, winner=1, actions=("N kontra", "E re", "N subkontra"))
    await finish_deal(db, table_id, 1, "normal", 1, winner=0, actions=("N kontra", "S kontra"))
    await finish_deal(db, table_id, 2, "normal", 1, winner=0, actions=("E pass",))
    await db.records.start_deal(table_id, 3, dealer=3, seed=9, hands=HANDS, now=NOW)
    await db.records.append_action(table_id, 3, "N kontra", NOW)  # the running deal does not count yet
    assert await db.profile.kontra_tally(GUILD, ALICE.user_id) == KontraTally(said=3, won=1)
    assert await db.profile.kontra_tally(GUILD, BOB.user_id) == KontraTally(said=1, won=1)
    assert await db.profile.kontra_tally(GUILD, CAROL.user_id) == KontraTally(said=1, won=1)
    assert await db.profile.kontra_tally(GUILD, DAVE.user_id) == KontraTally(said=0, won=0)


def bummerl(table_id: int, winners: tuple[Player, Player], losers: tuple[Player, Player]) -> BummerlRow:
    return BummerlRow(GUILD, table_id, winners, losers, "bummerl", 1, 24, 10, NOW)


async def test_partners_are_ranked_by_results_together_with_a_minimum(db: Database, make_table) -> None:
    table_id = (await make_table()).id
    renamed_bob = Player(BOB.user_id, "Bobby")
    results = [
        ((ALICE, BOB), (CAROL, DAVE)),
        ((ALICE, BOB), (CAROL, DAVE)),
        ((CAROL, DAVE), (BOB, ALICE)),
        ((CAROL, DAVE), (ALICE, renamed_bob)),  # his latest name is shown
        ((DAVE, ALICE), (BOB, CAROL)),
        ((ALICE, DAVE), (BOB, CAROL)),
        ((ALICE, DAVE), (BOB, CAROL)),
        ((ALICE, AI), (BOB, CAROL)),  # an AI partner is no partner to list
        ((AI, ALICE), (BOB, CAROL)),
        ((ALICE, AI), (BOB, CAROL)),
        ((CAROL, ALICE), (BOB, DAVE)),
    ]
    for winners, losers in results:
        await db.stats.record_bummerl(bummerl(table_id, winners, losers))
    assert await db.profile.partners(GUILD, ALICE.user_id, min_together=3) == [
        PartnerTally(DAVE.user_id, "Dave", together=3, won=3),
        PartnerTally(BOB.user_id, "Bobby", together=4, won=2),
    ]
    assert [p.user_id for p in await db.profile.partners(GUILD, ALICE.user_id)] == [24, 22, 23]
    assert await db.profile.partners(GUILD + 1, ALICE.user_id) == []
