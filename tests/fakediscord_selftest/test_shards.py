"""The fake Discord's shards, as Discord has them: IDENTIFY carries [shard_id, shard_count], a guild's events go
only to the session of the shard that owns it ((guild_id >> 22) % count), DM events only to shard 0, and
several sessions (one per shard, from one client or several) are connected at once."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from devtools.fakediscord import FakeDiscord, FakeGuild, FakeUser


class ShardedDemo(discord.AutoShardedClient):
    """Answers ``/where`` with the shard ids it holds and the shard the interaction's guild is on."""

    def __init__(self, shard_count: int | None = None, shard_ids: list[int] | None = None) -> None:
        super().__init__(intents=discord.Intents.default(), shard_count=shard_count, shard_ids=shard_ids)
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="where", description="Which process answers")
        async def where(interaction: discord.Interaction) -> None:
            held = ",".join(str(shard) for shard in sorted(self.shards))
            await interaction.response.send_message(f"held {held}", ephemeral=True)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py waits 5 s between two shards' IDENTIFYs; the fake does not limit them


def guild_on(fake: FakeDiscord, shard: int, count: int, user: FakeUser) -> FakeGuild:
    guild = fake.add_guild(f"on shard {shard}", shard=(shard, count))
    guild.add_member(user)
    assert (guild.id >> 22) % count == shard
    return guild


async def where(fake: FakeDiscord, user: FakeUser, channel: object) -> str:
    command = await fake.slash(user, channel, "where")  # type: ignore[arg-type]
    return (await command.wait_original()).content


async def test_one_client_on_every_recommended_shard_sees_every_guild(fake_discord: FakeDiscord) -> None:
    fake_discord.recommended_shards = 2
    user = fake_discord.add_user("alice")
    guilds = [guild_on(fake_discord, shard, 2, user) for shard in (0, 1)]

    client = await fake_discord.start_client(ShardedDemo())  # no count: GET /gateway/bot says 2

    assert sorted(tuple(identify["shard"]) for identify in fake_discord.identifies) == [(0, 2), (1, 2)]
    assert client.shard_count == 2 and {guild.id for guild in client.guilds} == {g.id for g in guilds}
    for shard, guild in enumerate(guilds):
        session = fake_discord.session_for(guild.id)
        assert session is not None and session.shard == (shard, 2)
        assert await where(fake_discord, user, guild.add_text_channel("t")) == "held 0,1"
    assert len(fake_discord.live_sessions) == 2


async def test_two_clients_each_get_only_their_shards_guilds_and_dms_go_to_shard_zero(
    fake_discord: FakeDiscord,
) -> None:
    user = fake_discord.add_user("alice")
    on_zero, on_one = guild_on(fake_discord, 0, 2, user), guild_on(fake_discord, 1, 2, user)
    first = await fake_discord.start_client(ShardedDemo(2, [0]))
    second = await fake_discord.start_client(ShardedDemo(2, [1]))

    assert [guild.id for guild in first.guilds] == [on_zero.id]
    assert [guild.id for guild in second.guilds] == [on_one.id]
    ready_guilds = {
        tuple(session.shard): [frame for _, frame in session.backlog if '"t": "GUILD_CREATE"' in frame]
        for session in fake_discord.live_sessions
    }
    assert all(len(frames) == 1 for frames in ready_guilds.values())
    # A guild's interactions go to its shard's session; a DM's to shard 0's.
    assert await where(fake_discord, user, on_one.add_text_channel("t")) == "held 1"
    assert await where(fake_discord, user, on_zero.add_text_channel("t")) == "held 0"
    assert await where(fake_discord, user, fake_discord.open_dm(user)) == "held 0"
    # A guild that joins later is announced on its shard only.
    late = guild_on(fake_discord, 1, 2, user)
    await fake_discord.announce_guild(late)
    # Events of one session arrive in order: once its command is answered, its GUILD_CREATE was read.
    assert await where(fake_discord, user, late.add_text_channel("t")) == "held 1"
    assert second.get_guild(late.id) is not None
    assert first.get_guild(late.id) is None


async def test_a_shard_nobody_holds_gets_no_events(fake_discord: FakeDiscord) -> None:
    user = fake_discord.add_user("alice")
    on_one = guild_on(fake_discord, 1, 2, user)
    await fake_discord.start_client(ShardedDemo(2, [0]))

    with pytest.raises(RuntimeError, match="no bot session of the shard"):
        await fake_discord.slash(user, on_one.add_text_channel("t"), "where")
