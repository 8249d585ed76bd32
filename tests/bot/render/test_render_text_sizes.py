"""Every text of every image is drawn at 16 px or more, readable when a phone shows the 760 px image at
about 360 px."""

import dataclasses

import pytest

from bot.render import (
    LANGUAGES,
    ProfileScene,
    ResultScene,
    TableScene,
    TurnScene,
    fonts,
    images,
    render_deal_review,
    render_hand,
    render_profile,
    render_result,
    render_table,
    render_turn,
)
from bot.render.images import SMALL
from tests.bot.render.test_render_review import WHOLE_DEAL

NAMES = ("Anna", "Ferdl 🤖", "王小明", "Ελένη")
READABLE = 16


@pytest.fixture
def sizes_drawn(monkeypatch):
    """The size of every text the images draw (the text cache is bypassed, so every call is seen)."""
    drawn: list[tuple[int, str]] = []
    original = images._text_mask.__wrapped__

    def recording(text, size, weight, anchor, max_width):
        drawn.append((size, text))
        return original(text, size, weight, anchor, max_width)

    monkeypatch.setattr(images, "_text_mask", recording)
    return drawn


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_image_draws_text_below_16_px(sizes_drawn, lang):
    render_hand(("HA", "HT", "SQ"), playable=("HA",), trump="H", lang=lang)
    render_table(TableScene(viewer_seat=None, seat_names=NAMES, trick=((1, "HK"),), to_act_seat=2, trump="H",
                            contract_label="Schnapser", multiplier=2, team_points=(34, 21), team_tricks=(1, 1),
                            first_tricks=(("ST", "SA", "SK", "SJ"), ("DQ", "DK", "CA", "HJ")), sitting_out_seat=3,
                            lang=lang))  # fmt: skip
    render_result(ResultScene(seat_names=NAMES, winner_team=0, game_points=3, score=(15, 9), bummerls=(0, 1),
                              detail="Schneider", card_points=(72, 48), trump="H", lang=lang))  # fmt: skip
    render_turn(TurnScene(cards=("HA", "HT"), playable=("HA",), places=(("Anna", "HK", False), ("Ben", None, True)),
                          caption="Trick 2", trump="H", lang=lang))  # fmt: skip
    render_deal_review(dataclasses.replace(WHOLE_DEAL, seat_names=NAMES, lang=lang))
    render_profile(ProfileScene(display_name="Ελένη", lang=lang, rating=1500, uncertainty=80, history=(1480, 1500),
                                rank=2, bummerl=(3, 5), deals=(20, 40), kontra=(1, 2),
                                contracts=(("normal", 10, 7), ("schnapser", 2, 1)), partner=("Anna", 4, 3)))  # fmt: skip
    render_profile(ProfileScene(display_name="Ελένη", lang=lang))
    assert sizes_drawn, "the recorder saw no text"
    small = sorted({(size, text) for size, text in sizes_drawn if size < READABLE})
    assert small == [], f"texts below {READABLE} px: {small}"
    assert SMALL == READABLE


def test_a_long_headline_shrinks_before_it_is_cut():
    headline = "Anna Müller & 王小明 gewinnen"
    size = images._size_to_fit(headline, 22, SMALL, 345)
    assert SMALL <= size < 22 and fonts.length(headline, size) <= 345
    assert images._size_to_fit("Anna & Ben win", 34, 20, 720) == 34
    assert images._size_to_fit("x" * 200, 34, 20, 720) == 20  # too long at any size: the smallest, then cut
