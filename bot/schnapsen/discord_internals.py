"""The private parts of discord.py the shell relies on, each behind one named function, and nowhere else.

Handing a click to the process that serves its table (``routing.py``) needs what discord.py offers no public
way to do: to see a click before discord.py parses it, to answer a click known only by Discord's payload,
to tell an interaction that another process acknowledged it (or has not yet), to rebuild an interaction from a
stored payload, and to match a custom id against a button family's compiled template. A discord.py release may
rename any of them: ``tests/bot/schnapsen/test_discord_internals.py`` fails then, and pyproject.toml pins
discord.py to the minor versions that test has passed on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import discord
from discord.webhook.async_ import async_context, interaction_response_params

Parser = Callable[[Any], None]

INTERACTION_CREATE = "INTERACTION_CREATE"


def interaction_parser(client: discord.Client) -> Parser:
    """The function every shard's websocket calls with an INTERACTION_CREATE payload."""
    parse: Parser = client._connection.parsers[INTERACTION_CREATE]
    return parse


def replace_interaction_parser(client: discord.Client, parse: Parser) -> None:
    """Make ``parse`` what every shard's websocket calls with an INTERACTION_CREATE payload (one table of
    parsers serves them all)."""
    client._connection.parsers[INTERACTION_CREATE] = parse


def interaction_from_payload(client: discord.Client, data: dict[str, Any]) -> discord.Interaction[Any]:
    """An interaction rebuilt from Discord's INTERACTION_CREATE payload, as discord.py builds it on arrival."""
    return discord.Interaction(data=data, state=client._connection)  # type: ignore[arg-type]


def mark_acknowledged(interaction: discord.Interaction[Any]) -> None:
    """Tell ``interaction`` that a deferred update was sent for it already (by the process it reached first):
    its answers then go through the token, as after discord.py's own ``defer``."""
    interaction.response._response_type = discord.InteractionResponseType.deferred_message_update


def forget_acknowledgement(interaction: discord.Interaction[Any]) -> None:
    """Tell ``interaction`` that it is not answered after all (the acknowledgement another process sends has not
    reached Discord yet): its next answer is its callback."""
    interaction.response._response_type = None


def compiled_template(family: type[discord.ui.DynamicItem[Any]]) -> re.Pattern[str]:
    """The compiled custom-id template of a button family, as discord.py matches it on a click."""
    pattern: re.Pattern[str] = family.__discord_ui_compiled_template__
    return pattern


async def send_callback(
    client: discord.Client,
    interaction_id: int,
    token: str,
    response_type: discord.InteractionResponseType,
    data: dict[str, Any] | None = None,
) -> None:
    """Answer an interaction known only by its id and token in its callback, as discord.py's ``defer`` or
    ``send_message`` does (``data``: the answer's message, if any), through discord.py's own HTTP session and
    proxy settings. Raises ``discord.HTTPException`` as they do."""
    http = client.http
    await async_context.get().create_interaction_response(
        interaction_id,
        token,
        session=http._HTTPClient__session,  # type: ignore[attr-defined]  # name-mangled: discord.py's session
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        params=interaction_response_params(response_type.value, data),
    )
