"""``/schnapsen status`` through the fake Discord: a server manager sees the bot's version, uptime, this server's
tables, the gateway latency, the AI's queue, the token's budget in use and the hour's problems, in their own
language, only to them; anybody else is refused."""

from __future__ import annotations

import logging

from bot.i18n import t
from bot.schnapsen.status import ProblemTally, Sample, Vitals
from bot.version import version
from tests.bot.schnapsen.harness import Table, ephemeral_reply


async def test_a_manager_sees_the_bots_health_and_this_servers_tables(world: Table) -> None:
    await world.start_bot()
    await world.command(world.admin, "new")  # a table in the lobby
    await world.table_message()
    logging.getLogger("bot.tests").error("a problem the status counts")

    answer = await ephemeral_reply(await world.command(world.admin, "status"))
    lines = answer.splitlines()
    assert lines[0].startswith(f"**Bauernschnapsen {version()}**, running for 0 h 0 min")
    assert lines[1] == "Open tables in this server: 1 (playing: 0, in the lobby: 1)"
    assert lines[2].startswith("Gateway latency: ")
    assert lines[3].startswith("AI queue: 0 waiting (worker processes: ")
    assert lines[3].endswith("decisions below full strength in the last hour: 0")
    assert lines[4].startswith("Bot token, requests per second in the last minute: ")
    assert lines[4].endswith("of 45; Discord's budget of bad answers (10 minutes): 0 of 10,000")
    assert lines[5].startswith("Logged in the last hour: errors 1, warnings ")

    german = await world.fake.slash(world.admin, world.channel, "schnapsen", "status", locale="de")
    assert (await ephemeral_reply(german)).splitlines()[1] == (
        "Offene Tische auf diesem Server: 1 (laufend: 0, in der Lobby: 1)"
    )


async def test_only_server_managers_may_ask(world: Table) -> None:
    await world.start_bot()
    player = world.add_player("anna")
    answer = await ephemeral_reply(await world.command(player, "status"))
    assert answer == t("en", "error.manager_only")


def test_the_hours_figures_are_differences_to_the_samples_that_long_ago() -> None:
    now = [0.0]
    readings = {"calls": 0, "below": 0}
    vitals = Vitals(lambda: Sample(now[0], readings["calls"], readings["below"]))
    for second in range(0, 7200, 10):  # two hours: 9 calls a sample, one reduced decision a minute
        now[0] = float(second)
        readings["calls"] += 9
        readings["below"] += second % 60 == 0
        vitals.note()
    assert vitals.token_rate() == 0.9
    assert vitals.below_full_last_hour() == 60

    tally = ProblemTally(clock=lambda: now[0])
    for when, level in ((0.0, logging.ERROR), (4000.0, logging.WARNING), (7000.0, logging.ERROR)):
        now[0] = when
        tally.emit(logging.LogRecord("x", level, __file__, 1, "m", None, None))
    now[0] = 7100.0
    assert tally.last_hour() == (1, 1)  # the error at 0 s is over an hour old
