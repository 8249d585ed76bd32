""""Show the deal" for a deal that ended on a lead: the Ober of Acorns led with a 40 ends a normal game at 95.
The scene shows that lead as the last, unfinished trick (the card led, no longer "never played", its
marriage said), in the image's scene, its alt text and the message text, in every language."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import engine
from bot import render
from bot.db import SeatRow, TableRow
from bot.game.table import TableSnapshot, seats_by_number
from bot.render import LANGUAGES, card_name, label, suit_name
from bot.schnapsen.answers import deal_review_payload, deal_review_scene
from tests.engine.engine_builder import position

NAMES = ("Anna", "Bernd", "Clara", "Dieter")
# North (forehand, West deals) names Acorns trump, takes two tricks with the Aces (27 + 28 card points) and
# leads the Ober of Acorns announcing 40: 95, the deal is over at once, the Ober never played (RULES.md 6.1).
HANDS = {
    "N": "CK CQ HA / DA SA",
    "E": "SJ CJ HT / SQ DQ",
    "S": "DK HJ CA / DJ ST",
    "W": "DT HK SK / CT HQ",
}
ACTIONS = [
    "N trump C", "N pass", "E pass", "S pass", "W pass", "E pass", "W pass",
    "N play HA", "E play HT", "S play HJ", "W play HK",
    "N play DA", "E play DQ", "S play DK", "W play DT",
    "N play CQ 40",
]  # fmt: skip


def ended_on_a_40() -> TableSnapshot:
    deal = position(HANDS, dealer="W", actions=ACTIONS)
    assert deal.finished and deal.total(0) == 95 and "CQ" in deal.hands[0], "the engine leaves the Ober in hand"
    row = TableRow(
        id=5, guild_id=1, channel_id=2, host_id=11, status="playing", rules_json=json.dumps("standard"),
        deck="doppeldeutsch", turn_seconds=90, language="en", table_message_id=None, version=16, first_dealer=3,
        created_at=0, updated_at=0,
    )  # fmt: skip
    seats = seats_by_number(SeatRow(5, s, 11 + s, NAMES[s], False, None, None, False, False) for s in range(4))
    table = TableSnapshot(row, seats, engine.STANDARD, engine.new_match(engine.STANDARD, 3))
    return replace(table, deal=deal, deal_no=0)


def test_the_scene_shows_the_final_lead_as_the_last_unfinished_trick() -> None:
    scene = deal_review_scene(ended_on_a_40(), "en")
    assert [trick.winner for trick in scene.tricks] == [0, 0, None]
    assert scene.tricks[-1] == render.ReviewTrick(((0, "CQ"),), None)
    assert (0, "C", 40, 3) in scene.marriages, "the marriage belongs to the lead's trick"
    assert scene.never_played(0) == ("CK", "SA"), "the Ober was led: only the King and the Ace stayed"
    with pytest.raises(ValueError, match="only the last trick is unfinished"):
        replace(scene, tricks=(scene.tricks[2], scene.tricks[0]))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_alt_text_and_the_lines_tell_the_final_lead_and_its_40(lang: str) -> None:
    scene = deal_review_scene(ended_on_a_40(), lang)
    deck = scene.deck
    lead = label("alt_review_final_lead", lang, n=3, name="Anna", card=card_name("CQ", deck, lang))
    marriage = label("alt_review_marriage", lang, name="Anna", value=40, suit=suit_name("C", deck, lang))
    held = label("alt_review_held", lang, name="Anna", cards=f"{card_name('CK', deck, lang)}, {card_name('SA', deck, lang)}")
    alt = render.deal_review_alt_text(scene)
    assert f"{lead} {marriage}" in alt
    assert held in alt, "Anna's never-played cards are the King and the Ace, not the Ober she led"
    assert render.deal_review_lines(scene)[-2:] == [lead, marriage], "the message's text says it too"


async def test_the_answer_carries_the_final_lead_in_its_text_and_alt_text() -> None:
    payload = await deal_review_payload(ended_on_a_40(), "en")
    description = payload.embeds[0].description or ""
    assert description.endswith("\nTrick 3: Anna led Ober of Acorns, and the deal was over.\nAnna announced 40 in Acorns.")
    alt = payload.alt["deal.png"]
    assert "Never played: Anna (King of Acorns, Ace of Leaves); " in alt
    assert payload.images["deal.png"].startswith(b"\x89PNG")
