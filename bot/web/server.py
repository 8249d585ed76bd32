"""The web companion's life in the bot's process: started after the table service, stopped before it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from bot.connect import StartError
from bot.game.service import TableService
from bot.settings import WebSettings

from . import links
from .app import WebContext, make_app
from .cards import build_cards
from .live import LiveHub
from .notices import WebNotices

log = logging.getLogger(__name__)
# No access log: a page view is nobody's business but the viewer's (docs/privacy.md), and a bad request is
# logged at DEBUG by the app itself. Live pages still open at a stop are cut after two seconds.
RUNNER_OPTIONS: dict[str, Any] = {"access_log": None, "handle_signals": False, "shutdown_timeout": 2.0}


class WebServer:
    def __init__(self, service: TableService, settings: WebSettings) -> None:
        self.service = service
        self.settings = settings
        self.links = links.WebLinks(service.db, settings.base_url, service.clock)
        self.hub = LiveHub(service.db, service.held)
        self._runner: web.AppRunner | None = None
        self.notices: WebNotices | None = None
        self._unlisten: list[Callable[[], None]] = []

    async def start(self) -> None:
        """Listen on WEB_HOST:WEB_PORT; the links in messages point at WEB_BASE_URL from now on."""
        cards = await asyncio.to_thread(build_cards)
        context = WebContext(
            self.service.db, self.service, cards, self.hub, prefix=urlsplit(self.settings.base_url).path.rstrip("/")
        )
        app = make_app(context)
        context.notices = self.notices = WebNotices(
            self.service.db, context.heard, context.heard_forgotten, self.hub.set_listening
        )
        self.notices.start()
        self._runner = web.AppRunner(app, **RUNNER_OPTIONS)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.settings.host, self.settings.port)
        try:
            await site.start()
        except OSError as err:  # the port taken, or an address not of this machine: the operator's to fix
            await self._runner.cleanup()
            self._runner = None
            await self.notices.close()
            self.notices = None
            raise StartError(
                f"the web pages cannot listen on {self.settings.host}:{self.settings.port} "
                f"({err.strerror or err}): set WEB_PORT to a free port and WEB_HOST to an address of this machine."
            ) from None
        self._unlisten = [self.service.listen(context.table_changed), self.service.prefs.on_forget(context.forgotten)]
        links.activate(self.links)
        log.info("web pages on %s:%s, linked as %s", self.settings.host, self.settings.port, self.settings.base_url)

    async def stop(self) -> None:
        links.deactivate(self.links)
        for unlisten in self._unlisten:
            unlisten()
        self._unlisten = []
        self.hub.close()
        if self.notices is not None:
            await self.notices.close()
            self.notices = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
