"""Running a real discord.py client against the fake: log in, connect, wait for ready, close."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import discord

from devtools.fakediscord.state import WAIT_SECONDS

if TYPE_CHECKING:
    from devtools.fakediscord.server import FakeDiscord


async def start_client(fake: FakeDiscord, client: discord.Client, *,
                       timeout: float = WAIT_SECONDS) -> discord.Client:
    if fake.api_base != discord.http.Route.BASE:
        raise RuntimeError("discord.py is not redirected to this fake; use `with fake.redirect():` "
                           "or the fake_discord fixture")
    if client in fake._client_tasks:
        raise RuntimeError("this client is already running on the fake")
    # Without this discord.py waits two seconds after the last GUILD_CREATE before it is ready.
    client._connection.guild_ready_timeout = fake.guild_ready_timeout
    try:
        await asyncio.wait_for(client.login(fake.token), timeout)
    except BaseException:
        await client.close()
        raise
    connection = asyncio.create_task(client.connect(reconnect=True), name=f"discord client {client.user}")
    fake._client_tasks[client] = connection
    ready = asyncio.create_task(client.wait_until_ready())
    done, _ = await asyncio.wait({connection, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if ready in done:
        await _wait_for_guilds(fake, client, timeout)
        return client
    ready.cancel()
    await stop_client(fake, client, timeout=timeout)
    if connection in done and connection.exception() is not None:
        raise RuntimeError("the client stopped before it was ready") from connection.exception()
    raise TimeoutError(f"the client was not ready after {timeout} s")


async def _wait_for_guilds(fake: FakeDiscord, client: discord.Client, timeout: float) -> None:
    """On a loaded machine a GUILD_CREATE can miss discord.py's short ready window and arrive just after
    ``ready`` as a guild join; wait for those so a started client always knows every guild."""
    missing = {guild_id for guild_id in fake.guilds if held_by(client, guild_id) and client.get_guild(guild_id) is None}
    if missing:
        joins = [client.wait_for("guild_join", check=lambda guild, wanted=guild_id: guild.id == wanted)
                 for guild_id in missing]
        await asyncio.wait_for(asyncio.gather(*joins), timeout)


def held_by(client: discord.Client, guild_id: int) -> bool:
    """Whether the client holds the guild's shard (an unsharded client holds every guild)."""
    count = client.shard_count or 1
    shard_ids = getattr(client, "shard_ids", None) or range(count)
    return (guild_id >> 22) % count in shard_ids


async def stop_client(fake: FakeDiscord, client: discord.Client, *, timeout: float = WAIT_SECONDS) -> None:
    """Close the client like a process shutting down; a restart test then starts a NEW client instance."""
    connection = fake._client_tasks.pop(client, None)
    await asyncio.wait_for(client.close(), timeout)
    if connection is not None:
        await asyncio.wait_for(connection, timeout)
