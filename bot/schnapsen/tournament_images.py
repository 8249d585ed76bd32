"""The images posted with a tournament's standings (issue 30): the standings, and for a single elimination
the bracket, worded in the channel's language from the stored rows and drawn off the event loop within
``IMAGE_BUDGET`` (``bot.render.tournament`` draws them).

Each image carries its content as text in its description (the alt text screen readers read). When an image
cannot be drawn in time, or fails, that is logged and the standings go out as text, as before.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.db import Database
from bot.db.tournaments import MatchRow, TeamRow, TournamentRow
from bot.i18n import t
from bot.render.tournament import (
    MAX_PAGES,
    ROWS_PER_PAGE,
    BracketMatch,
    BracketPage,
    BracketScene,
    BracketSide,
    StandingRow,
    StandingsScene,
    bracket_pages,
    render_bracket,
    render_standings,
)
from bot.tournament import Standing, elimination_round_count

from .content import RENDER_POOL
from .texts import round_name

log = logging.getLogger(__name__)

IMAGE_BUDGET = 10.0  # seconds for all of a post's images (a few hundredths each normally)
ALT_LIMIT = 1024  # Discord's limit for an attachment's description

Table = Sequence[tuple[Standing, TeamRow]]


@dataclass(frozen=True, slots=True)
class Picture:
    filename: str
    png: bytes
    alt: str

    def file(self) -> discord.File:
        return discord.File(io.BytesIO(self.png), filename=self.filename, description=self.alt)


def standings_lines(lang: str, table: Table) -> list[str]:
    """The standings as text, one line per team: rank, team and its number, points, Buchholz, game points."""
    return [
        t(
            lang,
            "tournament.standings_row",
            rank=standing.rank,
            seed=team.seed,
            team=team.name,
            points=standing.points,
            buchholz=standing.buchholz,
            game_points=standing.game_points,
        )
        for standing, team in table
    ]


def kind_of(lang: str, tournament: TournamentRow) -> str:
    if tournament.format == "swiss":
        return t(lang, "tournament.swiss", count=tournament.swiss_rounds)
    return t(lang, "tournament.elimination")


def round_total(tournament: TournamentRow, teams: int) -> int:
    return tournament.swiss_rounds if tournament.format == "swiss" else elimination_round_count(teams)


def standings_scene(
    lang: str, tournament: TournamentRow, table: Table, ended_round: int, rounds: int, finished: bool
) -> StandingsScene:
    kind = kind_of(lang, tournament)
    if finished:
        subtitle = t(lang, "tournament.image.final_standings", kind=kind)
    elif ended_round:
        subtitle = t(lang, "tournament.image.after_round", kind=kind, round=ended_round, rounds=rounds)
    else:  # asked for before any round ended
        subtitle = kind
    rows = tuple(
        StandingRow(
            rank=standing.rank,
            team=team.name,
            detail=t(lang, "tournament.image.record", seed=team.seed, won=standing.won, lost=standing.lost),
            points=standing.points,
            buchholz=standing.buchholz,
            game_points=standing.game_points,
            byes=standing.byes,
            forfeits=standing.forfeited,
        )
        for standing, team in table
    )
    return StandingsScene(
        title=tournament.name,
        subtitle=subtitle,
        headings=(
            t(lang, "tournament.image.points"),
            t(lang, "tournament.image.buchholz"),
            t(lang, "tournament.image.game_points"),
        ),
        rows=rows,
        bye_mark=t(lang, "tournament.image.bye_mark"),
        forfeit_mark=t(lang, "tournament.image.forfeit_mark"),
        empty=t(lang, "tournament.no_results", name=tournament.name),
    )


def bracket_scene(
    lang: str, tournament: TournamentRow, teams: Sequence[TeamRow], matches: Sequence[MatchRow]
) -> BracketScene:
    """The whole bracket from the stored matches: each stored round as paired, each round not yet paired
    with the winners of the round before advanced into it (unknown where that match still plays)."""
    names = {team.id: team.name for team in teams}
    total = elimination_round_count(len(teams))
    by_round: dict[int, list[MatchRow]] = {}
    for match in matches:
        by_round.setdefault(match.round, []).append(match)
    rounds: list[tuple[BracketMatch, ...]] = []
    winners: list[int | None] = []
    current = None
    for index in range(total):
        stored = sorted(by_round.get(index + 1, []), key=lambda m: m.slot)
        if stored:
            rounds.append(tuple(_stored_match(match, names) for match in stored))
            winners = [match.winner_team if match.done else None for match in stored]
            if current is None and not all(match.done for match in stored):
                current = index
            continue
        if not rounds:  # not started: nothing to draw from
            break
        pairs = [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]
        rounds.append(tuple(BracketMatch(_side(a, names), _side(b, names)) for a, b in pairs))
        winners = [None] * len(pairs)
    final = by_round.get(total, [])
    champion = final[0].winner_team if len(final) == 1 and final[0].done else None
    return BracketScene(
        title=t(lang, "tournament.image.bracket", name=tournament.name),
        rounds=tuple(rounds),
        round_names=tuple(round_name(lang, index, total) for index in range(len(rounds))),
        current=current if tournament.status in ("running", "paused") else None,
        champion=names.get(champion) if champion is not None else None,
        champion_label=t(lang, "tournament.image.champions"),
        bye_label=t(lang, "tournament.image.bye_mark"),
        unknown_label=t(lang, "tournament.image.to_come"),
    )


def _side(team: int | None, names: dict[int, str], score: str = "") -> BracketSide:
    return BracketSide(names.get(team) if team is not None else None, score)


def _stored_match(match: MatchRow, names: dict[int, str]) -> BracketMatch:
    if match.second_team is None:
        return BracketMatch(_side(match.first_team, names), None, 0)
    played = match.done and match.decided_by != "forfeit"
    scores = (str(match.first_bummerl), str(match.second_bummerl)) if played else ("", "")
    winner = None
    if match.done and match.winner_team is not None:
        winner = 0 if match.winner_team == match.first_team else 1
    return BracketMatch(
        _side(match.first_team, names, scores[0]), _side(match.second_team, names, scores[1]), winner
    )


def bracket_alt(lang: str, scene: BracketScene, page: BracketPage | None = None) -> str:
    """The bracket (or what ``page`` of it shows) as text: each round's matches, then the winners."""
    shown = set(page.matches) if page is not None else None
    parts = []
    for index, (name, matches) in enumerate(zip(scene.round_names, scene.rounds, strict=True)):
        described = []
        for number, match in enumerate(matches):
            if shown is None or (index, number) in shown:
                described.append(match_text(lang, scene, match))
        if described:
            parts.append(f"{name}: " + "; ".join(described))
    if scene.champion is not None and (page is None or page.champion):
        parts.append(f"{scene.champion_label}: {scene.champion}")
    return cut(f"{scene.title}. " + ". ".join(parts) + ".")


def match_text(lang: str, scene: BracketScene, match: BracketMatch) -> str:
    top = match.top.name or scene.unknown_label
    if match.bottom is None:
        return t(lang, "tournament.bye", team=top)
    bottom = match.bottom.name or scene.unknown_label
    if match.winner is None:
        return t(lang, "tournament.image.alt_open", first=top, second=bottom)
    winner, loser = (top, bottom) if match.winner == 0 else (bottom, top)
    return t(lang, "tournament.image.alt_won", winner=winner, loser=loser)


def cut(text: str, limit: int = ALT_LIMIT) -> str:
    """``text`` within ``limit`` characters (an ellipsis where it was cut).

    >>> cut("abcdef", 4)
    'abc…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def standings_pictures(
    lang: str, title: str, scene: StandingsScene, table: Table, pngs: Sequence[bytes]
) -> list[Picture]:
    """Each standings page with the text of its rows as its description."""
    lines = standings_lines(lang, table)
    pictures = []
    for number, png in enumerate(pngs):
        page_lines = lines[number * ROWS_PER_PAGE : (number + 1) * ROWS_PER_PAGE] or [scene.empty]
        heading = f"{title} ({number + 1}/{len(pngs)})" if len(pngs) > 1 else title
        alt = cut(f"{heading}. {scene.subtitle}.\n" + "\n".join(page_lines))
        pictures.append(Picture(f"standings-{number + 1}.png", png, alt))
    return pictures


async def standings_images(
    lang: str,
    tournament: TournamentRow,
    table: Table,
    teams: Sequence[TeamRow],
    matches: Sequence[MatchRow],
    ended_round: int,
) -> list[Picture]:
    """The pictures for a standings post: the standings (a page per ``ROWS_PER_PAGE`` teams) and, for an
    elimination, the bracket. Empty when they could not be drawn within ``IMAGE_BUDGET`` (logged): the
    caller then posts the standings as text."""
    finished = tournament.status == "finished"
    scene = standings_scene(
        lang, tournament, table, ended_round, round_total(tournament, len(teams)), finished
    )
    bracket = bracket_scene(lang, tournament, teams, matches) if tournament.format == "elimination" else None
    title = tournament.name

    async def draw() -> list[Picture]:
        loop = asyncio.get_running_loop()
        pages = await loop.run_in_executor(RENDER_POOL, render_standings, scene)
        pictures = standings_pictures(lang, title, scene, table, pages)
        if bracket is not None and bracket.rounds:
            pngs = await loop.run_in_executor(RENDER_POOL, render_bracket, bracket)
            for number, (png, page) in enumerate(zip(pngs, bracket_pages(bracket), strict=True), 1):
                pictures.append(Picture(f"bracket-{number}.png", png, bracket_alt(lang, bracket, page)))
        return pictures

    try:
        return await asyncio.wait_for(draw(), IMAGE_BUDGET)
    except TimeoutError:
        log.warning("tournament %s: its images took over %s s; the standings go out as text", tournament.id,
                    IMAGE_BUDGET)  # fmt: skip
    except Exception:
        log.error("tournament %s: drawing its images failed; the standings go out as text", tournament.id,
                  exc_info=True)  # fmt: skip
    return []


def picture_messages(pictures: Sequence[Picture]) -> list[list[Picture]]:
    """The pictures by message: each in a message of its own. Discord shows a message's images side by side,
    each half as wide, and a phone, which shows one image about 360 px wide, would then show the text of a
    standings page or a bracket page at 6 px instead of 12 (``bot.render.tournament``).

    >>> [[p.filename for p in m] for m in picture_messages([Picture("standings-1.png", b"", ""),
    ...                                                     Picture("bracket-1.png", b"", "")])]
    [['standings-1.png'], ['bracket-1.png']]
    """
    return [[picture] for picture in pictures]


async def pictures_for(
    db: Database, lang: str, tournament: TournamentRow, table: Table, ended_round: int
) -> list[Picture]:
    """``standings_images`` of the tournament as stored; none before it has teams (the text says so), nor
    for a field larger than the pages drawn (the text lists every team)."""
    if not table or len(table) > ROWS_PER_PAGE * MAX_PAGES:
        return []
    teams = await db.tournaments.teams(tournament.id)
    matches = await db.tournaments.matches(tournament.id)
    return await standings_images(lang, tournament, table, teams, matches, ended_round)


def may_attach(channel: Any) -> bool:
    """Whether the bot may attach files in ``channel`` (True when it cannot tell: the send then says)."""
    guild = getattr(channel, "guild", None)
    me = getattr(guild, "me", None)
    if me is None or not hasattr(channel, "permissions_for"):
        return True
    return bool(channel.permissions_for(me).attach_files)
