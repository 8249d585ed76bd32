"""The fake Discord's latency (devtools/fakediscord/latency.py): a REST call takes effect L after the bot sent
it and its answer comes L later; a gateway event reaches the bot L after the fake emitted it. Measured on
the monotonic clock the fake stamps its records with (one process: the bot's clock is the same)."""

from __future__ import annotations

import asyncio
import time

import discord
import pytest

from devtools.fakediscord import FakeDiscord

LATENCY = 0.05
SLACK = 0.5  # a loaded machine may add this much on top of the latency, never take any of it away


class EchoBot(discord.Client):
    """Notes when each click reaches it, answers it with an update of its message, and posts on request."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default())
        self.clicks_received: dict[int, float] = {}
        self.answer_sent: dict[int, float] = {}

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.clicks_received[interaction.id] = time.monotonic()
        self.answer_sent[interaction.id] = time.monotonic()
        await interaction.response.edit_message(content="clicked")


async def test_a_rest_call_takes_effect_one_latency_after_it_was_sent_and_answers_one_later(
    fake_discord: FakeDiscord,
) -> None:
    guild = fake_discord.add_guild("Far away")
    channel = guild.add_text_channel("table")
    bot = EchoBot()
    await fake_discord.start_client(bot)
    fake_discord.latency = LATENCY  # from now on (a quick start: login and READY without it)
    target = bot.get_channel(channel.id)
    assert isinstance(target, discord.TextChannel)

    sent = time.monotonic()
    posted = await target.send("hello")
    answered = time.monotonic()

    message = fake_discord.messages[posted.id]
    took_effect = message.changed_at[0]
    assert LATENCY <= took_effect - sent < LATENCY + SLACK
    assert LATENCY <= answered - took_effect < LATENCY + SLACK
    request = fake_discord.requests_to("POST", "/channels/*/messages")[-1]
    assert request.effective_at - request.at >= LATENCY


async def test_a_click_reaches_the_bot_one_latency_after_it_was_made_and_its_answer_one_after_that(
    fake_discord: FakeDiscord,
) -> None:
    guild = fake_discord.add_guild("Far away")
    channel = guild.add_text_channel("table")
    alice = fake_discord.add_user("alice")
    guild.add_member(alice)
    bot = EchoBot()
    await fake_discord.start_client(bot)
    fake_discord.latency = LATENCY
    target = bot.get_channel(channel.id)
    assert isinstance(target, discord.TextChannel)
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Go", custom_id="go"))
    posted = await target.send("table", view=view)

    click = await fake_discord.click(alice, fake_discord.messages[posted.id], "go")
    assert click.id not in bot.clicks_received  # still on its way
    response = await click.wait_response()

    received = bot.clicks_received[click.id]
    assert LATENCY <= received - click.created_at < LATENCY + SLACK
    assert response.type == 7
    assert LATENCY <= response.at - bot.answer_sent[click.id] < LATENCY + SLACK
    # The type 7 answer is the message's edit, on record when it took effect.
    assert fake_discord.messages[posted.id].changed_at[-1] == pytest.approx(response.at, abs=0.01)


async def test_events_keep_their_order_and_a_resume_gets_each_once(fake_discord: FakeDiscord) -> None:
    fake_discord.latency = LATENCY  # login, READY and GUILD_CREATE too
    guild = fake_discord.add_guild("Far away")
    channel = guild.add_text_channel("table")
    alice = fake_discord.add_user("alice")
    guild.add_member(alice)
    bot = EchoBot()
    await fake_discord.start_client(bot)
    target = bot.get_channel(channel.id)
    assert isinstance(target, discord.TextChannel)
    view = discord.ui.View()
    view.add_item(discord.ui.Button(label="Go", custom_id="go"))
    posted = fake_discord.messages[(await target.send("table", view=view)).id]

    first = await fake_discord.click(alice, posted, "go")
    session = fake_discord.active_session
    assert session is not None and session.delivery is not None and session.delivery.pending
    await fake_discord.drop_gateway(code=4000)  # while the first click is on its way: the RESUME must bring it
    second = await fake_discord.click(alice, posted, "go")
    await asyncio.gather(first.wait_response(), second.wait_response())

    assert fake_discord.resumes == 1
    assert list(bot.clicks_received) == [first.id, second.id]
    assert not first.rejected_callbacks and not second.rejected_callbacks  # each reached the bot once
