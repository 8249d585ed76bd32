"""The pages' addresses, for the messages that link to them ("Replay" on a result, "Show the deal",
``/schnapsen export``). Every address of a server's pages carries its token; there is none while the bot runs
no web app or the server has its pages off.

The message builders have no handle on the bot, so the running web app makes its links known here
(``activate``) and takes them back when it stops; with no web app, ``active()`` is None and no message links
anywhere."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import urlencode

from bot.db import Database
from bot.game.daily import day_over


def server_path(token: str) -> str:
    return f"/s/{token}/"


def table_path(token: str, table_id: int) -> str:
    return f"/s/{token}/table/{table_id}"


def replay_path(token: str, table_id: int, deal_no: int) -> str:
    return f"/s/{token}/table/{table_id}/deal/{deal_no + 1}"  # people count deals from 1


def with_review(replay_url: str, review_token: str) -> str:
    """A replay's address that shows the marks of one kept review (its token: bot/game/reviews.py)."""
    return f"{replay_url}?{urlencode({'review': review_token})}"


def player_path(token: str, user_id: int) -> str:
    return f"/s/{token}/player/{user_id}"


def tournament_path(token: str, tournament_id: int) -> str:
    return f"/s/{token}/tournament/{tournament_id}"


class WebLinks:
    def __init__(self, db: Database, base_url: str, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.base_url = base_url.rstrip("/")
        self.clock = clock

    async def token_of(self, guild_id: int) -> str | None:
        """The server's token while its pages are on."""
        settings = await self.db.settings.get_guild_settings(guild_id)
        return settings.web_token if settings.web_pages else None

    async def server_url(self, guild_id: int) -> str | None:
        token = await self.token_of(guild_id)
        return None if token is None else self.base_url + server_path(token)

    async def replay_url(self, guild_id: int, table_id: int, deal_no: int) -> str | None:
        """The replay of a finished deal, where its page would show it: the server's pages on, its deal review
        on, and not a daily attempt whose day is still running."""
        settings = await self.db.settings.get_guild_settings(guild_id)
        if not settings.web_pages or settings.web_token is None or not settings.deal_review:
            return None
        attempt = await self.db.daily.attempt_of_table(table_id)
        if attempt is not None and not day_over(attempt.day, self.clock()):
            return None
        return self.base_url + replay_path(settings.web_token, table_id, deal_no)

    async def replay_url_of(self, table_id: int, deal_no: int) -> str | None:
        """``replay_url`` for a table of whichever server (found in storage): "Review my play" may be asked in
        a DM (a daily attempt's)."""
        row = await self.db.tables.get_table(table_id)
        return None if row is None else await self.replay_url(row.guild_id, table_id, deal_no)

    async def table_url(self, guild_id: int, table_id: int) -> str | None:
        token = await self.token_of(guild_id)
        return None if token is None else self.base_url + table_path(token, table_id)


_active: list[WebLinks] = []


def activate(links: WebLinks) -> None:
    _active.append(links)


def deactivate(links: WebLinks) -> None:
    if links in _active:
        _active.remove(links)


def active() -> WebLinks | None:
    """The running web app's links (the latest started, in a test that runs several bots), or None."""
    return _active[-1] if _active else None
