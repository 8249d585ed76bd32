"""One person and three AI players play a whole Bummerl through the real client and the fake Discord."""

from __future__ import annotations

from pathlib import Path

from devtools.fakediscord import FakeDiscord, FakeMessage
from tests.bot.schnapsen.harness import CurrentTable, Table


def enabled_game_buttons(message: FakeMessage) -> list[dict]:
    return [
        b
        for b in message.buttons
        if not b.get("disabled")
        and b.get("custom_id", "").split(":")[3:4]
        and b["custom_id"].split(":")[3] in ("trump", "auf", "bid", "pass", "dbl", "play", "mar")
    ]


async def test_one_person_and_three_ai_play_a_bummerl(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    world = Table(fake_discord, tmp_path / "bot.sqlite3")
    alice = world.add_player("alice")
    await world.start_bot()
    await world.no_ai_delay()
    await world.command(alice, "new")
    for seats in range(2, 5):
        lobby = await world.table_message()
        click = await fake_discord.click(alice, lobby, label="Add AI player")
        await click.wait_response()
        await world.table_message(
            lambda m, n=seats: sum(f["value"] != "(free)" for f in m.embeds[0]["fields"]) == n
        )
    start = await fake_discord.click(alice, await world.table_message(), label="Start")
    await start.wait_response()
    bot = world.bot
    assert bot is not None
    table = CurrentTable(world, bot.service.open_tables()[0].id)
    await fake_discord.wait_for(lambda: table.status == "playing")
    clicks = 0
    while table.status == "playing":

        def my_turn_dm() -> FakeMessage | None:
            if table.status != "playing":
                return None
            dms = fake_discord.dm_messages(alice)
            if dms and enabled_game_buttons(dms[-1]):
                button = enabled_game_buttons(dms[-1])[0]
                if int(button["custom_id"].split(":")[2]) == table.version:
                    return dms[-1]
            return None

        dm = await fake_discord.wait_for(lambda: my_turn_dm() or table.status != "playing", timeout=20)
        if dm is True:
            break
        button = enabled_game_buttons(dm)[0]
        interaction = await fake_discord.click(alice, dm, button["custom_id"])
        await interaction.wait_response()
        clicks += 1
    assert table.status == "finished"
    assert clicks >= 5  # at least the trump choice and the auction turns of the first deal
    assert table.match.bummerls
