"""The table service: the table core (bot/game/core.py) wired with its subscribers, and the small objects that
do the bot's other jobs with tables and their storage, each named for its one job:

- ``seating``: idle people warned and taken over, and the shell's bookkeeping of its messages;
- ``outbox``: what stored changes still owe Discord, as typed announcements;
- ``directory`` and ``clicks``: which process serves a table, and clicks handed between processes;
- ``prefs``: people's own choices; ``guilds``: a server's defaults;
- ``queries`` and ``profiles``: read-only questions answered from storage; ``housekeeping``: storage chores.

- ``restorer``: start-up's rebuilding of the open tables this process serves; ``daily``: the daily deal;
- ``reviews``: "Review my play" kept for the replay page's marks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.db import Database
from bot.shards import ShardRange

from .core import AI_NAMES, TableCore
from .daily import DailyDeals, DailyPlan
from .directory import ShardDirectory
from .events import Outcome
from .guilds import GuildDefaults
from .housekeeping import Housekeeping
from .inbox import HandedClick, HandedClicks
from .outbox import Outbox
from .prefs import PrefsCache
from .profile import ProfileQueries
from .queries import TableQueries
from .restore import Restored, Restorer
from .reviews import ReviewStore
from .seating import Seating
from .subscribers import SUBSCRIBERS

__all__ = ["AI_NAMES", "HandedClick", "Outcome", "Restored", "TableService"]
log = logging.getLogger(__name__)


class TableService(TableCore):
    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], float] = time.time,
        seed_source: Callable[[], int] | None = None,
        shards: ShardRange | None = None,
    ) -> None:
        super().__init__(
            db, subscribers=SUBSCRIBERS, clock=clock, seed_source=seed_source, deal_plan=DailyPlan(db)
        )
        self.sharded = shards is not None
        self.directory = ShardDirectory(db, self, shards)
        self.seating = Seating(self)
        self.outbox = Outbox(db, self.directory)
        self.clicks = HandedClicks(db, self.directory, clock)
        self.prefs = PrefsCache(db, self, clock)
        self.guilds = GuildDefaults(db)
        self.queries = TableQueries(db, clock)
        self.profiles = ProfileQueries(db)
        self.housekeeping = Housekeeping(db, clock)
        self.restorer = Restorer(self, self.directory)
        self.daily = DailyDeals(self, db)
        self.reviews = ReviewStore(db, clock)
