"""The fake Discord, exercised by a tiny throw-away bot running on the real discord.py client."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from PIL import Image

from devtools.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser

MANAGE_GUILD = discord.Permissions(manage_guild=True).value


def png_bytes(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, "PNG")
    return buffer.getvalue()


class SeatButton(discord.ui.DynamicItem[discord.ui.Button], template=r"demo:seat:(?P<table>[0-9]+)"):
    def __init__(self, table: int) -> None:
        super().__init__(discord.ui.Button(label="Take a seat", style=discord.ButtonStyle.primary,
                                           custom_id=f"demo:seat:{table}"))
        self.table = table

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: Any) -> SeatButton:
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        where = "dm" if interaction.guild is None else "guild"
        await interaction.response.edit_message(
            content=f"Table {self.table}: {interaction.user.name} sat down ({where})", view=seat_view(self.table))


def seat_view(table: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SeatButton(table))
    return view


class DemoBot(discord.Client):
    """Just enough bot to drive every feature of the fake."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.waiting = asyncio.Event()
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(self.demo_group())

    async def setup_hook(self) -> None:
        self.add_dynamic_items(SeatButton)
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py waits 5 s before re-identifying; a test of session invalidation cannot afford that.
        return None

    def demo_group(self) -> app_commands.Group:
        group = app_commands.Group(name="demo", description="Demo commands")

        @group.command(name="new", description="Open a table")
        @app_commands.choices(preset=[app_commands.Choice(name="Standard", value="standard"),
                                      app_commands.Choice(name="Fast", value="fast")])
        async def new(interaction: discord.Interaction, preset: str, table: int = 1) -> None:
            await interaction.response.send_message(f"Table {table} ({preset})", view=seat_view(table))

        @group.command(name="whoami", description="Show what the interaction carries")
        async def whoami(interaction: discord.Interaction) -> None:
            guild_locale = interaction.guild_locale.value if interaction.guild_locale else "none"
            await interaction.response.send_message(
                f"{interaction.locale.value}|{guild_locale}|manage={interaction.permissions.manage_guild}"
                f"|send={interaction.app_permissions.send_messages}", ephemeral=True)

        @group.command(name="dm", description="DM someone a seat button")
        async def dm(interaction: discord.Interaction, target: discord.User) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            try:
                await target.send("Your seat", view=seat_view(7))
            except discord.Forbidden as error:
                await interaction.followup.send(f"forbidden {error.code}", ephemeral=True)
            else:
                await interaction.followup.send("sent", ephemeral=True)

        @group.command(name="slow", description="Defer, then two followups")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.followup.send("done", ephemeral=True)
            await interaction.followup.send("extra", ephemeral=True)

        @group.command(name="post", description="Post in the channel, then edit the post")
        async def post(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("posting", ephemeral=True)
            message = await interaction.channel.send("first")
            await message.edit(content="edited")
            await interaction.edit_original_response(content="posted")

        @group.command(name="files", description="Attachments on send and on edits")
        async def files(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                "your hand", file=discord.File(io.BytesIO(png_bytes(4, 3)), "hand.png"), ephemeral=True)
            message = await interaction.channel.send("card", file=discord.File(io.BytesIO(b"first"), "a.txt"))
            message = await message.edit(
                attachments=[message.attachments[0], discord.File(io.BytesIO(b"second"), "b.txt")])
            first_bytes = await message.attachments[0].read()
            await message.edit(attachments=[discord.File(io.BytesIO(b"third"), "c.txt")])
            await interaction.followup.send(f"read {first_bytes.decode()}", ephemeral=True)

        @group.command(name="burst", description="Edit one post three times at once")
        async def burst(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            message = await interaction.channel.send("0")
            for number in range(1, 4):
                await message.edit(content=str(number))
            await interaction.followup.send("burst done", ephemeral=True)

        @group.command(name="twice", description="Post the same message twice with one nonce")
        async def twice(interaction: discord.Interaction, nonce: str) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            first = await interaction.channel.send("result", nonce=nonce)
            second = await interaction.channel.send("result again", nonce=nonce)
            other = await interaction.channel.send("other", nonce=nonce + "x")
            await interaction.followup.send(
                f"{first.id == second.id} {first.id != other.id} {first.nonce}", ephemeral=True)

        @group.command(name="edit_dm", description="DM someone, wait, then edit that DM")
        async def edit_dm(interaction: discord.Interaction, target: discord.User) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            message = await target.send("hand 1")
            await self.waiting.wait()
            outcomes = []
            for text in ("hand 2", "new hand"):
                try:
                    if text == "hand 2":
                        await message.edit(content=text)
                    else:
                        await target.send(text)
                    outcomes.append("ok")
                except discord.Forbidden as error:
                    outcomes.append(str(error.code))
            await interaction.followup.send(" ".join(outcomes), ephemeral=True)

        @group.command(name="thread", description="Open a public thread here and post in it")
        async def thread(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            assert isinstance(interaction.channel, discord.TextChannel)
            try:
                made = await interaction.channel.create_thread(
                    name="table 3", type=discord.ChannelType.public_thread, auto_archive_duration=1440)
            except discord.Forbidden as error:
                await interaction.followup.send(f"forbidden {error.code}", ephemeral=True)
                return
            await made.send("in the thread", view=seat_view(3))
            cached = interaction.guild is not None and interaction.guild.get_thread(made.id) is not None
            await interaction.followup.send(f"made {made.parent_id} {made.type.value} {cached}", ephemeral=True)

        @group.command(name="where", description="Say where the interaction comes from")
        async def where(interaction: discord.Interaction) -> None:
            channel = interaction.channel
            await interaction.response.send_message(
                f"{type(channel).__name__} {getattr(channel, 'parent_id', None)}", ephemeral=True)

        @group.command(name="toolong", description="Break Discord's content limit")
        async def toolong(interaction: discord.Interaction) -> None:
            try:
                await interaction.response.send_message("x" * 2001)
            except discord.HTTPException as error:
                await interaction.response.send_message(f"rejected {error.status} {error.code}", ephemeral=True)

        return group


@dataclass
class World:
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser


@pytest.fixture
def world(fake_discord: FakeDiscord) -> World:
    alice = fake_discord.add_user("alice", locale="de")
    bob = fake_discord.add_user("bob")
    carol = fake_discord.add_user("carol", dms_open=False)
    guild = fake_discord.add_guild("Wirtshaus", preferred_locale="de")
    channel = guild.add_text_channel("schnapsen")
    guild.add_member(alice, permissions=MANAGE_GUILD)
    guild.add_member(bob)
    guild.add_member(carol)
    return World(guild, channel, alice, bob, carol)


@pytest.fixture
async def bot(fake_discord: FakeDiscord, world: World) -> DemoBot:
    return await fake_discord.start_client(DemoBot())


async def test_login_ready_and_command_sync(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    assert bot.is_ready()
    assert bot.user is not None and bot.user.id == fake_discord.bot_user.id
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.get_channel(world.channel.id) is not None
    # Without the members intent only the bot's own member arrives with GUILD_CREATE.
    assert [m.id for m in guild.members] == [fake_discord.bot_user.id]
    assert len(fake_discord.command_syncs) == 1
    assert [c["name"] for c in fake_discord.commands[None]] == ["demo"]
    assert fake_discord.identifies[0]["intents"] == discord.Intents.default().value


async def test_slash_answers_with_dynamic_button_and_click_edits(
        fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    command = await fake_discord.slash(world.alice, world.channel, "demo", "new", preset="standard", table=3)
    response = await command.wait_response()

    table = command.original
    assert response.type == 4 and not command.ephemeral
    assert world.channel.messages == [table]
    assert table.content == "Table 3 (standard)"
    assert table.button("Take a seat")["custom_id"] == "demo:seat:3"

    click = await fake_discord.click(world.bob, table, label="Take a seat")
    assert (await click.wait_response()).type == 7
    assert table.content == "Table 3: bob sat down (guild)"
    assert [version.content for version in table.history] == ["Table 3 (standard)", table.content]
    assert click.messages == [table]
    assert table.visible_text == "Table 3: bob sat down (guild)\nTake a seat"


async def test_slash_rejects_what_discord_would_not_send(fake_discord: FakeDiscord, world: World,
                                                         bot: DemoBot) -> None:
    with pytest.raises(ValueError, match="must be one of"):
        await fake_discord.slash(world.alice, world.channel, "demo", "new", preset="turbo")
    with pytest.raises(LookupError, match="no subcommand"):
        await fake_discord.slash(world.alice, world.channel, "demo", "nonsense")


async def test_interaction_carries_locale_and_permissions(fake_discord: FakeDiscord, world: World,
                                                          bot: DemoBot) -> None:
    by_manager = await fake_discord.slash(world.alice, world.channel, "demo", "whoami")
    by_player = await fake_discord.slash(world.bob, world.channel, "demo", "whoami", locale="en-GB")

    assert (await by_manager.wait_original()).content == "de|de|manage=True|send=True"
    assert (await by_player.wait_original()).content == "en-GB|de|manage=False|send=True"
    assert by_manager.ephemeral and world.channel.messages == []
    assert fake_discord.ephemeral_messages(world.bob) == [by_player.original]


async def test_dm_with_button_clicked_in_dm_context(fake_discord: FakeDiscord, world: World,
                                                    bot: DemoBot) -> None:
    command = await fake_discord.slash(world.alice, world.channel, "demo", "dm", target=world.bob)
    assert (await command.wait_original()).content == "sent"

    [dm] = fake_discord.dm_messages(world.bob)
    assert dm.content == "Your seat"
    click = await fake_discord.click(world.bob, dm, "demo:seat:7")
    await click.wait_response()
    assert dm.content == "Table 7: bob sat down (dm)"
    with pytest.raises(PermissionError):
        await fake_discord.click(world.alice, dm, "demo:seat:7")


async def test_dm_to_user_with_closed_dms_is_forbidden_50007(fake_discord: FakeDiscord, world: World,
                                                            bot: DemoBot) -> None:
    command = await fake_discord.slash(world.alice, world.channel, "demo", "dm", target=world.carol)

    answer = await command.wait_original()
    assert answer.content == "forbidden 50007" and answer.ephemeral
    assert fake_discord.dm_messages(world.carol) == []
    assert [r.status for r in fake_discord.requests_to("POST", "/channels/*/messages")] == [403]


async def test_deferred_then_followups_respect_ephemeral(fake_discord: FakeDiscord, world: World,
                                                         bot: DemoBot) -> None:
    command = await fake_discord.slash(world.bob, world.channel, "demo", "slow")

    response = await command.wait_response()
    done, extra = await command.wait_followups(2)
    assert response.type == 5 and response.ephemeral
    # The first followup after a deferral replaces the "thinking" message, as Discord does.
    assert done is command.original and done.content == "done" and not done.loading
    assert extra is not done and extra.content == "extra" and extra.ephemeral
    assert world.channel.messages == []


async def test_429_on_edits_is_retried_by_discord_py(fake_discord: FakeDiscord, world: World,
                                                     bot: DemoBot) -> None:
    channel_edit = fake_discord.fail_next("PATCH", "/channels/*/messages/*", retry_after=0.05)
    webhook_edit = fake_discord.fail_next("PATCH", "/webhooks/*/*/messages/@original", retry_after=0.05)

    command = await fake_discord.slash(world.bob, world.channel, "demo", "post")
    await fake_discord.wait_for(lambda: command.original is not None and command.original.content == "posted")

    [post] = world.channel.messages
    assert post.content == "edited"
    assert channel_edit.fired == 1 and webhook_edit.fired == 1
    assert [r.status for r in fake_discord.requests_to("PATCH", "/channels/*/messages/*")] == [429, 200]
    assert fake_discord.hit_count("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}") == 2


async def test_attachments_on_callback_send_and_edits(fake_discord: FakeDiscord, world: World,
                                                      bot: DemoBot) -> None:
    command = await fake_discord.slash(world.bob, world.channel, "demo", "files")
    [followup] = await command.wait_followups(1)

    hand = command.original
    assert hand.ephemeral and hand.filenames == ["hand.png"]
    assert hand.payload()["attachments"][0]["width"] == 4
    assert command.response.files[0][0] == "hand.png"
    assert followup.content == "read first"
    [card] = world.channel.messages
    assert [v.filenames for v in card.history] == [["a.txt"], ["a.txt", "b.txt"], ["c.txt"]]
    assert card.attachment("c.txt").data == b"third"


async def test_limits_are_enforced_like_discord(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    command = await fake_discord.slash(world.bob, world.channel, "demo", "toolong")
    assert (await command.wait_original()).content == "rejected 400 50035"
    assert [v.split(": ", 1)[1] for v in fake_discord.take_spec_violations()] == [
        "body.data.content: " + "'" + "x" * 99 + " ... " + "x" * 87 + "' is too long"]


async def test_late_answer_is_refused(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    fake_discord.interaction_deadline = 0.0
    command = await fake_discord.slash(world.bob, world.channel, "demo", "whoami")
    await fake_discord.wait_for(lambda: command.rejected_callbacks)
    assert command.response is None
    assert [r.status for r in fake_discord.requests_to("POST", "/interactions/*/*/callback")] == [404]
    with pytest.raises(AssertionError, match=r"1 callback\(s\) refused \(answered already, or later than Discord's 0 s\)"):
        await command.wait_response(timeout=0.01)  # a test that waits in vain is told why


async def test_simultaneous_clicks_both_arrive(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    command = await fake_discord.slash(world.alice, world.channel, "demo", "new", preset="fast")
    table = await command.wait_original()

    clicks = await asyncio.gather(fake_discord.click(world.alice, table, "demo:seat:1"),
                                  fake_discord.click(world.bob, table, "demo:seat:1"))
    for click in clicks:
        await click.wait_response()
    assert table.edit_count == 2


async def test_restart_old_button_works_on_new_client(fake_discord: FakeDiscord, world: World,
                                                      bot: DemoBot) -> None:
    command = await fake_discord.slash(world.alice, world.channel, "demo", "new", preset="standard")
    table = await command.wait_original()
    await fake_discord.stop_client(bot)

    restarted = await fake_discord.start_client(DemoBot())
    click = await fake_discord.click(world.bob, table, label="Take a seat")
    await click.wait_response()

    assert restarted.is_ready() and bot.is_closed()
    assert len(fake_discord.identifies) == 2
    assert table.content == "Table 1: bob sat down (guild)"


async def test_gateway_drop_resumes_and_replays(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    await fake_discord.drop_gateway(code=4000)
    # Sent while the bot is reconnecting: it must arrive through the RESUME replay.
    command = await fake_discord.slash(world.bob, world.channel, "demo", "whoami")
    await command.wait_response()
    assert fake_discord.resumes == 1 and len(fake_discord.identifies) == 1


async def test_invalidated_session_identifies_again(fake_discord: FakeDiscord, world: World,
                                                    bot: DemoBot) -> None:
    await fake_discord.invalidate_session()
    await fake_discord.wait_for(lambda: len(fake_discord.identifies) == 2)
    command = await fake_discord.slash(world.bob, world.channel, "demo", "whoami")
    await command.wait_response()


async def test_rate_limit_bucket_answers_429_and_discord_py_waits(
        fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    limit = fake_discord.rate_limit("PATCH", "/channels/*/messages/*", limit=2, per=0.2)

    command = await fake_discord.slash(world.bob, world.channel, "demo", "burst")
    await command.wait_original(lambda message: message.content == "burst done")

    [post] = world.channel.messages
    assert post.content == "3" and post.edit_count == 3
    assert limit.rejected == 1
    assert [r.status for r in fake_discord.requests_to("PATCH", "/channels/*/messages/*")] == [200, 200, 429, 200]


async def test_command_typed_in_the_bots_dm(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    command = await fake_discord.slash(world.bob, fake_discord.open_dm(world.bob), "demo", "whoami")

    answer = await command.wait_original()
    assert answer.content == "en-US|none|manage=False|send=True"
    assert answer.channel.is_dm and command.guild is None


async def test_wait_for_dm_returns_the_newest_matching(fake_discord: FakeDiscord, world: World,
                                                       bot: DemoBot) -> None:
    await fake_discord.slash(world.alice, world.channel, "demo", "dm", target=world.bob)

    dm = await fake_discord.wait_for_dm(world.bob, lambda message: message.content == "Your seat")
    assert dm.button("Take a seat")["custom_id"] == "demo:seat:7"
    with pytest.raises(AssertionError, match="timed out"):
        await fake_discord.wait_for_dm(world.carol, timeout=0.05)


async def test_enforced_nonce_returns_the_first_message(fake_discord: FakeDiscord, world: World,
                                                        bot: DemoBot) -> None:
    command = await fake_discord.slash(world.bob, world.channel, "demo", "twice", nonce="r7.3")

    answer = await command.wait_original(lambda message: message.content != "")
    assert answer.content == "True True r7.3"
    first, other = world.channel.messages
    assert first.content == "result" and first.nonce == "r7.3" and first.payload()["nonce"] == "r7.3"
    assert other.nonce == "r7.3x"
    assert world.channel.messages_with_nonce("r7.3") == [first]
    assert fake_discord.nonce_hits == 1
    assert [r.status for r in fake_discord.requests_to("POST", "/channels/*/messages")] == [200, 200, 200]


async def test_nonce_is_enforced_only_when_asked_and_per_channel(fake_discord: FakeDiscord,
                                                                 world: World) -> None:
    other_channel = world.guild.add_text_channel("other")
    headers = {"Authorization": f"Bot {fake_discord.token}"}

    async def post(channel: FakeChannel, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with aiohttp.ClientSession() as session, session.post(
                f"{fake_discord.api_base}/channels/{channel.id}/messages", json=body, headers=headers) as reply:
            return reply.status, await reply.json()

    status, unenforced = await post(world.channel, {"content": "a", "nonce": "n1"})
    status2, unenforced2 = await post(world.channel, {"content": "b", "nonce": "n1"})
    assert (status, status2) == (200, 200) and unenforced["id"] != unenforced2["id"]
    _, enforced = await post(world.channel, {"content": "c", "nonce": "n1", "enforce_nonce": True})
    assert enforced["id"] == unenforced2["id"] and enforced["content"] == "b"
    _, elsewhere = await post(other_channel, {"content": "d", "nonce": "n1", "enforce_nonce": True})
    assert elsewhere["id"] != enforced["id"] and elsewhere["nonce"] == "n1"
    status, error = await post(world.channel, {"content": "e", "nonce": "x" * 26, "enforce_nonce": True})
    assert status == 400 and error["code"] == 50035
    assert [v.split(": ", 1)[1] for v in fake_discord.take_spec_violations()] == [
        "body.nonce: 'xxxxxxxxxxxxxxxxxxxxxxxxxx' is too long"]

    fake_discord.nonce_window = 0.0
    _, expired = await post(world.channel, {"content": "f", "nonce": "n1", "enforce_nonce": True})
    assert expired["id"] != unenforced2["id"]
    assert len(world.channel.messages_with_nonce("n1")) == 3


async def raw_request(fake: FakeDiscord, method: str, path: str, body: Any = None) -> tuple[int, Any, Any]:
    """One REST call as a client would make it: status, decoded JSON body and headers."""
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as session, session.request(
            method, fake.api_base + path, json=body, headers=headers) as reply:
        return reply.status, await reply.json(content_type=None), reply.headers


async def test_random_faults_answer_429_and_5xx_like_discord(fake_discord: FakeDiscord, world: World) -> None:
    rule = fake_discord.random_faults("POST", "/channels/*/messages", probability=1.0, seed=3,
                                      statuses=(429, 500, 502, 503, 504), retry_after=(0.2, 0.4),
                                      global_fraction=0.0)
    seen: dict[int, tuple[Any, Any]] = {}
    for _ in range(40):
        status, body, headers = await raw_request(fake_discord, "POST", f"/channels/{world.channel.id}/messages",
                                                  {"content": "x"})
        seen.setdefault(status, (body, headers))
    assert set(seen) == {429, 500, 502, 503, 504}
    assert world.channel.messages == [] and rule.total == 40 and set(rule.fired) == set(seen)
    body, headers = seen[429]
    assert 0.2 <= body["retry_after"] <= 0.4 and body["global"] is False
    assert headers["X-RateLimit-Remaining"] == "0" and headers["X-RateLimit-Scope"] in ("user", "shared")
    assert float(headers["X-RateLimit-Reset-After"]) == body["retry_after"] and headers["Via"]
    assert seen[503][0]["message"].startswith("503")
    # Other routes are left alone, and a paused rule fails nothing.
    status, _, _ = await raw_request(fake_discord, "GET", f"/channels/{world.channel.id}")
    assert status == 200
    rule.active = False
    status, _, _ = await raw_request(fake_discord, "POST", f"/channels/{world.channel.id}/messages",
                                     {"content": "y"})
    assert status == 200 and [m.content for m in world.channel.messages] == ["y"]


async def test_random_fault_after_effect_and_exclusions(fake_discord: FakeDiscord, world: World) -> None:
    fake_discord.random_faults(probability=1.0, statuses=(502,), applied_fraction=1.0,
                               exclude=("/channels/{channel_id}",), seed=1)
    status, body, _ = await raw_request(fake_discord, "POST", f"/channels/{world.channel.id}/messages",
                                        {"content": "made anyway", "nonce": "r1.1", "enforce_nonce": True})
    assert status == 502 and body["code"] == 0
    assert [m.content for m in world.channel.messages] == ["made anyway"]
    status, _, _ = await raw_request(fake_discord, "GET", f"/channels/{world.channel.id}")
    assert status == 200
    fake_discord.random_faults_rules.clear()
    # The retry with the same nonce finds the message the failed request made.
    status, body, _ = await raw_request(fake_discord, "POST", f"/channels/{world.channel.id}/messages",
                                        {"content": "made anyway", "nonce": "r1.1", "enforce_nonce": True})
    assert status == 200 and body["id"] == str(world.channel.messages[0].id)
    assert len(world.channel.messages) == 1


async def test_global_429_says_so_in_headers_and_body(fake_discord: FakeDiscord, world: World) -> None:
    fake_discord.random_faults(probability=1.0, statuses=(429,), global_fraction=1.0, seed=2)
    status, body, headers = await raw_request(fake_discord, "GET", f"/channels/{world.channel.id}")
    assert status == 429 and body["global"] is True
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"


async def test_random_5xx_and_429_are_survived_by_discord_py(fake_discord: FakeDiscord, world: World,
                                                             bot: DemoBot) -> None:
    rule = fake_discord.random_faults("PATCH", "/channels/*/messages/*", probability=0.5, statuses=(429, 500),
                                      retry_after=(0.01, 0.05), seed=1)
    command = await fake_discord.slash(world.bob, world.channel, "demo", "burst")
    await command.wait_original(lambda message: message.content == "burst done", timeout=30)
    [post] = world.channel.messages
    assert post.content == "3" and rule.total > 0


async def test_closing_dms_mid_deal_refuses_edits_and_sends_with_50007(
        fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    command = await fake_discord.slash(world.alice, world.channel, "demo", "edit_dm", target=world.bob)
    await fake_discord.wait_for(lambda: fake_discord.dm_messages(world.bob))
    fake_discord.close_dms(world.bob)
    bot.waiting.set()

    answer = await command.wait_original(lambda message: message.content != "")
    assert answer.content == "50007 50007"
    [dm] = fake_discord.dm_messages(world.bob)
    assert dm.content == "hand 1"
    assert [r.status for r in fake_discord.requests_to("PATCH", "/channels/*/messages/*")] == [403]


@pytest.mark.parametrize(("code", "resumed"), [(4000, True), (1001, True), (4009, False), (4007, False)])
async def test_gateway_close_codes_resume_or_identify(fake_discord: FakeDiscord, world: World, bot: DemoBot,
                                                      code: int, resumed: bool) -> None:
    await fake_discord.drop_gateway(code=code)
    if resumed:
        await fake_discord.wait_for(lambda: fake_discord.resumes == 1)
    else:
        await fake_discord.wait_for(lambda: len(fake_discord.identifies) == 2)
    command = await fake_discord.slash(world.bob, world.channel, "demo", "whoami")
    await command.wait_response()
    assert fake_discord.resumes == int(resumed) and len(fake_discord.identifies) == 2 - int(resumed)
    assert fake_discord.gateway_closes[code] == 1


async def test_gateway_close_can_be_made_not_resumable(fake_discord: FakeDiscord, world: World,
                                                       bot: DemoBot) -> None:
    await fake_discord.drop_gateway(code=4000, resumable=False)
    await fake_discord.wait_for(lambda: len(fake_discord.identifies) == 2)
    assert fake_discord.resumes == 0


async def test_resumable_invalid_session_resumes(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    await fake_discord.invalidate_session(resumable=True)
    # Sent while the bot reconnects: it arrives through the RESUME replay.
    command = await fake_discord.slash(world.bob, world.channel, "demo", "whoami")
    await command.wait_response()
    await fake_discord.wait_for(lambda: fake_discord.resumes == 1)
    assert len(fake_discord.identifies) == 1 and fake_discord.invalidations[True] == 1


async def test_reconnect_request_resumes(fake_discord: FakeDiscord, world: World, bot: DemoBot) -> None:
    await fake_discord.request_reconnect()
    command = await fake_discord.slash(world.bob, world.channel, "demo", "whoami")
    await command.wait_response()
    await fake_discord.wait_for(lambda: fake_discord.resumes == 1)
    assert len(fake_discord.identifies) == 1 and fake_discord.reconnect_requests == 1


async def test_threads_are_made_posted_in_archived_and_locked_like_discord(
        fake_discord: FakeDiscord, world: World) -> None:
    bot = await fake_discord.start_client(DemoBot())
    command = await fake_discord.slash(world.alice, world.channel, "demo", "thread")
    assert (await command.wait_followups(1))[-1].content == "forbidden 50013", "no Create Public Threads"
    assert world.channel.threads == []

    fake_discord.bot_permissions |= discord.Permissions(
        create_public_threads=True, send_messages_in_threads=True).value
    command = await fake_discord.slash(world.alice, world.channel, "demo", "thread")
    answer = (await command.wait_followups(1))[-1]
    [thread] = world.channel.threads
    assert answer.content == f"made {world.channel.id} 11 True", "THREAD_CREATE reached the cache"
    assert thread.owner_id == fake_discord.bot_user.id and world.channel.messages == []
    [post] = thread.messages

    where = await fake_discord.slash(world.bob, thread, "demo", "where")
    assert (await where.wait_original()).content == f"Thread {world.channel.id}"
    click = await fake_discord.click(world.bob, post, "demo:seat:3")
    await click.wait_response()
    assert post.content == "Table 3: bob sat down (guild)"

    cached = bot.get_guild(world.guild.id).get_thread(thread.id)  # type: ignore[union-attr]
    assert cached is not None
    with pytest.raises(discord.Forbidden) as refusal:  # locking needs Manage Threads, even for the creator
        await cached.edit(archived=True, locked=True)
    assert refusal.value.code == 50013 and not thread.archived
    await cached.edit(archived=True)  # archiving its own thread it may
    assert thread.archived
    with pytest.raises(discord.HTTPException) as archived:
        await bot.get_partial_messageable(thread.id).get_partial_message(post.id).edit(content="late")
    assert archived.value.code == 50083
    await bot.get_partial_messageable(thread.id).send("wakes it")  # a post unarchives an unlocked thread
    assert not thread.archived
    with pytest.raises(discord.Forbidden):  # deleting needs Manage Threads
        await cached.delete()
    await fake_discord.stop_client(bot)


async def test_a_client_gone_while_its_request_is_read_is_no_fault_of_the_fake(
    fake_discord: FakeDiscord, world: World
) -> None:
    """A bot process killed while it uploads a message edit leaves half a body: answered 499, not counted as
    the fake's internal error (which fails the test at teardown)."""
    boundary = "cut-short"
    head = (
        f"POST /api/v10/channels/{world.channel.id}/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bot {fake_discord.token}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: 100000\r\n\r\n"
    )
    body = f'--{boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\n\r\n{{"content": "ha'
    _, writer = await asyncio.open_connection("127.0.0.1", fake_discord.port)
    writer.write((head + body).encode())
    await writer.drain()

    async def until_it_is_being_read() -> None:  # the fake announces no change before a request ends: asked
        while not fake_discord.requests_to("POST", "/channels/*/messages"):
            await asyncio.sleep(0.01)

    await asyncio.wait_for(until_it_is_being_read(), 5)
    writer.transport.abort()  # gone, as a SIGKILL leaves it
    await fake_discord.wait_for(
        lambda: fake_discord.requests_to("POST", "/channels/*/messages")[0].status is not None, what="its end"
    )
    assert fake_discord.requests_to("POST", "/channels/*/messages")[0].status == 499
    assert fake_discord.internal_errors == []
    assert world.channel.messages == []
