"""The one-screen turn image: the table's cards above the hand, its size and size on disk, and its alt text."""

import io

import pytest
from PIL import Image

from bot.render import TURN_SIZE, TurnScene, render_turn, turn_alt_text, turn_size

MAX_PNG_BYTES = 120 * 1024  # issue 13's budget for the DM turn image
PLACES = (("Anna", "HA", False), ("Ben", "HQ", False), ("Carla", None, True), ("Dominik", None, False))


def _scene(**overrides) -> TurnScene:
    values = dict(cards=("HT", "HK", "SA", "SQ", "DJ"), playable=("HT", "HK"), places=PLACES,
                  caption="Trick 3", trump="H", contract_label="Normal game")
    values.update(overrides)
    return TurnScene(**values)


@pytest.mark.parametrize("deck", ["doppeldeutsch", "french"])
@pytest.mark.parametrize("count", [1, 3, 5])
def test_turn_image_has_fixed_size_palette_mode_and_stays_within_budget(deck, count):
    scene = _scene(cards=("HT", "HK", "SA", "SQ", "DJ")[:count], playable=None, deck=deck)
    png = render_turn(scene)
    image = Image.open(io.BytesIO(png))
    assert (image.size, image.mode) == (TURN_SIZE, "P")
    assert len(png) <= MAX_PNG_BYTES


def test_a_name_that_needs_three_lines_makes_the_image_a_line_taller_for_the_whole_table():
    long = ("Maximiliane von Hohenberg", "HA", False)
    scene = _scene(places=(long, *PLACES[1:]))
    assert turn_size(_scene()) == TURN_SIZE
    assert turn_size(scene)[1] > TURN_SIZE[1] and turn_size(scene) == turn_size(_scene(places=(long,)))
    assert Image.open(io.BytesIO(render_turn(scene))).size == turn_size(scene)


def test_the_table_part_shows_what_was_played():
    assert render_turn(_scene()) != render_turn(_scene(places=PLACES[2:] + PLACES[:2]))
    assert render_turn(_scene()) != render_turn(_scene(playable=("HT",)))


def test_alt_text_names_the_plays_then_the_hand_in_its_order():
    text = turn_alt_text(_scene())
    assert text.startswith("Trick 3. Trick: Anna played Ace of Hearts and Ben played Ober of Hearts.")
    assert "Your hand: Ten of Hearts, King of Hearts, Ace of Leaves, Ober of Leaves, Unter of Bells." in text
    assert "Playable: Ten of Hearts, King of Hearts." in text
    assert "The trick is empty." in turn_alt_text(_scene(places=()))


def test_scene_rejects_bad_cards_and_too_many_places():
    with pytest.raises(ValueError):
        _scene(cards=("XX",))
    with pytest.raises(ValueError):
        _scene(places=(*PLACES, ("Eve", None, False)))
