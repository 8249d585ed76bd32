"""Runtime settings from the environment (and ``.env``): the one place the bot reads configuration."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.shards import ShardRange


class SettingsError(Exception):
    """A setting is missing or wrong; the message says which and how to fix it."""


Synchronous = Literal["NORMAL", "FULL"]
DEFAULT_DATABASE_PATH = "schnapsen.sqlite3"


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
    database_path: str = "schnapsen.sqlite3"
    log_level: str = "INFO"
    dev_guild_id: int | None = None
    # Pacing and time limits (seconds unless named otherwise); tests shrink them.
    edit_interval: float = 1.0  # at most one edit of the same message per interval (rate limits)
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

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, dotenv: Path | None = Path(".env")) -> Settings:
        if env is None:
            if dotenv is not None and dotenv.exists():
                from dotenv import load_dotenv

                load_dotenv(dotenv, override=False)
            env = dict(os.environ)
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise SettingsError(
                "DISCORD_TOKEN is not set. Copy .env.example to .env and put your bot token there "
                "(Discord Developer Portal > your application > Bot > Reset Token)."
            )
        dev_guild = env.get("DEV_GUILD_ID", "").strip()
        if dev_guild and not dev_guild.isdigit():
            raise SettingsError(f"DEV_GUILD_ID must be a server id (digits only), not {dev_guild!r}.")
        level = env.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise SettingsError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, not {level!r}.")
        return cls(
            token=token,
            database_path=_database_path(env),
            log_level=level,
            dev_guild_id=int(dev_guild) if dev_guild else None,
            db_synchronous=_synchronous(env),
            retention_days=_retention_days(env),
            shards=_shards(env),
        )


def database_path_from_env(env: dict[str, str] | None = None, dotenv: Path | None = Path(".env")) -> str:
    """`DATABASE_PATH` as the bot reads it (the environment first, then `.env`), without needing the token:
    for tools such as `python -m bot.backup`. Leaves `os.environ` as it is."""
    if env is None:
        env = {}
        if dotenv is not None and dotenv.exists():
            from dotenv import dotenv_values

            env.update({key: value for key, value in dotenv_values(dotenv).items() if value is not None})
        env.update(os.environ)
    return _database_path(env)


def _database_path(env: dict[str, str]) -> str:
    """`DATABASE_URL` (a path, sqlite:///path or postgresql://...) when set, else `DATABASE_PATH` (a file)."""
    return env.get("DATABASE_URL", "").strip() or env.get("DATABASE_PATH", "").strip() or DEFAULT_DATABASE_PATH


def _synchronous(env: dict[str, str]) -> Synchronous:
    value = env.get("DB_SYNCHRONOUS", "").strip().upper() or "FULL"
    if value == "FULL":
        return "FULL"
    if value == "NORMAL":
        return "NORMAL"
    raise SettingsError(
        f"DB_SYNCHRONOUS must be NORMAL or FULL, not {value!r}. FULL (the default) keeps every stored action "
        "through a power cut; NORMAL is faster but may lose the last actions then (see docs/deploy.md)."
    )


def _retention_days(env: dict[str, str]) -> int:
    value = env.get("RETENTION_DAYS", "").strip() or "90"
    if not value.isascii() or not value.isdigit():
        raise SettingsError(
            f"RETENTION_DAYS must be a whole number of days (0 keeps closed tables' action logs forever), "
            f"not {value!r}."
        )
    return int(value)


def _shards(env: dict[str, str]) -> ShardRange | None:
    count, ids = env.get("SHARD_COUNT", "").strip(), env.get("SHARD_IDS", "").strip()
    if not count:
        if ids:
            raise SettingsError(
                f"SHARD_IDS is {ids!r} but SHARD_COUNT is not set: shard ids only mean something out of a count "
                "(SHARD_COUNT=2 SHARD_IDS=1 holds the second of two shards; see docs/deploy.md)."
            )
        return None
    try:
        return ShardRange.parse(count, ids)
    except ValueError as err:
        raise SettingsError(str(err)) from None
