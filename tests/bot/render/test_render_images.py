"""Hand, table and result images: sizes, mode, limits, seat layout and thread safety."""

import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from bot.render import (
    HAND_SIZE,
    TABLE_SIZE,
    WIDTH,
    ResultScene,
    TableScene,
    render_hand,
    render_result,
    render_table,
)
from bot.render.images import _SLOTS, TRICK_CARD_H, TRICK_CARD_W

NAMES = ("Anna", "Ben", "Carla", "Dominik")
MAX_PNG_BYTES = 150 * 1024


def _open(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def _scene(**overrides) -> TableScene:
    values = dict(viewer_seat=0, seat_names=NAMES, trick=((1, "HK"), (2, "HA")), leader_seat=1, to_act_seat=3,
                  trump="H", contract_label="Schnapser", multiplier=2, team_points=(34, 21), team_tricks=(2, 1),
                  first_tricks=(("ST", "SA", "SK", "SJ"), None))
    values.update(overrides)
    return TableScene(**values)


@pytest.mark.parametrize("deck", ["doppeldeutsch", "french"])
@pytest.mark.parametrize("count", [0, 1, 3, 5])
def test_hand_image_has_fixed_size_palette_mode_and_small_file(deck, count):
    cards = ["HA", "HT", "SQ", "CK", "DJ"][:count]
    png = render_hand(cards, playable=cards[:1], trump="H", deck=deck)
    image = _open(png)
    assert (image.size, image.mode) == (HAND_SIZE, "P")
    assert image.width == WIDTH == 480
    assert len(png) <= MAX_PNG_BYTES


def test_hand_marks_playable_cards_and_trump():
    cards = ["HA", "HT", "SQ", "CK", "DJ"]
    plain = render_hand(cards)
    assert render_hand(cards, playable=["HA"]) != plain
    assert render_hand(cards, trump="H") != plain
    assert render_hand(cards, playable=cards) != render_hand(cards, playable=["HA"])


def test_hand_rejects_bad_input():
    with pytest.raises(ValueError):
        render_hand(["HA", "HT", "HK", "HQ", "HJ", "SA"])
    with pytest.raises(ValueError):
        render_hand(["HX"])
    with pytest.raises(ValueError):
        render_hand(["HA"], deck="tarot")
    with pytest.raises(ValueError):
        render_hand(["HA"], lang="fr")


@pytest.mark.parametrize("deck", ["doppeldeutsch", "french"])
@pytest.mark.parametrize("lang", ["en", "de", "nl", "tr"])
def test_table_and_result_images_have_promised_size_and_mode(deck, lang):
    table = _open(render_table(_scene(deck=deck, lang=lang, sitting_out_seat=None)))
    assert (table.size, table.mode) == (TABLE_SIZE, "P")
    result = ResultScene(seat_names=NAMES, winner_team=1, game_points=3, score=(9, 24), bummerls=(1, 0),
                         card_points=(48, 72), contract_label="Bettler", detail="Schneider", trump="S",
                         deck=deck, lang=lang)
    png = render_result(result)
    assert (_open(png).width, _open(png).mode) == (WIDTH, "P")
    assert len(png) <= MAX_PNG_BYTES


def test_the_result_is_as_tall_as_its_lines_with_no_empty_band() -> None:
    plain = ResultScene(seat_names=NAMES, winner_team=0, game_points=1, score=(5, 0))
    fuller = ResultScene(seat_names=NAMES, winner_team=0, game_points=1, score=(24, 9), bummerls=(0, 1),
                         detail="Bummerl", card_points=(72, 48))  # fmt: skip
    long_names = ResultScene(seat_names=("Maximiliane von Hohenberg", "Ben", "Carla Oberhuber-Schwarz", "Dominik"),
                             winner_team=0, game_points=1, score=(5, 0))  # fmt: skip
    heights = [_open(render_result(scene)).height for scene in (plain, fuller, long_names)]
    assert heights[0] < heights[1] and heights[0] < heights[2]
    image = _open(render_result(plain)).convert("RGB")
    felt_rows = [y for y in range(image.height) if len(set(image.crop((0, y, WIDTH, y + 1)).getdata())) == 1]
    runs, run = [], 0
    for y in range(image.height):
        run = run + 1 if y in felt_rows else 0
        runs.append(run)
    assert max(runs) < 40, "no empty band across the image"


def _slot_is_covered(image: Image.Image, where: int) -> bool:
    """A played card's paper is bright; an empty slot shows the dark felt."""
    x, y = _SLOTS[where]
    r, g, b = image.convert("RGB").getpixel((x + TRICK_CARD_W // 2, y + TRICK_CARD_H - 12))
    return min(r, g, b) > 200


@pytest.mark.parametrize("viewer", [None, 0, 1, 2, 3])
def test_viewers_own_card_is_at_the_bottom_and_the_next_seat_to_the_left(viewer):
    me = viewer if viewer is not None else 2  # the public image is South's view: North on top
    image = _open(render_table(_scene(viewer_seat=viewer, trick=((me, "CA"),), to_act_seat=None)))
    assert [_slot_is_covered(image, where) for where in range(4)] == [True, False, False, False]
    image = _open(render_table(_scene(viewer_seat=viewer, trick=(((me + 1) % 4, "CA"),), to_act_seat=None)))
    assert [_slot_is_covered(image, where) for where in range(4)] == [False, True, False, False]


def test_table_scene_validates_its_values():
    with pytest.raises(ValueError):
        _scene(trick=((1, "HK"), (1, "HA")))
    with pytest.raises(ValueError):
        _scene(viewer_seat=4)
    with pytest.raises(ValueError):
        _scene(trump="X")
    with pytest.raises(ValueError):
        _scene(first_tricks=(("ZZ",), None))


def test_long_names_and_hidden_points_still_render():
    long_names = ("A" * 60, "Bärbel Übermüller-Großkopf", "Çağrı Şahin", "Dominik 🎴")
    image = _open(render_table(_scene(seat_names=long_names, team_points=None, sitting_out_seat=1,
                                      trick=((0, "HA"),), to_act_seat=2)))
    assert image.size == TABLE_SIZE


def test_rendering_from_threads_gives_the_same_bytes_as_sequential():
    scenes = [_scene(trick=((1, card),), to_act_seat=2) for card in ("HA", "DT", "CK", "SQ", "HJ", "DA")]
    expected = [render_table(scene) for scene in scenes]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(render_table, scenes * 3)) == expected * 3


def test_the_public_image_is_a_compass_north_top_east_right_south_bottom_west_left():
    bottom, left, top, right = range(4)  # the slots, as _SLOTS numbers them
    for seat, where in ((0, top), (1, right), (2, bottom), (3, left)):
        image = _open(render_table(_scene(viewer_seat=None, trick=((seat, "CA"),), to_act_seat=None)))
        assert [_slot_is_covered(image, slot) for slot in range(4)] == [slot == where for slot in range(4)]
