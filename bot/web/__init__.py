"""The web companion (docs/web.md): replays, live tables, players and a server's boards, served by the bot's
own process from storage, read-only. ``WebServer`` runs it; ``links`` makes the addresses messages link to."""

from .server import WebServer

__all__ = ["WebServer"]
