"""The tournament images' words and data from the stored rows: the bracket with winners advanced, the alt
texts within Discord's limit, and the text fallback when drawing fails or takes too long."""

from __future__ import annotations

import logging
import threading
from types import SimpleNamespace

import discord
import pytest

from bot.db.tournaments import MatchRow, TeamRow, TournamentRow
from bot.game.tournaments import Advanced
from bot.render.tournament import bracket_pages
from bot.schnapsen import tournament_images, tournaments
from bot.schnapsen.texts import round_name
from bot.schnapsen.tournament_images import (
    ALT_LIMIT,
    bracket_alt,
    bracket_scene,
    standings_images,
    standings_lines,
    standings_scene,
)
from bot.tournament import MatchResult, standings


def tournament(fmt: str = "elimination", status: str = "running") -> TournamentRow:
    return TournamentRow(1, 10, 20, 30, "Cup", fmt, 3 if fmt == "swiss" else 0, 1, '"standard"', 90,  # type: ignore[arg-type]
                         False, 300, None, status, None, 0, 0)  # type: ignore[arg-type]  # fmt: skip


def team(n: int, name: str | None = None) -> TeamRow:
    return TeamRow(n, 1, n, 100 + n, 200 + n, name or f"T{n}", False)


def match(n: int, round_no: int, slot: int, first: int, second: int | None, winner: int | None = None,
          *, done: bool = False, forfeit: bool = False, bummerl: tuple[int, int] = (0, 0)) -> MatchRow:  # fmt: skip
    return MatchRow(n, 1, round_no, slot, first, second, None, "done" if done else "playing", winner, 0, 0,
                    *bummerl, ("forfeit" if forfeit else "played") if done else None, None)  # type: ignore[arg-type]  # fmt: skip


def test_the_bracket_advances_the_winners_so_far_and_names_the_rounds() -> None:
    teams = [team(n) for n in range(1, 6)]  # five teams: a bracket of eight, three byes
    matches = [
        match(1, 1, 0, 1, None, 1, done=True),
        match(2, 1, 1, 4, 5, 5, done=True, bummerl=(0, 1)),
        match(3, 1, 2, 2, None, 2, done=True),
        match(4, 1, 3, 3, None),  # a bye not yet recorded as done: its team shows, undecided
    ]
    scene = bracket_scene("en", tournament(), teams, matches)
    assert scene.round_names == ("Quarter-finals", "Semi-finals", "Final")
    assert scene.current == 0
    first, second, final = scene.rounds
    assert first[1].top.name == "T4" and first[1].bottom is not None and first[1].bottom.score == "1"
    assert first[1].winner == 1
    assert [(m.top.name, m.bottom.name if m.bottom else "bye") for m in second] == [("T1", "T5"), ("T2", None)]
    assert final[0].top.name is None and scene.champion is None
    alt = bracket_alt("en", scene)
    assert alt.startswith("Cup · bracket. Quarter-finals: T1: a bye (a win); T5 beat T4;")
    assert "Semi-finals: T1 against T5; T2 against to come." in alt


def test_the_champion_is_the_finals_winner_and_no_round_is_current_at_the_end() -> None:
    teams = [team(1), team(2)]
    matches = [match(1, 1, 0, 1, 2, 2, done=True, bummerl=(1, 2))]
    scene = bracket_scene("de", tournament(status="finished"), teams, matches)
    assert scene.champion == "T2" and scene.current is None
    assert scene.round_names == ("Finale",)
    assert bracket_alt("de", scene).endswith("Finale: T2 schlug T1. Sieger: T2.")


def test_round_names_count_back_from_the_final() -> None:
    assert [round_name("en", n, 5) for n in range(5)] == [
        "Round 1", "Round 2", "Quarter-finals", "Semi-finals", "Final"]  # fmt: skip


def standings_table(count: int, name_length: int = 60):
    teams = [team(n, f"{'x' * name_length} {n}") for n in range(1, count + 1)]
    results = [MatchResult(n, n + 1, n, 5, 2) for n in range(1, count, 2)]
    by_id = {t.id: t for t in teams}
    return teams, [(s, by_id[s.team]) for s in standings([t.id for t in teams], results)]


async def test_each_page_carries_its_rows_as_alt_text_within_the_limit() -> None:
    teams, table = standings_table(20)
    pictures = await standings_images("en", tournament("swiss"), table, teams, [], 1)
    assert [p.filename for p in pictures] == ["standings-1.png", "standings-2.png"]
    assert all(p.png.startswith(b"\x89PNG") and len(p.alt) <= ALT_LIMIT for p in pictures)
    assert pictures[0].alt.startswith("Cup (1/2). Swiss system, 3 rounds · standings after round 1 of 3.\n1. ")
    lines = standings_lines("en", table)
    assert pictures[1].alt.endswith("\n" + "\n".join(lines[16:])), "the second page's four teams"
    assert pictures[0].alt.endswith("…"), "sixteen long names are cut at Discord's limit"


async def test_a_failed_or_slow_drawing_is_logged_and_leaves_the_text(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    teams, table = standings_table(4)

    def broken(*_: object) -> tuple[bytes, ...]:
        raise OSError("no font")

    monkeypatch.setattr(tournament_images, "render_standings", broken)
    with caplog.at_level(logging.ERROR):
        assert await standings_images("en", tournament("swiss"), table, teams, [], 1) == []
    assert "drawing its images failed" in caplog.text

    release = threading.Event()

    def slow(*_: object) -> tuple[bytes, ...]:
        release.wait(5)
        return (b"",)

    monkeypatch.setattr(tournament_images, "render_standings", slow)
    monkeypatch.setattr(tournament_images, "IMAGE_BUDGET", 0.05)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert await standings_images("en", tournament("swiss"), table, teams, [], 1) == []
    release.set()
    assert "took over 0.05 s" in caplog.text


def test_each_bracket_page_describes_the_matches_it_shows() -> None:
    teams = [team(n) for n in range(1, 33)]  # 16 first-round matches: two sections, then two rounds a page
    matches = [match(n + 1, 1, n, 2 * n + 1, 2 * n + 2) for n in range(16)]
    scene = bracket_scene("en", tournament(), teams, matches)
    pages = bracket_pages(scene)
    assert [page.rounds for page in pages] == [(0, 1), (0, 1), (2, 3), (4,)]
    first, second, third, last = (bracket_alt("en", scene, page) for page in pages)
    assert "T1 against T2" in first and "T17 against T18" not in first
    assert "T17 against T18" in second and "T1 against T2" not in second
    assert third.startswith("Cup · bracket. Quarter-finals: to come against to come;") and "Semi-finals: " in third
    assert last == "Cup · bracket. Final: to come against to come."


def test_before_any_round_ended_the_subtitle_is_the_format_alone() -> None:
    _, table = standings_table(4)
    scene = standings_scene("en", tournament("swiss"), table, 0, 3, False)
    assert scene.subtitle == "Swiss system, 3 rounds"


async def test_images_refused_by_discord_leave_the_standings_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attach Files taken away after the check: the post goes out as text instead of being retried."""
    teams, table = standings_table(4)
    row = tournament("swiss")

    async def returning(value: object) -> object:
        return value

    runner = tournaments.TournamentRunner.__new__(tournaments.TournamentRunner)
    runner.bot = SimpleNamespace(db=SimpleNamespace(tournaments=SimpleNamespace(  # type: ignore[assignment]
        get_tournament=lambda _: returning(row), teams=lambda _: returning(teams), matches=lambda _: returning([]))))  # fmt: skip
    runner.tournaments = SimpleNamespace(standings=lambda _: returning(table))  # type: ignore[assignment]
    runner.channel_language = lambda _: returning("en")  # type: ignore[method-assign,assignment,return-value]
    runner._channel = lambda _: returning(object())  # type: ignore[method-assign,assignment,return-value]
    posts: list[tuple[str, int]] = []

    async def post(_: object, text: str, *, nonce: str | None = None, pictures: list | None = None) -> None:
        posts.append((text, len(pictures or [])))
        if pictures:
            raise discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"), "Missing Permissions")  # type: ignore[arg-type]

    runner.post = post  # type: ignore[method-assign,assignment]
    await runner.announce(1, Advanced(ended_round=1))
    title = "**Cup**: standings after round 1"
    assert posts == [(title, 1), (tournaments.standings_text("en", row, table, title), 0)]


def test_every_image_has_a_message_of_its_own_so_that_a_phone_shows_it_whole() -> None:
    pictures = [tournament_images.Picture(f"standings-{n}.png", b"", "") for n in range(1, 5)]
    pictures += [tournament_images.Picture(f"bracket-{n}.png", b"", "") for n in range(1, 18)]
    messages = tournament_images.picture_messages(pictures)
    assert [len(message) for message in messages] == [1] * 21
    assert [message[0].filename for message in messages] == [picture.filename for picture in pictures]
