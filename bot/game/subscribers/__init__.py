"""What a table's change causes beyond the table itself: one module per concern, each a subscriber of the
core's domain events (bot/game/events.py) that writes its own rows inside the change's transaction.

Registered here, in the order they run: a subscriber sees the events of those before it (deal accounting
answers ``BummerlRated``, which the result announcement shows). Adding one is a module of its own and a line
below; the core imports none of them, and they import none of each other.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.db import Database
from bot.game.events import Subscriber

from .accounting import DealAccounting
from .announcing import Announcing
from .daily import DailyScore
from .tournament import TournamentResults

SUBSCRIBERS: tuple[Callable[[Database], Subscriber], ...] = (
    DealAccounting,
    Announcing,
    DailyScore,
    TournamentResults,  # server tournaments (issue 30)
)
