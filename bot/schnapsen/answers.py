"""The answers that carry no game button: the deal review ("Show the deal"), the coach's review and hint,
``/schnapsen score``, ``rules`` and ``stats``, a leaderboard page's embed, and a table's record as a file.
Built from the texts of ``texts.py``; the buttons of a message live with their families (``components.py``)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import discord

import engine
from bot import render
from bot.db import RATING_MIN_GAMES, LeaderboardEntry, Tally
from bot.game.coach import Hint, ReviewSubject
from bot.game.profile import PlayerProfile
from bot.game.reviews import ReviewStore
from bot.game.table import TableSnapshot
from bot.i18n import t
from bot.vocabulary import LeaderboardSort
from bot.web import links as web_links
from engine.ai.analysis import Judged

from .content import Payload, rendered
from .ruletexts import changed_rules_text
from .texts import (
    board_name,
    contract_name,
    hint_lines,
    pair_label,
    profile_fields,
    profile_scene,
    review_lines,
    score_text,
    seat_name,
    team_names,
)

if TYPE_CHECKING:
    from bot.game.service import TableService

log = logging.getLogger(__name__)


def add_tally_field(
    embed: discord.Embed, table: TableSnapshot, lang: str, first: int, tally: tuple[int, int]
) -> None:
    """The tally between the table's two pairs, team ``first`` named first with its count ``tally[0]``."""
    value = t(
        lang, "result.tally", a=team_names(table, first), b=team_names(table, 1 - first), x=tally[0], y=tally[1]
    )
    embed.add_field(name=t(lang, "result.tally_title"), value=value, inline=False)


def add_rules_field(embed: discord.Embed, rules: engine.Ruleset, lang: str) -> None:
    """The settings a table changed from its preset, for everyone to see before and during play."""
    changed = changed_rules_text(rules, lang)
    if changed is not None:
        preset = t(lang, f"command.choice.{rules.preset}")
        embed.add_field(name=t(lang, "ruleset.field", preset=preset), value=changed[:1024], inline=False)


# --- the deal review ("Show the deal") ----------------------------------------------------------------------


def deal_review_scene(table: TableSnapshot, lang: str) -> render.DealReviewScene:
    """The finished deal of ``table`` (as it stood when the deal ended) as the review image shows it: every
    trick, and a lead that ended the deal by announcing a marriage as the last, unfinished one."""
    deal = table.deal
    assert deal is not None and deal.result is not None
    has_trumps = deal.contract is None or deal.contract in engine.contracts.TRUMP_CONTRACTS
    hands = tuple(tuple(hand) for hand in deal.dealt)
    tricks = [render.ReviewTrick(tuple(trick.plays), trick.winner) for trick in deal.tricks]
    if (lead := deal.final_lead) is not None:  # an announcement ended the deal: its lead is the last trick
        tricks.append(render.ReviewTrick(((lead.seat, lead.card),), None))
    return render.DealReviewScene(
        seat_names=tuple(seat_name(table, s) for s in range(4)),  # type: ignore[arg-type]
        hands=(hands[0], hands[1], hands[2], hands[3]),
        tricks=tuple(tricks),
        winner_team=deal.result.winner,
        game_points=deal.result.game_points,
        contract_label=None if deal.contract is None else contract_name(lang, deal.contract),
        declarer_seat=deal.declarer,
        trump=deal.trump if has_trumps else None,
        aufschlag_card=deal.aufschlag_card,
        multiplier=deal.multiplier,
        sitting_out_seat=deal.sitting_out,
        marriages=tuple((m.seat, m.suit, m.value, m.trick_no) for m in deal.marriages),
        deck=table.deck,
        lang=lang,
    )


@lru_cache(maxsize=64)
def _deal_review_png(scene: render.DealReviewScene) -> bytes:
    """A finished deal never changes: its review is drawn once per table, deal and language (the scene)."""
    return render.render_deal_review(scene)


async def deal_review_payload(table: TableSnapshot, lang: str) -> Payload:
    """The answer to "Show the deal": the review image of ``table``'s finished deal, with its alt text."""
    scene = deal_review_scene(table, lang)
    embed = discord.Embed(
        title=t(lang, "review.title", id=table.id, deal=table.deal_no + 1),
        description="\n".join(render.deal_review_lines(scene))[:4096],  # who played what, as text too
        colour=0xF9A825,
    )
    embed.set_image(url="attachment://deal.png")
    png = await rendered(_deal_review_png, scene)
    return Payload([embed], {"deal.png": png}, {"deal.png": render.deal_review_alt_text(scene)})


async def replay_link(guild_id: int, table_id: int, deal_no: int, lang: str) -> discord.ui.Button[discord.ui.View] | None:
    """A "Replay" link button to the deal's page, where the bot serves web pages and the server shows this
    deal there (docs/web.md); None otherwise."""
    links = web_links.active()
    url = None if links is None else await links.replay_url(guild_id, table_id, deal_no)
    return None if url is None else discord.ui.Button(label=t(lang, "button.replay"), url=url)


def review_embed(subject: ReviewSubject, lang: str, decisions: list[Judged]) -> discord.Embed:
    """The answer to "Review my play": the costly decisions, biggest loss first, with the AI's values."""
    embed = discord.Embed(title=t(lang, "coach.review_title", deal=subject.deal + 1), colour=0x00897B)
    lines = review_lines(subject.deck, lang, decisions)
    if lines:
        embed.description = "\n".join([t(lang, "coach.review_intro"), *lines])[:4000]
    elif decisions:
        embed.description = t(lang, "coach.review_clean", count=len(decisions))
    else:
        embed.description = t(lang, "coach.review_nothing")
    embed.set_footer(text=t(lang, "coach.values_note"))
    return embed


async def review_replay_link(
    reviews: ReviewStore, user_id: int, table_id: int, deal_no: int, seat: int, decisions: list[Judged], lang: str
) -> dict[str, Any]:
    """The review answer's "Replay with my review" link (as ``view=``), where the deal has a replay page: the
    review is kept for it under a token of its own, which only this link carries (docs/web.md). Kept only
    then, since nothing else shows it; nothing is kept, and no link given, where there is no replay page, no
    decision to mark, or keeping it failed (the answer itself still comes)."""
    links = web_links.active()
    if links is None or not decisions:
        return {}
    try:
        url = await links.replay_url_of(table_id, deal_no)
        if url is None:
            return {}
        token = await reviews.keep(user_id, table_id, deal_no, seat, decisions)
    except Exception:
        log.warning("keeping a review for its replay failed; answered without the link", exc_info=True)
        return {}
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label=t(lang, "button.replay_review"), url=web_links.with_review(url, token)))
    return {"view": view}


def hint_embed(table: TableSnapshot, lang: str, hint: Hint) -> discord.Embed:
    """The answer to "Hint": the AI's choice and the value of every alternative."""
    embed = discord.Embed(title=t(lang, "coach.hint_title"), colour=0x00897B)
    embed.description = "\n".join(hint_lines(table.deck, lang, hint.best, hint.evaluations))
    embed.set_footer(text=t(lang, "coach.values_note"))
    return embed


# --- answers to commands -----------------------------------------------------------------------------------


def score_embed(
    table: TableSnapshot | None, lang: str, wins: tuple[int, int] | None, tallies: list[Tally] | None
) -> discord.Embed:
    """``/schnapsen score``: the table's Bummerl score, the tally between its two pairs (``wins``, when four
    sit there), and the caller's pair's tallies (``tallies``, when they sit there)."""
    embed = discord.Embed(title=t(lang, "score.title"), colour=0xF9A825)
    if table is not None and table.status != "lobby":
        embed.add_field(name=t(lang, "table.score"), value=score_text(table, lang), inline=False)
        if wins is not None:
            add_tally_field(embed, table, lang, 0, wins)
    lines = [
        t(
            lang,
            "score.tally_line",
            pair=pair_label(tally.pair),
            opponents=pair_label(tally.opponents),
            x=tally.wins,
            y=tally.losses,
        )
        for tally in (tallies or [])[:10]
    ]
    if lines:
        embed.add_field(name=t(lang, "score.your_tallies"), value="\n".join(lines), inline=False)
    if not embed.fields:
        embed.description = t(lang, "score.nothing_yet")
    return embed


def rules_embed(rules: engine.Ruleset, lang: str) -> discord.Embed:
    """``/schnapsen rules``: the contracts with their values under ``rules``, who may bid each, and which card
    a player must play."""
    embed = discord.Embed(title=t(lang, "rules.title"), description=t(lang, "rules.intro"), colour=0x2E7D32)
    for contract in engine.Contract:
        if contract is engine.Contract.ASS_BETTLER and not rules.ass_bettler:
            continue
        embed.add_field(
            name=t(
                lang,
                "rules.contract_value",
                contract=contract_name(lang, contract),
                value=t(lang, "rules.normal_value")
                if contract is engine.Contract.NORMAL
                else rules.contract_value(contract),
            ),
            value=t(lang, f"rules.who.{contract.id}"),
            inline=False,
        )
    embed.add_field(name=t(lang, "rules.play_title"), value=t(lang, "rules.play"), inline=False)
    add_rules_field(embed, rules, lang)
    embed.set_footer(text=t(lang, "rules.footer", preset=t(lang, f"command.choice.{rules.preset}")))
    return embed


# --- the leaderboard ---------------------------------------------------------------------------------------

PAGE_SIZE = 10
MIN_GAMES_FOR_WINRATE = 3


def _min_games(sort: LeaderboardSort) -> int:
    return RATING_MIN_GAMES if sort == "rating" else MIN_GAMES_FOR_WINRATE if sort == "winrate" else 0


def leaderboard_line(lang: str, entry: LeaderboardEntry) -> str:
    stats = entry.stats
    if entry.rating is not None:
        return t(
            lang,
            "leaderboard.line_rating",
            rank=entry.rank,
            name=board_name(lang, stats.user_id, stats.display_name),
            rating=entry.rating.shown,
            uncertainty=entry.rating.uncertainty,
            games=entry.rating.games,
        )
    rate = f"{stats.win_rate:.0%}" if stats.win_rate is not None else "—"
    return t(
        lang,
        "leaderboard.line",
        rank=entry.rank,
        name=stats.display_name,
        won=stats.bummerl_won,
        lost=stats.bummerl_lost,
        rate=rate,
        count=stats.game_points,
    )


async def leaderboard_embed(
    service: TableService, guild_id: int, user_id: int, lang: str, sort: LeaderboardSort, page: int
) -> tuple[discord.Embed, int]:
    """One page of the server's leaderboard, with the caller's own rank, and how many pages there are (the
    buttons that turn them are ``LeaderboardButton``'s)."""
    min_games = _min_games(sort)
    board = await service.queries.leaderboard(guild_id, sort, min_games, page * PAGE_SIZE, PAGE_SIZE)
    embed = discord.Embed(
        title=t(lang, "leaderboard.title", sort=t(lang, f"leaderboard.sort.{sort}")), colour=0x1565C0
    )
    lines = [leaderboard_line(lang, entry) for entry in board.entries]
    empty = t(lang, "leaderboard.empty_rating", games=min_games) if sort == "rating" else t(lang, "leaderboard.empty")
    embed.description = "\n".join(lines) or empty
    mine = await service.queries.rank_of(guild_id, user_id, sort, min_games)
    pages = max(1, -(-board.total // PAGE_SIZE))
    footer = t(lang, "leaderboard.page", page=page + 1, pages=pages)
    footer += " · " + (
        t(lang, "leaderboard.your_rank", rank=mine.rank) if mine else t(lang, "leaderboard.unranked")
    )
    embed.set_footer(text=footer)
    return embed, pages


# --- a player's profile -----------------------------------------------------------------------------------

# Seconds the profile card may take to draw (a few hundredths normally); past it the answer is the text.
PROFILE_RENDER_BUDGET = 5.0


async def profile_payload(profile: PlayerProfile, name: str, lang: str, *, attach: bool) -> Payload:
    """``/schnapsen stats``: the profile card with its alt text, or, where the bot may not attach files (or the
    card is not drawn in time), the same counts as embed fields."""
    embed = discord.Embed(title=t(lang, "stats.title", name=name), colour=0x1565C0)
    if not profile.has_games:
        embed.description = t(lang, "stats.no_games", name=name)
    if attach:
        scene = profile_scene(profile, name, lang)
        try:
            png = await asyncio.wait_for(rendered(render.render_profile, scene), PROFILE_RENDER_BUDGET)
        except TimeoutError:
            log.warning("the profile card of user %s took over %s s; answered as text", profile.user_id,
                        PROFILE_RENDER_BUDGET)  # fmt: skip
        else:
            embed.set_image(url="attachment://profile.png")
            add_tournaments(embed, profile, lang)
            return Payload([embed], {"profile.png": png}, {"profile.png": render.profile_alt_text(scene)})
    if profile.has_games:
        for field_name, value, inline in profile_fields(profile, lang):
            embed.add_field(name=field_name, value=value, inline=inline)
    add_tournaments(embed, profile, lang)
    return Payload([embed])


def add_tournaments(embed: discord.Embed, profile: PlayerProfile, lang: str) -> None:
    """The server tournaments played and won, as a field beside the card (which has no place for them) or
    after the text's fields; nothing for a player who never finished one."""
    if profile.tournaments_played:
        won, played = profile.tournaments_won, profile.tournaments_played
        value = t(lang, "stats.tournaments_value", won=won, total=played)
        embed.add_field(name=t(lang, "stats.tournaments"), value=value, inline=False)


def record_file(table_id: int, record: engine.GameRecord) -> discord.File:
    """The table's game record as a JSON attachment (the format of ``python -m engine.replay``)."""
    data = json.dumps(record.to_json(), indent=2, ensure_ascii=False).encode()
    return discord.File(io.BytesIO(data), filename=f"schnapsen-table-{table_id}.json")
