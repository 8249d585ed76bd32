"""Persistence for the bot (aiosqlite). Plain values in and out; this package never imports discord.

The closed sets its values use (deck styles, table statuses, presets ...) are defined in ``bot.vocabulary``
and the engine; they are re-exported here for the callers of storage.
"""

from bot.vocabulary import OPEN_STATUSES, AiStrength, DeckStyle, LeaderboardSort, TableStatus
from engine import BummerlKind, Preset

from .database import Database
from .errors import (
    AlreadySeated,
    ChannelBusy,
    MigrationError,
    RecordConflict,
    SchemaTooNew,
    SeatNotFound,
    SeatTaken,
    StorageError,
    TableClosed,
    TableNotFound,
)
from .migrate import MIGRATIONS_DIR, apply_migrations
from .models import (
    AI_IDENTITIES,
    AI_USER_ID,
    RATING_MIN_GAMES,
    BummerlRow,
    DealResultRow,
    GuildSettings,
    LeaderboardEntry,
    LeaderboardPage,
    OutboxEntry,
    OutboxKind,
    Player,
    PlayerDealStats,
    PlayerRating,
    PlayerStats,
    RatingChange,
    SeatRow,
    StoredDeal,
    TableRecord,
    TableRow,
    Tally,
    pair_key,
    shown_rating,
)
from .prefs import PlayerPrefs
from .privacy import REMOVED_NAME, Forgotten

__all__ = [
    "AI_IDENTITIES",
    "AI_USER_ID",
    "MIGRATIONS_DIR",
    "OPEN_STATUSES",
    "RATING_MIN_GAMES",
    "REMOVED_NAME",
    "AiStrength",
    "AlreadySeated",
    "BummerlKind",
    "BummerlRow",
    "ChannelBusy",
    "Database",
    "DealResultRow",
    "DeckStyle",
    "Forgotten",
    "GuildSettings",
    "LeaderboardEntry",
    "LeaderboardPage",
    "LeaderboardSort",
    "MigrationError",
    "OutboxEntry",
    "OutboxKind",
    "Player",
    "PlayerDealStats",
    "PlayerPrefs",
    "PlayerRating",
    "PlayerStats",
    "Preset",
    "RatingChange",
    "RecordConflict",
    "SchemaTooNew",
    "SeatNotFound",
    "SeatRow",
    "SeatTaken",
    "StorageError",
    "StoredDeal",
    "TableClosed",
    "TableNotFound",
    "TableRecord",
    "TableRow",
    "TableStatus",
    "Tally",
    "apply_migrations",
    "pair_key",
    "shown_rating",
]
