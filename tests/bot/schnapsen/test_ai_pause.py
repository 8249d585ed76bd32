"""The AI's pause hides its decision: a table asks for the AI's move as soon as the AI is to act, and the move is
shown only when both the pause (the guild's ``ai_delay_ms``) and the decision are done."""

from __future__ import annotations

import asyncio
from typing import Any

from devtools.fakediscord import FakeDiscord
from tests.bot.schnapsen.harness import Table

PAUSE_MS = 10_000  # the longest pause a guild may set, far longer than a decision at the tests' budget


async def test_the_ai_decides_during_its_pause_and_moves_only_after_it(
    fake_discord: FakeDiscord, world: Table
) -> None:
    alice = world.add_player("alice")
    bot = await world.start_bot()
    await world.command(world.admin, "settings", ai_delay_ms=PAUSE_MS)
    decided = asyncio.Event()
    decide = bot.ai.decide

    async def noted(*args: Any, **kwargs: Any) -> Any:
        action = await decide(*args, **kwargs)
        decided.set()
        return action

    bot.ai.decide = noted  # type: ignore[method-assign]
    # North (alice) deals: East, an AI seat, is the first to act (trump).
    table = await world.open_table(alice, [None, None, None], first_dealer=0)
    version = table.version
    assert table.deal is not None and table.deal.to_act == 1
    # Decided within half the pause (asked only after it, as the AI once was, it could not be) ...
    await fake_discord.wait_event(decided, PAUSE_MS / 2000, what="the AI's decision, within half its pause")
    assert table.version == version and table.deal.to_act == 1  # ... whose end the move still waits for
