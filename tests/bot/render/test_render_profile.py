"""The profile card: size and mode in every language, the rating line, the empty states, validation, alt text."""

import io
import time

import pytest
from PIL import Image

from bot.render import LANGUAGES, WIDTH, ProfileScene, label, profile_alt_text, render_profile
from bot.render.images import GOLD
from bot.render.profile import _CHART
from bot.vocabulary import CONTRACT_FAMILIES

CONTRACTS = (("normal", 120, 70), ("bettler", 14, 9), ("schnapser", 6, 4), ("all_tricks", 3, 1), ("farbringerl", 0, 0))
HISTORY = (1200, 1230, 1215, 1260, 1290, 1275, 1310, 1350, 1330, 1380, 1400, 1390, 1420, 1460, 1445, 1487)


def veteran(lang: str = "en", **overrides) -> ProfileScene:
    values = dict(display_name="Maximilian Oberhuber-Schwarz", lang=lang, rating=1487, uncertainty=112,
                  history=HISTORY, rank=3, bummerl=(27, 41), deals=(310, 590), contracts=CONTRACTS, kontra=(11, 17),
                  partner=("Anneliese van der Westhuizen", 19, 13))
    values.update(overrides)
    return ProfileScene(**values)


def _open(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def gold_pixels_in_chart(png: bytes) -> int:
    x, y, w, h = _CHART
    data = _open(png).convert("RGB").crop((x, y, x + w - 50, y + h)).tobytes()
    pixels = zip(data[0::3], data[1::3], data[2::3], strict=True)
    return sum(1 for pixel in pixels if sum(abs(a - b) for a, b in zip(pixel, GOLD, strict=True)) < 60)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_renders_a_small_palette_png_of_the_promised_size(lang):
    for scene in (veteran(lang), ProfileScene("bob", lang)):
        image = _open(render_profile(scene))
        assert image.width == WIDTH and image.mode == "P"
    assert len(render_profile(veteran(lang))) < 150 * 1024


def test_the_rating_history_is_drawn_as_a_line_and_its_absence_is_said():
    assert gold_pixels_in_chart(render_profile(veteran())) > 150
    unrated = veteran(rating=None, uncertainty=None, history=())
    assert gold_pixels_in_chart(render_profile(unrated)) == 0
    assert "Not rated yet." in profile_alt_text(unrated)
    single = veteran(history=(1487,))
    assert 0 < gold_pixels_in_chart(render_profile(single)) < 150  # one dot, no line


def test_a_card_renders_fast_enough_to_answer_a_command():
    render_profile(veteran())  # fonts and backgrounds are loaded once
    started = time.perf_counter()
    render_profile(veteran("de"))
    assert time.perf_counter() - started < 1.0


def test_the_scene_refuses_what_cannot_be():
    with pytest.raises(ValueError):
        veteran(uncertainty=None)  # a rating without its uncertainty
    with pytest.raises(ValueError):
        veteran(rating=None, uncertainty=None)  # a history without a rating
    with pytest.raises(ValueError):
        veteran(bummerl=(5, 4))
    with pytest.raises(ValueError):
        veteran(contracts=(("normal", 1, 2),))
    with pytest.raises(ValueError):
        veteran(contracts=(("poker", 1, 0),))
    with pytest.raises(ValueError):
        veteran(lang="fr")
    with pytest.raises(ValueError):
        veteran(rank=0)


def test_alt_text_says_what_the_card_shows():
    text = profile_alt_text(veteran())
    for part in ("Maximilian Oberhuber-Schwarz", "#3", "1487 ± 112", "from 1200 to 1487", "27 of 41", "310 of 590",
                 "11 of 17", "Bettler declared 14, made 9", "Anneliese van der Westhuizen: 13 of 19"):
        assert part in text
    assert "Farbringerl" not in text  # families never declared are left out of the sentence


@pytest.mark.parametrize("lang", LANGUAGES)
def test_alt_text_of_a_player_without_games_is_friendly_in_every_language(lang):
    text = profile_alt_text(ProfileScene("bob", lang))
    assert text == f"{label('alt_profile', lang, name='bob')} {label('profile_no_games', lang)}"


def test_every_family_has_a_row_label():
    scene = veteran(contracts=tuple((family, 1, 1) for family in CONTRACT_FAMILIES))
    assert _open(render_profile(scene)).height > _open(render_profile(veteran(contracts=()))).height
