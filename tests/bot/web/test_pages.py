"""Every page answers for a server with its pages on; every bad request (an unknown id, a bad token, another
server's table, a malformed query, a method that would change something) is the same 404 page, logged at DEBUG
at most; display names are text, never markup; the rate limit holds per client."""

from __future__ import annotations

import logging
import re

import pytest

import engine
from bot.db import Database
from bot.game.service import TableService
from bot.game.table import rules_of
from bot.web.graph import rating_graph
from bot.web.security import CONTENT_SECURITY_POLICY, RateLimiter
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import ALICE, BOB, CARL, DORA, NAMES, four_at_play, open_lobby, play_deal
from tests.bot.web.conftest import GUILD, Site

DAY = 86_400


async def finished_deal(site: Site) -> int:
    """A table of GUILD whose first deal is over (its second runs); its id."""
    outcome = await play_deal(site.service, await four_at_play(site.service))
    return outcome.table.id


async def test_every_page_answers(site: Site) -> None:
    table_id = await finished_deal(site)
    pages = {
        f"/s/{site.token}/": "Leaderboard",
        f"/s/{site.token}/?sort=points&page=1": "Game points",
        f"/s/{site.token}/table/{table_id}": "Table",
        f"/s/{site.token}/table/{table_id}/deal/1": 'id="replay-data"',
        f"/s/{site.token}/player/{ALICE}": NAMES[ALICE],
    }
    for path, expected in pages.items():
        status, html = await site.get(path)
        assert status == 200, (path, html[:300])
        assert expected in html, path
    _, html = await site.get(f"/s/{site.token}/player/{ALICE}")
    assert "0 played, 0 won" in html  # the tournaments in words, as the profile card says them
    status, _ = await site.get(f"/s/{site.token}/table/{table_id}/deal/2")  # the running deal: not yet
    assert status == 404


async def test_the_replay_holds_every_step_of_the_stored_deal(site: Site) -> None:
    table_id = await finished_deal(site)
    _, html = await site.get(f"/s/{site.token}/table/{table_id}/deal/1")
    record = await site.service.db.records.load_record(table_id)
    steps = int(re.search(r'max="(\d+)"', html)[1])  # type: ignore[index]
    assert steps == len(record.deals[0].actions)  # one step per action after the deal itself
    row = await site.service.db.tables.get_table(table_id)
    assert row is not None
    dealt = record.deals[0]
    game = engine.GameRecord(rules_of(row), dealt.dealer, (engine.DealRecord(dealt.hands, dealt.actions),))
    final = list(engine.replay_steps(game))[-1].state
    names = [NAMES[user] for user in (ALICE, BOB, CARL, DORA)]  # by seat
    assert html.count("<tr data-trick=") == len(final.tricks)  # the table of tricks: each one, who took it
    totals = [0, 0]
    for trick in final.tricks:
        totals[trick.winner & 1] += trick.points
        taken = f"taken by <bdi>{names[trick.winner]}</bdi> · card points: {trick.points}"
        columns = rf'</span></td>\s*<td class="num">{totals[0]}</td>\s*<td class="num">{totals[1]}</td>'
        assert re.search(re.escape(taken) + columns, html), (trick, totals)  # with the points after it


BAD_PATHS = [
    "/",
    "/s/",
    "/s/{token}",  # no trailing slash: not a page
    "/s/{bad}/",
    "/s/short/",
    "/s/{token}/table/999999",
    "/s/{token}/table/abc",
    "/s/{token}/table/-1",
    "/s/{token}/table/99999999999999999999999",
    "/s/{token}/table/{table}/deal/0",
    "/s/{token}/table/{table}/deal/9",
    "/s/{token}/table/{table}/deal/x",
    "/s/{token}/table/{table}?x=1",
    "/s/{token}/?sort=nonsense",
    "/s/{token}/?page=0",
    "/s/{token}/?page=abc",
    "/s/{token}/?page=1&page=2",
    "/s/{token}/?sort=rating&evil=1",
    "/s/{token}/player/0",
    "/s/{token}/player/424242",
    "/s/{token}/tournament/1",
    "/static/../../etc/passwd",
    "/static/secret.py",
    "/cards/french/XX.webp",
    "/cards/nodeck/HA.webp",
    "/cards/french/HA.png",
    "/s/{token}/table/{table}/deal/1/../../../",
]


@pytest.mark.parametrize("template", BAD_PATHS)
async def test_a_bad_request_is_the_404_page_and_logged_quietly(
    site: Site, template: str, caplog: pytest.LogCaptureFixture
) -> None:
    table_id = await finished_deal(site)
    path = template.format(token=site.token, bad="A" * 22, table=table_id)
    with caplog.at_level(logging.DEBUG):
        status, html = await site.get(path)
    assert status == 404, path
    assert "Not found" in html
    assert not [r for r in caplog.records if r.levelno > logging.DEBUG and r.name.startswith(("bot.web", "aiohttp"))]


async def test_nothing_can_be_changed(site: Site) -> None:
    table_id = await finished_deal(site)
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        async with site.client.request(method, f"/s/{site.token}/table/{table_id}") as response:
            assert response.status == 404


async def test_another_servers_table_and_a_server_with_its_pages_off_are_not_found(site: Site) -> None:
    service = site.service
    other = await service.guilds.update_guild_settings(GUILD + 1, web_pages=True)
    table_id = await finished_deal(site)
    status, _ = await site.get(f"/s/{other.web_token}/table/{table_id}")  # GUILD's table under another token
    assert status == 404
    status, _ = await site.get(f"/s/{other.web_token}/")
    assert status == 200
    await service.guilds.update_guild_settings(GUILD, web_pages=False)
    for path in (f"/s/{site.token}/", f"/s/{site.token}/table/{table_id}", f"/s/{site.token}/table/{table_id}/deal/1"):
        assert (await site.get(path))[0] == 404
    again = await service.guilds.update_guild_settings(GUILD, web_pages=True)
    assert again.web_token == site.token  # turned on again: the same links work again
    assert (await site.get(f"/s/{site.token}/"))[0] == 200


async def test_the_token_is_long_random_and_unique(service: TableService) -> None:
    tokens = {(await service.guilds.update_guild_settings(guild, web_pages=True)).web_token for guild in range(1, 30)}
    assert len(tokens) == 29
    assert all(token is not None and len(token) >= 22 for token in tokens)


async def test_replays_follow_the_deal_review_setting(site: Site) -> None:
    table_id = await finished_deal(site)
    await site.service.guilds.update_guild_settings(GUILD, deal_review=False)
    assert (await site.get(f"/s/{site.token}/table/{table_id}/deal/1"))[0] == 404
    _, html = await site.get(f"/s/{site.token}/table/{table_id}")
    assert "/deal/1" not in html


async def test_todays_daily_deals_are_shown_to_nobody_before_the_day_is_over(site: Site, clock: Clock) -> None:
    db: Database = site.service.db
    table_id = await finished_deal(site)
    day = "2023-11-14"  # the clock's day (1_700_000_000)
    await db.daily.day_secret(day, 7, int(clock.now))
    await db.daily.start_attempt(day=day, user_id=ALICE, guild_id=GUILD, table_id=table_id, display_name="alice", now=int(clock.now))
    paths = [f"/s/{site.token}/table/{table_id}", f"/s/{site.token}/table/{table_id}/deal/1", f"/s/{site.token}/table/{table_id}/events"]
    for path in paths:
        assert (await site.get(path))[0] == 404, path
    _, html = await site.get(f"/s/{site.token}/")
    assert f"/table/{table_id}\"" not in html
    clock.now += DAY
    assert (await site.get(paths[1]))[0] == 200


HOSTILE = {
    BOB: "<script>alert(1)</script>",
    13: '"><img src=x onerror=alert(2)>',
    14: "\u202eevil\u202c &amp; {{ 7*7 }}",
}


async def test_hostile_display_names_are_text(site: Site) -> None:
    service = site.service
    table = await open_lobby(service)
    long_name = "W" * 300
    await service.take_seat(table.id, BOB, HOSTILE[BOB], None)
    await service.take_seat(table.id, 13, HOSTILE[13], None)
    await service.take_seat(table.id, 14, HOSTILE[14] + long_name, None)
    outcome = await play_deal(service, await service.start(table.id, ALICE))
    table_id = outcome.table.id
    for path in (
        f"/s/{site.token}/table/{table_id}",
        f"/s/{site.token}/table/{table_id}/deal/1",
        f"/s/{site.token}/player/{BOB}",
        f"/s/{site.token}/player/13",
        f"/s/{site.token}/",
    ):
        status, html = await site.get(path)
        assert status == 200, path
        assert "<script>alert" not in html and "<img src=x" not in html, path
    _, html = await site.get(f"/s/{site.token}/table/{table_id}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    assert "\u202eevil\u202c &amp;amp; {{ 7*7 }}" in html and long_name in html  # kept whole, in its own <bdi>


async def test_the_rate_limit_holds_per_client() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=1.0, burst=3, clients=2, clock=lambda: now[0])
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b")  # another client has its own bucket
    now[0] += 1.0
    assert limiter.allow("a") and not limiter.allow("a")
    limiter.allow("c")  # a third client: the least recently seen is forgotten (bounded memory)
    assert len(limiter._buckets) == 2


async def test_a_flood_from_one_client_is_refused_with_429(service: TableService, cards: dict[tuple[str, str], bytes]) -> None:
    from aiohttp.test_utils import TestClient

    from bot.web.app import WebContext, make_app
    from bot.web.live import LiveHub
    from tests.bot.web.conftest import QuietServer

    hub = LiveHub(service.db, service.held)
    context = WebContext(service.db, service, cards, hub, limiter=RateLimiter(rate=0.01, burst=5))
    async with TestClient(QuietServer(make_app(context))) as client:
        statuses = []
        for _ in range(7):
            async with client.get("/nowhere") as response:
                statuses.append(response.status)
        assert statuses == [404] * 5 + [429] * 2


async def test_every_answer_carries_the_strict_headers(site: Site) -> None:
    table_id = await finished_deal(site)
    for path in (f"/s/{site.token}/", "/nowhere", f"/s/{site.token}/table/{table_id}/deal/1", "/static/site.css"):
        async with site.client.get(path) as response:
            assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
            assert response.headers["Referrer-Policy"] == "no-referrer"
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert response.headers["X-Frame-Options"] == "DENY"


async def test_pages_use_nothing_from_elsewhere(site: Site) -> None:
    table_id = await finished_deal(site)
    for path in (f"/s/{site.token}/", f"/s/{site.token}/table/{table_id}", f"/s/{site.token}/table/{table_id}/deal/1", f"/s/{site.token}/player/{ALICE}"):
        _, html = await site.get(path)
        assert "http://" not in html and "https://" not in html and "//" not in html.replace("://", "")
        assert " style=" not in html and "onclick" not in html and "<script>" not in html.replace('<script type="application/json"', "")


async def test_the_card_art_is_the_tables_deck_and_small(site: Site) -> None:
    total = 0
    for card in ("HA", "ST", "back"):
        async with site.client.get(f"/cards/doppeldeutsch/{card}.webp") as response:
            assert response.status == 200 and response.content_type == "image/webp"
            total += len(await response.read())
    assert total < 3 * 8_000


async def test_a_forgotten_person_has_no_page_and_no_name_left(site: Site) -> None:
    service = site.service
    table_id = await finished_deal(site)
    assert (await site.get(f"/s/{site.token}/player/{BOB}"))[0] == 200
    assert f"/player/{BOB}" in (await site.get(f"/s/{site.token}/"))[1]
    await service.close(table_id)
    await service.prefs.forget_person(BOB)
    assert (await site.get(f"/s/{site.token}/player/{BOB}"))[0] == 404
    for path in (f"/s/{site.token}/table/{table_id}", f"/s/{site.token}/table/{table_id}/deal/1"):
        status, html = await site.get(path)
        assert status == 200 and ">bob<" not in html and "(removed)" in html, path
    _, board = await site.get(f"/s/{site.token}/")
    assert f"/player/{BOB}" not in board and ">bob<" not in board  # off the leaderboard too


def test_the_rating_graph_spans_the_values() -> None:
    assert rating_graph([1000]) is None
    graph = rating_graph([1000, 1040, 980])
    assert graph is not None and (graph.low, graph.high) == (980, 1040)
    ys = [y for _, y, _ in graph.dots]
    assert ys[1] < ys[0] < ys[2]  # higher ratings are drawn higher
    assert all(0 <= x <= graph.width for x, _, _ in graph.dots)
