"""Runtime settings from the environment (and ``.env``): the one place the bot reads configuration.

Every variable is checked here, before anything connects anywhere: a wrong or out-of-range value is a
`SettingsError` whose message is one sentence naming the variable, what it must be, and never a secret (the
token is never shown; a database password is masked). `python -m bot` prints it and exits with status 2.
What can only be checked by trying (the database's folder and server) is `bot.connect`'s.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.shards import ShardRange, describe_ids


class SettingsError(Exception):
    """A setting is missing or wrong; the message says which and how to fix it (one sentence, no secret)."""


Synchronous = Literal["NORMAL", "FULL"]
DEFAULT_DATABASE_PATH = "schnapsen.sqlite3"
DATABASE_FORMS = (
    "sqlite:///relative/path.sqlite3, sqlite:////absolute/path.sqlite3 or "
    "postgresql://user:password@host/database (postgres:// too)"
)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
# A logger's name in LOG_LEVEL's `name=LEVEL` pairs (discord.gateway, aiosqlite, bot.schnapsen.hands).
_LOGGER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
MAX_RETENTION_DAYS = 36_500  # a hundred years; beyond it a date computation overflows, not a real wish
# A Discord snowflake is a positive 64-bit integer (Discord's API sends them as strings of up to 20 digits).
MAX_SNOWFLAKE = (1 << 64) - 1
# A value echoed in an error is cut to this many characters: a message stays one short line.
SHOWN_CHARS = 60


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
    database_path: str = "schnapsen.sqlite3"
    log_level: str = "INFO"
    # LOG_LEVEL's `logger=LEVEL` pairs: the level of a logger named there (third-party ones stay at WARNING
    # unless named; bot/logs.py).
    log_levels: tuple[tuple[str, str], ...] = ()
    # DATABASE_PATH's value when DATABASE_URL, which wins, names another database (logged at start).
    database_ignored: str | None = None
    dev_guild_id: int | None = None
    # Pacing and time limits (seconds unless named otherwise); tests shrink them.
    edit_interval: float = 1.0  # at most one edit of the same message per interval (rate limits)
    # A table message or hand DM older than this is re-posted rather than edited: Discord limits edits of
    # messages older than an hour (error 30046; bot/schnapsen/repost.py).
    repost_after: float = 3000.0
    # While a deal runs the table message is edited at most once per this many edit intervals: each click
    # changes it, and it is the one bot-token edit left per click once hands go through click tokens (issue 28).
    table_edit_intervals: float = 3.0
    lobby_timeout: float = 1800.0  # a lobby that never starts is closed after this
    abandoned_timeout: float = 600.0  # a game whose people all left is closed after this
    sweep_interval: float = 60.0
    ai_budget_ms: int = 150
    ai_hard_cap_ms: int = 1000  # counted from when a search starts, not from when it was queued
    ai_workers: int = 0  # AI searches at a time (bot/ai_worker.py); 0: one per core the process may use
    throttle_actions: int = 8  # per user, per throttle window
    throttle_window: float = 5.0
    # Storage. FULL: a commit survives a power cut too; NORMAL: only a crash of the bot (docs/deploy.md).
    db_synchronous: Synchronous = "FULL"
    retention_days: int = 90  # closed tables' action logs are pruned after this many days; 0 keeps them
    # Supervision: a failed Discord call, write or AI decision is retried after retry_first seconds, doubling
    # up to retry_max; the watchdog looks for tables that should move and do not every watchdog_interval.
    retry_first: float = 0.5
    retry_max: float = 10.0
    watchdog_interval: float = 15.0
    # The daily deal's par ahead (today's, tomorrow's) is looked for at start and then every daily_interval, its
    # results first one interval after start. daily_par_ahead False (tests): par only as attempts ask for it.
    daily_interval: float = 600.0
    daily_par_ahead: bool = True
    # Once started, what is alive leaves the garbage collector's scans (gc.freeze): False in tests, whose
    # processes start many bots and would keep every one's leftovers.
    freeze_start_heap: bool = True
    # The coach ("Review my play" and practice hints, bot/game/coach.py): a search budget per decision, the
    # time a hint and a whole review may take, and reviews per person per window.
    coach_budget_ms: int = 150
    coach_search: str = "engine.ai:evaluate_actions"  # what the AI workers run for it (tests name their own)
    hint_cap_ms: int = 10_000
    review_seconds: float = 60.0
    reviews_per_window: int = 3
    review_window: float = 600.0
    # Discord shards this process holds (SHARD_COUNT, SHARD_IDS); None: one process, every guild its own.
    shards: ShardRange | None = None
    # Discord lets a bot IDENTIFY one shard per 5 s; a sharded process waits this long between its shards.
    identify_interval: float = 5.0
    # A process holding shards takes the clicks other processes hand it when woken (PostgreSQL's NOTIFY),
    # and looks for them this often besides (a lost notification, SQLite).
    click_inbox_poll: float = 2.0
    # The web companion (bot/web, docs/web.md): off unless WEB_PORT and WEB_BASE_URL are both set.
    web: WebSettings | None = None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, dotenv: Path | None = Path(".env")) -> Settings:
        """The settings from `env` (default: the environment, after loading `.env` without overriding it).
        Raises `SettingsError` at the first wrong value."""
        looked_in = None
        if env is None:
            if dotenv is not None:
                _read_dotenv(dotenv, load=True)
                looked_in = dotenv
            env = dict(os.environ)
        database = database_from_env(env)
        log_level, log_levels = _log_levels(env)
        return cls(
            token=_token(env, looked_in),
            database_path=database,
            log_level=log_level,
            log_levels=log_levels,
            database_ignored=_database_ignored(env, database),
            dev_guild_id=_dev_guild_id(env),
            db_synchronous=_synchronous(env),
            retention_days=_retention_days(env),
            shards=_shards(env, database),
            web=_web(env),
        )

    def describe(self) -> str:
        """What this process runs on, for the log line at start (the password masked, never the token)."""
        shards = "one process, every shard" if self.shards is None else str(self.shards)
        guild = f"; slash commands in server {self.dev_guild_id} only" if self.dev_guild_id else ""
        database = self.database_path
        if "://" not in database:  # a plain file path: where it really is, whatever the working directory
            database = os.path.abspath(database)
        return f"database {mask_url(database)}; {shards}{guild}"


def database_path_from_env(env: dict[str, str] | None = None, dotenv: Path | None = Path(".env")) -> str:
    """The database as the bot reads it (`DATABASE_URL`, else `DATABASE_PATH`; the environment first, then
    `.env`), without needing the token: for the admin commands. Leaves `os.environ` as it is. Raises
    `SettingsError` for a malformed value."""
    if env is None:
        env = {} if dotenv is None else _read_dotenv(dotenv, load=False)
        env.update(os.environ)
    return database_from_env(env)


def _read_dotenv(dotenv: Path, *, load: bool) -> dict[str, str]:
    """The settings in `dotenv` if it exists (with `load`, also put into `os.environ` where not set there); a
    file the bot's user may not read is a `SettingsError`, not a traceback."""
    from dotenv import dotenv_values, load_dotenv

    try:
        if not dotenv.exists():
            return {}
        if load:
            load_dotenv(dotenv, override=False)
            return {}
        return {key: value for key, value in dotenv_values(dotenv).items() if value is not None}
    except OSError as err:
        raise SettingsError(
            f"cannot read {dotenv.resolve()}: {err.strerror or err} (it must be readable by the bot's user)."
        ) from None


def database_from_env(env: dict[str, str]) -> str:
    """`DATABASE_URL` when set (a URL: sqlite:///path or postgresql://...), else `DATABASE_PATH` (a file path,
    or one of those URLs), else the default file."""
    url = env.get("DATABASE_URL", "").strip()
    if url:
        return checked_database(url, "DATABASE_URL", path_allowed=False)
    path = env.get("DATABASE_PATH", "").strip()
    if path:
        return checked_database(path, "DATABASE_PATH", path_allowed=True)
    return DEFAULT_DATABASE_PATH


def checked_database(text: str, name: str, *, path_allowed: bool) -> str:
    """`text` if it names a database the bot can open (`name` is where it came from, for the message): an
    sqlite:/// or postgresql:// URL, or with `path_allowed` a plain file path.

    >>> checked_database("postgres://bot@db/schnapsen", "DATABASE_URL", path_allowed=False)
    'postgres://bot@db/schnapsen'
    >>> checked_database("mysql://bot:hunter2@db/x", "DATABASE_URL", path_allowed=False)
    Traceback (most recent call last):
    ...
    bot.settings.SettingsError: DATABASE_URL must be sqlite:///relative/path.sqlite3, sqlite:////absolute/path.sqlite3 or postgresql://user:password@host/database (postgres:// too), not 'mysql://bot:***@db/x'.
    """
    text = text.strip()
    scheme, separator, rest = text.partition("://")
    if separator:
        if scheme in ("postgresql", "postgres"):
            host_part = rest.split("?", 1)[0]
            if not host_part.strip("/") and "host=" not in rest:
                raise SettingsError(f"{name} {mask_url(text)!r} names no server or database: write {DATABASE_FORMS}.")
            return text
        if scheme == "sqlite":
            path = rest.removeprefix("/")
            if not path.strip():
                raise SettingsError(f"{name} {shown(text)!r} names no file: write {DATABASE_FORMS}.")
            if "\x00" in path:
                raise SettingsError(f"{name} holds a NUL character.")
            return text
    elif path_allowed and text and "\x00" not in text:
        return text
    forms = f"a file path, {DATABASE_FORMS}" if path_allowed else DATABASE_FORMS
    raise SettingsError(f"{name} must be {forms}, not {shown(mask_url(text))!r}.")


def add_database_option(parser: argparse.ArgumentParser) -> None:
    """The admin commands' `--database`, read as the bot reads its database (`database_from_args`)."""
    parser.add_argument(
        "--database", metavar="URL", default=None,
        help=(
            "the database: sqlite:///path, postgresql://user:password@host/db, or a file path (default: "
            "DATABASE_URL, else DATABASE_PATH, from the environment or .env, as the bot reads them)"
        ),
    )


def database_from_args(args: argparse.Namespace) -> str:
    """`--database` when given, else the bot's own setting; `SettingsError` for a malformed one."""
    if args.database is not None:
        return checked_database(args.database, "--database", path_allowed=True)
    return database_path_from_env()


_USER_INFO = re.compile(r"^(?P<head>[^:/?#]*://[^:@/?#]*:)(?P<password>.*)@(?P<tail>[^@]*)$", re.DOTALL)
_PASSWORD_PARAM = re.compile(r"(?i)(password=)[^&]*")


def mask_url(url: str) -> str:
    """`url` with its password (user:password@, or ?password=) replaced by ***; anything else as it is.

    >>> mask_url("postgresql://bot:s3cr:et@db:5432/schnapsen")
    'postgresql://bot:***@db:5432/schnapsen'
    >>> mask_url("postgresql://bot@/schnapsen?host=/run/postgresql&password=x")
    'postgresql://bot@/schnapsen?host=/run/postgresql&password=***'
    >>> mask_url("sqlite:///data/bot.sqlite3")
    'sqlite:///data/bot.sqlite3'
    """
    head, _, query = url.partition("?")
    if (found := _USER_INFO.match(head)) is not None:
        head = f"{found['head']}***@{found['tail']}"
    if query:
        return head + "?" + _PASSWORD_PARAM.sub(r"\g<1>***", query)
    return head


def url_password(url: str) -> str | None:
    """The password written in a database URL, to keep it out of any message; None if there is none."""
    head, _, query = url.partition("?")
    if (found := _USER_INFO.match(head)) is not None and found["password"]:
        return found["password"]
    for part in query.split("&"):
        key, _, value = part.partition("=")
        if key.lower() == "password" and value:
            return value
    return None


def shown(value: str) -> str:
    """A value as an error message quotes it: cut to a short line."""
    return value if len(value) <= SHOWN_CHARS else value[: SHOWN_CHARS - 1] + "…"


def _token(env: dict[str, str], looked_in: Path | None = None) -> str:
    token = env.get("DISCORD_TOKEN", "").strip()
    if not token:
        where = "in the environment"
        if looked_in is not None:
            dotenv = Path(os.path.abspath(looked_in))
            where += f" nor in {dotenv}" + ("" if dotenv.exists() else " (there is no such file)")
        raise SettingsError(
            f"DISCORD_TOKEN is not set {where}. The bot reads .env in the folder it runs in "
            f"({os.getcwd()}): copy .env.example to .env there and put your bot token in it "
            "(Discord Developer Portal > your application > Bot > Reset Token)."
        )
    if token.lower().startswith("bot "):
        raise SettingsError("DISCORD_TOKEN must be the token alone, without the word 'Bot' in front.")
    if not token.isascii() or not token.isprintable() or any(char.isspace() for char in token):
        # The value is not shown: it is a secret, even when mistyped.
        raise SettingsError(
            "DISCORD_TOKEN holds spaces or characters a bot token never has; copy it again from the Developer "
            "Portal (Bot > Reset Token)."
        )
    return token


def _log_levels(env: dict[str, str]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """LOG_LEVEL: a level for the bot's own logs (INFO by default), then any `logger=LEVEL` pairs, separated by
    commas: `DEBUG,discord.gateway=INFO,aiosqlite=DEBUG`."""
    level, named = "INFO", []
    for index, part in enumerate(env.get("LOG_LEVEL", "").split(",")):
        part = part.strip()
        if not part:
            continue
        name, equals, value = part.partition("=")
        if not equals:
            if index > 0 or part.upper() not in LOG_LEVELS:
                raise SettingsError(
                    f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {shown(part.upper())!r} (logger=LEVEL "
                    "pairs may follow it: DEBUG,discord.gateway=INFO)."
                )
            level = part.upper()
            continue
        name, value = name.strip(), value.strip().upper()
        if not _LOGGER_NAME.match(name) or value not in LOG_LEVELS:
            raise SettingsError(
                f"LOG_LEVEL's {shown(part)!r} must be a logger's name and DEBUG, INFO, WARNING or ERROR "
                "(discord.gateway=INFO)."
            )
        named.append((name, value))
    return level, tuple(named)


def _database_ignored(env: dict[str, str], database: str) -> str | None:
    """DATABASE_PATH when DATABASE_URL is set too and names another database (DATABASE_URL wins)."""
    path = env.get("DATABASE_PATH", "").strip()
    if not path or not env.get("DATABASE_URL", "").strip():
        return None
    chosen = database.removeprefix("sqlite:///") if database.startswith("sqlite:///") else database
    other = path.removeprefix("sqlite:///") if path.startswith("sqlite:///") else path
    if "://" not in chosen and "://" not in other and os.path.abspath(chosen) == os.path.abspath(other):
        return None
    return mask_url(path)


def _dev_guild_id(env: dict[str, str]) -> int | None:
    value = env.get("DEV_GUILD_ID", "").strip()
    if not value:
        return None
    if not _is_number(value) or len(value) > 20 or not 0 < int(value) <= MAX_SNOWFLAKE:
        raise SettingsError(
            f"DEV_GUILD_ID must be a server id (digits only, as Discord's Copy Server ID gives it), not "
            f"{shown(value)!r}."
        )
    return int(value)


def _synchronous(env: dict[str, str]) -> Synchronous:
    value = env.get("DB_SYNCHRONOUS", "").strip().upper() or "FULL"
    if value == "FULL":
        return "FULL"
    if value == "NORMAL":
        return "NORMAL"
    raise SettingsError(
        f"DB_SYNCHRONOUS must be NORMAL or FULL, not {shown(value)!r}. FULL (the default) keeps every stored "
        "action through a power cut; NORMAL is faster but may lose the last actions then (see docs/deploy.md)."
    )


def _retention_days(env: dict[str, str]) -> int:
    value = env.get("RETENTION_DAYS", "").strip() or "90"
    if not _is_number(value) or len(value) > 12 or int(value) > MAX_RETENTION_DAYS:
        raise SettingsError(
            f"RETENTION_DAYS must be a whole number of days from 0 to {MAX_RETENTION_DAYS} (0 keeps closed "
            f"tables' action logs forever), not {shown(value)!r}."
        )
    return int(value)


def _shards(env: dict[str, str], database: str) -> ShardRange | None:
    count, ids = env.get("SHARD_COUNT", "").strip(), env.get("SHARD_IDS", "").strip()
    if not count:
        if ids:
            raise SettingsError(
                f"SHARD_IDS is {shown(ids)!r} but SHARD_COUNT is not set: shard ids only mean something out of a "
                "count (SHARD_COUNT=2 SHARD_IDS=1 holds the second of two shards; see docs/deploy.md)."
            )
        return None
    try:
        shards = ShardRange.parse(count, ids)
    except ValueError as err:
        raise SettingsError(str(err)) from None
    if len(shards.ids) < shards.count and not _is_postgresql(database):
        # One SQLite file is served by one process (docs/deploy.md): shards nobody holds would go unserved,
        # and without shard 0 no DM click and no pruning would ever happen.
        raise SettingsError(
            f"SHARD_IDS={describe_ids(shards.ids)} holds only some of the {shards.count} shards, but the "
            f"database is SQLite, which one process serves: leave SHARD_IDS unset (every shard) or use "
            "PostgreSQL for several processes (docs/deploy.md)."
        )
    return shards


def _is_postgresql(database: str) -> bool:
    return database.startswith(("postgresql://", "postgres://"))


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


@dataclass(frozen=True, slots=True)
class WebSettings:
    """Where the web companion listens and the public address its links use (behind the admin's proxy)."""

    port: int
    base_url: str  # https://schnapsen.example.org (no trailing slash); every link the bot posts starts with it
    host: str = "127.0.0.1"  # the reverse proxy on the same machine reaches it; 0.0.0.0 in a container


def _web(env: dict[str, str]) -> WebSettings | None:
    port, base_url = env.get("WEB_PORT", "").strip(), env.get("WEB_BASE_URL", "").strip()
    host = env.get("WEB_HOST", "").strip() or "127.0.0.1"
    if not port and not base_url:
        return None
    if not port or not base_url:
        missing = "WEB_PORT" if not port else "WEB_BASE_URL"
        raise SettingsError(
            f"{missing} is not set: the web pages need both WEB_PORT (where the bot listens) and WEB_BASE_URL "
            "(the public https address of your reverse proxy; docs/web.md), or neither."
        )
    if not _is_number(port) or len(port) > 5 or not 1 <= int(port) <= 65535:
        raise SettingsError(f"WEB_PORT must be a port number from 1 to 65535, not {shown(port)!r}.")
    scheme, separator, rest = base_url.partition("://")
    if scheme not in ("https", "http") or not separator or not rest.strip("/") or any(c.isspace() for c in base_url):
        raise SettingsError(
            f"WEB_BASE_URL must be the pages' public address, like https://schnapsen.example.org, not "
            f"{shown(base_url)!r}."
        )
    if "?" in base_url or "#" in base_url:
        raise SettingsError(f"WEB_BASE_URL must have no query or fragment, not {shown(base_url)!r}.")
    if any(c.isspace() for c in host) or not host:
        raise SettingsError(f"WEB_HOST must be an address to listen on (127.0.0.1, 0.0.0.0), not {shown(host)!r}.")
    return WebSettings(int(port), base_url.rstrip("/"), host)
