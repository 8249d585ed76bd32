"""Typed storage errors. The service translates them into answers for users."""


class StorageError(Exception):
    """Base class of every error raised on purpose by `bot.db`."""


class MigrationError(StorageError):
    """A migration file is malformed or failed; the database is left as it was before that file."""


class SchemaTooNew(MigrationError):
    """The database was written by a newer version of the bot than this one."""

    def __init__(self, database_version: int, known_version: int) -> None:
        super().__init__(
            f"database schema version {database_version} is newer than this code knows "
            f"(latest migration is {known_version}); upgrade the bot or restore a matching backup"
        )
        self.database_version = database_version
        self.known_version = known_version


class TableNotFound(StorageError):
    def __init__(self, table_id: int) -> None:
        super().__init__(f"no table with id {table_id}")
        self.table_id = table_id


class TableClosed(StorageError):
    """The table is closed; it cannot be reopened or seated at."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id} is closed")
        self.table_id = table_id


class ChannelBusy(StorageError):
    """The channel already has a table that is not closed."""

    def __init__(self, channel_id: int, table_id: int) -> None:
        super().__init__(f"channel {channel_id} already has open table {table_id}")
        self.channel_id = channel_id
        self.table_id = table_id


class AlreadySeated(StorageError):
    """The user already sits at an open table (`table_id`, possibly the same one)."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"user already sits at open table {table_id}")
        self.table_id = table_id


class SeatTaken(StorageError):
    def __init__(self, table_id: int, seat: int) -> None:
        super().__init__(f"seat {seat} at table {table_id} is taken")
        self.table_id = table_id
        self.seat = seat


class SeatNotFound(StorageError):
    def __init__(self, table_id: int, seat: int) -> None:
        super().__init__(f"seat {seat} at table {table_id} is empty")
        self.table_id = table_id
        self.seat = seat


class RecordConflict(StorageError):
    """A write would break the game record (a deal out of order, an action for a missing deal, ...)."""
