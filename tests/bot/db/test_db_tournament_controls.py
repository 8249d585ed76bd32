"""The organiser's controls in storage (migration 010), on both engines: options before the start, a pause
whose length the matches being played get back on their no-show clocks, the winner kept for the profile,
the organisers' role."""

from __future__ import annotations

from bot.db import Database
from tests.bot.db.conftest import MakeTable
from tests.bot.db.test_db_tournaments import GUILD, ORGANISER, four_teams, new_tournament


async def test_options_change_before_the_start_only_and_are_logged(db: Database) -> None:
    tournament = await new_tournament(db, ai_stand_in=True, starts_at=5000)
    assert (tournament.ai_stand_in, tournament.starts_at) == (True, 5000)
    changed = await db.tournament_controls.set_options(
        tournament.id, ai_stand_in=False, starts_at=None, actor_id=ORGANISER, now=150
    )
    stored = await db.tournaments.get_tournament(tournament.id)
    assert changed and (stored.ai_stand_in, stored.starts_at) == (False, None)
    await db.tournaments.set_status(tournament.id, "running", now=160)
    assert not await db.tournament_controls.set_options(
        tournament.id, ai_stand_in=True, starts_at=6000, actor_id=ORGANISER, now=170
    )
    assert [(entry.action, entry.reason) for entry in await db.tournaments.log(tournament.id)] == [
        ("options", "ai_stand_in=0 starts_at=None")
    ]


async def test_a_pause_gives_the_matches_being_played_its_length_back(
    db: Database, make_table: MakeTable
) -> None:
    tournament = await new_tournament(db)
    a, b, c, d = await four_teams(db, tournament)
    await db.tournaments.set_status(tournament.id, "running", now=190)
    playing, decided = await db.tournaments.start_round(tournament.id, 1, [(a, b), (c, d)], now=200)
    for match, channel in ((playing, 901), (decided, 902)):
        await db.tournaments.set_match_table(match.id, (await make_table(channel_id=channel)).id)
    await db.tournaments.decide_match(decided.id, c, "play", now=205)

    assert await db.tournament_controls.pause(tournament.id, actor_id=ORGANISER, reason="lunch", now=210)
    assert not await db.tournament_controls.pause(tournament.id, actor_id=ORGANISER, reason="again", now=211)
    paused = await db.tournaments.get_tournament(tournament.id)
    assert (paused.status, paused.paused_at, paused.paused_by_organiser) == ("paused", 210, True)
    assert await db.tournament_controls.resume(tournament.id, actor_id=ORGANISER, reason="back", now=330)
    assert not await db.tournament_controls.resume(tournament.id, actor_id=ORGANISER, reason="again", now=331)
    resumed = await db.tournaments.get_tournament(tournament.id)
    assert (resumed.status, resumed.paused_at) == ("running", None)
    assert [m.paused_seconds for m in await db.tournaments.matches(tournament.id)] == [120, 0]
    assert [(entry.action, entry.reason) for entry in await db.tournaments.log(tournament.id)] == [
        ("pause", "lunch"),
        ("resume", "back"),
    ]


async def test_the_winner_is_kept_and_counted_on_each_players_record(db: Database) -> None:
    first = await new_tournament(db)
    a, b, _, _ = await four_teams(db, first)  # 11 & 12 win, 21 & 22 lose, 31, 41 ...
    await db.tournament_controls.finish(first.id, a, now=300)
    second = await new_tournament(db, channel_id=901)
    teams = await db.tournaments.add_teams(second.id, [(21, 11, "C & A"), (12, 99, "B & Z")])
    await db.tournament_controls.finish(second.id, teams[0].id, now=400)
    running = await new_tournament(db, channel_id=902)  # not finished: not counted
    await db.tournaments.add_teams(running.id, [(11, 12, "A & B"), (21, 22, "C & D")])
    await db.tournaments.set_status(running.id, "running", now=410)
    other_guild = await new_tournament(db, guild_id=GUILD + 1)
    await db.tournaments.add_teams(other_guild.id, [(11, 12, "A & B"), (21, 22, "C & D")])
    await db.tournament_controls.finish(other_guild.id, None, now=420)

    assert (await db.tournaments.get_tournament(first.id)).winner_team == a
    assert b != a
    records = {user: await db.tournament_controls.record_of(GUILD, user) for user in (11, 12, 21, 22, 99, 7)}
    assert records == {11: (2, 2), 12: (2, 1), 21: (2, 1), 22: (1, 0), 99: (1, 0), 7: (0, 0)}


async def test_a_server_names_one_organisers_role_and_can_clear_it(db: Database) -> None:
    assert await db.tournament_controls.organiser_role(GUILD) is None
    await db.tournament_controls.set_organiser_role(GUILD, 77)
    await db.tournament_controls.set_organiser_role(GUILD, 78)
    assert (
        await db.tournament_controls.organiser_role(GUILD),
        await db.tournament_controls.organiser_role(GUILD + 1),
    ) == (
        78,
        None,
    )
    await db.tournament_controls.set_organiser_role(GUILD, None)
    assert await db.tournament_controls.organiser_role(GUILD) is None
