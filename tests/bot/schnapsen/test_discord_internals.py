"""The private parts of discord.py the shell relies on (``bot/schnapsen/discord_internals.py``) still exist
and still work in the installed discord.py; and no other module of the bot reaches into discord.py's privates.
When a discord.py release fails here, mend the adapter and widen the pin in pyproject.toml."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from aiohttp import web

from bot.schnapsen import discord_internals
from bot.schnapsen.components import COMPONENTS, GameActionButton

ROOT = Path(__file__).resolve().parents[3]
ADAPTER = ROOT / "bot" / "schnapsen" / "discord_internals.py"
PRIVATE_NAMES = (
    "_connection",
    "_response_type",
    "__discord_ui_compiled_template__",
    "_HTTPClient__session",
)


def a_click_payload(custom_id: str) -> dict[str, Any]:
    """A button click as Discord's INTERACTION_CREATE carries it (the fields discord.py reads)."""
    return {
        "id": "1100",
        "application_id": "2200",
        "type": 3,
        "token": "the-token",
        "version": 1,
        "channel_id": "3300",
        "attachment_size_limit": 8 * 1024 * 1024,
        "locale": "en-US",
        "user": {"id": "4400", "username": "anna", "discriminator": "0", "avatar": None, "global_name": None},
        "data": {"custom_id": custom_id, "component_type": 2},
        "app_permissions": "0",
        "entitlements": [],
        "authorizing_integration_owners": {},
        "context": 1,
    }


def a_client() -> discord.Client:
    return discord.Client(intents=discord.Intents.none())


def test_the_interaction_parser_can_be_read_and_replaced() -> None:
    client = a_client()
    original = discord_internals.interaction_parser(client)
    assert callable(original)
    seen: list[Any] = []
    discord_internals.replace_interaction_parser(client, seen.append)
    assert discord_internals.interaction_parser(client) == seen.append
    discord_internals.replace_interaction_parser(client, original)
    assert discord_internals.interaction_parser(client) == original


def test_an_interaction_rebuilt_from_its_payload_can_be_told_it_was_acknowledged_or_not_yet() -> None:
    interaction = discord_internals.interaction_from_payload(a_client(), a_click_payload("bs:7:9:play:HA"))
    assert interaction.id == 1100 and interaction.user.id == 4400
    assert interaction.data is not None and interaction.data.get("custom_id") == "bs:7:9:play:HA"
    assert not interaction.response.is_done()
    discord_internals.mark_acknowledged(interaction)
    assert interaction.response.is_done()
    assert interaction.response.type is discord.InteractionResponseType.deferred_message_update
    discord_internals.forget_acknowledgement(interaction)
    assert not interaction.response.is_done() and interaction.response.type is None


def test_a_button_familys_compiled_template_is_what_discord_py_matches() -> None:
    for family in COMPONENTS:
        assert isinstance(discord_internals.compiled_template(family), re.Pattern)
    assert discord_internals.compiled_template(GameActionButton).fullmatch("bs:7:9:play:HA")


REFUSAL = {"content": "out of date", "flags": 64}


@pytest.mark.parametrize(
    ("response_type", "data", "posted"),
    [
        (discord.InteractionResponseType.deferred_message_update, None, {"type": 6}),
        (discord.InteractionResponseType.channel_message, REFUSAL, {"type": 4, "data": REFUSAL}),
    ],
)
async def test_a_raw_callback_posts_its_answer_through_discord_pys_session(
    monkeypatch: pytest.MonkeyPatch,
    response_type: discord.InteractionResponseType,
    data: dict[str, Any] | None,
    posted: dict[str, Any],
) -> None:
    received: list[tuple[str, Any]] = []

    async def callback(request: web.Request) -> web.Response:
        received.append((request.path, await request.json()))
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/api/v10/interactions/{id}/{token}/callback", callback)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    client = a_client()
    session = aiohttp.ClientSession()
    monkeypatch.setattr(client.http, "_HTTPClient__session", session)
    try:
        await discord_internals.send_callback(client, 1100, "the-token", response_type, data)
    finally:
        await session.close()
        await runner.cleanup()
    assert received == [("/api/v10/interactions/1100/the-token/callback", posted)]


def test_no_other_module_of_the_bot_reaches_into_discord_pys_privates() -> None:
    offenders = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if path == ADAPTER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE_NAMES:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("discord.webhook"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module}")
    assert not offenders, f"discord.py internals outside discord_internals.py: {offenders}"
