"""What leads to the pages and what sets them up: the tournament page of a real tournament played through the
service (standings, the bracket, each match's table live and then with its replays); the Replay link on the
answer to "Show the deal" and the table's page in ``/schnapsen export`` through the fake Discord (and neither
while the server has its pages off); every WEB_* setting error as one sentence, at start too; a port that is
taken stops the start in one sentence."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import aiohttp
import pytest
from markupsafe import escape

from bot.connect import StartError
from bot.game.service import TableService
from bot.game.tournaments import TournamentService
from bot.settings import Settings, SettingsError, WebSettings
from bot.web.server import WebServer
from devtools.fakediscord import FakeDiscord
from tests.bot.game.conftest import Clock
from tests.bot.game.test_tournaments import Places, play_round, signed_up
from tests.bot.schnapsen.conftest import warm_renderer  # noqa: F401 (a fixture)
from tests.bot.schnapsen.harness import Table, reply_to
from tests.bot.test_start_faults import run_bot
from tests.bot.web.conftest import Site

# --- the tournament page ------------------------------------------------------------------------------------


def links_in(html: str) -> list[str]:
    return re.findall(r'href="(/s/[^"#]+)"', html)


async def test_the_tournament_page_follows_a_knockout_from_its_first_round_to_its_winners(
    site: Site, clock: Clock
) -> None:
    service, db = site.service, site.service.db
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner, format="elimination")
    teams, _, _ = await runner.begin(tournament)
    places = Places()
    await runner.drive(service, tournament.id, places)
    page = f"/s/{site.token}/tournament/{tournament.id}"

    status, html = await site.get(page)
    assert status == 200
    assert "Saturday Cup" in html and "single elimination" in html and "Bracket" in html and "under way" in html
    first_round = await db.tournaments.matches(tournament.id, 1)
    assert len(first_round) == 2 and html.count("watch live") == 2
    for match in first_round:  # each match links to its table, live while it plays
        assert f'href="/s/{site.token}/table/{match.table_id}"' in html
        assert (await site.get(f"/s/{site.token}/table/{match.table_id}"))[0] == 200
    assert all(f"<bdi>{escape(team.name)}</bdi>" in html for team in teams)  # the standings list every team

    await play_round(service, db, tournament)
    await runner.drive(service, tournament.id, places)
    _, html = await site.get(page)
    assert "Semi-finals" in html and "Final" in html and "Round" not in html  # the stages, as the bracket's
    assert "table and replays" in html and html.count("watch live") == 1
    for match in await db.tournaments.matches(tournament.id, 1):
        winner = next(team for team in teams if team.id == match.winner_team)
        assert f"<bdi>{escape(winner.name)}</bdi> won" in html
        _, table_page = await site.get(f"/s/{site.token}/table/{match.table_id}")
        replays = [link for link in links_in(table_page) if "/deal/" in link]
        assert replays and [(await site.get(link))[0] for link in replays] == [200] * len(replays)  # replayed
    assert "<th>Team</th>" in html and html.count('<td class="num">1</td>') >= 2  # the standings: two winners
    assert html.count("won 1 · lost 0") == 2 and "Buchholz" not in html  # a knockout has no tie-break column

    await play_round(service, db, tournament)
    await runner.drive(service, tournament.id, places)
    finished = await db.tournaments.get_tournament(tournament.id)
    assert finished.status == "finished" and finished.winner_team is not None
    _, html = await site.get(page)
    champions = next(team for team in teams if team.id == finished.winner_team)
    assert f"won by <bdi>{escape(champions.name)}</bdi>" in html and "watch live" not in html
    _, server = await site.get(f"/s/{site.token}/")
    assert f'href="{page}"' in server  # the server page lists it


async def test_a_swiss_tournaments_standings_show_the_buchholz_tie_break(site: Site, clock: Clock) -> None:
    service, db = site.service, site.service.db
    runner = TournamentService(db, clock)
    tournament = await signed_up(runner)  # a Swiss of three rounds
    await runner.begin(tournament)
    await runner.drive(service, tournament.id, Places())
    await play_round(service, db, tournament)
    _, html = await site.get(f"/s/{site.token}/tournament/{tournament.id}")
    assert "Rounds" in html and '<th class="num">Buchholz</th>' in html and html.count("won 1 · lost 0") == 2
    standings = await runner.standings(tournament.id)
    for standing, _ in standings:
        assert f'<td class="num">{standing.points}</td><td class="num">{standing.buchholz}</td>' in html


async def test_another_servers_tournament_is_not_found(site: Site, clock: Clock) -> None:
    runner = TournamentService(site.service.db, clock)
    tournament = await signed_up(runner, guild_id=2)
    assert (await site.get(f"/s/{site.token}/tournament/{tournament.id}"))[0] == 404


# --- links in Discord ---------------------------------------------------------------------------------------


async def test_show_the_deal_and_export_link_to_the_pages_only_while_the_server_has_them_on(
    fake_discord: FakeDiscord, web_world: Table
) -> None:
    world = web_world
    anna = world.add_player("anna")
    await world.start_bot()
    await world.no_ai_delay()
    await world.command(world.admin, "settings", web_pages=True)
    table = await world.open_table(anna, [None, None, None], target=1000)
    await world.play([anna], until=lambda t: t.deal_no >= 1)
    result = await fake_discord.wait_for(
        lambda: next((m for m in world.channel.messages if "result.png" in m.filenames), None), what="the result"
    )

    shown = await reply_to(await fake_discord.click(anna, result, label="Show the deal"))
    replay = next(button for button in shown.buttons if button.get("label") == "Replay")
    assert replay["url"].endswith(f"/table/{table.id}/deal/1")
    export = await world.command(anna, "export")
    said = " ".join(message.visible_text for message in export.messages)
    table_url = re.search(r"https?://\S+/table/\d+", said)
    assert table_url is not None and table_url[0].endswith(f"/table/{table.id}")
    async with aiohttp.ClientSession() as session:
        for url in (replay["url"], table_url[0]):
            async with session.get(url) as response:
                assert response.status == 200, url
        async with session.get(table_url[0]) as response:
            assert f"/table/{table.id}/deal/1" in await response.text()  # the table's page lists the replay

    await world.command(world.admin, "settings", web_pages=False)
    shown = await reply_to(await fake_discord.click(anna, result, label="Show the deal"))
    assert not [button for button in shown.buttons if button.get("label") == "Replay"]
    export = await world.command(anna, "export")
    assert "/table/" not in " ".join(message.visible_text for message in export.messages)


# --- the settings -------------------------------------------------------------------------------------------

TOKEN = {"DISCORD_TOKEN": "token"}


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"WEB_PORT": "8080"}, "WEB_BASE_URL is not set"),
        ({"WEB_BASE_URL": "https://schnapsen.example.org"}, "WEB_PORT is not set"),
        ({"WEB_PORT": "0", "WEB_BASE_URL": "https://x.org"}, "WEB_PORT must be a port number from 1 to 65535"),
        ({"WEB_PORT": "65536", "WEB_BASE_URL": "https://x.org"}, "WEB_PORT must be a port number"),
        ({"WEB_PORT": "80a", "WEB_BASE_URL": "https://x.org"}, "WEB_PORT must be a port number"),
        ({"WEB_PORT": "-80", "WEB_BASE_URL": "https://x.org"}, "WEB_PORT must be a port number"),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "schnapsen.example.org"}, "WEB_BASE_URL must be the pages' public address"),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "ftp://x.org"}, "WEB_BASE_URL must be the pages' public address"),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "https://"}, "WEB_BASE_URL must be the pages' public address"),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "https://x.org/a b"}, "WEB_BASE_URL must be the pages' public address"),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "https://x.org/?a=1"}, "WEB_BASE_URL must have no query or fragment"),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "https://x.org/#top"}, "WEB_BASE_URL must have no query or fragment"),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "https://x.org", "WEB_HOST": "0.0.0.0 x"}, "WEB_HOST must be an address"),
    ],
)
def test_each_bad_web_setting_is_one_sentence_naming_it(env: dict[str, str], says: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({**TOKEN, **env})
    message = str(refused.value)
    assert message.startswith(says) and "\n" not in message


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, None),
        ({"WEB_PORT": " ", "WEB_BASE_URL": ""}, None),
        ({"WEB_PORT": "8080", "WEB_BASE_URL": "https://x.org/"}, WebSettings(8080, "https://x.org")),
        (
            {"WEB_PORT": "443", "WEB_BASE_URL": "https://example.org/schnapsen/", "WEB_HOST": "0.0.0.0"},
            WebSettings(443, "https://example.org/schnapsen", "0.0.0.0"),
        ),
    ],
)
def test_good_web_settings(env: dict[str, str], expected: WebSettings | None) -> None:
    assert Settings.from_env({**TOKEN, **env}).web == expected


def test_python_m_bot_with_half_the_web_settings_stops_in_one_line(tmp_path: Path) -> None:
    done = run_bot(tmp_path, {"DATABASE_PATH": "bot.sqlite3", "WEB_PORT": "8080"}, "import sys; from bot.__main__ import main; sys.exit(main())")
    assert done.returncode == 2, done.stderr
    assert "WEB_BASE_URL is not set" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr + done.stdout


async def test_a_taken_port_stops_the_start_in_one_sentence(service: TableService) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = WebServer(service, WebSettings(port, "https://x.org"))
        with pytest.raises(StartError) as stopped:
            await server.start()
    assert stopped.value.exit_code == 2
    assert str(stopped.value).startswith(f"the web pages cannot listen on 127.0.0.1:{port} (")
    assert "WEB_PORT" in str(stopped.value) and "\n" not in str(stopped.value)
    await server.stop()  # nothing left running
