"""The organiser's controls of a server tournament, end to end against the fake Discord: the scheduled start
(on the fake's clock, and after a restart with the start time past), the pause that lets a running table
finish while nothing new starts, across a restart, the AI stand-in switch at the no-show deadline, the
sign-up message that lists who signed up (edited at most once per gap), the organisers' role and the
profile's tournaments. The pure parts (start times, the roster, the absent teams) are tested directly."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import cast

import pytest

from bot.db import Database
from bot.db.tournaments import SignupRow, TournamentRow
from bot.game.errors import UserError
from bot.game.tournament_controls import parse_start, signup_roster
from bot.game.tournaments import absent_teams
from bot.schnapsen.tournament_controls import MESSAGE_LIMIT, SIGNUP_EDIT_GAP, signup_text
from bot.schnapsen.tournaments import TournamentRunner
from devtools.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import Table, reply_to
from tests.bot.schnapsen.test_tournaments import (
    CREATE,
    MANAGE_THREADS,
    SEND_IN_THREADS,
    TARGET,
    command,
    grant_bot,
    posted,
)

NOW = int(datetime(2026, 12, 3, 19, 0, tzinfo=UTC).timestamp())

# --- pure parts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "soon", "0", "2026-12-03 18:59", "2027-03-01 12:00", "25:00", "<t:1>", "2026-13-01 10:00"]
)
def test_a_start_time_in_the_past_too_far_ahead_or_unreadable_is_the_users_error(text: str) -> None:
    with pytest.raises(UserError) as refused:
        parse_start(text, NOW)
    assert refused.value.key == "tournament.error.bad_start"


def test_a_start_time_is_read_as_utc_or_as_minutes_or_hours_from_now() -> None:
    assert parse_start("2026-12-05 18:00", NOW) == int(datetime(2026, 12, 5, 18, 0, tzinfo=UTC).timestamp())
    assert parse_start(" 2026-12-05T18:00 ", NOW) == parse_start("2026-12-05 18:00", NOW)
    assert parse_start("19:30", NOW) == NOW + 30 * 60  # later today
    assert parse_start("19:00", NOW) == NOW + 24 * 3600  # now is not the future: tomorrow
    assert [parse_start(text, NOW) - NOW for text in ("45", "45m", "+45 minutes", "3h", "1 hour")] == [
        2700,
        2700,
        2700,
        10800,
        3600,
    ]


def signup(user: int, name: str, partner: int | None = None) -> SignupRow:
    return SignupRow(1, user, name, partner, signed_at=user)


def test_the_roster_pairs_people_who_named_each_other_and_lists_the_rest_as_waiting() -> None:
    rows = [
        signup(1, "Ann", 2),
        signup(2, "Ben", 1),
        signup(3, "Cleo", 9),
        signup(4, "Dan"),
        signup(5, "Eve", 3),
    ]
    teams, waiting = signup_roster(rows)
    assert [(a.display_name, b.display_name) for a, b in teams] == [("Ann", "Ben")]
    assert [s.display_name for s in waiting] == ["Cleo", "Dan", "Eve"]


def tournament_row(**changes: object) -> TournamentRow:
    fields: dict[str, object] = dict(
        id=1, guild_id=1, channel_id=2, organiser_id=3, name="Cup", format="swiss", swiss_rounds=3,
        bummerl_per_match=1, rules_json='{"preset": "standard", "target": 24}', turn_seconds=60,
        ai_stand_in=True, no_show_seconds=300, starts_at=None, status="signup", signup_message_id=None,
        created_at=0, updated_at=0,
    )  # fmt: skip
    fields.update(changes)
    return TournamentRow(**fields)  # type: ignore[arg-type]


def test_the_sign_up_message_stays_within_discords_limit_and_says_how_many_more() -> None:
    rows = [signup(n, f"Player number {n:04d} with a long name") for n in range(1, 200)]
    text = signup_text("en", tournament_row(starts_at=NOW, ai_stand_in=False), rows)
    assert len(text) <= MESSAGE_LIMIT
    assert f"<t:{NOW}:F>" in text and "The AI does not stand in" in text
    shown = text.count("(waiting for a partner)")
    assert 0 < shown < 199 and text.endswith(f"… and {199 - shown} more")


def seat(user_id: int | None, *, ai_takeover: bool = False) -> SimpleNamespace:
    return SimpleNamespace(user_id=user_id, ai_takeover=ai_takeover)


def test_without_the_stand_in_one_seat_played_by_the_ai_makes_its_team_absent() -> None:
    table = SimpleNamespace(seats=[seat(1), seat(None), seat(3), seat(4)])  # East never came
    assert absent_teams(table, stand_in=True) == (False, False)  # type: ignore[arg-type]
    assert absent_teams(table, stand_in=False) == (False, True)  # type: ignore[arg-type]
    idle = SimpleNamespace(seats=[seat(1, ai_takeover=True), seat(2), seat(3), seat(4)])  # North taken over
    assert absent_teams(idle, stand_in=False) == (True, False)  # type: ignore[arg-type]
    gone = SimpleNamespace(seats=[None, seat(2), seat(None), seat(4)])
    assert absent_teams(gone, stand_in=True) == (True, False)  # type: ignore[arg-type]


# --- end to end ------------------------------------------------------------------------------------------


def runner_of(world: Table) -> TournamentRunner:
    assert world.bot is not None
    runner = world.bot.get_cog("TournamentRunner")
    assert runner is not None  # (each bot loads the extension anew: not this module's class object)
    return cast(TournamentRunner, runner)


def on_fake_clock(world: Table) -> TournamentRunner:
    """The runner's timers and the tournament service read the fake's clock, which the test moves on."""
    runner = runner_of(world)
    runner.clock = world.fake.clock
    runner.tournaments.clock = world.fake.clock
    return runner


@dataclass
class NoShowTimer:
    started: asyncio.Event = field(default_factory=asyncio.Event)
    ended: asyncio.Event = field(default_factory=asyncio.Event)


def watch_no_show_timer(world: Table) -> NoShowTimer:
    """Events for the runner's next no-show timer: it started, it ended (its check done, or stopped). The timer
    is the bot's, not the fake's: the fake's waits, which look again only when the fake changes, cannot see it."""
    runner, timer = runner_of(world), NoShowTimer()
    no_show_at = runner._no_show_at

    async def watched(tournament_id: int, match_id: int) -> None:
        timer.started.set()
        try:
            await no_show_at(tournament_id, match_id)
        finally:
            timer.ended.set()

    runner._no_show_at = watched  # type: ignore[method-assign]
    return timer


def move_clock(world: Table, seconds: float) -> None:
    world.fake.advance_clock(seconds)
    runner_of(world).clock_moved()


async def setup(world: Table, count: int) -> list[FakeUser]:
    grant_bot(world, CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    world.home = world.channel  # type: ignore[attr-defined]
    people = [world.add_player(f"p{n}") for n in range(1, count + 1)]
    await world.start_bot()
    await world.no_ai_delay()
    return people


async def only_tournament(world: Table) -> TournamentRow:
    assert world.bot is not None
    (tournament,) = await world.bot.db.tournaments.open_tournaments()
    return tournament


async def short_bummerl(world: Table, tournament: TournamentRow) -> None:
    assert world.bot is not None
    db = world.bot.db
    async with db.transaction():  # shorter Bummerl than a command offers, for a quick test
        rules = json.dumps({"preset": "standard", "target": TARGET})
        await db.core.execute("UPDATE tournaments SET rules_json = ? WHERE id = ?", (rules, tournament.id))


async def sign_up_two_teams(world: Table, people: list[FakeUser]) -> None:
    await command(world, people[0], "join", partner=people[1])
    await command(world, people[2], "join", partner=people[3])


def signup_message(world: Table, tournament: TournamentRow) -> FakeMessage:
    return next(m for m in world.home.messages if m.id == tournament.signup_message_id)  # type: ignore[attr-defined]


async def match_table_playing(world: Table, tournament: TournamentRow) -> int:
    """The id of the tournament's one match table, once it plays."""
    assert world.bot is not None
    bot = world.bot

    def playing() -> int | None:
        home = world.home  # type: ignore[attr-defined]
        tables = [
            t for t in bot.service.open_tables() if t.thread_parent_id == home.id and t.status == "playing"
        ]
        return tables[0].id if tables else None

    return await world.fake.wait_for(playing, timeout=10, what="the match's table")


async def test_the_sign_up_message_lists_who_signed_up_with_edits_coalesced(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people = await setup(world, 6)
    on_fake_clock(world)
    await command(world, world.admin, "create", name="Cup")
    tournament = await only_tournament(world)
    message = signup_message(world, tournament)
    assert "Signed up:" in message.content and "p1" not in message.content

    await command(world, people[0], "join", partner=people[1])
    await fake_discord.wait_for(lambda: "• p1 & p2" in message.content, what="the first sign-up listed")
    for person in people[2:]:
        await command(world, person, "join")
    await command(world, people[5], "withdraw")
    assert message.edit_count == 1, "the next edit waits for the gap"
    move_clock(world, SIGNUP_EDIT_GAP)
    await fake_discord.wait_for(
        lambda: "• p5 (waiting for a partner)" in message.content, what="the next edit"
    )
    assert "• p3 (waiting for a partner)\n• p4 (waiting for a partner)" in message.content
    assert "p6" not in message.content and message.edit_count == 2, "five changes, one edit"

    await command(world, world.admin, "start")
    move_clock(world, SIGNUP_EDIT_GAP)
    await fake_discord.wait_for(lambda: "sign-up is closed" in message.content, what="the closed sign-up")
    assert "The teams:\n• #1 p1 & p2\n• #2 p3 & p4" in message.content and "p5" not in message.content


async def test_singles_who_sign_up_within_one_second_are_paired_in_their_sign_up_order(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """erin, heidi, frank and grace sign up alone, all within one second (the fake's clock stands still):
    they pair in sign-up order, erin with heidi and frank with grace, whoever's Discord id is lower."""
    erin, frank, grace, heidi = await setup(world, 4)
    on_fake_clock(world)
    await command(world, world.admin, "create", name="Cup")
    tournament = await only_tournament(world)
    for person in (erin, heidi, frank, grace):
        await command(world, person, "join")
    await command(world, world.admin, "start")
    assert world.bot is not None
    teams = await world.bot.db.tournaments.teams(tournament.id)
    assert [team.members for team in teams] == [(erin.id, heidi.id), (frank.id, grace.id)]


async def test_a_tournament_starts_itself_at_its_start_time(fake_discord: FakeDiscord, world: Table) -> None:
    people = await setup(world, 4)
    on_fake_clock(world)
    refused = await command(world, world.admin, "create", name="Cup", start="yesterday")
    assert "Give the start as YYYY-MM-DD HH:MM or HH:MM (UTC)" in refused
    created = await command(world, world.admin, "create", name="Cup", start="30")
    tournament = await only_tournament(world)
    assert tournament.starts_at is not None
    assert f"It starts itself <t:{tournament.starts_at}:F>" in created
    await sign_up_two_teams(world, people)
    assert "Only the organiser" in await command(world, people[2], "options", start="10")

    move_clock(world, 29 * 60)
    assert world.bot is not None
    assert (await world.bot.db.tournaments.get_tournament(tournament.id)).status == "signup"
    move_clock(world, 60 + 1)
    await fake_discord.wait_for(lambda: posted(world, "**Cup**, round 1:"), what="round 1, started on time")
    await match_table_playing(world, tournament)
    assert (await world.bot.db.tournaments.get_tournament(tournament.id)).status == "running"


async def test_a_start_time_past_at_start_up_starts_the_tournament_at_once(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people = await setup(world, 4)
    await command(world, world.admin, "create", name="Cup", start="2h")
    tournament = await only_tournament(world)
    await sign_up_two_teams(world, people)
    await world.stop_bot()
    db = await Database.open(world.settings.database_path)
    try:  # the bot was down when the start time came
        async with db.transaction():
            await db.core.execute("UPDATE tournaments SET starts_at = 1 WHERE id = ?", (tournament.id,))
    finally:
        await db.close()
    await world.start_bot()
    await fake_discord.wait_for(
        lambda: posted(world, "**Cup**, round 1:"), timeout=10, what="round 1 at start-up"
    )
    await match_table_playing(world, tournament)


async def test_too_few_teams_at_the_start_time_leave_the_start_to_the_organiser(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people = await setup(world, 2)
    on_fake_clock(world)
    await command(world, world.admin, "create", name="Cup", start="5")
    await command(world, people[0], "join", partner=people[1])
    move_clock(world, 5 * 60 + 1)
    notice = await fake_discord.wait_for(
        lambda: next(iter(posted(world, "could not start at its start time")), None), what="the notice"
    )
    assert "At least two teams (four people) must sign up first." in notice
    tournament = await only_tournament(world)
    assert (tournament.status, tournament.starts_at) == ("signup", None)


async def test_a_pause_lets_the_running_table_finish_holds_the_rest_and_survives_a_restart(
    fake_discord: FakeDiscord, world: Table
) -> None:
    people = await setup(world, 4)
    timer = watch_no_show_timer(world)
    players = {user.id: user for user in people}
    await command(world, world.admin, "create", name="Cup", rounds=1)
    tournament = await only_tournament(world)
    await short_bummerl(world, tournament)
    await sign_up_two_teams(world, people)
    await command(world, world.admin, "start")
    table_id = await match_table_playing(world, tournament)
    on_fake_clock(world)
    await fake_discord.wait_event(timer.started, what="the no-show timer")

    assert "Done" in await command(world, world.admin, "pause", reason="lunch")
    assert posted(world, "**Cup** is paused by the organiser")
    await fake_discord.wait_event(timer.ended, what="the no-show timer to stop")
    assert "not running" in await command(world, world.admin, "pause")
    assert world.bot is not None
    table = world.bot.service.snapshot(table_id)
    assert table is not None
    world.channel = next(t for t in world.home.threads if t.id == table.channel_id)  # type: ignore[attr-defined]
    await world.play([players[s.user_id] for s in table.seats if s is not None and s.user_id in players])
    (match,) = await world.bot.db.tournaments.matches(tournament.id)
    assert match.done, "the running table finished its Bummerl during the pause"

    await world.stop_bot()
    await world.start_bot()
    on_fake_clock(world)
    stored = await world.bot.db.tournaments.get_tournament(tournament.id)
    assert (stored.status, stored.paused_by_organiser) == ("paused", True), "still paused after the restart"
    assert not posted(world, "is over")
    move_clock(world, 120)
    world.channel = world.home  # type: ignore[attr-defined]
    assert "Done" in await command(world, world.admin, "resume")
    final = await fake_discord.wait_for(
        lambda: next(iter(posted(world, "is over")), None), timeout=10, what="the final result"
    )
    assert "The winners: **" in final and posted(world, "**Cup** goes on.")
    log = await world.bot.db.tournaments.log(tournament.id)
    assert [(entry.action, entry.reason, entry.actor_id) for entry in log] == [
        ("pause", "lunch", world.admin.id),
        ("resume", "-", world.admin.id),
    ]
    assert world.bot.service.snapshot(table_id) is None, "the decided match's table closed on resume"


@pytest.mark.parametrize("stand_in", [True, False])
async def test_the_ai_stands_in_for_an_absent_partner_only_when_the_organiser_allows(
    fake_discord: FakeDiscord, world: Table, stand_in: bool
) -> None:
    """p4 sits at a casual table elsewhere when the match opens: the AI plays their seat. At the no-show
    deadline their team plays on with the AI, or, without the stand-in, loses by forfeit."""
    p1, p2, p3, p4 = await setup(world, 4)
    timer = watch_no_show_timer(world)
    casual = world.guild.add_text_channel("casual")
    interaction = await fake_discord.slash(p4, casual, "schnapsen", "new")
    if (await interaction.wait_response()).type == 5:
        await interaction.wait_followups(1)
    assert world.bot is not None
    bot = world.bot
    await fake_discord.wait_for(lambda: bot.service.table_of_user(p4.id) is not None, what="p4 seated")
    await command(world, world.admin, "create", name="Cup", rounds=1, ai_stand_in=stand_in)
    tournament = await only_tournament(world)
    assert tournament.ai_stand_in is stand_in
    await sign_up_two_teams(world, [p1, p2, p3, p4])
    assert posted(world, "The AI may stand in" if stand_in else "The AI does not stand in")
    await command(world, world.admin, "start")
    await match_table_playing(world, tournament)
    on_fake_clock(world)
    await fake_discord.wait_event(timer.started, what="the no-show timer")

    move_clock(world, tournament.no_show_seconds + 1)
    await fake_discord.wait_event(timer.ended, what="the no-show check")
    (checked,) = await bot.db.tournaments.matches(tournament.id)
    if stand_in:
        assert not checked.done and not posted(world, "did not show up")
        return
    assert (checked.decided_by, checked.winner_team) == ("forfeit", checked.first_team)
    notice = await fake_discord.wait_for(lambda: next(iter(posted(world, "did not show up")), None))
    assert "p3 & p4 did not show up in time and lose by forfeit" in notice
    await fake_discord.wait_for(lambda: posted(world, "The winners: **p1 & p2**!"), what="the final result")
    assert (await bot.db.tournaments.log(tournament.id))[0].reason.endswith("(no AI stand-in)")

    reply = await reply_to(await world.command(p1, "stats"))
    fields = {field["name"]: field["value"] for field in reply.embeds[0].get("fields") or []}
    assert fields["Server tournaments"] == "1 played, 1 won"


async def test_a_member_with_the_organisers_role_may_create_and_run_a_tournament(
    fake_discord: FakeDiscord, world: Table
) -> None:
    role = world.guild.add_role("Tournament staff")  # before the bot connects: it is in the guild it sees
    referee = fake_discord.add_user("referee")
    world.guild.add_member(referee, roles=[role])
    people = await setup(world, 1)
    assert "Manage Server" in await command(world, referee, "create", name="Cup")
    assert "Only someone with Manage Server" in await command(world, people[0], "organiser-role", role=role)
    assert f"<@&{role.id}>" in await command(world, world.admin, "organiser-role", role=role)
    assert "open for sign-up" in await command(world, referee, "create", name="Cup")
    assert "The AI does not stand in" in await command(world, referee, "options", ai_stand_in=False)
    assert "Only the organiser" in await command(world, people[0], "options", ai_stand_in=True)
    assert "Only members with Manage Server" in await command(world, world.admin, "organiser-role")
    assert "Manage Server" in await command(world, referee, "create", name="Second Cup")
