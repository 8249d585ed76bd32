"""The pages speak the viewer's language (en, de, nl, tr): from Accept-Language, or ``?lang=`` (kept in the
page's links); cards, contracts, seats and what each action did in the words the table messages use."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape

import engine
from bot.i18n import t
from bot.render.names import card_name
from bot.vocabulary import LANGUAGES
from bot.web.words import language_of
from engine.actions import parse_action
from tests.bot.game.test_service import ALICE, four_at_play, play_deal
from tests.bot.web.conftest import Site


async def finished_table(site: Site) -> int:
    outcome = await play_deal(site.service, await four_at_play(site.service))
    return outcome.table.id


async def page(site: Site, path: str, accept: str = "") -> tuple[int, str, dict[str, str]]:
    async with site.client.get(path, headers={"Accept-Language": accept} if accept else {}) as response:
        return response.status, await response.text(), dict(response.headers)


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("de-AT,de;q=0.9,en;q=0.8", "de"),
        ("fr-FR,fr;q=0.9,nl;q=0.5", "nl"),
        ("en;q=0.2, tr;q=0.9", "tr"),
        ("tr;q=0, en-GB", "en"),
        ("fr, es", "en"),
        ("", "en"),
        ("de;q=abc, nl", "nl"),
        ("*", "en"),
    ],
)
def test_the_accept_language_header_picks_the_page_language(accept: str, expected: str) -> None:
    assert language_of(None, accept) == expected
    assert language_of("tr", accept) == "tr"  # ?lang= wins


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_every_page_is_in_the_viewers_language(site: Site, lang: str) -> None:
    table_id = await finished_table(site)
    paths = [
        f"/s/{site.token}/",
        f"/s/{site.token}/table/{table_id}",
        f"/s/{site.token}/table/{table_id}/deal/1",
        f"/s/{site.token}/player/{ALICE}",
    ]
    for path in paths:
        status, html, headers = await page(site, path, accept=f"{lang};q=0.9")
        assert status == 200, path
        assert f'<html lang="{lang}">' in html and headers["Content-Language"] == lang, path
        assert "Accept-Language" in headers["Vary"]
        assert escape(t(lang, "web.footer")) in html
    _, html, _ = await page(site, f"/s/{site.token}/", accept=lang)
    assert t(lang, "web.server.leaderboard") in html
    status, html, _ = await page(site, "/nowhere", accept=lang)
    assert status == 404 and t(lang, "web.not_found.title") in html


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_the_replay_names_cards_contracts_and_actions_as_the_table_does(site: Site, lang: str) -> None:
    table_id = await finished_table(site)
    record = await site.service.db.records.load_record(table_id)
    row = await site.service.db.tables.get_table(table_id)
    assert row is not None
    _, html, _ = await page(site, f"/s/{site.token}/table/{table_id}/deal/1?lang={lang}")
    data = json.loads(re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)[1])  # type: ignore[index]
    played = {action.split()[-1] for action in record.deals[0].actions if " play " in action}
    assert played and all(data["cards"][card] == card_name(card, row.deck, lang) for card in played)
    contracts = {step["contract"] for step in data["steps"] if step["contract"]}
    assert contracts and contracts <= {t(lang, f"contract.{c}") for c in ("normal", "bettler", "ass_bettler", "schnapser", "gang", "zehnerloch", "bauernschnapser", "kontraschnapser", "farbringerl", "kontrabauernschnapser", "trumpffarbringerl")}
    assert data["seats"] == [t(lang, f"seat.{seat}") for seat in range(4)]
    assert data["words"]["step"] == t(lang, "web.replay.step", step="{step}", steps="{steps}")
    dealer_name = data["names"][record.deals[0].dealer]
    assert data["steps"][0]["text"] == t(lang, "log.new_deal", name=dealer_name)
    for number, (seat, action) in enumerate(map(parse_action, record.deals[0].actions), start=1):
        if isinstance(action, engine.PlayCard):  # each card's step names it
            line = t(lang, "web.played", name=data["names"][seat], card=data["cards"][action.card])
            assert data["steps"][number]["text"].startswith(line), number
    assert data["steps"][-1]["result"]["text"].startswith(t(lang, "result.title", team=data["teams"][data["steps"][-1]["result"]["winner"]], count=1)[:3])
    if lang != "en":
        assert not any(re.search(r"\b(?:plays|passes|wins trick)\b", step["text"]) for step in data["steps"])


async def test_a_chosen_language_is_kept_in_the_links_and_a_bad_one_is_not_found(site: Site) -> None:
    table_id = await finished_table(site)
    _, html, _ = await page(site, f"/s/{site.token}/?lang=nl", accept="de")
    assert '<html lang="nl">' in html
    links = re.findall(r'href="(/s/[^"#]+)"(?! lang=)', html)  # all but the language choice's own
    assert len(links) > 3 and all(link.endswith("lang=nl") for link in links), links
    _, html, _ = await page(site, f"/s/{site.token}/table/{table_id}?lang=tr")
    assert "lang=tr" in re.search(r'data-events="([^"]+)"', html)[1]  # type: ignore[index]
    assert f'href="/s/{site.token}/table/{table_id}/deal/1?lang=tr"' in html
    _, html, _ = await page(site, f"/s/{site.token}/table/{table_id}", accept="de")
    assert "lang=de" in re.search(r'data-events="([^"]+)"', html)[1]  # type: ignore[index]  # the events follow the page
    assert f'href="/s/{site.token}/table/{table_id}/deal/1"' in html  # no choice made: the links stay bare
    for bad in ("xx", "DE", "de-AT", ""):
        assert (await page(site, f"/s/{site.token}/?lang={bad}"))[0] == 404, bad


async def test_the_live_events_come_in_the_pages_language(site: Site) -> None:
    table = await four_at_play(site.service)
    async with site.client.get(f"/s/{site.token}/table/{table.id}/events?lang=de") as response:
        line = b""
        while not line.startswith(b"data: "):
            line = await response.content.readline()
    state = json.loads(line[6:])
    assert state["seats"] == [t("de", f"seat.{seat}") for seat in range(4)]
    assert state["teams"][0] == "alice & carl"
