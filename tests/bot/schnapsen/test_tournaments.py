"""A server tournament end to end against the fake Discord: eight people (four teams) sign up, the organiser
starts a 3-round Swiss of short Bummerl, each match is played in a thread of its own, one team does not show
in round 2 and loses by forfeit, the bot restarts in the middle of round 2, the standings posted after each
round equal the pure core's computation from the stored results, the final post names the winners and the
tournament's Bummerl moved the ratings."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.db.tournaments import MatchRow, TournamentRow
from bot.game.table import TableSnapshot
from bot.game.tournaments import results_by_round
from bot.schnapsen.tournament_images import standings_lines
from bot.schnapsen.tournaments import chunks
from bot.tournament import standings
from devtools.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.bot.schnapsen.harness import Table, game_buttons

CREATE = discord.Permissions(create_public_threads=True).value
SEND_IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
MANAGE_THREADS = discord.Permissions(manage_threads=True).value
TARGET = 2  # game points that win a Bummerl here: a deal or two per match


def grant_bot(world: Table, permissions: int) -> None:
    world.fake.bot_permissions |= permissions
    for role in world.guild.member(world.fake.bot_user).roles:
        role.permissions |= permissions


async def command(world: Table, user: FakeUser, *path: str, **options: object) -> str:
    """``/schnapsen tournament ...`` as ``user`` in the tournament's channel; the answer's text."""
    interaction = await world.fake.slash(user, world.home, "schnapsen", "tournament", *path, **options)
    response = await interaction.wait_response()
    if response.type == 5:
        return (await interaction.wait_followups(1))[0].content
    return (await interaction.wait_original()).content


def posted(world: Table, text: str) -> list[str]:
    return [m.visible_text for m in world.home.messages if text in m.visible_text]


def next_message(world: Table, message: FakeMessage) -> FakeMessage | None:
    messages = world.home.messages
    index = messages.index(message) + 1
    return messages[index] if index < len(messages) else None


def standings_message(world: Table, text: str) -> FakeMessage | None:
    """The channel's first message with ``text`` that carries images."""
    return next((m for m in world.home.messages if text in m.visible_text and m.attachments), None)


async def matches_of_round(world: Table, tournament_id: int, round_no: int, tables: int = 2) -> list[MatchRow]:
    """The round's matches once all are being played: each in a thread of the channel, its table started."""

    def started() -> bool:
        assert world.bot is not None
        home = world.home  # type: ignore[attr-defined]
        return (
            sum(
                1
                for t in world.bot.service.open_tables()
                if t.thread_parent_id == home.id and t.status == "playing"
            )
            == tables
        )

    await world.fake.wait_for(started, timeout=10, what=f"round {round_no}'s two tables")
    assert world.bot is not None
    return await world.bot.db.tournaments.matches(tournament_id, round_no)


async def knockout_signed_up(world: Table, people: list[FakeUser]) -> TournamentRow:
    """The organiser creates a single elimination "Knockout" in the channel; eight people sign up as four
    teams of neighbours in ``people``."""
    await command(world, world.admin, "create", name="Knockout", format="elimination")
    assert world.bot is not None
    tournament = await world.bot.db.tournaments.latest_tournament(world.guild.id, world.home.id)  # type: ignore[attr-defined]
    assert tournament is not None
    for n in range(0, 8, 2):
        await command(world, people[n], "join", partner=people[n + 1])
    return tournament


async def knockout_started(world: Table) -> TournamentRow:
    """The bot starts, eight people sign up for a "Knockout" as four teams, and the organiser starts it."""
    grant_bot(world, CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    world.home = world.channel  # type: ignore[attr-defined]
    people = [world.add_player(f"p{n}") for n in range(1, 9)]
    await world.start_bot()
    tournament = await knockout_signed_up(world, people)
    await command(world, world.admin, "start")
    return tournament


async def play_match(world: Table, match: MatchRow, players: dict[int, FakeUser]) -> None:
    """The four players of ``match`` play its Bummerl in its thread, until the tournament counted it."""
    assert world.bot is not None and match.table_id is not None
    table = world.bot.service.snapshot(match.table_id)
    assert table is not None and table.status == "playing"
    thread = next(t for t in world.home.threads if t.id == table.channel_id)  # type: ignore[attr-defined]
    world.channel = thread
    seated = [players[seat.user_id] for seat in table.seats if seat is not None and seat.user_id in players]
    assert len(seated) == 4
    await world.play(seated, timeout=30)
    await world.fake.wait_for(lambda: thread.archived, what=f"match {match.id}'s thread to be archived")


async def test_eight_people_play_a_three_round_swiss_to_its_winners(
    fake_discord: FakeDiscord, world: Table
) -> None:
    grant_bot(world, CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    world.home: FakeChannel = world.channel  # type: ignore[attr-defined]
    people = [world.add_player(f"p{n}") for n in range(1, 9)]
    players = {user.id: user for user in people}
    await world.start_bot()
    await world.no_ai_delay()

    refused = await command(world, people[0], "create", name="Cup")
    assert "Manage Server" in refused
    created = await command(world, world.admin, "create", name="Saturday Cup", rounds=3, target=6)
    assert "open for sign-up" in created
    assert posted(world, "**Saturday Cup**: sign-up is open (Swiss system, 3 rounds, one Bummerl per match")
    assert world.bot is not None
    db = world.bot.db
    (tournament,) = await db.tournaments.open_tournaments()
    async with db.transaction():  # shorter Bummerl than a command offers, for a quick test
        rules = json.dumps({"preset": "standard", "target": TARGET})
        await db.core.execute("UPDATE tournaments SET rules_json = ? WHERE id = ?", (rules, tournament.id))

    assert "as a team" in await command(world, people[0], "join", partner=people[1])
    for person in people[2:]:
        assert "signed up" in await command(world, person, "join")
    assert "Only the organiser" in await command(world, people[3], "start")
    assert "has started" in await command(world, world.admin, "start")
    round_1 = await matches_of_round(world, tournament.id, 1)
    assert posted(world, "**Saturday Cup**, round 1:")
    teams = await db.tournaments.teams(tournament.id)
    assert [team.members for team in teams] == [(people[0].id, people[1].id)] + [
        (people[i].id, people[i + 1].id) for i in (2, 4, 6)
    ]

    async def check_standings(round_no: int) -> str:
        """The round's post: its title, the standings image, whose description is the standings as text."""
        message = await fake_discord.wait_for(
            lambda: standings_message(world, f"standings after round {round_no}"),
            timeout=10,
            what=f"round {round_no}'s standings",
        )
        assert world.bot is not None
        matches = await world.bot.db.tournaments.matches(tournament.id)
        done = [m for m in matches if m.round <= round_no]
        expected = standings([t.id for t in teams], [r for rr in results_by_round(done) for r in rr])
        by_id = {team.id: team for team in teams}
        title = f"**Saturday Cup**: standings after round {round_no}"
        assert message.visible_text.startswith(title)
        [picture] = message.attachments
        assert picture.filename == "standings-1.png" and picture.data.startswith(b"\x89PNG")
        lines = standings_lines("en", [(s, by_id[s.team]) for s in expected])
        assert (picture.description or "").endswith("\n" + "\n".join(lines)), "the image's text is its alt"
        return str(message.visible_text)

    for match in round_1:
        await play_match(world, match, players)
    await check_standings(1)

    # Round 2: one match is played, then the bot restarts; the other match's second team never shows.
    played, no_show = await matches_of_round(world, tournament.id, 2)
    await play_match(world, played, players)
    await world.stop_bot()
    await world.start_bot()
    db = world.bot.db
    resumed = world.bot.service.snapshot(no_show.table_id or 0)
    assert resumed is not None and resumed.status == "playing", "the waiting match's table is restored"
    winner_seed = next(team.seed for team in teams if team.id == no_show.first_team)
    answer = await command(
        world, world.admin, "result", match=no_show.id, winner=winner_seed, reason="no show", forfeit=True
    )
    assert "kept in the tournament's log" in answer
    await check_standings(2)
    forfeited = next(m for m in await db.tournaments.matches(tournament.id, 2) if m.id == no_show.id)
    assert (forfeited.decided_by, forfeited.winner_team) == ("forfeit", no_show.first_team)
    assert [(entry.action, entry.reason) for entry in await db.tournaments.log(tournament.id)] == [
        ("result", "no show")
    ]

    for match in await matches_of_round(world, tournament.id, 3):
        await play_match(world, match, players)
    final = await check_standings(3)
    table = await world.bot.get_cog("TournamentRunner").tournaments.standings(tournament.id)  # type: ignore[union-attr]
    assert f"**Saturday Cup** is over. The winners: **{table[0][1].name}**!" in final
    assert (await db.tournaments.get_tournament(tournament.id)).status == "finished"
    met = [frozenset((m.first_team, m.second_team)) for m in await db.tournaments.matches(tournament.id)]
    assert len(met) == len(set(met)) == 6, "no rematch"
    ratings = await db.ratings.get_ratings(world.guild.id, players)
    assert sorted(ratings) == sorted(players), "every player's tournament Bummerl were rated"

    interaction = await world.fake.slash(people[5], world.home, "schnapsen", "tournament", "standings")
    assert (await interaction.wait_response()).type == 5
    (shown,) = await interaction.wait_followups(1)
    assert shown.content.startswith("**Saturday Cup**: standings after round 3")
    assert [picture.filename for picture in shown.attachments] == ["standings-1.png"]


async def test_a_team_that_does_not_show_loses_by_forfeit_at_the_deadline(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """The second team sits at a casual table elsewhere when its match opens: the AI plays both its seats,
    and at the no-show deadline (2 s here) it loses by forfeit; the one-round tournament then ends."""
    grant_bot(world, CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    world.home = world.channel  # type: ignore[attr-defined]
    p1, p2, p3, p4 = (world.add_player(f"p{n}") for n in range(1, 5))
    await world.start_bot()
    await world.no_ai_delay()
    casual = world.guild.add_text_channel("casual")
    for user, path in ((p3, "new"), (p4, "join")):
        interaction = await fake_discord.slash(user, casual, "schnapsen", path)
        if (await interaction.wait_response()).type == 5:
            await interaction.wait_followups(1)  # the table is opened (or the seat taken) before the next
    assert world.bot is not None
    await fake_discord.wait_for(
        lambda: world.bot is not None and world.bot.service.table_of_user(p4.id) is not None
    )

    await command(world, world.admin, "create", name="Quick Cup", rounds=1)
    db = world.bot.db
    (tournament,) = await db.tournaments.open_tournaments()
    async with db.transaction():
        await db.core.execute("UPDATE tournaments SET no_show_seconds = 2 WHERE id = ?", (tournament.id,))
    await command(world, p1, "join", partner=p2)
    await command(world, p3, "join", partner=p4)
    await command(world, world.admin, "start")

    notice = await fake_discord.wait_for(
        lambda: next(iter(posted(world, "did not show up in time")), None),
        timeout=15,
        what="the no-show notice",
    )
    assert "p3 & p4 did not show up in time and lose by forfeit" in notice
    final = await fake_discord.wait_for(
        lambda: next(iter(posted(world, "is over")), None), timeout=10, what="the final result"
    )
    assert "The winners: **p1 & p2**!" in final
    (match,) = await db.tournaments.matches(tournament.id)
    assert (match.decided_by, match.winner_team) == ("forfeit", match.first_team)
    assert world.bot.service.table_of_user(p1.id) is None, "the match's table is closed"

    def hands_closed(user: FakeUser) -> bool:
        """None of the person's hand DMs of the match's table offers a move, and the latest says it closed."""
        hands = [
            hand
            for hand in fake_discord.dm_messages(user)
            if hand.embeds and f"table {match.table_id} " in str(hand.embeds[0].get("title"))
        ]
        return bool(hands) and not any(game_buttons(hand) for hand in hands) and "closed" in hands[-1].visible_text

    await fake_discord.wait_for(
        lambda: hands_closed(p1) and hands_closed(p2), what="the winners' hands to show the table closed"
    )


async def test_an_elimination_round_posts_the_standings_and_the_bracket_and_then_the_winners(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """Four teams in a single elimination: the organiser decides round 1 by hand (no cards needed), and the
    round's post carries the standings and the bracket, each described in text; then the final, the same."""
    tournament = await knockout_started(world)
    assert world.bot is not None
    db = world.bot.db

    round_1 = await matches_of_round(world, tournament.id, 1)  # decided once their tables play
    teams = {team.id: team for team in await db.tournaments.teams(tournament.id)}
    for match in round_1:
        assert match.second_team is not None
        await command(world, world.admin, "result", match=match.id, winner=teams[match.first_team].seed,
                      reason="by hand", forfeit=True)  # fmt: skip
    after_1 = await fake_discord.wait_for(
        lambda: standings_message(world, "standings after round 1"), timeout=10, what="round 1's standings"
    )
    assert [picture.filename for picture in after_1.attachments] == ["standings-1.png"]
    following = await fake_discord.wait_for(lambda: next_message(world, after_1), what="the bracket")
    assert [picture.filename for picture in following.attachments] == ["bracket-1.png"], "its own message"
    bracket_alt = following.attachments[0].description or ""
    first, second = (teams[m.first_team].name for m in round_1)
    assert bracket_alt.startswith("Knockout · bracket. Semi-finals: ")
    assert f"Final: {first} against {second}." in bracket_alt

    (final,) = await matches_of_round(world, tournament.id, 2, tables=1)
    await command(world, world.admin, "result", match=final.id, winner=teams[final.first_team].seed, reason="x")
    over = await fake_discord.wait_for(
        lambda: standings_message(world, "is over"), timeout=10, what="the final post"
    )
    assert f"The winners: **{first}**!" in over.visible_text
    final_bracket = await fake_discord.wait_for(lambda: next_message(world, over), what="the final bracket")
    assert f"Winners: {first}." in (final_bracket.attachments[0].description or "")
    assert "final standings" in (over.attachments[0].description or "")
    interaction = await world.fake.slash(world.admin, world.home, "schnapsen", "tournament", "standings")
    assert (await interaction.wait_response()).type == 5
    answers = await interaction.wait_followups(2)
    assert [[p.filename for p in answer.attachments] for answer in answers] == [["standings-1.png"], ["bracket-1.png"]]


async def test_a_match_decided_by_hand_before_its_table_opened_frees_its_players_for_the_next_round(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """The organiser decides both matches of round 1 while the bot is still making the first one's thread:
    the second match's table never opens; the first one's, opened meanwhile, is closed at once. So the
    winners sit down at the final's table themselves instead of forfeiting it as seated elsewhere."""
    grant_bot(world, CREATE | SEND_IN_THREADS | MANAGE_THREADS)
    world.home = world.channel  # type: ignore[attr-defined]
    people = [world.add_player(f"p{n}") for n in range(1, 9)]
    await world.start_bot()
    assert world.bot is not None
    runner = world.bot.get_cog("TournamentRunner")
    making_thread, thread_made = asyncio.Event(), asyncio.Event()
    open_place = runner.open_place

    async def slow_open_place(*args: Any) -> Any:
        place = await open_place(*args)
        if not making_thread.is_set():  # only the first match's thread waits for the organiser
            making_thread.set()
            await thread_made.wait()
        return place

    runner.open_place = slow_open_place
    tournament = await knockout_signed_up(world, people)
    db = world.bot.db
    await command(world, world.admin, "start")
    await asyncio.wait_for(making_thread.wait(), 10)
    round_1 = await db.tournaments.matches(tournament.id, 1)
    teams = {team.id: team for team in await db.tournaments.teams(tournament.id)}
    for match in round_1:
        await command(world, world.admin, "result", match=match.id, winner=teams[match.first_team].seed,
                      reason="agreed")  # fmt: skip
    thread_made.set()

    def final_table() -> TableSnapshot | None:
        assert world.bot is not None
        threads = {t.id for t in world.home.threads if " · 2 · " in t.name}  # type: ignore[attr-defined]
        return next(
            (t for t in world.bot.service.open_tables() if t.channel_id in threads and t.status == "playing"),
            None,
        )

    table = await fake_discord.wait_for(final_table, timeout=10, what="the final's table")
    (final,) = await db.tournaments.matches(tournament.id, 2)
    assert (final.table_id, final.status, final.decided_by) == (table.id, "playing", None), "not forfeited"
    winners = {user for match in round_1 for user in teams[match.first_team].members}
    assert {seat.user_id for seat in table.seats if seat is not None and not seat.ai_takeover} == winners
    assert [t.id for t in world.bot.service.open_tables()] == [table.id], "round 1's tables are closed"
    round_1 = await db.tournaments.matches(tournament.id, 1)
    assert [m.decided_by for m in round_1] == ["organiser", "organiser"]
    assert round_1[0].table_id is not None, "the first match's table, opened as it was decided, is on record"
    assert round_1[1].table_id is None, "the second match, decided before its turn, opened no table"
    assert len([t for t in world.home.threads if " · 1 · " in t.name]) == 1  # type: ignore[attr-defined]


async def test_a_bracket_match_both_teams_lost_pauses_it_with_every_way_on_named(
    fake_discord: FakeDiscord, world: Table
) -> None:
    """Both teams of a semi-final lose (the organiser's result without a winner): no final can be paired, so
    the tournament pauses itself and its post names the organiser's ways on (a result; a team removed and
    resume). A winner set by hand then lets it go on: the final is paired."""
    tournament = await knockout_started(world)
    assert world.bot is not None
    db = world.bot.db
    first, second = await db.tournaments.matches(tournament.id, 1)
    teams = {team.id: team for team in await db.tournaments.teams(tournament.id)}
    await command(world, world.admin, "result", match=first.id, reason="both late")
    await command(world, world.admin, "result", match=second.id, winner=teams[second.first_team].seed,
                  reason="agreed")  # fmt: skip

    paused = await fake_discord.wait_for(
        lambda: next(iter(posted(world, "cannot be paired")), None), timeout=10, what="the pause notice"
    )
    for way in ("/schnapsen tournament result", "/schnapsen tournament remove", "/schnapsen tournament resume"):
        assert way in paused
    assert (await db.tournaments.get_tournament(tournament.id)).status == "paused"
    await command(world, world.admin, "result", match=first.id, winner=teams[first.first_team].seed,
                  reason="found the score sheet")  # fmt: skip
    await fake_discord.wait_for(
        lambda: next(iter(posted(world, "round 2:")), None), timeout=10, what="the final's pairing"
    )
    (final,) = await db.tournaments.matches(tournament.id, 2)
    assert {final.first_team, final.second_team} == {first.first_team, second.first_team}


def test_a_long_post_is_cut_into_messages_at_line_ends() -> None:
    rng = random.Random(1)
    for _ in range(500):
        text = "\n".join("x" * rng.randint(0, 30) for _ in range(rng.randint(1, 20)))
        pieces = chunks(text, 25)
        assert all(0 < len(piece) <= 25 for piece in pieces)
        assert "".join(pieces).replace("\n", "") == text.replace("\n", ""), "nothing lost"


async def test_a_failed_read_of_a_tables_match_is_retried_so_the_round_still_moves_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Bummerl of a match ended while storage failed once: the runner reads the match again and drives
    its tournament, instead of leaving the round to wait for a restart."""
    from bot.schnapsen import tournaments

    monkeypatch.setattr(tournaments, "RETRY_FIRST", 0.0)
    reads: list[int] = []

    async def match_at_table(table_id: int) -> Any:
        reads.append(table_id)
        if len(reads) == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return SimpleNamespace(tournament_id=7)

    driven: list[int] = []

    async def drive(tournament_id: int) -> None:
        driven.append(tournament_id)

    runner = tournaments.TournamentRunner.__new__(tournaments.TournamentRunner)
    runner.bot = SimpleNamespace(db=SimpleNamespace(tournaments=SimpleNamespace(match_at_table=match_at_table)))
    runner.drive = drive  # type: ignore[method-assign]
    await runner._drive_table(42)
    assert reads == [42, 42] and driven == [7]
