"""The organiser's controls run by the service, Discord-free: a pause holds the next round and the no-show
clocks (each match being played gets the paused time back on resume), and a tournament that paused itself
for want of a pairing goes on once the organiser resumes it."""

from __future__ import annotations

import re

import pytest

from bot.db import Database
from bot.db.tournaments import TournamentRow
from bot.game.errors import UserError
from bot.game.service import TableService
from bot.game.tournaments import TournamentService
from tests.bot.game.conftest import Clock
from tests.bot.game.test_tournaments import ORGANISER, Places, play_bummerl, play_round, signed_up


async def round_one(
    db: Database, clock: Clock, service: TableService
) -> tuple[TournamentService, TournamentRow, Places]:
    """Eight people signed up, round 1 paired and its two tables playing."""
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    await runner.begin(tournament)
    places = Places()
    await runner.drive(service, tournament.id, places)
    return runner, tournament, places


async def test_a_pause_holds_the_next_round_and_the_no_show_clocks_and_resume_gives_the_time_back(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner, tournament, places = await round_one(db, clock, service)
    first, second = await db.tournaments.matches(tournament.id, 1)
    assert first.table_id is not None and second.table_id is not None
    table = service.snapshot(first.table_id)
    assert table is not None
    opened = table.row.created_at

    await runner.pause(await db.tournaments.get_tournament(tournament.id), actor_id=ORGANISER, reason="lunch")
    paused = await db.tournaments.get_tournament(tournament.id)
    assert runner.no_show_deadline(service, paused, first) is None, "the clocks stand still"
    with pytest.raises(UserError, match=re.escape("tournament.error.not_running")):
        await runner.pause(paused, actor_id=ORGANISER, reason="again")
    await play_bummerl(service, first.table_id)  # a table already playing finishes during the pause
    assert await runner.drive(service, tournament.id, places) == [], "nothing moves on while paused"
    assert (await db.tournaments.matches(tournament.id, 1))[0].done
    assert await db.tournaments.rounds(tournament.id) == [(1, opened, None)]

    clock.now += 100
    await runner.resume(paused, actor_id=ORGANISER, reason="")
    resumed = await db.tournaments.get_tournament(tournament.id)
    _, still_playing = await db.tournaments.matches(tournament.id, 1)
    assert runner.no_show_deadline(service, resumed, still_playing) == opened + 300 + 100
    with pytest.raises(UserError, match=re.escape("tournament.error.not_paused")):
        await runner.resume(resumed, actor_id=ORGANISER, reason="again")
    await play_bummerl(service, second.table_id)
    (report,) = await runner.drive(service, tournament.id, places)
    assert report.ended_round == 1 and len(report.matches) == 2, "round 2 is paired once resumed"
    assert [(e.action, e.reason) for e in await db.tournaments.log(tournament.id)] == [
        ("pause", "lunch"),
        ("resume", "-"),
    ]


async def test_a_tournament_paused_for_want_of_a_pairing_is_paired_again_on_resume(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner, tournament, places = await round_one(db, clock, service)
    await play_round(service, db, tournament)
    running = await db.tournaments.get_tournament(tournament.id)
    for other in (2, 3, 4):  # team 1 may meet nobody: round 2 cannot be paired
        await runner.forbid(running, 1, other, actor_id=ORGANISER)
    (report,) = await runner.drive(service, tournament.id, places)
    assert report.ended_round == 1 and not report.matches
    stuck = await db.tournaments.get_tournament(tournament.id)
    assert (stuck.status, stuck.paused_by_organiser) == ("paused", False)

    await runner.remove_team(stuck, 1, actor_id=ORGANISER, reason="cannot be paired")
    await runner.resume(stuck, actor_id=ORGANISER, reason="")
    (report,) = await runner.drive(service, tournament.id, places)
    assert report.ended_round == 1 and len(report.matches) == 2  # three teams: a match and a bye
    assert sum(1 for m in report.matches if m.second_team is None) == 1
