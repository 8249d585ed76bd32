"""The pages in a real browser: Debian's chromium, driven by Playwright for Python (never a downloaded browser;
skipped where /usr/bin/chromium or Playwright is missing). The replay's scrubber shows, at every step of every
deal of a whole Bummerl, the cards the stored record says; the live page shows a card within 2 s of its play;
hostile names stay text; no page breaks its Content-Security-Policy; at 360 px every page in every language fits
the width with no word broken mid-word. With WEB_SCREENSHOTS=1 the pages are photographed at 1280 and 360 px
into docs/images (else into the test's temporary folder)."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import engine
from bot.game.service import TableService
from bot.game.table import rules_of
from bot.game.tournaments import TournamentService
from bot.render.names import card_name
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import ALICE, BOB, CARL, DORA, act_once, four_at_play, open_lobby, play_deal
from tests.bot.game.test_tournaments import Places, play_round, signed_up
from tests.bot.web.conftest import GUILD, Site

CHROMIUM = "/usr/bin/chromium"
playwright_api = pytest.importorskip("playwright.async_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None, reason="no chromium")
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"
WIDTHS = {"desktop": 1280, "phone": 360}
PHONE = WIDTHS["phone"]
HEIGHT = 900  # every viewport's
LANGUAGES = ("en", "de", "nl", "tr")
# Every word on the page (a run of letters, marks and digits) must lie on one line: a line break inside one is a
# word broken mid-word, as in a table column squeezed narrower than its heading's longest word.
BROKEN_WORDS = r"""() => {
    const broken = [];
    const range = document.createRange();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const word of node.data.matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const lines = new Set([...range.getClientRects()].map(rect => Math.round(rect.bottom)));
            if (lines.size > 1) broken.push(word[0] + ' in <' + node.parentElement.tagName.toLowerCase() + '>');
        }
    }
    return broken;
}"""
# The page's width, and the boxes that would need sideways scrolling (a table wider than its box).
WIDTH_AND_SCROLLED = """() => [
    document.documentElement.scrollWidth,
    [...document.querySelectorAll('.scroll')].filter(box => box.scrollWidth > box.clientWidth)
        .map(box => box.firstElementChild.className || box.firstElementChild.tagName),
]"""


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


async def new_page(browser: Any, width: int = 1280) -> tuple[Any, list[str]]:
    """A page that records every console error (a CSP violation is one) and fails on any dialog."""
    page = await browser.new_page(viewport={"width": width, "height": HEIGHT})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
    return page, problems


def screenshot_path(name: str, tmp_path: Path) -> Path:
    return (IMAGES if os.environ.get("WEB_SCREENSHOTS") else tmp_path) / name


async def photograph(page: Any, path: Path) -> None:
    """The whole page in one picture: the viewport made as tall as the page for it, so that what is fixed to the
    screen's foot (a phone's scrubber) is at the page's foot, not over its middle."""
    size = page.viewport_size
    height = await page.evaluate("document.documentElement.scrollHeight")
    await page.set_viewport_size({"width": size["width"], "height": height})
    await page.screenshot(path=str(path))
    await page.set_viewport_size(size)


async def phone_misfits(page: Any, what: str) -> list[str]:
    """How the page, as shown now in a 360 px viewport, fails to fit it: wider than that, a box on it that needs
    sideways scrolling, a word broken in the middle ([]: it fits)."""
    width, scrolled = await page.evaluate(WIDTH_AND_SCROLLED)
    broken = await page.evaluate(BROKEN_WORDS)
    return (
        ([f"{what} is {width} px wide"] if width > PHONE else [])
        + ([f"{what}: {scrolled} scroll sideways"] if scrolled else [])
        + ([f"{what} breaks words: {broken}"] if broken else [])
    )


async def play_bummerl(service: TableService) -> int:
    """A whole Bummerl by the four people, each deal to its end; the table's id."""
    table = await four_at_play(service)
    while True:
        outcome = await play_deal(service, table)
        table = outcome.table
        if table.status != "playing":
            return table.id


SHOWN = """[
    [0, 1, 2, 3].map(s => [...document.querySelectorAll('#hand-' + s + ' img')].map(i => i.dataset.card)),
    Object.fromEntries([...document.querySelectorAll('#trick .slot')]
        .filter(slot => slot.querySelector('img'))
        .map(slot => [slot.dataset.seat, slot.querySelector('img').dataset.card])),
]"""
# From the first step to the last with the page's own forward button, what is shown at each.
WALK = f"""() => {{
    document.getElementById('first').click();
    const seen = [{SHOWN}];
    while (!document.getElementById('forward').disabled) {{
        document.getElementById('forward').click();
        seen.push({SHOWN});
    }}
    return seen;
}}"""


async def shown(page: Any) -> Any:
    return await page.evaluate(f"() => {SHOWN}")


def expected_steps(rules: engine.Ruleset, dealer: int, hands: Any, actions: Any) -> list[tuple[list[set[str]], dict[str, str]]]:
    """Per step of the stored deal: each seat's cards in hand, and the cards on the table by seat."""
    record = engine.GameRecord(rules, dealer, (engine.DealRecord(hands, actions),))
    steps = []
    for step in engine.replay_steps(record):
        state = step.state
        plays = state.trick or (state.tricks[-1].plays if state.tricks else ())
        steps.append(([set(hand) for hand in state.hands], {str(seat): card for seat, card in plays}))
    return steps


async def test_the_scrubber_shows_the_stored_cards_at_every_step_of_a_whole_bummerl(
    site: Site, browser: Any, tmp_path: Path
) -> None:
    service = site.service
    table_id = await play_bummerl(service)
    row = await service.db.tables.get_table(table_id)
    assert row is not None
    record = await service.db.records.load_record(table_id)
    finished = [deal for deal in record.deals if deal.finished]
    assert len(finished) >= 2
    page, problems = await new_page(browser)
    for deal in finished:
        await page.goto(str(site.client.make_url(f"/s/{site.token}/table/{table_id}/deal/{deal.deal_no + 1}")))
        steps = expected_steps(rules_of(row), deal.dealer, deal.hands, deal.actions)
        assert await page.get_attribute("#slider", "max") == str(len(steps) - 1)
        if deal is finished[0]:  # by the arrow key, step by step
            walked = []
            for number in range(len(steps)):
                if number:
                    await page.keyboard.press("ArrowRight")
                assert await page.get_attribute("#replay", "data-step") == str(number)
                walked.append(await shown(page))
        else:  # by the forward button, all steps in one go
            walked = await page.evaluate(WALK)
        assert len(walked) == len(steps)
        for number, ((hands, trick), (shown_hands, shown_trick)) in enumerate(zip(steps, walked, strict=True)):
            assert [set(hand) for hand in shown_hands] == hands, (deal.deal_no, number)
            assert shown_trick == trick, (deal.deal_no, number)
        # the other controls: first, last, back, the slider
        await page.click("#first")
        assert await page.get_attribute("#replay", "data-step") == "0"
        await page.click("#last")
        assert await page.get_attribute("#replay", "data-step") == str(len(steps) - 1)
        await page.click("#back")
        assert await page.get_attribute("#replay", "data-step") == str(len(steps) - 2)
        await page.fill("#slider", "3")
        assert await page.get_attribute("#replay", "data-step") == "3"
        assert await page.is_visible("#result") is False
        await page.keyboard.press("End")
        assert await page.is_visible("#result")
    assert not problems
    table = await service.rematch(table_id, ALICE)  # a second Bummerl: the player page's rating graph
    while table.status == "playing":
        table = (await play_deal(service, table)).table
    for label, width in WIDTHS.items():
        await page.set_viewport_size({"width": width, "height": HEIGHT})
        await page.goto(str(site.client.make_url(f"/s/{site.token}/table/{table_id}/deal/{finished[0].deal_no + 1}#step=14")))
        await photograph(page, screenshot_path(f"web-replay-{label}.png", tmp_path))
        scroll_width = await page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= width, f"the replay is wider than {width} px ({scroll_width})"
        for path, name in (
            (f"/s/{site.token}/", "server"),
            (f"/s/{site.token}/player/{ALICE}", "player"),
        ):
            await page.goto(str(site.client.make_url(path)))
            await photograph(page, screenshot_path(f"web-{name}-{label}.png", tmp_path))
            assert await page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
    assert not problems, problems


async def test_the_live_page_shows_a_card_within_two_seconds_of_its_play(site: Site, browser: Any, tmp_path: Path) -> None:
    service = site.service
    table = await four_at_play(service)
    page, problems = await new_page(browser)
    await page.goto(str(site.client.make_url(f"/s/{site.token}/table/{table.id}")))
    # play on until the first card is on the table, each card checked on the page as it is played
    cards_seen = 0
    while cards_seen < 6:
        outcome = await act_once(service, table)
        table = outcome.table
        deal = table.deal
        assert deal is not None
        if deal.trick:
            seat, card = deal.trick[-1]
            await page.wait_for_selector(f'#trick .slot[data-seat="{seat}"] img[data-card="{card}"]', timeout=2000)
            cards_seen += 1
    # nothing the table has not shown is on the page: only the cards of the trick in play
    on_page = await page.evaluate("[...document.querySelectorAll('img[data-card]')].map(i => i.dataset.card)")
    assert set(on_page) <= {card for _, card in table.deal.trick} | {table.deal.aufschlag_card}
    for label, width in WIDTHS.items():
        await page.set_viewport_size({"width": width, "height": HEIGHT})
        await photograph(page, screenshot_path(f"web-live-{label}.png", tmp_path))
        assert await page.evaluate("document.documentElement.scrollWidth") <= width
    assert not problems, problems


async def test_hostile_names_are_text_in_the_browser(site: Site, browser: Any) -> None:
    service = site.service
    names = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>', "\u202eevil\u202c" + "W" * 200]
    table = await open_lobby(service)
    for user, name in zip((BOB, 13, 14), names, strict=True):
        await service.take_seat(table.id, user, name, None)
    outcome = await play_deal(service, await service.start(table.id, ALICE))
    page, problems = await new_page(browser, 360)
    for path in (f"/s/{site.token}/table/{outcome.table.id}", f"/s/{site.token}/table/{outcome.table.id}/deal/1"):
        await page.goto(str(site.client.make_url(path)))
        text = await page.evaluate("document.body.innerText")
        assert names[0] in text and names[1] in text
        assert await page.evaluate("document.querySelectorAll('img[src=\"x\"], main script:not([type])').length") == 0
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360  # a long name wraps
    assert not problems, problems


async def test_a_reviews_marks_show_at_their_steps_in_the_browser(site: Site, browser: Any, tmp_path: Path) -> None:
    from tests.bot.web.test_review_marks import TOKEN, kept_review

    table_id, judged = await kept_review(site)
    page, problems = await new_page(browser, 360)
    await page.goto(str(site.client.make_url(f"/s/{site.token}/table/{table_id}/deal/1?review={TOKEN}&lang=de")))
    assert await page.is_visible("#mark") is False  # step 0: no decision yet
    await page.click(f'.marks a[data-step="{judged[1] + 1}"]')  # the costly one, from the list of marks
    assert await page.get_attribute("#replay", "data-step") == str(judged[1] + 1)
    mark = await page.inner_text("#mark")
    assert "?" in mark and "Gewählt: " in mark and "0,40" in mark
    await page.keyboard.press("ArrowRight")
    assert await page.is_visible("#mark") is (judged[2] == judged[1] + 1)
    await photograph(page, screenshot_path("web-review-phone.png", tmp_path))
    assert await phone_misfits(page, "the replay with a review") == []
    assert not problems, problems


async def test_the_replay_shows_the_card_turned_up_for_trump(site: Site, browser: Any) -> None:
    service = site.service
    table = await four_at_play(service)
    assert table.deal is not None and table.deal.to_act is not None
    forehand = table.deal.to_act
    seated = table.seats[forehand]
    assert seated is not None
    outcome = await service.act(table.id, forehand, engine.AUFSCHLAGEN, table.version, user_id=seated.user_id)
    assert outcome.table.deal is not None
    turned_up = outcome.table.deal.aufschlag_card
    assert turned_up is not None
    await play_deal(service, outcome.table)
    page, problems = await new_page(browser)
    await page.goto(str(site.client.make_url(f"/s/{site.token}/table/{table.id}/deal/1#step=1")))
    assert "Turned up: " + card_name(turned_up, "french", "en") in await page.inner_text("#trump")
    assert not problems, problems


# Names as long as people's often are: a word of 12 letters, two words (each must stay whole at 360 px).
LONG_NAMES = {ALICE: "Alexandra Hofbauer", BOB: "Bartholomäus", CARL: "Can Yılmaz", DORA: "Dorothea Lindenau"}
STRANGERS = {15: "Elisabeth Österreicher", 16: "Florian", 17: "Gülşen Aydın", 18: "Hendrik Jansen"}


async def seated(service: TableService, names: dict[int, str]) -> Any:
    """A table of four with these names (the first the host), at play."""
    host, *others = names
    table = await service.open_table(
        guild_id=GUILD, channel_id=100 + host, host_id=host, host_name=names[host], preset="standard", deck="french",
        turn_seconds=60, language="en",
    )  # fmt: skip
    for user in others:
        table = await service.take_seat(table.id, user, names[user], None)
    return await service.start(table.id, host)


async def test_every_page_fits_a_phone_in_every_language(
    site: Site, clock: Clock, browser: Any, tmp_path: Path
) -> None:
    service = site.service
    table = await seated(service, LONG_NAMES)
    while table.status == "playing":  # a whole Bummerl: a rating, the replays, the boards
        table = (await play_deal(service, table)).table
    live = await seated(service, STRANGERS)
    for _ in range(12):  # into the play, a trick on the table
        live = (await act_once(service, live)).table
    runner = TournamentService(service.db, clock)
    tournament = await signed_up(runner, format="elimination")
    await runner.begin(tournament)
    await runner.drive(service, tournament.id, Places())
    await play_round(service, service.db, tournament)  # standings, a round played, the next one live
    await runner.drive(service, tournament.id, Places())
    pages = {
        "server": f"/s/{site.token}/",
        "leaderboard by win rate": f"/s/{site.token}/?sort=winrate",
        "player": f"/s/{site.token}/player/{ALICE}",
        "replay": f"/s/{site.token}/table/{table.id}/deal/1",
        "finished table": f"/s/{site.token}/table/{table.id}",
        "live table": f"/s/{site.token}/table/{live.id}",
        "tournament": f"/s/{site.token}/tournament/{tournament.id}",
        "not found": f"/s/{site.token}/table/999999",
    }
    page, problems = await new_page(browser, PHONE)
    misfits = []
    for lang in LANGUAGES:
        for name, path in pages.items():
            joint = "&" if "?" in path else "?"
            seen = len(problems)
            await page.goto(str(site.client.make_url(f"{path}{joint}lang={lang}")))
            if name == "not found":  # the console reports the page's own status, and nothing else
                assert [problem for problem in problems[seen:] if "404" not in problem] == []
                del problems[seen:]
            if name == "replay":
                await page.keyboard.press("End")  # every trick in the table of tricks
            found = await phone_misfits(page, f"{name} ({lang})")
            if found:  # to see what went wrong
                await photograph(page, tmp_path / f"{name}-{lang}.png")
            misfits += found
    assert not misfits, "\n".join(misfits)
    # The scrubber by thumb: its buttons (44 px) at the foot of the screen wherever the replay is scrolled to,
    # and nothing of the page left under them at its end.
    await page.goto(str(site.client.make_url(pages["replay"])))
    for scrolled in ("0", "document.body.scrollHeight / 2", "document.body.scrollHeight"):
        await page.evaluate(f"window.scrollTo(0, {scrolled})")
        for button in ("#first", "#back", "#forward", "#last"):
            box = await page.locator(button).bounding_box()
            assert box is not None and box["width"] >= 44 and box["height"] >= 44, button
            assert box["y"] + box["height"] >= HEIGHT - 60, (button, scrolled, box)
    bar = await page.locator(".controls").bounding_box()
    foot = await page.locator(".foot .languages").bounding_box()
    assert bar is not None and foot is not None and foot["y"] + foot["height"] <= bar["y"]
    assert not problems, problems
