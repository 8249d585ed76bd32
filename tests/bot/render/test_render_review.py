"""The deal review image and its alt text: every card named in every language and deck, within Discord's
limit for an attachment's description, and a scene that cannot show a card where it was not."""

from __future__ import annotations

import dataclasses
import io

import pytest
from PIL import Image

from bot.render import (
    ALL_CARDS,
    DECK_STYLES,
    LANGUAGES,
    DealReviewScene,
    ReviewTrick,
    card_name,
    deal_review_alt_text,
    deal_review_lines,
    render_deal_review,
    review_size,
)
from bot.render.review import ALT_LIMIT

HANDS = (
    ("HA", "HT", "HK", "CQ", "SJ"),
    ("HQ", "HJ", "DA", "DT", "DK"),
    ("DQ", "DJ", "CA", "CT", "CK"),
    ("CJ", "SA", "ST", "SK", "SQ"),
)
WHOLE_DEAL = DealReviewScene(
    seat_names=("Anna", "Benedikt", "Carla", "Dominik"),
    hands=HANDS,
    tricks=(
        ReviewTrick(((0, "HA"), (1, "HQ"), (2, "DQ"), (3, "CJ")), 0),
        ReviewTrick(((0, "HK"), (1, "HJ"), (2, "DJ"), (3, "SA")), 0),
        ReviewTrick(((0, "CQ"), (1, "DA"), (2, "CA"), (3, "SQ")), 2),
        ReviewTrick(((2, "CT"), (3, "ST"), (0, "SJ"), (1, "DT")), 2),
        ReviewTrick(((2, "CK"), (3, "SK"), (0, "HT"), (1, "DK")), 0),
    ),
    winner_team=0,
    game_points=1,
    contract_label="Kontrabauernschnapser",
    declarer_seat=0,
    trump="H",
    aufschlag_card="HK",
    multiplier=8,
    marriages=((0, "H", 40, 2),),
)
ENDED_EARLY = dataclasses.replace(WHOLE_DEAL, tricks=WHOLE_DEAL.tricks[:1], marriages=())
# Anna's 40 ends the deal as she leads trick 2: the lead is the last trick, unfinished (no winner).
ENDED_ON_A_LEAD = dataclasses.replace(
    WHOLE_DEAL, tricks=(WHOLE_DEAL.tricks[0], ReviewTrick(((0, "HK"),), None)), marriages=((0, "H", 40, 2),)
)


@pytest.mark.parametrize("deck", DECK_STYLES)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name_length", [4, 32])  # 32: Discord's longest display name
def test_the_alt_text_names_all_twenty_cards_within_discords_limit(deck: str, lang: str, name_length: int) -> None:
    names = tuple(f"{seat}{'x' * (name_length - 1)}" for seat in "NESW")
    scene = dataclasses.replace(WHOLE_DEAL, seat_names=names, deck=deck, lang=lang)  # type: ignore[arg-type]
    alt = deal_review_alt_text(scene)
    assert len(alt) <= ALT_LIMIT
    assert [card for card in ALL_CARDS if card_name(card, deck, lang) not in alt] == []


def test_the_alt_text_tells_the_tricks_their_winners_and_what_was_never_played() -> None:
    alt = deal_review_alt_text(ENDED_EARLY)
    assert "King of Hearts was turned up for trump." in alt
    assert "Anna declared Kontrabauernschnapser. Stakes ×8." in alt
    assert "Trick 1: Anna played Ace of Hearts, Benedikt played Ober of Hearts" in alt and "; Anna won it." in alt
    assert "Trick 2" not in alt
    assert "Never played: Anna (Ten of Hearts, King of Hearts, Ober of Acorns, Unter of Leaves); Benedikt (" in alt
    assert alt.endswith("Anna & Carla win the deal with 1 game point.")
    lines = deal_review_lines(WHOLE_DEAL)
    assert len(lines) == 6 and lines[2] == "Anna announced 40 in Hearts."


@pytest.mark.parametrize("scene", [WHOLE_DEAL, ENDED_EARLY, ENDED_ON_A_LEAD])
def test_the_image_has_the_size_it_says(scene: DealReviewScene) -> None:
    with Image.open(io.BytesIO(render_deal_review(scene))) as image:
        assert image.size == review_size(scene)
        assert image.mode == "P"


def test_a_scene_shows_no_card_where_it_was_not() -> None:
    stolen = ReviewTrick(((0, "HQ"), (1, "HA")), 0)  # each plays the other's card
    with pytest.raises(ValueError, match="only a card it was dealt"):
        dataclasses.replace(WHOLE_DEAL, tricks=(stolen,))
    with pytest.raises(ValueError, match="dealt once"):
        dataclasses.replace(WHOLE_DEAL, hands=(HANDS[0], HANDS[0], HANDS[2], HANDS[3]))
    with pytest.raises(ValueError, match="winner in it"):
        dataclasses.replace(WHOLE_DEAL, tricks=(ReviewTrick(((0, "HA"),), 1),))
    lead = ReviewTrick(((0, "HK"),), None)
    with pytest.raises(ValueError, match="only the last trick is unfinished"):
        dataclasses.replace(ENDED_ON_A_LEAD, tricks=(lead, WHOLE_DEAL.tricks[0]), marriages=((0, "H", 40, 1),))
    with pytest.raises(ValueError, match="only the last trick is unfinished"):  # a lead that announced nothing
        dataclasses.replace(ENDED_ON_A_LEAD, marriages=())


def test_a_lead_that_ended_the_deal_is_told_and_no_longer_never_played() -> None:
    assert ENDED_ON_A_LEAD.never_played(0) == ("HT", "CQ", "SJ")
    alt = deal_review_alt_text(ENDED_ON_A_LEAD)
    assert "Trick 2: Anna led King of Hearts, and the deal was over. Anna announced 40 in Hearts." in alt
    assert "Never played: Anna (Ten of Hearts, Ober of Acorns, Unter of Leaves); " in alt
    assert deal_review_lines(ENDED_ON_A_LEAD)[-2:] == [
        "Trick 2: Anna led King of Hearts, and the deal was over.",
        "Anna announced 40 in Hearts.",
    ]
