"""`Database`: the one object the bot uses for storage."""

from __future__ import annotations

from .outbox import OutboxRepo
from .prefs import PlayerPrefsRepo
from .profile import ProfileRepo
from .ratings import RatingsRepo
from .records import RecordsRepo
from .retention import RetentionRepo
from .settings import GuildSettingsRepo
from .stats import StatsRepo
from .tables import TablesRepo


class Database(
    GuildSettingsRepo, TablesRepo, RecordsRepo, StatsRepo, RatingsRepo, OutboxRepo, RetentionRepo, ProfileRepo,
    PlayerPrefsRepo,
):
    """Open with `await Database.open(path)`, close with `await db.close()`.

    Every method takes and returns plain values. Each write method runs in its own transaction, or joins
    the caller's: `async with db.transaction(): ...` makes several calls one atomic change.
    """
