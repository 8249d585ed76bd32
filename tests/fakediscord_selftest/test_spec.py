"""The fake checks every request against Discord's published API spec (devtools/fakediscord/spec.py) and
answers one that does not fit as Discord does; a timed-out wait says what the test's diagnostics report."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from devtools.fakediscord import FakeDiscord, spec
from devtools.fakediscord.server import API_PREFIX


async def request(fake: FakeDiscord, method: str, path: str, *, body: Any = None, query: dict[str, str] | None = None,
                  multipart: dict[str, Any] | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {fake.token}"}
    data = None
    if multipart is not None:
        data = aiohttp.FormData()
        data.add_field("payload_json", json.dumps(multipart), content_type="application/json")
        data.add_field("files[0]", b"\x89PNG", filename="a.png", content_type="image/png")
    async with aiohttp.ClientSession() as session, session.request(
            method, fake.api_base + path, json=body, data=data, params=query, headers=headers) as reply:
        return reply.status, await reply.json(content_type=None)


@pytest.fixture
def channel_id(fake_discord: FakeDiscord) -> int:
    return fake_discord.add_guild("Spec").add_text_channel("general").id


async def test_a_body_the_spec_refuses_is_answered_400_50035_with_the_errors_by_field(
        fake_discord: FakeDiscord, channel_id: int) -> None:
    status, answer = await request(fake_discord, "POST", f"/channels/{channel_id}/messages",
                                   body={"content": "hi", "embeds": [{"title": "t" * 257}]})
    assert status == 400 and answer["code"] == spec.INVALID_FORM_BODY and answer["message"] == "Invalid Form Body"
    assert answer["errors"]["embeds"]["0"]["title"]["_errors"][0]["code"] == "SPEC_MAXLENGTH"
    assert fake_discord.take_spec_violations() == [
        f"POST /channels/{channel_id}/messages: body.embeds.0.title: " + "'" + "t" * 99 + " ... " + "t" * 87
        + "' is too long"]
    assert not fake_discord.channels[channel_id].messages  # nothing was posted


async def test_a_multipart_uploads_payload_json_is_checked(fake_discord: FakeDiscord, channel_id: int) -> None:
    status, _ = await request(fake_discord, "POST", f"/channels/{channel_id}/messages",
                              multipart={"content": "card", "attachments": [{"id": 0, "filename": "a.png"}]})
    assert status == 200
    status, answer = await request(fake_discord, "POST", f"/channels/{channel_id}/messages",
                                   multipart={"content": "card", "flags": "ephemeral"})
    assert status == 400 and "flags" in answer["errors"]
    assert len(fake_discord.take_spec_violations()) == 1


async def test_a_route_or_method_discord_lacks_is_404_or_405(fake_discord: FakeDiscord, channel_id: int) -> None:
    status, _ = await request(fake_discord, "GET", "/no/such/route")
    assert status == 404
    status, _ = await request(fake_discord, "PUT", f"/channels/{channel_id}/messages")
    assert status == 405
    assert [v.split(": ", 1)[1] for v in fake_discord.take_spec_violations()] == [
        "no such route in Discord's API spec", "Discord's API spec has no PUT on this route"]


async def test_the_query_is_checked_and_discord_py_s_0_and_1_are_booleans(fake_discord: FakeDiscord,
                                                                         channel_id: int) -> None:
    status, _ = await request(fake_discord, "GET", f"/channels/{channel_id}/messages", query={"limit": "500"})
    assert status == 400
    status, _ = await request(fake_discord, "GET", f"/channels/{channel_id}/messages", query={"colour": "red"})
    assert status == 400
    assert len(fake_discord.take_spec_violations()) == 2
    assert spec.find_operation("POST", "/webhooks/1/token") is not None
    spec.check_request("POST", "/webhooks/1/token", {"wait": "1", "with_components": "0"}, "application/json",
                       {"content": "x"}, True)  # as discord.py sends a follow-up (LENIENCY)


def test_a_snowflake_may_be_an_integer_as_discord_py_sends_it() -> None:
    spec.check_request("POST", "/users/@me/channels", {}, "application/json", {"recipient_id": 1234}, True)
    with pytest.raises(spec.SpecViolation, match="recipient_id"):
        spec.check_request("POST", "/users/@me/channels", {}, "application/json", {"recipient_id": "12a"}, True)
    with pytest.raises(spec.SpecViolation, match="channel_id"):
        spec.check_request("GET", "/channels/general", {}, "", None, False)


def test_every_route_the_fake_serves_is_one_of_discords() -> None:
    fake = FakeDiscord()
    from aiohttp import web

    app = web.Application()
    fake._add_routes(app)
    served = {(route.method, route.resource.canonical.removeprefix(API_PREFIX)) for route in app.router.routes()
              if route.resource is not None and route.resource.canonical.startswith(API_PREFIX)}
    assert served
    for method, template in served:
        example = template.replace("{token}", "token")
        for name in ("application_id", "guild_id", "user_id", "channel_id", "message_id", "interaction_id"):
            example = example.replace("{" + name + "}", "123")
        assert spec.find_operation(method, example) is not None, f"{method} {template} is not in Discord's spec"


async def test_a_timed_out_wait_says_what_the_diagnostics_report(fake_discord: FakeDiscord) -> None:
    fake_discord.diagnostics.append(lambda: "table 1: version 7, to act 2")
    fake_discord.diagnostics.append(lambda: 1 / 0)  # type: ignore[operator]
    with pytest.raises(AssertionError) as stuck:
        await fake_discord.wait_for(lambda: False, timeout=0.01, what="nothing")
    assert "waiting for nothing\ntable 1: version 7, to act 2\n(" in str(stuck.value)
    assert "ZeroDivisionError" in str(stuck.value)
