"""The web companion's application: its routes, pages and the server-sent events of a live table.

Every page of a server lives under ``/s/<token>/``; a token that names no server with its pages on, an id of
another server's table, a malformed number or an unknown query parameter are all the same 404 page
(``security.py``). Nothing here changes anything: the pages only read storage and the tables this process
holds."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import urlencode

import jinja2
from aiohttp import web
from markupsafe import Markup

from bot.db import RATING_MIN_GAMES, Database, TableRow, shown_rating
from bot.db.tournaments import TournamentNotFound
from bot.game.daily import day_over
from bot.game.service import TableService
from bot.game.table import TableSnapshot
from bot.game.tournaments import TournamentService
from bot.i18n import t
from bot.schnapsen.texts import round_name
from bot.tournament import elimination_round_count
from bot.vocabulary import DECK_STYLES, LANGUAGES, LEADERBOARD_SORTS, LeaderboardSort

from . import links
from .boards import BoardsCache, changes_boards
from .cards import CARD_FILE
from .graph import rating_graph
from .live import LiveHub, public_state
from .marks import review_marks
from .notices import TableNews, WebNotices
from .replay import ReplayDeal, replay_data
from .security import SECURITY_HEADERS, NotFound, RateLimiter, client_of, guard
from .words import contract_name, html, html_label, language_of, script_words, translator

log = logging.getLogger(__name__)

TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
NUMBER = re.compile(r"^[0-9]{1,18}$")  # ids are 64-bit; 18 digits never overflow
PAGE_SIZE = 20
MAX_PAGE = 500
MIN_GAMES_FOR_WINRATE = 3  # as the leaderboard command (bot/schnapsen/answers.py)
RECENT_GAMES = 15
RATING_POINTS = 200  # the player's graph: their last this many rated Bummerl
STREAMS_PER_CLIENT = 6
STATIC_FILES = {
    "site.css": "text/css; charset=utf-8",
    "replay.js": "text/javascript; charset=utf-8",
    "live.js": "text/javascript; charset=utf-8",
}
# The words the pages' scripts fill in themselves ({name} and the like left in), by the scripts' names.
LIVE_WORDS = {
    "lobby": "web.status.lobby",
    "playing": "web.status.playing",
    "finished": "web.status.finished",
    "closed": "web.status.closed",
    "to_act": "web.to_act",
    "took_trick": "web.took_trick",
    "in_hand": "web.in_hand",
    "turned_up": "table.aufschlag",
    "contract_by": "table.contract_by",
    "sides": "table.tricks",
}
REPLAY_WORDS = {
    "step": "web.replay.step",
    "took_trick": "web.took_trick",
    "turned_up": "table.aufschlag",
    "declarer": "web.role.declarer",
    "sits_out": "web.role.sits_out",
    "to_act": "web.role.to_act",
    "sides": "table.tricks",
}
REPLAYS_KEPT = 64  # replay pages kept as rendered (20-50 KB each)
STATIC_MAX_AGE = 3600
CARD_MAX_AGE = 7 * 86400


@dataclass(slots=True)
class WebContext:
    """What the pages read: storage, the tables this process holds, the card art and the live hub."""

    db: Database
    service: TableService
    cards: Mapping[tuple[str, str], bytes]
    hub: LiveHub
    prefix: str = ""  # the path of WEB_BASE_URL ("" at a domain's root)
    clock: Callable[[], float] = time.time
    limiter: RateLimiter = field(default_factory=RateLimiter)
    streams: dict[str, int] = field(default_factory=dict)
    static: dict[str, bytes] = field(default_factory=dict)
    version: str = "1"  # in static files' addresses: a new bot version is a new address, never a stale copy
    boards: BoardsCache = field(init=False)  # the server page's boards, kept a while (made by make_app)
    notices: WebNotices | None = None  # news to and from the other processes (PostgreSQL)

    def table_changed(self, before: TableSnapshot | None, after: TableSnapshot, events: tuple[object, ...]) -> None:
        """The table core's listener (this process's tables): the live pages follow, the boards are dropped
        when the change may show on them, and the other processes are told."""
        self.hub.table_changed(before, after, events)
        boards = changes_boards(before, after)
        if boards:
            self.boards.invalidate(after.guild_id)
        if self.notices is not None:
            self.notices.table_changed(after.id, after.version, after.guild_id, boards)

    def forgotten(self) -> None:
        """forget-me here: no page anywhere may show what was read before it."""
        self.boards.clear()
        if self.notices is not None:
            self.notices.forgotten()

    def heard(self, news: TableNews) -> None:
        """Another process's table changed (its notice)."""
        self.hub.stored_change(news.table_id, news.version)
        if news.boards:
            self.boards.invalidate(news.guild_id)

    def heard_forgotten(self) -> None:
        self.boards.clear()


def make_app(context: WebContext) -> web.Application:
    templates = jinja2.Environment(
        loader=jinja2.PackageLoader("bot.web", "templates"),
        autoescape=True,  # every value is text, never markup: a name like <script> shows as written
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    for name in STATIC_FILES:
        context.static[name] = resources.files("bot.web").joinpath("static", name).read_bytes()
    context.version = _digest(context.static)
    templates.globals.update(
        prefix=context.prefix,
        static=lambda file: f"{context.prefix}/static/{file}?v={context.version}",
        card_url=lambda deck, card: f"{context.prefix}/cards/{deck}/{card}.webp",
        languages=LANGUAGES,
        bdi=lambda text: Markup("<bdi>{}</bdi>").format(text),  # a name inside a sentence, isolated
    )
    pages = Pages(context, templates)
    context.boards = BoardsCache(pages.read_boards)
    app = web.Application(middlewares=[guard(context.limiter, pages.not_found_page)], client_max_size=1024)
    p = context.prefix
    app.router.add_get(p + "/s/{token}/", pages.server)
    app.router.add_get(p + "/s/{token}/table/{table}", pages.table)
    app.router.add_get(p + "/s/{token}/table/{table}/events", pages.events)
    app.router.add_get(p + "/s/{token}/table/{table}/deal/{deal}", pages.replay)
    app.router.add_get(p + "/s/{token}/player/{user}", pages.player)
    app.router.add_get(p + "/s/{token}/tournament/{tournament}", pages.tournament)
    app.router.add_get(p + "/static/{name}", pages.static_file)
    app.router.add_get(p + "/cards/{deck}/{name}", pages.card)
    app.on_shutdown.append(lambda _: _close_hub(context.hub))
    return app


async def _close_hub(hub: LiveHub) -> None:
    hub.close()


def _digest(files: Mapping[str, bytes]) -> str:
    import hashlib

    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(files[name])
    return digest.hexdigest()[:10]


def number(text: str) -> int:
    if not NUMBER.match(text):
        raise NotFound
    return int(text)


def only_query(request: web.Request, *allowed: str) -> None:
    """A query with any other parameter, or one given twice, is malformed; ``lang`` (one of the bot's
    languages) is allowed everywhere."""
    keys = [key for key, _ in request.query.items()]
    if any(key not in (*allowed, "lang") for key in keys) or len(keys) != len(set(keys)):
        raise NotFound
    if request.query.get("lang", LANGUAGES[0]) not in LANGUAGES:
        raise NotFound


def override_of(request: web.Request) -> str | None:
    """The ``?lang=`` the viewer chose, when it is one of the bot's languages."""
    lang = request.query.get("lang")
    return lang if lang in LANGUAGES else None


def page_language(request: web.Request) -> str:
    return language_of(override_of(request), request.headers.get("Accept-Language", ""))


def when(stamp: int | None) -> str:
    if stamp is None:
        return ""
    return dt.datetime.fromtimestamp(stamp, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


class Pages:
    def __init__(self, context: WebContext, templates: jinja2.Environment) -> None:
        self.context = context
        self.db = context.db
        self.service = context.service
        self.templates = templates
        self.tournaments = TournamentService(context.db, context.clock)
        self.replays: OrderedDict[tuple[Any, ...], str] = OrderedDict()  # replay pages as rendered, latest last

    # --- helpers --------------------------------------------------------------------------------------

    def render(self, request: web.Request, template: str, status: int = 200, **values: Any) -> web.Response:
        """The page in the viewer's language (``?lang=``, else Accept-Language); its links keep a ``?lang=``
        the viewer chose."""
        return self.html_response(self.render_text(request, template, **values), page_language(request), status)

    @staticmethod
    def html_response(text: str, lang: str, status: int = 200) -> web.Response:
        response = web.Response(text=text, status=status, content_type="text/html", charset="utf-8")
        response.headers["Cache-Control"] = "no-store"
        response.headers["Content-Language"] = lang
        response.headers["Vary"] = "Accept-Language"
        return response

    def render_text(self, request: web.Request, template: str, **values: Any) -> str:
        lang = page_language(request)
        override = override_of(request)
        token = values.setdefault("token", None)
        prefix = self.context.prefix

        def url(rel: str = "", **query: object) -> str:
            """An address of this server's pages (``rel`` after ``/s/<token>/``), with the chosen language."""
            pairs = {key: value for key, value in query.items() if value is not None}
            if override is not None:
                pairs["lang"] = override
            return f"{prefix}/s/{token}/{rel}" + (f"?{urlencode(pairs)}" if pairs else "")

        values.update(
            lang=lang,
            _=translator(lang),
            html=lambda key, **v: html(lang, key, **v),
            html_label=lambda key, **v: html_label(lang, key, **v),
            url=url,
            in_language=lambda code: str(request.rel_url.update_query(lang=code)),
        )
        return self.templates.get_template(f"{template}.html").render(**values)

    def not_found_page(self, request: web.Request) -> web.Response:
        return self.render(request, "notfound", status=404)

    async def guild_of(self, request: web.Request) -> tuple[int, str]:
        token = request.match_info["token"]
        if not TOKEN.match(token):
            raise NotFound
        guild_id = await self.db.settings.guild_of_web_token(token)
        if guild_id is None:
            raise NotFound
        return guild_id, token

    async def shown_table(self, request: web.Request) -> tuple[int, str, TableRow]:
        """The table of the address, only if it is this server's and not a daily attempt whose day runs."""
        guild_id, token = await self.guild_of(request)
        table_id = number(request.match_info["table"])
        row = await self.db.tables.get_table(table_id)
        if row is None or row.guild_id != guild_id:
            raise NotFound
        attempt = await self.db.daily.attempt_of_table(table_id)
        if attempt is not None and not day_over(attempt.day, self.context.clock()):
            raise NotFound  # everybody plays today's daily deals: not one card of them before the day is over
        return guild_id, token, row

    # --- the server ------------------------------------------------------------------------------------

    async def server(self, request: web.Request) -> web.Response:
        only_query(request, "sort", "page")
        guild_id, token = await self.guild_of(request)
        sort_text = request.query.get("sort")
        if sort_text is not None and sort_text not in LEADERBOARD_SORTS:
            raise NotFound
        page = number(request.query.get("page", "1"))
        if not 1 <= page <= MAX_PAGE:
            raise NotFound
        boards = await self.context.boards.get(guild_id, sort_text, page)
        return self.render(request, "server", token=token, when=when, **boards)

    async def read_boards(self, guild_id: int, sort_text: str | None, page: int) -> dict[str, Any]:
        """The server page's boards as storage has them now (read only; kept a while by ``BoardsCache``)."""
        if sort_text is None:
            sort: LeaderboardSort = await self.service.queries.default_leaderboard_sort(guild_id)
        else:
            sort = next(s for s in LEADERBOARD_SORTS if s == sort_text)
        min_games = RATING_MIN_GAMES if sort == "rating" else MIN_GAMES_FOR_WINRATE if sort == "winrate" else 0
        board = await self.service.queries.leaderboard(guild_id, sort, min_games, (page - 1) * PAGE_SIZE, PAGE_SIZE)
        pages = max(1, -(-board.total // PAGE_SIZE))
        today = await self.service.daily.board(guild_id)
        week = await self.service.daily.board(guild_id, week=True)
        league = await self.service.daily.league(guild_id, store=False)  # a page view writes nothing
        tournaments = []
        for tournament_id in await self.db.web.tournament_ids(guild_id, 10):
            try:
                tournaments.append(await self.db.tournaments.get_tournament(tournament_id))
            except TournamentNotFound:
                continue
        open_tables = [
            row for row in await self.db.web.open_tables_of_guild(guild_id) if not await self._daily_running(row.id)
        ]
        recent = await self.db.web.recent_bummerl_of_guild(guild_id, 10)
        return {
            "sort": sort,
            "sorts": LEADERBOARD_SORTS,
            "page": page,
            "pages": pages,
            "board": board,
            "min_games": min_games,
            "today": today,
            "week": week,
            "league": league,
            "tournaments": tournaments,
            "open_tables": open_tables,
            "recent": recent,
            "table_names": {row.id: await self._names(row.id) for row in open_tables},
        }

    async def _daily_running(self, table_id: int) -> bool:
        attempt = await self.db.daily.attempt_of_table(table_id)
        return attempt is not None and not day_over(attempt.day, self.context.clock())

    async def _names(self, table_id: int) -> list[str]:
        seats = await self.db.seats.seats_of(table_id)
        by_seat = {seat.seat: seat.display_name for seat in seats}
        return [by_seat.get(seat, "—") for seat in range(4)]

    # --- a table: live, and its deals --------------------------------------------------------------------

    async def table(self, request: web.Request) -> web.Response:
        only_query(request)
        guild_id, token, row = await self.shown_table(request)
        table = await self.context.hub.current(row.id)
        if table is None:
            raise NotFound
        lang = page_language(request)
        state = public_state(table, lang)
        settings = await self.db.settings.get_guild_settings(guild_id)
        results = await self.db.records.deal_results(row.id) if settings.deal_review else []
        path = f"{self.context.prefix}{links.table_path(token, row.id)}"
        return self.render(
            request,
            "table",
            token=token,
            state=state,
            words=script_words(lang, LIVE_WORDS),
            results=results,
            replays=settings.deal_review,
            contract_name=lambda contract: contract_name(lang, contract),
            when=when,
            events_url=f"{path}/events?{urlencode({'lang': lang})}",  # the events in the page's language
            replay_base=f"{path}/deal/",
            replay_query=f"?{urlencode({'lang': override})}" if (override := override_of(request)) else "",
        )

    async def events(self, request: web.Request) -> web.StreamResponse:
        """The live table's states as server-sent events: the table as it stands at once, then each change."""
        only_query(request)
        _, _, row = await self.shown_table(request)
        hub = self.context.hub
        table = await hub.current(row.id)
        if table is None:
            raise NotFound
        client = client_of(request)
        if hub.full() or self.context.streams.get(client, 0) >= STREAMS_PER_CLIENT:
            response = web.Response(status=429, text="Too many live pages open; close some and reload.\n")
            response.headers["Retry-After"] = "30"
            return response
        self.context.streams[client] = self.context.streams.get(client, 0) + 1
        stream = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream; charset=utf-8",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",  # nginx: pass each event on at once
                **SECURITY_HEADERS,
            }
        )
        try:
            await stream.prepare(request)
            lang = page_language(request)
            first = public_state(table, lang)
            await stream.write(_event(first))
            async for state in hub.states(row.id, first, lang):
                await stream.write(b": still here\n\n" if state is None else _event(state))
        except (ConnectionResetError, ConnectionError):
            pass  # the viewer left
        finally:
            left = self.context.streams.get(client, 1) - 1
            if left > 0:
                self.context.streams[client] = left
            else:
                self.context.streams.pop(client, None)
        return stream

    async def replay(self, request: web.Request) -> web.Response:
        """A finished deal step by step; with ``?review=<token>`` (the link in the answer to "Review my play"),
        that review's marks at the decisions it judged: the token is the only key to them."""
        only_query(request, "review")
        guild_id, token, row = await self.shown_table(request)
        deal_no = number(request.match_info["deal"]) - 1
        if not (await self.db.settings.get_guild_settings(guild_id)).deal_review:
            raise NotFound
        review = None
        if (review_token := request.query.get("review")) is not None:
            if not TOKEN.match(review_token):
                raise NotFound
            review = await self.service.reviews.review(review_token, row.id, deal_no)
            if review is None:
                raise NotFound  # unknown, or another deal's: the same 404 as any bad address
        record = await self.db.records.load_record(row.id)
        stored = next((deal for deal in record.deals if deal.deal_no == deal_no), None)
        if stored is None or not stored.finished or not stored.actions:
            raise NotFound  # never dealt, still running, or its moves pruned (RETENTION_DAYS)
        lang = page_language(request)
        seats = tuple(await self.db.seats.seats_of(row.id))
        finished = [d.deal_no for d in record.deals if d.finished and d.actions]
        index = finished.index(deal_no)
        previous_deal = finished[index - 1] + 1 if index > 0 else None
        next_deal = finished[index + 1] + 1 if index + 1 < len(finished) else None
        # A finished deal's page changes only with the names at its table (forget-me), its neighbours and the
        # address (language chosen, review): all in the key of the pages kept.
        key = (row.id, deal_no, lang, request.path_qs, tuple(seats), previous_deal, next_deal)
        if (kept := self.replays.get(key)) is not None:
            self.replays.move_to_end(key)
            return self.html_response(kept, lang)
        data = replay_data(ReplayDeal(row, seats, stored.dealer, stored.hands, stored.actions), lang)
        data["words"] = script_words(lang, REPLAY_WORDS)
        data["review"] = None if review is None else review_marks(review, data["steps"], data["names"], row.deck, lang)
        text = self.render_text(
            request,
            "replay",
            token=token,
            table_id=row.id,
            deal_no=deal_no,
            data=data,
            last=data["steps"][-1],
            previous_deal=previous_deal,
            next_deal=next_deal,
        )
        self.replays[key] = text
        while len(self.replays) > REPLAYS_KEPT:
            self.replays.popitem(last=False)
        return self.html_response(text, lang)

    # --- a player ---------------------------------------------------------------------------------------

    async def player(self, request: web.Request) -> web.Response:
        only_query(request)
        guild_id, token = await self.guild_of(request)
        user_id = number(request.match_info["user"])
        if user_id <= 0:
            raise NotFound
        profile = await self.service.profiles.player_profile(guild_id, user_id)
        if not profile.has_games and profile.rating is None:
            raise NotFound  # nobody here, or forgotten (/schnapsen forget-me deletes what this page shows)
        history = await self.db.ratings.rating_history(guild_id, user_id, RATING_POINTS)
        shown = [shown_rating(mu, sigma) for _, mu, sigma in history]
        recent = await self.db.web.recent_bummerl(guild_id, user_id, RECENT_GAMES)
        return self.render(
            request,
            "player",
            token=token,
            profile=profile,
            name=profile.display_name or "—",
            graph=rating_graph(shown),
            ratings=shown,
            recent=recent,
            user_id=user_id,
            when=when,
        )

    # --- a tournament -------------------------------------------------------------------------------------

    async def tournament(self, request: web.Request) -> web.Response:
        only_query(request)
        guild_id, token = await self.guild_of(request)
        tournament_id = number(request.match_info["tournament"])
        try:
            tournament = await self.db.tournaments.get_tournament(tournament_id)
        except TournamentNotFound:
            raise NotFound from None
        if tournament.guild_id != guild_id:
            raise NotFound
        teams = {team.id: team for team in await self.db.tournaments.teams(tournament_id)}
        standings = await self.tournaments.standings(tournament_id)
        rounds: dict[int, list[Any]] = {}
        for match in await self.db.tournaments.matches(tournament_id):
            rounds.setdefault(match.round, []).append(match)
        lang = page_language(request)
        if tournament.format == "swiss":
            names = {number: t(lang, "tournament.image.round", round=number) for number in rounds}
        else:  # a knockout's last rounds by their stage, as its bracket image names them
            total = elimination_round_count(len(teams))
            names = {number: round_name(lang, number - 1, total) for number in rounds}
        return self.render(
            request,
            "tournament",
            token=token,
            tournament=tournament,
            teams=teams,
            standings=standings,
            rounds=[(names[number], matches) for number, matches in sorted(rounds.items())],
        )

    # --- files -----------------------------------------------------------------------------------------

    async def static_file(self, request: web.Request) -> web.Response:
        only_query(request, "v")
        name = request.match_info["name"]
        if name not in STATIC_FILES:
            raise NotFound
        response = web.Response(body=self.context.static[name], content_type=STATIC_FILES[name].split(";")[0])
        response.charset = "utf-8"
        response.headers["Cache-Control"] = f"public, max-age={STATIC_MAX_AGE}"
        return response

    async def card(self, request: web.Request) -> web.Response:
        only_query(request)
        deck, name = request.match_info["deck"], request.match_info["name"]
        found = CARD_FILE.match(name)
        if deck not in DECK_STYLES or found is None:
            raise NotFound
        body = self.context.cards.get((deck, found["card"]))
        if body is None:
            raise NotFound
        response = web.Response(body=body, content_type="image/webp")
        response.headers["Cache-Control"] = f"public, max-age={CARD_MAX_AGE}, immutable"
        return response


def _event(state: dict[str, Any]) -> bytes:
    data = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
    return f"id: {state['version']}\nevent: table\ndata: {data}\n\n".encode()
