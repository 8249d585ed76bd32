"""Tournament storage on both engines: sign-up, teams, rounds and matches with their tables and results, the
organiser's log, and a restart in the middle of a round that finds all of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.db import Database
from bot.db.tournaments import InTournament, SignupClosed, TournamentNotFound, TournamentRow
from tests.bot.db.conftest import INTEGRITY_ERRORS, MakeTable

GUILD, CHANNEL, ORGANISER = 1, 900, 5
PSEUDONYM = -1_000_123


async def new_tournament(db: Database, **changes: object) -> TournamentRow:
    fields: dict[str, object] = dict(
        guild_id=GUILD,
        channel_id=CHANNEL,
        organiser_id=ORGANISER,
        name="Saturday Cup",
        format="swiss",
        swiss_rounds=3,
        bummerl_per_match=1,
        rules_json='{"preset": "standard", "target": 7}',
        turn_seconds=60,
        now=100,
    )
    fields.update(changes)
    return await db.tournaments.create_tournament(**fields)  # type: ignore[arg-type]


async def four_teams(db: Database, tournament: TournamentRow) -> list[int]:
    teams = await db.tournaments.add_teams(
        tournament.id, [(11, 12, "A & B"), (21, 22, "C & D"), (31, 32, "E & F"), (41, 42, "G & H")]
    )
    return [team.id for team in teams]


async def test_sign_ups_within_one_second_keep_the_order_they_were_made_in(db: Database) -> None:
    """`signed_at` has seconds only: the order is the sign-ups' own, not their user ids'."""
    tournament = await new_tournament(db)
    for user in (31, 12, 23, 14):
        await db.tournaments.sign_up(tournament.id, user, f"p{user}", None, now=101)
    await db.tournaments.sign_up(tournament.id, 31, "p31 again", 23, now=101)  # keeps its place
    assert await db.tournaments.withdraw(tournament.id, 14)
    await db.tournaments.sign_up(tournament.id, 5, "p5", None, now=101)
    assert [s.user_id for s in await db.tournaments.signups(tournament.id)] == [31, 12, 23, 5]
    other = await new_tournament(db, channel_id=CHANNEL + 1)
    await db.tournaments.sign_up(other.id, 14, "p14", None, now=101)
    assert [s.user_id for s in await db.tournaments.signups(other.id)] == [14], "each tournament its own order"


async def test_sign_up_updates_a_second_time_and_closes_at_the_start(db: Database) -> None:
    tournament = await new_tournament(db)
    assert tournament.status == "signup" and not tournament.ai_stand_in
    await db.tournaments.sign_up(tournament.id, 11, "Anna", None, now=101)
    await db.tournaments.sign_up(tournament.id, 12, "Ben", 13, now=102)
    await db.tournaments.sign_up(tournament.id, 11, "Anna K.", 14, now=103)  # again: same place, new partner
    assert [
        (s.user_id, s.display_name, s.partner_id) for s in await db.tournaments.signups(tournament.id)
    ] == [
        (11, "Anna K.", 14),
        (12, "Ben", 13),
    ]
    assert await db.tournaments.withdraw(tournament.id, 12)
    assert not await db.tournaments.withdraw(tournament.id, 12)
    await db.tournaments.set_status(tournament.id, "running", now=110)
    with pytest.raises(SignupClosed):
        await db.tournaments.sign_up(tournament.id, 15, "Cleo", None, now=111)
    assert not await db.tournaments.withdraw(tournament.id, 11)
    assert [t.id for t in await db.tournaments.open_tournaments(GUILD)] == [tournament.id]
    await db.tournaments.set_status(tournament.id, "finished", now=120)
    assert await db.tournaments.open_tournaments() == []
    with pytest.raises(TournamentNotFound):
        await db.tournaments.get_tournament(tournament.id + 1)


async def test_a_round_stores_its_matches_a_bye_decided_at_once(db: Database) -> None:
    tournament = await new_tournament(db)
    a, b, c, _ = await four_teams(db, tournament)
    matches = await db.tournaments.start_round(tournament.id, 1, [(a, b), (c, None)], now=200)
    assert [
        (m.slot, m.first_team, m.second_team, m.status, m.winner_team, m.decided_by) for m in matches
    ] == [
        (0, a, b, "pending", None, None),
        (1, c, None, "done", c, "bye"),
    ]
    assert await db.tournaments.rounds(tournament.id) == [(1, 200, None)]
    assert await db.tournaments.end_round(tournament.id, 1, now=300)
    assert not await db.tournaments.end_round(tournament.id, 1, now=301)
    with pytest.raises(INTEGRITY_ERRORS):
        await db.tournaments.start_round(tournament.id, 1, [(a, b)], now=302)


async def test_a_table_opened_for_a_decided_match_is_recorded_but_plays_nothing(
    db: Database, make_table: MakeTable
) -> None:
    """The organiser decided the match while its table opened: the table is on record (the drive closes it),
    the result stands. A second table for a match that has one is refused and not recorded."""
    tournament = await new_tournament(db)
    a, b, c, d = await four_teams(db, tournament)
    first, second = await db.tournaments.start_round(tournament.id, 1, [(a, b), (c, d)], now=200)
    await db.tournaments.set_result_by_hand(
        tournament.id, first.id, a, actor_id=ORGANISER, reason="x", now=210
    )
    late = await make_table(channel_id=901)
    assert not await db.tournaments.set_match_table(first.id, late.id)
    decided = await db.tournaments.match_at_table(late.id)
    assert decided is not None and (decided.id, decided.status, decided.winner_team) == (first.id, "done", a)

    table, other = await make_table(channel_id=902), await make_table(channel_id=903)
    assert await db.tournaments.set_match_table(second.id, table.id)
    assert not await db.tournaments.set_match_table(second.id, other.id)
    assert await db.tournaments.match_at_table(other.id) is None
    playing = await db.tournaments.match_at_table(table.id)
    assert playing is not None and (playing.id, playing.status) == (second.id, "playing")


async def test_a_match_counts_its_bummerl_and_is_decided_once(db: Database, make_table: MakeTable) -> None:
    tournament = await new_tournament(db, bummerl_per_match=3)
    a, b, c, d = await four_teams(db, tournament)
    first, second = await db.tournaments.start_round(tournament.id, 1, [(a, b), (c, d)], now=200)
    table = await make_table(channel_id=901)
    await db.tournaments.set_match_table(first.id, table.id)
    at_table = await db.tournaments.match_at_table(table.id)
    assert at_table is not None and at_table.id == first.id and at_table.status == "playing"
    assert await db.tournaments.match_at_table(table.id + 99) is None

    after_one = await db.tournaments.add_bummerl(first.id, b, 3, 7)
    after_two = await db.tournaments.add_bummerl(first.id, a, 7, 5)
    assert (after_one.first_bummerl, after_one.second_bummerl) == (0, 1)
    assert (after_two.first_bummerl, after_two.second_bummerl, after_two.first_game_points) == (1, 1, 10)
    assert await db.tournaments.decide_match(first.id, a, "play", now=250)
    assert not await db.tournaments.decide_match(first.id, b, "play", now=251)  # counted once
    assert await db.tournaments.decide_match(second.id, d, "forfeit", now=260, game_points=(0, 0))
    done = await db.tournaments.matches(tournament.id, 1)
    assert [(m.winner_team, m.decided_by, m.ended_at) for m in done] == [
        (a, "play", 250),
        (d, "forfeit", 260),
    ]


async def test_the_organiser_sets_a_result_by_hand_with_a_reason_kept_in_the_log(db: Database) -> None:
    tournament = await new_tournament(db)
    a, b, c, d = await four_teams(db, tournament)
    first, _ = await db.tournaments.start_round(tournament.id, 1, [(a, b), (c, d)], now=200)
    await db.tournaments.decide_match(first.id, a, "play", now=210)
    await db.tournaments.set_result_by_hand(
        tournament.id,
        first.id,
        b,
        actor_id=ORGANISER,
        reason="A & B used a second device",
        now=220,
        game_points=(0, 7),
    )
    await db.tournaments.remove_team(tournament.id, d, actor_id=ORGANISER, reason="left the server", now=230)
    await db.tournaments.forbid(tournament.id, c, a, actor_id=ORGANISER, now=240)
    match = (await db.tournaments.matches(tournament.id, 1))[0]
    assert (match.winner_team, match.decided_by, match.second_game_points) == (b, "organiser", 7)
    assert [
        (entry.action, entry.match_id, entry.reason) for entry in await db.tournaments.log(tournament.id)
    ] == [
        ("result", first.id, "A & B used a second device"),
        ("remove", None, "left the server"),
        ("forbid", None, f"teams {min(a, c)} and {max(a, c)}"),
    ]
    assert [team.removed for team in await db.tournaments.teams(tournament.id)] == [False, False, False, True]
    assert await db.tournaments.forbidden(tournament.id) == [(min(a, c), max(a, c))]


async def test_a_restart_mid_round_finds_the_tournament_its_teams_matches_tables_and_results(
    db: Database, make_table: MakeTable, database_engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    tournament = await new_tournament(db)
    a, b, c, d = await four_teams(db, tournament)
    await db.tournaments.set_status(tournament.id, "running", now=150)
    await db.tournaments.start_round(tournament.id, 1, [(a, b), (c, d)], now=200)
    first, second = await db.tournaments.matches(tournament.id, 1)
    table = await make_table(channel_id=901)
    await db.tournaments.set_match_table(first.id, table.id)
    await db.tournaments.decide_match(second.id, c, "play", now=230)
    before = (
        await db.tournaments.get_tournament(tournament.id),
        await db.tournaments.teams(tournament.id),
        await db.tournaments.matches(tournament.id),
        await db.tournaments.rounds(tournament.id),
    )
    await db.close()

    target = request.getfixturevalue("pg_url") if database_engine == "postgresql" else tmp_path / "bot.db"
    reopened = await Database.open(target)
    try:
        after = (
            await reopened.tournaments.get_tournament(tournament.id),
            await reopened.tournaments.teams(tournament.id),
            await reopened.tournaments.matches(tournament.id),
            await reopened.tournaments.rounds(tournament.id),
        )
        assert after == before
        assert [t.id for t in await reopened.tournaments.open_tournaments()] == [tournament.id]
        playing = await reopened.tournaments.match_at_table(table.id)
        assert playing is not None and playing.status == "playing"
    finally:
        await reopened.close()


async def test_forgetting_a_person_withdraws_open_sign_ups_and_pseudonymises_ended_tournaments(
    db: Database,
) -> None:
    open_one = await new_tournament(db, channel_id=CHANNEL + 1)
    await db.tournaments.sign_up(open_one.id, 11, "Anna", 12, now=101)
    await db.tournaments.sign_up(open_one.id, 12, "Ben", 11, now=102)
    ended = await new_tournament(db)
    await db.tournaments.sign_up(ended.id, 11, "Anna", None, now=101)
    await db.tournaments.sign_up(ended.id, 12, "Ben", None, now=102)
    await four_teams(db, ended)
    await db.tournaments.add_log(ended.id, actor_id=11, action="result", reason="by hand", now=103)

    await db.tournaments.set_status(ended.id, "running", now=104)
    with pytest.raises(InTournament):
        await db.privacy.forget_person(11, PSEUDONYM)
    assert [s.user_id for s in await db.tournaments.signups(open_one.id)] == [11, 12], "nothing changed"

    await db.tournaments.set_status(ended.id, "finished", now=105)
    forgotten = await db.privacy.forget_person(11, PSEUDONYM)
    assert forgotten.tournaments and forgotten.anything
    assert [(s.user_id, s.partner_id) for s in await db.tournaments.signups(open_one.id)] == [(12, None)]
    assert [(s.user_id, s.display_name) for s in await db.tournaments.signups(ended.id)] == [
        (PSEUDONYM, "(removed)"),
        (12, "Ben"),
    ]
    first = (await db.tournaments.teams(ended.id))[0]
    assert (first.members, first.name) == ((PSEUDONYM, 12), "(removed) & Ben")
    assert [entry.actor_id for entry in await db.tournaments.log(ended.id)] == [0]
