"""``python -m bot doctor [--offline] [--backups DIR]``: is everything the bot needs in order? One line per
check (``ok``, ``warn`` or ``FAIL``), then a verdict; exit status 1 when a check failed, else 0.

Offline, from the same settings and working directory as the bot (run it as the bot's user, in its folder):
every setting, ``.env``'s mode, the database (reachable, schema version, writable, private, free disk), the
last backup's age in ``--backups`` (default /var/backups/schnapsen), the fonts and card art, the compiled AI,
and ``pg_dump`` for a PostgreSQL database. It never changes the database: it reads it, and opens it as the bot
does only when its schema is this version's own. Online, unless ``--offline``: the token, the application, the
intents, the slash commands and each server's permissions in every channel that has a table, a tournament or
the daily channel (``bot/doctor_discord.py``). The bot may keep running meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bot.settings import Settings, SettingsError, database_path_from_env, mask_url

Verdict = Literal["ok", "warn", "fail"]
LABELS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
DEFAULT_BACKUPS = Path("/var/backups/schnapsen")
BACKUP_FILE = re.compile(r"^schnapsen-\d{8}-\d{6}(?:-\d+)?\.(?:sqlite3|dump)$")
BACKUP_TOO_OLD = 36 * 3600  # the timer runs daily: a day and a half means at least one was missed
FREE_DISK_FAIL, FREE_DISK_WARN = 50 * 2**20, 500 * 2**20  # bytes free beside the database


@dataclass(frozen=True, slots=True)
class Finding:
    verdict: Verdict
    topic: str
    text: str

    def line(self) -> str:
        return f"{LABELS[self.verdict]}  {self.topic}: {self.text}"


def ok(topic: str, text: str) -> Finding:
    return Finding("ok", topic, text)


def warn(topic: str, text: str) -> Finding:
    return Finding("warn", topic, text)


def fail(topic: str, text: str) -> Finding:
    return Finding("fail", topic, text)


def verdict(findings: Iterable[Finding]) -> tuple[str, int]:
    """The last line and the exit status: 1 when anything failed."""
    found = list(findings)
    failed = sum(f.verdict == "fail" for f in found)
    warned = sum(f.verdict == "warn" for f in found)
    if failed:
        return f"doctor: {failed} check(s) failed, {warned} warning(s) (of {len(found)} checks)", 1
    if warned:
        return f"doctor: no check failed; {warned} warning(s) (of {len(found)} checks)", 0
    return f"doctor: all {len(found)} checks passed", 0


# ---- the checks -------------------------------------------------------------------------------------------


def check_settings(env: dict[str, str] | None, dotenv: Path | None) -> tuple[Settings | None, list[Finding]]:
    """Every setting, as the bot reads it at start; `.env`'s mode (it holds the token)."""
    findings = []
    if dotenv is not None and dotenv.exists():
        mode = dotenv.stat().st_mode & 0o777
        if mode & 0o077:
            findings.append(warn(".env", f"{dotenv.resolve()} is readable by other users (mode {mode:o}); it holds "
                                 "the token: chmod 600 .env"))
    try:
        settings = Settings.from_env(env, dotenv=dotenv)
    except SettingsError as err:
        return None, [*findings, fail("settings", str(err))]
    web = getattr(settings, "web", None)
    shards = "one process, every shard" if settings.shards is None else str(settings.shards)
    named = "".join(f", {name}={level}" for name, level in settings.log_levels)
    findings.append(ok("settings", (
        f"DISCORD_TOKEN set; database {mask_url(settings.database_path)}; LOG_LEVEL {settings.log_level}{named}; "
        f"DEV_GUILD_ID {settings.dev_guild_id or 'unset (commands global)'}; DB_SYNCHRONOUS "
        f"{settings.db_synchronous}; RETENTION_DAYS {settings.retention_days}; {shards}"
        + ("" if web is None else f"; web pages on port {web.port}")
    )))
    if settings.database_ignored:
        findings.append(warn("settings", f"DATABASE_URL is used and DATABASE_PATH={settings.database_ignored} "
                             "ignored: unset the one you do not mean"))
    return settings, findings


@dataclass(frozen=True, slots=True)
class SchemaState:
    """What the database check learned: whether the bot's own code may open it to read what is in it."""

    url: str
    version: int | None = None
    known: int = 0

    @property
    def current(self) -> bool:
        return self.version == self.known


async def check_database(url: str) -> tuple[SchemaState, list[Finding]]:
    from bot.db.database import parse_database_url

    try:
        target = parse_database_url(url)
    except ValueError as err:
        return SchemaState(url), [fail("database", str(err))]
    if target.dialect == "sqlite":
        return check_sqlite(url, Path(target.path))
    return await check_postgresql(url)


def _known_version(postgresql: bool) -> int:
    from bot.db.migrate import MIGRATIONS_DIR, PG_MIGRATIONS_DIR, load_migrations

    return len(load_migrations(PG_MIGRATIONS_DIR if postgresql else MIGRATIONS_DIR, whole_files=postgresql))


def _schema_finding(version: int, known: int) -> Finding:
    if version > known:
        return fail("database", f"schema version {version} is newer than this code knows ({known}): the bot "
                    "refuses it; upgrade the bot, or restore a backup of this version (docs/deploy.md)")
    if version < known:
        return warn("database", f"schema version {version}, older than this code's {known}: the bot migrates "
                    "it at its next start (take a backup first)")
    return ok("database", f"schema version {version}, this code's own")


def check_sqlite(url: str, path: Path) -> tuple[SchemaState, list[Finding]]:
    absolute = Path(os.path.abspath(path))
    known = _known_version(False)
    if not absolute.exists():
        return SchemaState(url, None, known), [
            warn("database", f"no SQLite database at {absolute} yet: the bot creates it at its first start")
        ]
    findings = []
    try:
        with sqlite3.connect(f"{absolute.as_uri()}?mode=ro", uri=True) as db:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            damage = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
        db.close()
    except sqlite3.Error as err:
        return SchemaState(url, None, known), [fail("database", f"cannot read the SQLite database {absolute}: {err}")]
    findings.append(_schema_finding(version, known))
    if damage != ["ok"]:
        findings.append(fail("database", f"{absolute} is damaged ({'; '.join(damage[:3])}): restore a backup"))
    if not os.access(absolute, os.W_OK) or not os.access(absolute.parent, os.W_OK | os.X_OK):
        findings.append(fail("database", f"this user cannot write {absolute} and its folder (run the doctor as "
                             "the bot's user: sudo -u schnapsen ...)"))
    else:
        findings.append(ok("database", f"{absolute} is writable"))
    mode = absolute.stat().st_mode & 0o777
    if mode & 0o077:
        findings.append(warn("database", f"{absolute} is readable by other users (mode {mode:o}); the bot makes it "
                             "private (600) at its next start"))
    free = shutil.disk_usage(absolute.parent).free
    size = f"{free / 2**30:.1f} GiB free beside it"
    if free < FREE_DISK_FAIL:
        findings.append(fail("disk", f"{size}: writes will fail soon; free space or move the database"))
    elif free < FREE_DISK_WARN:
        findings.append(warn("disk", f"{size}: free some space"))
    else:
        findings.append(ok("disk", size))
    return SchemaState(url, version, known), findings


async def check_postgresql(url: str) -> tuple[SchemaState, list[Finding]]:
    known = _known_version(True)
    try:
        import asyncpg
    except ImportError:
        return SchemaState(url), [fail("database", "the database is PostgreSQL, but its driver is not installed: "
                                       "pip install -e '.[postgres]'")]
    from bot.connect import scrub
    from bot.db.migrate import pg_schema_version

    shown = mask_url(url)
    try:
        conn = await asyncpg.connect(url, timeout=5)
    except Exception as err:
        reason = scrub(str(err).splitlines()[0] if str(err) else type(err).__name__, url)
        return SchemaState(url, None, known), [fail("database", f"cannot connect to {shown}: {reason}")]
    findings = [ok("database", f"{shown} answers (PostgreSQL {conn.get_server_version().major})")]
    try:
        version = await pg_schema_version(conn)
        findings.append(_schema_finding(version, known))
        read_only = await conn.fetchval("SHOW transaction_read_only")
        may_write = version == 0 or await conn.fetchval(
            "SELECT has_table_privilege(current_user, 'game_tables', 'INSERT, UPDATE, DELETE')"
        )
        if read_only == "on" or not may_write:
            findings.append(fail("database", f"{shown} is read-only for this user (a standby, or missing grants)"))
        else:
            findings.append(ok("database", "writable"))
        size = await conn.fetchval("SELECT pg_database_size(current_database())")
        findings.append(ok("disk", f"the database takes {size / 2**20:.1f} MiB (the server's own disk is not "
                           "checked from here)"))
    finally:
        await conn.close()
    if shutil.which("pg_dump") is None:
        findings.append(warn("backups", "pg_dump is not installed: python -m bot.backup needs it for PostgreSQL "
                             "(apt-get install postgresql-client)"))
    return SchemaState(url, version, known), findings


def check_backups(folder: Path, *, now: Callable[[], float] = time.time) -> list[Finding]:
    """The newest backup `python -m bot.backup` made in `folder`: its age and its mode."""
    try:
        ours = [path for path in folder.iterdir() if BACKUP_FILE.match(path.name) and path.is_file()]
    except FileNotFoundError:
        return [warn("backups", f"no folder {folder}: no backups there (docs/deploy.md, section 5; --backups "
                     "DIR names another folder)")]
    except OSError as err:
        return [warn("backups", f"cannot read {folder}: {err.strerror or err} (run as the bot's user)")]
    if not ours:
        return [warn("backups", f"no backup in {folder} yet (docs/deploy.md, section 5)")]
    newest = max(ours, key=lambda path: path.stat().st_mtime)
    age = now() - newest.stat().st_mtime
    findings = []
    text = f"the newest, {newest.name}, is {_age(age)} old ({len(ours)} in {folder})"
    findings.append(warn("backups", text + ": is the timer running? systemctl list-timers schnapsen-backup.timer")
                    if age > BACKUP_TOO_OLD else ok("backups", text))
    shared = [path.name for path in ours if path.stat().st_mode & 0o077]
    if shared:
        findings.append(warn("backups", f"{len(shared)} backup(s) readable by other users ({shared[0]} ...): "
                             f"chmod 600 {folder}/schnapsen-*"))
    return findings


def _age(seconds: float) -> str:
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def check_assets() -> list[Finding]:
    """The fonts every image is drawn with, and the card art of each deck."""
    from PIL import ImageFont

    from bot.render import _assets
    from bot.render.names import DECK_STYLES

    broken = []
    for path in (*_assets.FONT_FILES.values(), *_assets.FALLBACK_FONTS):
        try:
            ImageFont.truetype(str(path), 12)
        except OSError as err:
            broken.append(f"{path.name} ({err})")
    findings = [fail("fonts", "cannot load " + ", ".join(broken) + ": the checkout is incomplete (git status)")
                if broken else ok("fonts", f"{len(_assets.FONT_FILES) + len(_assets.FALLBACK_FONTS)} fonts load")]
    empty = [deck for deck in DECK_STYLES if not any((_assets.ASSETS / "cards" / deck).glob("*"))]
    findings.append(fail("card art", f"no card images for {', '.join(empty)}") if empty
                    else ok("card art", f"{len(DECK_STYLES)} decks present"))
    return findings


def check_ai() -> list[Finding]:
    """Whether the AI's search runs compiled (about 2.5x less CPU per deal) or as pure Python."""
    from engine.ai import knowledge, solver

    kinds = {"solver": solver.KIND, "world sampler": knowledge.KIND}
    pure = [name for name, kind in kinds.items() if kind != "compiled"]
    if pure:
        return [warn("AI", f"the {' and '.join(pure)} run(s) as pure Python (same moves, more CPU): install gcc and "
                     "python3-dev, then pip install -c constraints.txt -e . again")]
    return [ok("AI", "solver and world sampler compiled")]


# ---- running them ---------------------------------------------------------------------------------------


async def examine(
    *,
    env: dict[str, str] | None = None,
    dotenv: Path | None = Path(".env"),
    backups: Path = DEFAULT_BACKUPS,
    online: bool = True,
    report: Callable[[Finding], None] = lambda finding: None,
) -> list[Finding]:
    """Every check, each finding passed to `report` as it is made; the findings in order."""
    findings: list[Finding] = []

    def note(found: Iterable[Finding]) -> None:
        for finding in found:
            findings.append(finding)
            report(finding)

    settings, found = check_settings(env, dotenv)
    note(found)
    try:
        url = settings.database_path if settings is not None else database_path_from_env(env, dotenv=dotenv)
    except SettingsError as err:
        note([fail("database", str(err))])
        url = None
    schema = None
    if url is not None:
        schema, found = await check_database(url)
        note(found)
    note(check_backups(backups))
    note(check_assets())
    note(check_ai())
    if not online:
        return findings
    if settings is None:
        note([warn("Discord", "not checked: the settings above must be right first")])
        return findings
    from bot.doctor_discord import check_discord

    note(await check_discord(settings, schema if schema is not None and schema.current else None))
    return findings


def add_doctor_command(commands: Any) -> None:
    """`doctor` among `python -m bot`'s commands (an argparse subparsers object)."""
    doctor = commands.add_parser(
        "doctor", help="check the settings, the database, the install and Discord, one line each",
        description=(__doc__ or "").replace("``", ""), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    doctor.add_argument("--offline", action="store_true", help="skip the checks that ask Discord")
    doctor.add_argument(
        "--backups", type=Path, default=DEFAULT_BACKUPS, metavar="DIR",
        help=f"where python -m bot.backup writes (default {DEFAULT_BACKUPS})",
    )


def main(args: argparse.Namespace) -> int:
    def report(finding: Finding) -> None:
        print(finding.line(), flush=True)

    findings = asyncio.run(examine(backups=args.backups, online=not args.offline, report=report))
    text, status = verdict(findings)
    print(text)
    return status


if __name__ == "__main__":  # python -m bot.doctor is python -m bot doctor
    from bot.__main__ import main as bot_main

    sys.exit(bot_main(["doctor", *sys.argv[1:]]))
