"""A tournament run by the service, Discord-free: sign-up, teams, each match at a table of its own whose
Bummerl the subscriber counts, a forfeit set by hand, the rounds moving on by themselves, standings and the
winner, ratings moved; and a restart in the middle of a round that picks every match up."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from bot.db import Database
from bot.db.tournaments import MatchRow, TournamentRow
from bot.game.errors import UserError
from bot.game.service import TableService
from bot.game.tournaments import Place, TournamentService, results_by_round
from bot.tournament import standings
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import play_deal

GUILD, CHANNEL, ORGANISER = 1, 700, 99
PEOPLE = {user: f"p{user}" for user in range(21, 29)}  # eight people: four teams


class Places:
    """The shell's part, made up: each match's table opens in a channel of its own."""

    def __init__(self) -> None:
        self.channels = count(1000)
        self.opened: list[int] = []

    async def __call__(self, tournament: TournamentRow, match: MatchRow, language: str) -> Place:
        self.opened.append(match.id)
        return Place(next(self.channels), CHANNEL, language)


async def create(runner: TournamentService, **changes: Any) -> TournamentRow:
    options: dict[str, Any] = dict(
        guild_id=GUILD,
        channel_id=CHANNEL,
        organiser_id=ORGANISER,
        name="  Saturday   Cup ",
        format="swiss",
        swiss_rounds=3,
        best_of=1,
        preset="standard",
        rule_changes={"target": 6},
        turn_seconds=60,
    )
    return await runner.create(**(options | changes))


async def signed_up(runner: TournamentService, **changes: Any) -> TournamentRow:
    tournament = await create(runner, **changes)
    # 21 and 22 come as a pair; 23..28 alone, paired in sign-up order.
    await runner.sign_up(tournament, 21, PEOPLE[21], 22)
    for user in range(22, 29):
        await runner.sign_up(tournament, user, PEOPLE[user], None if user != 22 else 21)
    return tournament


async def play_bummerl(service: TableService, table_id: int) -> None:
    table = service.snapshot(table_id)
    assert table is not None
    while table.status == "playing":
        outcome = await play_deal(service, table)
        table = outcome.table


async def play_round(
    service: TableService, db: Database, tournament: TournamentRow, skip: int | None = None
) -> None:
    """Play every match of the current round that has a table (but `skip`'s) to its end."""
    rounds = await db.tournaments.rounds(tournament.id)
    for match in await db.tournaments.matches(tournament.id, rounds[-1][0]):
        if match.table_id is not None and match.id != skip and not match.done:
            await play_bummerl(service, match.table_id)


async def test_a_three_round_swiss_runs_to_its_winner_with_a_forfeit_and_a_restart(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    assert tournament.name == "Saturday Cup"
    teams, left, _ = await runner.begin(tournament)
    assert [team.members for team in teams] == [(21, 22), (23, 24), (25, 26), (27, 28)] and left == []
    assert [team.name for team in teams][:2] == ["p21 & p22", "p23 & p24"]
    places = Places()

    assert await runner.drive(service, tournament.id, places) == []
    assert len(places.opened) == 2, "each match of round 1 at a table of its own"
    for match in await db.tournaments.matches(tournament.id, 1):
        assert match.status == "playing" and match.table_id is not None
        table = service.snapshot(match.table_id)
        assert table is not None and table.status == "playing"
        assert [seat.user_id for seat in table.seats if seat is not None] == [
            teams[[t.id for t in teams].index(match.first_team)].first_user_id,
            teams[[t.id for t in teams].index(match.second_team)].first_user_id,  # type: ignore[arg-type]
            teams[[t.id for t in teams].index(match.first_team)].second_user_id,
            teams[[t.id for t in teams].index(match.second_team)].second_user_id,  # type: ignore[arg-type]
        ]
        assert table.rules.target == 6

    await play_round(service, db, tournament)
    reports = await runner.drive(service, tournament.id, places)
    assert [report.ended_round for report in reports] == [1]
    round_1 = await db.tournaments.matches(tournament.id, 1)
    assert all(m.done and m.decided_by == "play" for m in round_1)
    assert all(service.snapshot(m.table_id or 0) is None for m in round_1), "decided matches' tables closed"

    # Round 2: one match is played; the other's second team does not show: the organiser gives it away.
    _, no_show = await db.tournaments.matches(tournament.id, 2)
    await play_round(service, db, tournament, skip=no_show.id)
    # A restart now: a new service restores the tables from storage, the drive picks everything up.
    restarted = TableService(db, clock=clock, seed_source=count(100).__next__)
    await restarted.restorer.restore_all()
    assert await runner.drive(restarted, tournament.id, places) == []
    seeds = {team.id: team.seed for team in teams}
    with pytest.raises(UserError):
        outsider = next(
            seed for team, seed in seeds.items() if team not in (no_show.first_team, no_show.second_team)
        )
        await runner.set_result(
            tournament, no_show.id, outsider, actor_id=ORGANISER, reason="no show", forfeit=True
        )
    await runner.set_result(
        tournament,
        no_show.id,
        seeds[no_show.first_team],
        actor_id=ORGANISER,
        reason="  no   show ",
        forfeit=True,
    )
    reports = await runner.drive(restarted, tournament.id, places)
    assert [report.ended_round for report in reports] == [2]
    assert restarted.snapshot(no_show.table_id or 0) is None, "the forfeited match's table is closed"
    forfeited = (await db.tournaments.matches(tournament.id, 2))[1]
    assert (forfeited.decided_by, forfeited.first_game_points, forfeited.second_game_points) == (
        "forfeit",
        0,
        0,
    )
    assert [(e.action, e.reason) for e in await db.tournaments.log(tournament.id)] == [("result", "no show")]

    await play_round(restarted, db, tournament)
    reports = await runner.drive(restarted, tournament.id, places)
    assert [(report.ended_round, report.finished) for report in reports] == [(3, True)]
    assert (await db.tournaments.get_tournament(tournament.id)).status == "finished"
    matches = await db.tournaments.matches(tournament.id)
    assert len(matches) == 6 and len(places.opened) == 6
    met = [frozenset((m.first_team, m.second_team)) for m in matches]
    assert len(set(met)) == 6, "no rematch in a 3-round Swiss of 4 teams"

    table = await runner.standings(tournament.id)
    expected = standings([t.id for t in teams], [r for rr in results_by_round(matches) for r in rr])
    assert [standing for standing, _ in table] == list(expected)
    assert reports[0].winner is not None and reports[0].winner.id == table[0][0].team
    assert sum(standing.points for standing, _ in table) == 6
    rated = await db.ratings.get_ratings(GUILD, PEOPLE)
    assert sorted(rated) == sorted(PEOPLE), "tournament Bummerl are rated like any other"


async def test_two_processes_driving_one_tournament_start_it_and_pair_each_round_once(
    db: Database,
    clock: Clock,
    service: TableService,
    database_engine: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Each tournament is driven by its guild's process alone; should two ever drive it at once (a shard range
    moved while the old process still ran), the stored state decides: one start, one pairing per round."""
    # A second process's connection to the same storage (the same file, or the same server).
    target = request.getfixturevalue("pg_url") if database_engine == "postgresql" else tmp_path / "bot.db"
    other_process = await Database.open(target)
    try:
        await begin_and_advance_from_two_processes(db, other_process, clock, service)
    finally:
        await other_process.close()


async def begin_and_advance_from_two_processes(
    db: Database, other_process: Database, clock: Clock, service: TableService
) -> None:
    here, there = TournamentService(db, clock), TournamentService(other_process, clock)
    tournament = await signed_up(here)
    started = await asyncio.gather(here.begin(tournament), there.begin(tournament), return_exceptions=True)
    assert sorted(type(outcome).__name__ for outcome in started) == ["UserError", "tuple"]
    await here.drive(service, tournament.id, Places())
    for match in await db.tournaments.matches(tournament.id, 1):
        await db.tournaments.set_result_by_hand(
            tournament.id, match.id, match.first_team, actor_id=ORGANISER, reason="agreed", now=int(clock())
        )
    advanced = await asyncio.gather(here.advance(tournament.id), there.advance(tournament.id))
    assert sorted((a.ended_round, len(a.matches)) for a in advanced) == [(0, 0), (1, 2)]
    assert [number for number, _, _ in await db.tournaments.rounds(tournament.id)] == [1, 2]
    assert len(await db.tournaments.matches(tournament.id, 2)) == 2


async def test_best_of_three_plays_on_at_the_same_table_until_a_team_has_two(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner, best_of=3, format="elimination")
    await runner.begin(tournament)
    places = Places()
    await runner.drive(service, tournament.id, places)
    match = (await db.tournaments.matches(tournament.id, 1))[0]
    assert match.table_id is not None
    bummerl = 0
    while not (match := (await db.tournaments.matches(tournament.id, 1))[0]).done:
        await play_bummerl(service, match.table_id)  # type: ignore[arg-type]
        bummerl += 1
        await runner.drive(service, tournament.id, places)
    assert 2 <= bummerl <= 3 and max(match.first_bummerl, match.second_bummerl) == 2
    assert match.first_bummerl + match.second_bummerl == bummerl


async def test_only_the_organiser_or_a_manager_starts_and_sign_up_closes_at_the_start(
    db: Database, clock: Clock
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    with pytest.raises(UserError, match=re.escape("tournament.error.organiser_only")):
        runner.check_organiser(tournament, 21, manages_server=False)
    runner.check_organiser(tournament, 21, manages_server=True)
    runner.check_organiser(tournament, ORGANISER, manages_server=False)
    with pytest.raises(UserError, match=re.escape("tournament.error.channel_busy")):
        await create(runner)
    await runner.begin(tournament)
    with pytest.raises(UserError, match=re.escape("tournament.error.signup_closed")):
        await runner.sign_up(tournament, 40, "late", None)
    with pytest.raises(UserError, match=re.escape("tournament.error.started")):
        await runner.begin(tournament)


async def test_bad_values_and_too_few_teams_are_refused(db: Database, clock: Clock) -> None:
    runner = TournamentService(db, clock)
    with pytest.raises(UserError, match=re.escape("tournament.error.bad_rounds")):
        await create(runner, swiss_rounds=0)
    with pytest.raises(UserError, match=re.escape("error.bad_target")):
        await create(runner, rule_changes={"target": 2})
    with pytest.raises(UserError, match=re.escape("tournament.error.bad_name")):
        await create(runner, name="   ")
    tournament = await create(runner)
    await runner.sign_up(tournament, 21, "a", None)
    await runner.sign_up(tournament, 22, "b", None)
    with pytest.raises(UserError, match=re.escape("tournament.error.too_few_teams")):
        await runner.begin(tournament)


async def test_a_removed_team_is_paired_no_more_and_forbidden_teams_never_meet(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    teams, _, _ = await runner.begin(tournament)
    places = Places()
    await runner.drive(service, tournament.id, places)
    (first, second) = await db.tournaments.matches(tournament.id, 1)
    seeds = {team.id: team.seed for team in teams}
    # Round 2 would pair the winners, and the losers; forbid the losers' meeting, then remove a team.
    await play_round(service, db, tournament)
    running = await db.tournaments.get_tournament(tournament.id)
    with pytest.raises(UserError, match=re.escape("tournament.error.no_such_team")):
        await runner.remove_team(running, 9, actor_id=ORGANISER, reason="typo")
    with pytest.raises(UserError, match=re.escape("tournament.error.reason_needed")):
        await runner.remove_team(running, 1, actor_id=ORGANISER, reason="   ")
    decided = await db.tournaments.matches(tournament.id, 1)
    losers = [m.second_team if m.winner_team == m.first_team else m.first_team for m in decided]
    winners = [m.winner_team for m in decided]
    await runner.forbid(running, seeds[losers[0]], seeds[losers[1]], actor_id=ORGANISER)  # type: ignore[index]
    await runner.drive(service, tournament.id, places)
    round_2 = await db.tournaments.matches(tournament.id, 2)
    met = {frozenset((m.first_team, m.second_team)) for m in round_2}
    assert frozenset(losers) not in met, "the forbidden pairing was not made"
    assert frozenset((first.first_team, first.second_team)) not in met, "no rematch either"
    assert frozenset((second.first_team, second.second_team)) not in met

    removed = await runner.remove_team(
        running, seeds[winners[0]], actor_id=ORGANISER, reason="left the server"
    )  # type: ignore[index]
    # Its round-2 match is the organiser's to decide; round 3 then pairs the three others (one has a bye).
    its_match = next(m for m in round_2 if removed.id in (m.first_team, m.second_team))
    other = next(m for m in round_2 if m.id != its_match.id)
    opponent = its_match.second_team if its_match.first_team == removed.id else its_match.first_team
    await runner.set_result(
        running, its_match.id, seeds[opponent], actor_id=ORGANISER, reason="removed", forfeit=True
    )  # type: ignore[index]
    await play_bummerl(service, other.table_id)  # type: ignore[arg-type]
    await runner.drive(service, tournament.id, places)
    round_3 = await db.tournaments.matches(tournament.id, 3)
    assert removed.id not in {team for m in round_3 for team in (m.first_team, m.second_team)}
    assert sum(1 for m in round_3 if m.second_team is None) == 1
    assert removed.id not in {team.id for _, team in await runner.standings(tournament.id)}
    assert [e.action for e in await db.tournaments.log(tournament.id)] == ["forbid", "remove", "result"]


async def test_a_cancelled_tournament_closes_its_tables_and_pairs_no_more(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    await runner.begin(tournament)
    await runner.drive(service, tournament.id, Places())
    running = await db.tournaments.get_tournament(tournament.id)
    await runner.cancel(service, running, actor_id=ORGANISER, reason="the server is moving")
    assert (await db.tournaments.get_tournament(tournament.id)).status == "cancelled"
    assert service.open_tables() == []
    assert await runner.drive(service, tournament.id, Places()) == []
    with pytest.raises(UserError, match=re.escape("tournament.error.not_running")):
        await runner.cancel(
            service, await db.tournaments.get_tournament(tournament.id), actor_id=ORGANISER, reason="again"
        )
    assert [e.reason for e in await db.tournaments.log(tournament.id)] == ["cancelled: the server is moving"]


async def test_forget_me_waits_while_the_persons_team_plays_in_a_running_tournament(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    await runner.begin(tournament)  # no table opened: they sit nowhere, but their team plays on
    with pytest.raises(UserError, match=re.escape("error.forget_in_tournament")):
        await service.prefs.forget_person(23)
    await runner.cancel(
        service, await db.tournaments.get_tournament(tournament.id), actor_id=ORGANISER, reason="off"
    )
    assert (await service.prefs.forget_person(23)).tournaments


async def test_a_team_the_ai_plays_for_at_the_deadline_loses_by_forfeit(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    await runner.begin(tournament)
    await runner.drive(service, tournament.id, Places())
    running = await db.tournaments.get_tournament(tournament.id)
    absent_match, present_match = await db.tournaments.matches(tournament.id, 1)
    assert absent_match.table_id is not None and present_match.table_id is not None
    table = service.snapshot(absent_match.table_id)
    assert table is not None
    assert runner.no_show_deadline(service, running, absent_match) == table.row.created_at + 300
    # Both East and West (the second team) were taken over while idle; of the other match one player was.
    for table_id, seats in ((absent_match.table_id, (1, 3)), (present_match.table_id, (0,))):
        for seat in seats:
            await db.seats.set_takeover(table_id, seat, True)
        row = await db.tables.get_table(table_id)
        assert row is not None
        await service.load(row)
    assert await runner.forfeit_no_shows(service, tournament.id, present_match.id) == ()
    assert await runner.forfeit_no_shows(service, tournament.id, absent_match.id) == (
        absent_match.second_team,
    )
    decided = (await db.tournaments.matches(tournament.id, 1))[0]
    assert (decided.winner_team, decided.decided_by) == (absent_match.first_team, "forfeit")
    assert await runner.forfeit_no_shows(service, tournament.id, absent_match.id) == (), "decided once"
    assert [e.actor_id for e in await db.tournaments.log(tournament.id)] == [0]
    await runner.drive(service, tournament.id, Places())
    assert service.snapshot(absent_match.table_id) is None, "the forfeited match's table is closed"


async def test_a_match_opens_with_whichever_first_team_player_is_free_and_forfeits_when_neither_is(
    db: Database, clock: Clock, service: TableService
) -> None:
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    await runner.begin(tournament)
    # 21 (first team of match 1) and 25, 26 (first team of match 2) sit at casual tables elsewhere.
    for host, channel in ((21, 1), (25, 2)):
        await service.open_table(
            guild_id=GUILD, channel_id=channel, host_id=host, host_name=PEOPLE[host], preset="standard",
            deck="french", turn_seconds=60, language="en",
        )  # fmt: skip
    lobby = service.table_of_user(25)
    assert lobby is not None
    await service.take_seat(lobby.id, 26, PEOPLE[26], None)
    await runner.drive(service, tournament.id, Places())
    first, second = await db.tournaments.matches(tournament.id, 1)
    table = service.snapshot(first.table_id or 0)
    assert table is not None and table.status == "playing"
    assert [s.user_id for s in table.seats if s is not None] == [22, 23, None, 24], (
        "22 hosts; the AI plays 21"
    )
    assert (second.decided_by, second.winner_team, second.table_id) == ("forfeit", second.second_team, None)


async def test_the_bots_no_show_forfeit_never_overrules_the_organisers_result_set_meanwhile(
    db: Database, clock: Clock, service: TableService
) -> None:
    """Match 2's first team sits at a casual table as its match opens, and the organiser decides the match
    just then (while the bot reads its seats): the organiser's result stands, no forfeit is logged over it."""
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    await runner.begin(tournament)
    await service.open_table(
        guild_id=GUILD, channel_id=2, host_id=25, host_name=PEOPLE[25], preset="standard", deck="french",
        turn_seconds=60, language="en",
    )  # fmt: skip
    lobby = service.table_of_user(25)
    assert lobby is not None
    await service.take_seat(lobby.id, 26, PEOPLE[26], None)
    _, second = await db.tournaments.matches(tournament.id, 1)
    seat_plan = runner.seat_plan

    async def organiser_decides_meanwhile(tournament: TournamentRow, match: MatchRow) -> Any:
        if match.id == second.id:
            await db.tournaments.set_result_by_hand(
                tournament.id, match.id, match.first_team, actor_id=ORGANISER, reason="agreed", now=int(clock())
            )
        return await seat_plan(tournament, match)

    runner.seat_plan = organiser_decides_meanwhile  # type: ignore[method-assign]
    await runner.drive(service, tournament.id, Places())
    decided = (await db.tournaments.matches(tournament.id, 1))[1]
    assert (decided.decided_by, decided.winner_team, decided.table_id) == ("organiser", second.first_team, None)
    assert [(e.actor_id, e.match_id) for e in await db.tournaments.log(tournament.id)] == [(ORGANISER, second.id)]


async def test_a_table_whose_match_could_not_be_stored_is_closed_and_the_next_drive_opens_another(
    db: Database, clock: Clock, service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Storage fails as the first match's table is put on record: that table is closed at once (no drive
    would know it, its host would stay seated), and the drive, retried, opens the match with its host."""
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)
    await runner.begin(tournament)
    set_match_table = db.tournaments.set_match_table
    failures = [sqlite3.OperationalError("disk I/O error")]

    async def failing_once(match_id: int, table_id: int) -> bool:
        if failures:
            raise failures.pop()
        return await set_match_table(match_id, table_id)

    monkeypatch.setattr(db.tournaments, "set_match_table", failing_once)
    with pytest.raises(sqlite3.OperationalError):
        await runner.drive(service, tournament.id, Places())
    assert service.open_tables() == [], "the table off the record is closed"
    await runner.drive(service, tournament.id, Places())
    for match in await db.tournaments.matches(tournament.id, 1):
        table = service.snapshot(match.table_id or 0)
        assert table is not None and table.status == "playing"
        assert None not in [seat.user_id for seat in table.seats if seat is not None], "everyone seated"
    assert len(service.open_tables()) == 2


async def test_a_person_withdraws_before_the_start_and_whoever_named_them_is_alone_again(
    db: Database, clock: Clock
) -> None:
    runner = TournamentService(db, clock)
    tournament = await create(runner)
    await runner.sign_up(tournament, 21, "a", 22)
    await runner.sign_up(tournament, 22, "b", 21)
    await runner.withdraw(tournament, 22)
    assert [(s.user_id, s.partner_id) for s in await db.tournaments.signups(tournament.id)] == [(21, None)]
    with pytest.raises(UserError, match=re.escape("tournament.error.not_signed_up")):
        await runner.withdraw(tournament, 22)


@pytest.mark.parametrize("format", ["swiss", "elimination"])
async def test_a_result_of_an_ended_round_is_a_correction_in_swiss_and_refused_once_a_bracket_moved_on(
    db: Database, clock: Clock, service: TableService, format: str
) -> None:
    """Swiss: the organiser corrects a round-1 result while round 2 plays; the standings follow it and round
    2's pairings stand. Elimination: round 1's winners already play the final, so its results stay."""
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner, format=format)
    teams, _, _ = await runner.begin(tournament)
    places = Places()
    await runner.drive(service, tournament.id, places)
    await play_round(service, db, tournament)
    await runner.drive(service, tournament.id, places)
    first, _ = await db.tournaments.matches(tournament.id, 1)
    loser = first.second_team if first.winner_team == first.first_team else first.first_team
    seeds = {team.id: team.seed for team in teams}
    paired = await db.tournaments.matches(tournament.id, 2)
    running = await db.tournaments.get_tournament(tournament.id)

    if format == "elimination":
        with pytest.raises(UserError, match=re.escape("tournament.error.bracket_moved_on")):
            await runner.set_result(running, first.id, seeds[loser], actor_id=ORGANISER, reason="x", forfeit=False)
        assert (await db.tournaments.matches(tournament.id, 1))[0] == first
        assert await db.tournaments.log(tournament.id) == []
        return
    corrected = await runner.set_result(
        running, first.id, seeds[loser], actor_id=ORGANISER, reason="scores swapped", forfeit=False
    )
    assert (corrected.winner_team, corrected.decided_by) == (loser, "organiser")
    assert await db.tournaments.matches(tournament.id, 2) == paired, "round 2's pairings stand"
    by_team = {standing.team: standing for standing, _ in await runner.standings(tournament.id)}
    assert by_team[loser].points == 1
    assert [(e.action, e.reason, e.match_id) for e in await db.tournaments.log(tournament.id)] == [
        ("result", "scores swapped", first.id)
    ]
