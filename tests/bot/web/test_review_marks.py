"""A kept "Review my play" shows its marks on the deal's replay, at the decisions it judged, only to whoever
opens the replay with the review's own token (the link in the asker's answer); forget-me and retention delete
it. End to end: the review answer's link through the fake Discord opens the replay with the marks the review
answer lists."""

from __future__ import annotations

import json
import re
from typing import Any

import aiohttp

from bot.db.reviews import KeptReview
from devtools.fakediscord import FakeDiscord
from engine.actions import parse_action
from tests.bot.game.test_service import ALICE, four_at_play, play_deal
from tests.bot.schnapsen.conftest import warm_renderer  # noqa: F401 (a fixture)
from tests.bot.schnapsen.harness import Table
from tests.bot.schnapsen.test_coach import coach_settings, open_dealt_table, result_message
from tests.bot.web.conftest import Site

TOKEN = "R" * 22


def replay_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found[1])


async def kept_review(site: Site) -> tuple[int, list[int]]:
    """A finished deal with a review of North's decisions kept (the second one costly); the table and the
    indices of the actions judged."""
    table_id = (await play_deal(site.service, await four_at_play(site.service))).table.id
    record = await site.service.db.records.load_record(table_id)
    actions = record.deals[0].actions
    north = [i for i, action in enumerate(actions) if parse_action(action)[0] == 0][:3]
    marks = [
        {"index": i, "played": actions[i], "best": actions[i], "played_value": 0.5, "best_value": 0.5 + 0.4 * (n == 1),
         "loss": 0.4 * (n == 1)}
        for n, i in enumerate(north)
    ]  # fmt: skip
    await site.service.db.reviews.keep(KeptReview(TOKEN, ALICE, table_id, 0, 0, json.dumps(marks), 1))
    return table_id, north


async def test_the_marks_show_only_with_the_reviews_own_token(site: Site) -> None:
    table_id, judged = await kept_review(site)
    replay = f"/s/{site.token}/table/{table_id}/deal/1"
    status, html = await site.get(f"{replay}?review={TOKEN}")
    assert status == 200
    data = replay_data(html)
    review = data["review"]
    assert review["name"] == "alice"
    assert [mark["step"] for mark in review["marks"]] == [i + 1 for i in judged]  # the step after the decision
    assert [mark["costly"] for mark in review["marks"]] == [False, True, False]
    assert "0.40" in review["marks"][1]["text"]
    assert 'id="review"' in html and 'list="marked"' in html

    _, plain = await site.get(replay)
    assert replay_data(plain)["review"] is None and 'id="review"' not in plain
    for bad in ("R" * 21 + "S", "short", "R" * 22 + "&review=x"):
        assert (await site.get(f"{replay}?review={bad}"))[0] == 404, bad
    running = site.service.snapshot(table_id)
    assert running is not None
    await play_deal(site.service, running)
    assert (await site.get(f"/s/{site.token}/table/{table_id}/deal/2?review={TOKEN}"))[0] == 404  # another deal's


async def test_the_marks_speak_the_viewers_language(site: Site) -> None:
    table_id, _ = await kept_review(site)
    _, html = await site.get(f"/s/{site.token}/table/{table_id}/deal/1?review={TOKEN}&lang=de")
    marks = replay_data(html)["review"]["marks"]
    assert marks[1]["text"].startswith("Gewählt: ") and "0,40" in marks[1]["text"]


async def test_forget_me_deletes_the_persons_reviews(site: Site) -> None:
    table_id, _ = await kept_review(site)
    await site.service.close(table_id)
    forgotten = await site.service.prefs.forget_person(ALICE)
    assert forgotten.reviews == 1
    assert await site.service.db.reviews.count_of(ALICE) == 0
    assert (await site.get(f"/s/{site.token}/table/{table_id}/deal/1?review={TOKEN}"))[0] == 404
    assert (await site.get(f"/s/{site.token}/table/{table_id}/deal/1"))[0] == 200  # the replay itself stays


async def test_retention_deletes_the_reviews_with_the_moves(site: Site) -> None:
    table_id, _ = await kept_review(site)
    await site.service.close(table_id)
    row = await site.service.db.tables.get_table(table_id)
    assert row is not None
    assert await site.service.db.retention.prune_closed_tables(older_than=row.updated_at + 1) == 1
    assert await site.service.db.reviews.count_of(ALICE) == 0


# --- end to end: the link in the review answer ------------------------------------------------------------


async def test_the_review_answers_link_opens_the_replay_with_its_marks(fake_discord: FakeDiscord, web_world: Table) -> None:
    world = web_world
    coach_settings(world)
    alice, bob = world.add_player("alice"), world.add_player("bob")
    await world.start_bot()
    await world.no_ai_delay()
    await world.command(world.admin, "settings", web_pages=True)
    table = await open_dealt_table(world, alice, [None, None, None], target=1000)
    await world.play([alice], until=lambda t: t.deal_no >= 1)
    result = await result_message(world, 0)

    review = await fake_discord.click(alice, result, label="Review my play")
    await review.wait_response()
    answer = (await review.wait_followups(1, timeout=30))[-1]
    assert answer.ephemeral  # the link is the asker's alone
    link = next(button for button in answer.buttons if button.get("label") == "Replay with my review")
    url = link["url"]
    assert re.search(rf"/table/{table.id}/deal/1\?review=[A-Za-z0-9_-]{{22}}$", url), url
    async with aiohttp.ClientSession() as session:
        async with session.get(url) as response:
            assert response.status == 200
            data = replay_data(await response.text())
        async with session.get(url.split("?")[0]) as response:
            assert replay_data(await response.text())["review"] is None  # the same replay, no marks
    marks = data["review"]["marks"]
    assert marks and data["review"]["name"] == "alice"
    costly_lines = [line for line in answer.visible_text.splitlines() if "you chose" in line]
    assert len([mark for mark in marks if mark["costly"]]) == len(costly_lines)
    record = await world.bot.service.db.records.load_record(table.id)  # type: ignore[union-attr]
    for mark in marks:  # each at the step after one of alice's (North's) own moves
        assert parse_action(record.deals[0].actions[mark["step"] - 1])[0] == 0

    stranger = await fake_discord.click(bob, result, label="Review my play")
    await stranger.wait_response()  # bob played no seat: refused, and no review kept for him
    assert await world.bot.service.db.reviews.count_of(bob.id) == 0  # type: ignore[union-attr]
