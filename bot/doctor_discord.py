"""The doctor's questions to Discord (``python -m bot doctor``; bot/doctor.py runs them after the offline ones).

It logs in over REST only (no gateway session: a running bot keeps its own, and no click goes astray), checks
the token and the application, the slash commands (where they are registered, and copies left elsewhere that
would show each command twice), and for every server with something of the bot's in a channel (an open table,
a tournament, the daily channel) whether the bot may do there what it needs to, naming what is missing and
where. A channel's permissions are computed as Discord does (``channel_permissions``) from the server's roles,
the bot's roles and the channel's overwrites (a thread has its parent channel's).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.doctor import Finding, SchemaState, fail, ok, warn
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.db import Database

ADMINISTRATOR = discord.Permissions(administrator=True).value
ALL_PERMISSIONS = discord.Permissions.all().value
# What the bot does in a channel, by what it has there, with the names Discord's settings show.
NAMES = {
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
    "create_public_threads": "Create Public Threads",
    "send_messages_in_threads": "Send Messages in Threads",
}
TABLE = ("view_channel", "send_messages", "embed_links", "attach_files", "read_message_history")
THREADS = ("create_public_threads", "send_messages_in_threads")
IN_THREAD = ("view_channel", "send_messages_in_threads", "embed_links", "attach_files", "read_message_history")
DAILY = ("view_channel", "send_messages", "embed_links", "attach_files")
COMMAND = "schnapsen"


@dataclass
class ChannelUse:
    """What the bot keeps in one channel of a server, and so which permissions it needs there."""

    uses: list[str] = field(default_factory=list)
    needs: set[str] = field(default_factory=set)

    def add(self, use: str, needs: Iterable[str]) -> None:
        if use not in self.uses:
            self.uses.append(use)
        self.needs.update(needs)


def channel_permissions(
    *, guild: Mapping[str, Any], member: Mapping[str, Any], channel: Mapping[str, Any], user_id: int
) -> int:
    """The member's permissions in the channel (raw API objects), as Discord computes them: the @everyone role
    and the member's roles, then the channel's overwrites for @everyone, the member's roles and the member.
    Without View Channels nothing is allowed; without Send Messages no embeds or files either."""
    guild_id = int(guild["id"])
    if int(guild.get("owner_id") or 0) == user_id:
        return ALL_PERMISSIONS
    roles = {int(role["id"]): int(role["permissions"]) for role in guild.get("roles", [])}
    member_roles = {int(role) for role in member.get("roles", [])}
    value = roles.get(guild_id, 0)
    for role in member_roles:
        value |= roles.get(role, 0)
    if value & ADMINISTRATOR:
        return ALL_PERMISSIONS
    overwrites = {(int(o["type"]), int(o["id"])): (int(o["allow"]), int(o["deny"]))
                  for o in channel.get("permission_overwrites") or []}
    allow, deny = overwrites.get((0, guild_id), (0, 0))
    value = (value & ~deny) | allow
    allow = deny = 0
    for role in member_roles:
        role_allow, role_deny = overwrites.get((0, role), (0, 0))
        allow, deny = allow | role_allow, deny | role_deny
    value = (value & ~deny) | allow
    allow, deny = overwrites.get((1, user_id), (0, 0))
    value = (value & ~deny) | allow
    granted = discord.Permissions(value)
    if not granted.view_channel:
        return 0
    if not granted.send_messages:
        granted.embed_links = granted.attach_files = granted.send_tts_messages = granted.mention_everyone = False
    return granted.value


def missing(permissions: int, needs: Iterable[str]) -> list[str]:
    granted = discord.Permissions(permissions)
    return [NAMES[name] for name in NAMES if name in needs and not getattr(granted, name)]


async def channels_in_use(db: Database) -> dict[int, dict[int, ChannelUse]]:
    """Server -> channel -> what the bot keeps there: open tables (a table in a thread needs its parent
    channel), open tournaments, the daily channel; a server with tables in threads needs threads wherever it
    has tables. Daily attempts live in people's DMs and are left out."""
    attempts = {table_id for table_id, _, _ in await db.daily.open_attempt_tables()}
    servers: dict[int, dict[int, ChannelUse]] = defaultdict(lambda: defaultdict(ChannelUse))
    for table in await db.tables.list_open_tables():
        if table.id in attempts or not table.guild_id:
            continue
        if table.thread_parent_id:
            servers[table.guild_id][table.thread_parent_id].add("a table in a thread", IN_THREAD)
        else:
            servers[table.guild_id][table.channel_id].add("a table", TABLE)
    for tournament in await db.tournaments.open_tournaments():
        servers[tournament.guild_id][tournament.channel_id].add("a tournament", (*TABLE, *THREADS))
    for guild_id, channel_id in await db.daily.channels():
        servers[guild_id][channel_id].add("the daily channel", DAILY)
    for guild_id, channels in servers.items():
        if (await db.settings.get_guild_settings(guild_id)).table_threads:
            for use in channels.values():
                if "a table" in use.uses or "a table in a thread" in use.uses:
                    use.add("tables in threads (server setting)", THREADS)
    return servers


async def check_discord(settings: Settings, schema: SchemaState | None) -> list[Finding]:
    """Log in over REST and ask Discord; `schema` is the database when its schema is this code's own (else the
    per-server checks are skipped: the bot's code may not read it)."""
    client = discord.Client(intents=discord.Intents(guilds=True))  # REST only: it never connects
    try:
        try:
            await client.login(settings.token)
        except discord.LoginFailure:
            return [fail("token", "Discord refuses DISCORD_TOKEN (mistyped, or reset since): put the bot's current "
                         "token in .env (Developer Portal > Bot > Reset Token)")]
        except (discord.DiscordServerError, aiohttp.ClientError, OSError, TimeoutError) as err:
            return [fail("Discord", f"cannot reach Discord ({type(err).__name__}: {err}); the online checks need it "
                         "(--offline skips them)")]
        findings = [ok("token", f"logged in as {client.user} (id {client.user.id if client.user else '?'})")]
        findings += application_findings(client.application)
        stored = await _stored(schema)
        findings += await command_findings(client, settings, stored.previous_scope)
        if stored.servers is None:
            findings.append(warn("servers", "not checked: the database must be this version's own (see above)"))
        else:
            findings += await server_findings(client, stored.servers)
        return findings
    finally:
        await client.close()


@dataclass(frozen=True, slots=True)
class Stored:
    """What the online checks need from the database (None when it could not be read)."""

    previous_scope: str | None = None
    servers: dict[int, dict[int, ChannelUse]] | None = None


async def _stored(schema: SchemaState | None) -> Stored:
    if schema is None:
        return Stored()
    from bot.client import COMMAND_SCOPE_KEY
    from bot.db import Database

    db = await Database.open(schema.url)
    try:
        return Stored(await db.meta.get(COMMAND_SCOPE_KEY), await channels_in_use(db))
    finally:
        await db.close()


def application_findings(application: discord.AppInfo | None) -> list[Finding]:
    if application is None:
        return [warn("application", "Discord sent no application")]
    findings = [ok("application", f"{application.name} (id {application.id})")]
    if application.interactions_endpoint_url:
        findings.append(fail("application", f"an Interactions Endpoint URL is set "
                             f"({application.interactions_endpoint_url}): Discord sends every command and click "
                             "there, never to the bot; clear it (Developer Portal > General Information)"))
    if application.bot_require_code_grant:
        findings.append(warn("application", "Requires OAuth2 Code Grant is on: inviting the bot fails; switch it off "
                             "(Developer Portal > Bot)"))
    # The bot asks for the Guilds intent alone (bot/client.py), which is not privileged.
    findings.append(ok("intents", "the bot needs Guilds only, not a privileged intent: nothing to switch on"))
    return findings


async def command_findings(client: discord.Client, settings: Settings, previous: str | None) -> list[Finding]:
    """/schnapsen registered where the bot syncs it (DEV_GUILD_ID's server, else globally), and nowhere else
    the bot knows of (`previous`: the server it was synced to before)."""
    app_id = client.application_id
    assert app_id is not None  # known once logged in
    dev = settings.dev_guild_id
    places: dict[str, int | None] = {"globally": None}
    if dev:
        places[f"in server {dev}"] = dev
    if previous and previous.isdigit() and int(previous) != dev:
        places[f"in server {previous}"] = int(previous)
    registered: dict[str, dict[str, Any] | None] = {}
    for where, guild_id in places.items():
        try:
            commands = await (client.http.get_global_commands(app_id) if guild_id is None
                              else client.http.get_guild_commands(app_id, guild_id))
        except discord.HTTPException as err:
            registered[where] = None
            if guild_id == dev:
                return [fail("commands", f"cannot read the commands {where} ({err.status}): is the bot in that "
                             "server (DEV_GUILD_ID)?")]
            continue
        registered[where] = next((dict(c) for c in commands if c.get("name") == COMMAND), None)
    home = f"in server {dev}" if dev else "globally"
    findings = []
    command = registered.get(home)
    if command is None:
        findings.append(fail("commands", f"/{COMMAND} is not registered {home}: start the bot (it syncs them), or "
                             "python -m bot --sync"))
    else:
        parts = len(command.get("options") or [])
        findings.append(ok("commands", f"/{COMMAND} ({parts} subcommands and groups) registered {home}"))
    for where, stale in registered.items():
        if where != home and stale is not None:
            findings.append(fail("commands", f"a stale copy of /{COMMAND} is registered {where}: people there see "
                                 f"it twice; python -m bot --sync removes it"))
    return findings


async def server_findings(client: discord.Client, servers: Mapping[int, Mapping[int, ChannelUse]]) -> list[Finding]:
    if not servers:
        return [ok("servers", "no server has an open table, a tournament or a daily channel: nothing to check")]
    assert client.user is not None
    findings = []
    for guild_id in sorted(servers):
        findings += await one_server(client, guild_id, servers[guild_id], client.user.id)
    return findings


async def one_server(client: discord.Client, guild_id: int, channels: Mapping[int, ChannelUse],
                     bot_id: int) -> list[Finding]:
    try:
        guild = await client.http.get_guild(guild_id)
        member = await client.http.get_member(guild_id, bot_id)
    except (discord.Forbidden, discord.NotFound):
        uses = sorted({use for channel in channels.values() for use in channel.uses})
        return [warn(f"server {guild_id}", f"the bot is no longer in it ({', '.join(uses)} left there in the "
                     "database)")]
    topic = f"server {guild['name']} ({guild_id})"
    findings, fine = [], []
    for channel_id, use in sorted(channels.items()):
        try:
            channel = await client.http.get_channel(channel_id)
        except discord.NotFound:
            findings.append(warn(topic, f"channel {channel_id} is gone ({', '.join(use.uses)} there)"))
            continue
        except discord.Forbidden:
            findings.append(fail(topic, f"channel {channel_id}: missing View Channels ({', '.join(use.uses)})"))
            continue
        permissions = channel_permissions(guild=guild, member=member, channel=channel, user_id=bot_id)
        lacking = missing(permissions, use.needs)
        if lacking:
            findings.append(fail(topic, f"#{channel.get('name', channel_id)}: missing {', '.join(lacking)} "
                                 f"({', '.join(use.uses)})"))
        else:
            fine.append(f"#{channel.get('name', channel_id)}")
    if fine:
        findings.append(ok(topic, f"{', '.join(fine)}: every permission the bot needs"))
    return findings
