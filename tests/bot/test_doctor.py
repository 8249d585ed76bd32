"""``python -m bot doctor``: one line per check and a verdict; against the fake Discord it names the permissions
the bot lacks in each channel that has a table, a tournament or the daily channel."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import discord
import pytest

from bot.doctor import Finding, check_backups, examine, verdict
from bot.doctor_discord import channel_permissions
from devtools.fakediscord import FakeDiscord
from devtools.fakediscord.state import DEFAULT_BOT_PERMISSIONS
from tests.bot.schnapsen.harness import Table

ROOT = Path(__file__).resolve().parents[2]
EMBED_AND_ATTACH = discord.Permissions(embed_links=True, attach_files=True).value


async def test_doctor_names_the_permissions_missing_in_each_channel(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    world = Table(fake_discord, tmp_path / "bot.sqlite3")
    daily = world.guild.add_text_channel("daily")
    world.channel.bot_permissions = DEFAULT_BOT_PERMISSIONS & ~EMBED_AND_ATTACH  # two permissions taken away
    bot = await world.start_bot()
    try:
        await world.command(world.admin, "new")  # a table in #schnapsen
        await bot.db.daily.set_channel(world.guild.id, daily.id, int(time.time()))
        backups = tmp_path / "backups"
        backups.mkdir()
        (backups / "schnapsen-20260101-041500.sqlite3").write_bytes(b"")
        os.chmod(backups / "schnapsen-20260101-041500.sqlite3", 0o600)
        two_days_ago = time.time() - 2 * 86400
        os.utime(backups / "schnapsen-20260101-041500.sqlite3", (two_days_ago, two_days_ago))

        lines: list[str] = []
        findings = await examine(
            env={"DISCORD_TOKEN": fake_discord.token, "DATABASE_PATH": str(world.db_path)}, dotenv=None,
            backups=backups, report=lambda finding: lines.append(finding.line()),
        )
    finally:
        await world.stop_bot()
    text, status = verdict(findings)
    print("\n".join([*lines, text]))  # what an admin sees (pytest -s)
    server = f"server Wirtshaus ({world.guild.id})"
    assert f"FAIL  {server}: #schnapsen: missing Embed Links, Attach Files (a table)" in lines
    assert f"ok    {server}: #daily: every permission the bot needs" in lines
    assert "ok    commands: /schnapsen (" in "\n".join(lines) and "registered globally" in "\n".join(lines)
    assert any(line.startswith("ok    token: logged in as Schnapsbot") for line in lines)
    assert any(line.startswith("ok    database: schema version ") for line in lines)
    assert any(line.startswith("warn  backups: the newest, schnapsen-20260101-041500.sqlite3, is ") for line in lines)
    assert status == 1 and text.startswith("doctor: 1 check(s) failed")


async def test_doctor_finds_a_stale_copy_of_the_commands_and_a_server_the_bot_left(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    world = Table(fake_discord, tmp_path / "bot.sqlite3")
    await world.start_bot()
    await world.command(world.admin, "new")
    await world.stop_bot()  # the commands are global now
    dev = fake_discord.add_guild("Dev", owner=world.admin)
    fake_discord.commands[dev.id] = list(fake_discord.commands[None])  # as if synced there once too
    del fake_discord.guilds[world.guild.id]  # the bot was removed from the server with the table
    env = {"DISCORD_TOKEN": fake_discord.token, "DATABASE_PATH": str(world.db_path), "DEV_GUILD_ID": str(dev.id)}
    lines = [finding.line() for finding in await examine(env=env, dotenv=None, backups=tmp_path)]
    assert "FAIL  commands: a stale copy of /schnapsen is registered globally: people there see it twice; " \
           "python -m bot --sync removes it" in lines
    assert f"warn  server {world.guild.id}: the bot is no longer in it (a table left there in the database)" in lines


async def test_doctor_offline_fails_a_bad_setting_and_a_schema_newer_than_the_code(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "bot.sqlite3") as db:
        db.execute("PRAGMA user_version = 999")
    db.close()
    findings = await examine(env={"DISCORD_TOKEN": "", "DATABASE_PATH": str(tmp_path / "bot.sqlite3")}, dotenv=None,
                             backups=tmp_path / "none", online=False)
    failed = [f.text for f in findings if f.verdict == "fail"]
    assert failed[0].startswith("DISCORD_TOKEN is not set")
    assert failed[1].startswith("schema version 999 is newer than this code knows")
    assert verdict(findings)[1] == 1


async def test_doctor_says_when_discord_cannot_be_reached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    findings = await examine(env={"DISCORD_TOKEN": "MTIz.Ga.b-c", "DATABASE_PATH": str(tmp_path / "bot.sqlite3")},
                             dotenv=None, backups=tmp_path)
    assert findings[-1].verdict == "fail" and findings[-1].text.startswith("cannot reach Discord (")


def test_python_m_bot_doctor_runs_offline_and_says_what_it_checked(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "doctor", "--offline", "--backups", str(tmp_path)], cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "MTIz.Ga.b-c"},
        capture_output=True, text=True, timeout=120, check=False,
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[0].startswith("ok    settings: DISCORD_TOKEN set; database schnapsen.sqlite3; LOG_LEVEL INFO")
    assert f"warn  database: no SQLite database at {tmp_path / 'schnapsen.sqlite3'} yet" in done.stdout
    assert any(line.startswith(("ok    AI: ", "warn  AI: ")) for line in lines)
    assert lines[-1].startswith("doctor: no check failed; ")
    assert not (tmp_path / "schnapsen.sqlite3").exists()  # the doctor creates nothing


def test_backups_older_than_a_day_and_a_half_are_a_warning(tmp_path: Path) -> None:
    backup = tmp_path / "schnapsen-20260101-041500.dump"
    backup.write_bytes(b"x")
    backup.chmod(0o644)
    found = check_backups(tmp_path, now=lambda: backup.stat().st_mtime + 3600)
    assert found[0] == Finding("ok", "backups", f"the newest, {backup.name}, is 60 min old (1 in {tmp_path})")
    assert found[1].verdict == "warn" and "readable by other users" in found[1].text
    assert check_backups(tmp_path, now=lambda: backup.stat().st_mtime + 40 * 3600)[0].verdict == "warn"


def test_channel_permissions_follow_discords_order() -> None:
    guild = {"id": "1", "owner_id": "9", "roles": [
        {"id": "1", "permissions": str(discord.Permissions(view_channel=True, send_messages=True).value)},
        {"id": "5", "permissions": str(discord.Permissions(attach_files=True, embed_links=True).value)},
    ]}
    member = {"roles": ["5"]}
    everyone_cannot_send = {"type": 0, "id": "1", "allow": "0", "deny": str(discord.Permissions(send_messages=True).value)}
    role_may_send = {"type": 0, "id": "5", "allow": str(discord.Permissions(send_messages=True).value), "deny": "0"}
    member_cannot_see = {"type": 1, "id": "7", "allow": "0", "deny": str(discord.Permissions(view_channel=True).value)}
    granted = discord.Permissions(channel_permissions(guild=guild, member=member, user_id=7,
                                                      channel={"permission_overwrites": [everyone_cannot_send]}))
    assert not granted.send_messages and not granted.attach_files  # no sending: no files either
    granted = discord.Permissions(channel_permissions(guild=guild, member=member, user_id=7, channel={
        "permission_overwrites": [everyone_cannot_send, role_may_send]}))
    assert granted.send_messages and granted.attach_files  # the role's allow beats @everyone's deny
    assert channel_permissions(guild=guild, member=member, user_id=7, channel={
        "permission_overwrites": [role_may_send, member_cannot_see]}) == 0
    assert channel_permissions(guild=guild, member=member, user_id=9, channel={}) == discord.Permissions.all().value
