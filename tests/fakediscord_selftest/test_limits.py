"""The fake's rate limits answer like Discord's, and the real discord.py client lives with them: it waits and
retries on their 429s without an error reaching the bot."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from devtools.fakediscord import FakeChannel, FakeDiscord, FakeUser, RouteBucket
from devtools.fakediscord.limits import MESSAGE_CREATE, MESSAGE_EDIT, OLD_MESSAGE_CODE


class Answer:
    def __init__(self, status: int, text: str, headers: Any) -> None:
        self.status, self.text, self.headers = status, text, headers

    def json(self) -> Any:
        return json.loads(self.text)


class Caller:
    """REST calls as another client with the bot's token would make them (or with ``token``)."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake, self.session = fake, session

    async def __call__(self, method: str, path: str, body: Any = None, *, token: str | None = None) -> Answer:
        headers = {"Authorization": f"Bot {token or self.fake.token}"}
        async with self.session.request(method, self.fake.api_base + path, json=body, headers=headers) as reply:
            return Answer(reply.status, await reply.text(), reply.headers)


@pytest.fixture
async def call(fake_discord: FakeDiscord) -> AsyncIterator[Caller]:
    async with aiohttp.ClientSession() as session:
        yield Caller(fake_discord, session)


class Responder(discord.Client):
    """Answers every interaction with a deferral and two follow-ups: interaction-token calls only."""

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("first")
        await interaction.followup.send("second")


@pytest.fixture
def person(fake_discord: FakeDiscord) -> FakeUser:
    return fake_discord.add_user("anna")


@pytest.fixture
def tables(fake_discord: FakeDiscord, person: FakeUser) -> FakeChannel:
    """A channel in a guild the client sees from its start, with ``person`` a member."""
    guild = fake_discord.add_guild()
    guild.add_member(person)
    return guild.add_text_channel("tables")


@pytest.fixture
async def client(fake_discord: FakeDiscord, tables: FakeChannel) -> discord.Client:
    return await fake_discord.start_client(Responder(intents=discord.Intents.default()))


def channel_of(client: discord.Client, fake_channel: FakeChannel) -> discord.TextChannel:
    channel = client.get_channel(fake_channel.id)
    assert isinstance(channel, discord.TextChannel)
    return channel


def test_limits_are_off_unless_asked_for_and_default_to_discords_figures(fake_discord: FakeDiscord) -> None:
    limits = fake_discord.limits
    assert not limits.enforce
    assert (limits.global_limit, limits.global_per) == (50, 1.0)
    assert (MESSAGE_CREATE.limit, MESSAGE_CREATE.per, MESSAGE_EDIT.limit, MESSAGE_EDIT.per) == (5, 5.0, 5, 5.0)
    assert (limits.old_message_age, limits.old_message_edits, limits.old_message_per) == (3600.0, 3, 6.0)
    assert (limits.invalid_limit, limits.invalid_window) == (10_000, 600.0)
    assert "global 50 per 1 s" in fake_discord.enforce_limits().describe()


async def test_the_global_limit_answers_429_with_global_scope(fake_discord: FakeDiscord, call: Caller) -> None:
    channel = fake_discord.add_guild().add_text_channel("tables")
    fake_discord.enforce_limits(global_per=60.0)  # a window that cannot pass during the test
    answers = [await call("GET", f"/channels/{channel.id}") for _ in range(51)]
    assert [a.status for a in answers[:50]] == [200] * 50
    refused = answers[50]
    assert refused.status == 429
    assert refused.headers["X-RateLimit-Scope"] == "global" and refused.headers["X-RateLimit-Global"] == "true"
    assert refused.headers["Via"] and int(refused.headers["Retry-After"]) >= 1
    body = refused.json()
    assert body["global"] is True and 0 < body["retry_after"] <= 60 and body["message"]
    assert fake_discord.limiter.stats.refused["global"] == 1

    fake_discord.advance_clock(60)
    assert (await call("GET", f"/channels/{channel.id}")).status == 200


async def test_interaction_routes_are_exempt_from_the_global_limit(
        fake_discord: FakeDiscord, call: Caller, client: discord.Client, person: FakeUser,
        tables: FakeChannel) -> None:
    channel = tables
    fake_discord.enforce_limits(global_per=60.0)
    while (await call("GET", f"/channels/{channel.id}")).status != 429:
        pass  # the bot token's global bucket is empty now

    command = await fake_discord.slash(person, channel, "anything")
    await command.wait_followups(2)
    assert [m.content for m in command.messages] == ["first", "second"]
    exempt = [r for r in fake_discord.requests if fake_discord.uses_interaction_token(r.template)]
    assert len(exempt) == 3 and all(r.status in (200, 204) for r in exempt)


async def test_a_route_bucket_answers_like_discord_per_channel(fake_discord: FakeDiscord, call: Caller) -> None:
    guild = fake_discord.add_guild()
    channel, other = guild.add_text_channel("one"), guild.add_text_channel("two")
    bucket = RouteBucket("message create", ("POST /channels/{channel_id}/messages",), limit=5, per=60.0)
    fake_discord.enforce_limits(route_buckets=(bucket,))
    answers = [await call("POST", f"/channels/{channel.id}/messages", {"content": str(n)}) for n in range(6)]
    assert [a.status for a in answers] == [200] * 5 + [429]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers[:5]] == ["4", "3", "2", "1", "0"]
    assert {a.headers["X-RateLimit-Bucket"] for a in answers} == {bucket.hash}
    assert all(a.headers["X-RateLimit-Limit"] == "5" for a in answers)
    assert 0 < float(answers[0].headers["X-RateLimit-Reset-After"]) <= 60
    refused = answers[5]
    assert refused.headers["X-RateLimit-Scope"] == "user" and "X-RateLimit-Global" not in refused.headers
    assert refused.json()["global"] is False and refused.headers["Via"]
    assert len(channel.messages) == 5 and fake_discord.limiter.stats.emptied == {"message create": 1}
    # Another channel has a bucket of its own.
    assert (await call("POST", f"/channels/{other.id}/messages", {"content": "x"})).status == 200


async def test_an_injected_refusal_takes_no_slot_of_the_buckets_but_an_applied_fault_does(
        fake_discord: FakeDiscord, call: Caller) -> None:
    channel = fake_discord.add_guild().add_text_channel("tables")
    bucket = RouteBucket("message create", ("POST /channels/{channel_id}/messages",), limit=2, per=60.0)
    fake_discord.enforce_limits(route_buckets=(bucket,), global_limit=5, global_per=60.0)
    fake_discord.fail_next("POST", f"/channels/{channel.id}/messages", status=429, times=3)
    statuses = [(await call("POST", f"/channels/{channel.id}/messages", {"content": "x"})).status for _ in range(6)]
    # Three stand for Discord's own 429s (nothing served, no slot taken); then the bucket's two, then its 429.
    assert statuses == [429, 429, 429, 200, 200, 429]
    assert len(channel.messages) == 2 and fake_discord.limiter.stats.refused == {"route": 1}
    assert fake_discord.limiter.stats.invalid == 1, "the injected ones are shared-scope 429s: not invalid"
    # The global bucket holds the three served (the route's 429 too, as it was counted before its bucket):
    # a fault whose request took effect first was served, so it takes the fourth; one more, then 429.
    fake_discord.fail_next("GET", f"/channels/{channel.id}", status=500, applied=True)
    assert [(await call("GET", f"/channels/{channel.id}")).status for _ in range(3)] == [500, 200, 429]


async def test_shared_scope_429s_are_not_invalid_requests_but_user_scope_ones_are(
        fake_discord: FakeDiscord, call: Caller) -> None:
    channel = fake_discord.add_guild().add_text_channel("tables")
    shared = RouteBucket("channel reads", ("GET /channels/{channel_id}",), limit=1, per=60.0, scope="shared")
    fake_discord.enforce_limits(route_buckets=(shared, MESSAGE_CREATE))
    await call("GET", f"/channels/{channel.id}")
    refused = await call("GET", f"/channels/{channel.id}")
    assert refused.status == 429 and refused.headers["X-RateLimit-Scope"] == "shared"
    assert refused.json()["message"] == "The resource is being rate limited."
    assert fake_discord.limiter.stats.invalid == 0
    for _ in range(6):
        await call("POST", f"/channels/{channel.id}/messages", {"content": "x"})
    assert fake_discord.limiter.stats.invalid == 1  # the sixth create: a user-scope 429


async def test_too_many_invalid_requests_get_everything_refused_for_a_while(
        fake_discord: FakeDiscord, call: Caller) -> None:
    channel = fake_discord.add_guild().add_text_channel("tables")
    closed = fake_discord.add_user("closed", dms_open=False)
    dm = fake_discord.open_dm(closed)
    fake_discord.enforce_limits(invalid_limit=4, invalid_window=600.0, ban_seconds=3600.0)
    statuses = [(await call("GET", f"/channels/{channel.id}", token="wrong")).status for _ in range(2)]
    statuses += [(await call("POST", f"/channels/{dm.id}/messages", {"content": "x"})).status for _ in range(2)]
    assert statuses == [401, 401, 403, 403]
    assert (await call("GET", f"/channels/{channel.id}")).status == 200  # four: at the limit, not over it
    assert (await call("GET", f"/channels/{channel.id}", token="wrong")).status == 401  # the fifth

    banned = await call("GET", f"/channels/{channel.id}")
    assert banned.status == 429 and "Via" not in banned.headers  # discord.py raises this one as it is
    assert banned.text == "error code: 1015" and int(banned.headers["Retry-After"]) > 3500
    # Everything is refused, the interaction routes too.
    callback = await call("POST", "/interactions/1/token/callback", {"type": 6})
    assert callback.status == 429 and fake_discord.limiter.stats.bans == 1
    fake_discord.advance_clock(3600)
    assert (await call("GET", f"/channels/{channel.id}")).status == 200


async def test_invalid_requests_older_than_the_window_are_forgotten(fake_discord: FakeDiscord, call: Caller) -> None:
    channel = fake_discord.add_guild().add_text_channel("tables")
    fake_discord.enforce_limits(invalid_limit=2, invalid_window=600.0)
    for _ in range(2):
        await call("GET", f"/channels/{channel.id}", token="wrong")
    fake_discord.advance_clock(601)
    for _ in range(2):
        await call("GET", f"/channels/{channel.id}", token="wrong")
    assert (await call("GET", f"/channels/{channel.id}")).status == 200
    assert fake_discord.limiter.invalid_in_window == 2 and fake_discord.limiter.stats.bans == 0


async def test_edits_of_a_message_older_than_an_hour_meet_30046(fake_discord: FakeDiscord, call: Caller) -> None:
    channel = fake_discord.add_guild().add_text_channel("tables")
    fake_discord.enforce_limits(old_message_per=60.0)
    old = (await call("POST", f"/channels/{channel.id}/messages", {"content": "table"})).json()
    fake_discord.advance_clock(3601)
    fresh = (await call("POST", f"/channels/{channel.id}/messages", {"content": "notice"})).json()
    # The clock moved on an hour for the message times and the snowflakes discord.py reads them from.
    assert fake_discord.messages[int(old["id"])].timestamp < fresh["timestamp"]
    made = [discord.utils.snowflake_time(int(message["id"])) for message in (old, fresh)]
    assert (made[1] - made[0]).total_seconds() >= 3601

    edits = [await call("PATCH", f"/channels/{channel.id}/messages/{old['id']}", {"content": f"v{n}"})
             for n in range(4)]
    assert [e.status for e in edits] == [200, 200, 200, 429]
    refused = edits[3]
    body = refused.json()
    assert body["code"] == OLD_MESSAGE_CODE and "older than 1 hour" in body["message"] and body["global"] is False
    assert 0 < body["retry_after"] <= 60 and refused.headers["Via"]
    # A sub-limit: the answer carries the edit bucket's headers, with requests left in it.
    assert refused.headers["X-RateLimit-Remaining"] == "2" and refused.headers["X-RateLimit-Bucket"] == MESSAGE_EDIT.hash
    assert fake_discord.messages[int(old["id"])].content == "v2"
    # A message of this hour is edited as before.
    edit = await call("PATCH", f"/channels/{channel.id}/messages/{fresh['id']}", {"content": "again"})
    assert edit.status == 200


async def test_the_old_message_limit_holds_without_an_edit_bucket(fake_discord: FakeDiscord, call: Caller) -> None:
    channel = fake_discord.add_guild().add_text_channel("tables")
    fake_discord.enforce_limits(route_buckets=(), old_message_edits=1, old_message_per=60.0)
    old = (await call("POST", f"/channels/{channel.id}/messages", {"content": "table"})).json()
    fake_discord.advance_clock(3600)
    edits = [await call("PATCH", f"/channels/{channel.id}/messages/{old['id']}", {"content": f"v{n}"})
             for n in range(2)]
    assert [e.status for e in edits] == [200, 429] and edits[1].json()["code"] == OLD_MESSAGE_CODE
    assert "X-RateLimit-Bucket" not in edits[1].headers


async def test_discord_py_waits_out_global_429s(fake_discord: FakeDiscord, client: discord.Client,
                                                tables: FakeChannel) -> None:
    channel = channel_of(client, tables)
    fake_discord.enforce_limits(global_limit=3, global_per=0.3, route_buckets=())
    sent = await asyncio.gather(*(channel.send(str(n)) for n in range(8)))
    assert sorted(m.content for m in sent) == [str(n) for n in range(8)]
    statuses = [r.status for r in fake_discord.requests_to("POST", "/channels/*/messages")]
    assert statuses.count(200) == 8 and 429 in statuses


async def test_discord_py_keeps_a_bucket_and_waits_out_a_429_it_could_not_foresee(
        fake_discord: FakeDiscord, client: discord.Client, call: Caller, tables: FakeChannel) -> None:
    fake_channel, channel = tables, channel_of(client, tables)
    bucket = RouteBucket("message create", ("POST /channels/{channel_id}/messages",), limit=2, per=0.5)
    fake_discord.enforce_limits(route_buckets=(bucket,))
    # discord.py reads the headers and holds its own requests back: no 429 at all.
    await asyncio.gather(*(channel.send(str(n)) for n in range(5)))
    assert 429 not in [r.status for r in fake_discord.requests_to("POST", "/channels/*/messages")]
    # Another process with the same token emptied the bucket: discord.py meets the 429, waits and retries.
    fake_discord.advance_clock(1)
    while (await call("POST", f"/channels/{fake_channel.id}/messages", {"content": "other"})).status == 200:
        pass
    before = len(fake_discord.requests)
    await channel.send("mine")
    assert [r.status for r in fake_discord.requests[before:]] == [429, 200]
    assert fake_channel.messages[-1].content == "mine"


async def test_discord_py_waits_out_30046(fake_discord: FakeDiscord, client: discord.Client,
                                          tables: FakeChannel) -> None:
    fake_channel, channel = tables, channel_of(client, tables)
    message = await channel.send("table")
    fake_discord.advance_clock(3601)
    fake_discord.enforce_limits(old_message_edits=2, old_message_per=0.3)
    for number in range(4):
        await message.edit(content=f"v{number}")
    assert fake_channel.messages[0].content == "v3"
    edits = fake_discord.requests_to("PATCH", "/channels/*/messages/*")
    assert fake_discord.limiter.stats.refused["old message"] >= 1
    assert [r.status for r in edits].count(200) == 4


async def test_discord_py_keeps_an_interaction_webhook_bucket(
        fake_discord: FakeDiscord, client: discord.Client, person: FakeUser, tables: FakeChannel) -> None:
    webhook = RouteBucket("interaction webhook", ("POST /webhooks/{application_id}/{token}",), limit=1, per=0.3)
    fake_discord.enforce_limits(route_buckets=(webhook,))
    command = await fake_discord.slash(person, tables, "anything")
    await command.wait_followups(2)
    followups = fake_discord.requests_to("POST", "/webhooks/{application_id}/{token}")
    # The webhook adapter read "Remaining: 0" on the first and held the second back until the reset.
    assert [r.status for r in followups] == [200, 200]
    assert followups[1].at - followups[0].at >= 0.2
