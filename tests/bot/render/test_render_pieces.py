"""The hand and turn images are pieces kept in the palette and copied into place (``images.Piece``): the same
pixels as drawing their whole layout on the felt and mapping it onto the palette, with each piece drawn once."""

import io
import random
from itertools import combinations

import pytest
from PIL import Image

from bot.render import ALL_CARDS, DECK_STYLES, TurnScene, render_hand, render_turn, turn_size
from bot.render.images import HAND_SIZE, _in_palette, _piece_in_palette, drawn_whole, hand_layout
from bot.render.names import SUITS
from bot.render.turn import turn_layout

# Names and captions that reach for the edges of their pieces: accents above capitals, descenders, other
# scripts and emoji (fallback fonts), names of three lines, a caption of two.
NAMES = ("Anna", "Ångström Österreicher-Großglockner", "Zoë gjpqy", "李小龙", "🂡 Çağlayan 🃏", "W" * 30, "Ben")
CAPTIONS = ("Trick 3", "Letzter Stich: gewonnen von Ångström Österreicher-Großglockner und seinen Freunden")


def _scenes(count: int, seed: int) -> list[TurnScene]:
    rng = random.Random(seed)
    scenes = []
    for _ in range(count):
        cards = tuple(rng.sample(ALL_CARDS, rng.randint(0, 5)))
        playable = None if rng.random() < 0.4 else tuple(card for card in cards if rng.random() < 0.5)
        viewer = rng.randrange(4)
        places = tuple(
            (rng.choice(NAMES), rng.choice((None, rng.choice(ALL_CARDS))), seat == viewer)
            for seat in range(rng.choice((2, 3, 4)))
        )
        scenes.append(
            TurnScene(
                cards, playable, places, rng.choice(CAPTIONS), rng.choice((None, *SUITS)),
                rng.choice((None, "Schnapser", "Bettler ouvert mit einem sehr langen Namen")), rng.choice((1, 2, 8)),
                rng.choice(sorted(DECK_STYLES)), rng.choice(("en", "de", "tr")),
            )
        )  # fmt: skip
    return scenes


def _drawn_whole(size: tuple[int, int], deck: str, layout) -> bytes:
    """The layout drawn on one canvas of felt, then mapped onto the palette: what the pieces must give."""
    return _in_palette(drawn_whole(size, layout), deck).tobytes()


def _pixels(png: bytes) -> bytes:
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P"
    return image.tobytes()


@pytest.mark.parametrize("scene", _scenes(60, seed=35))
def test_a_turn_image_has_the_pixels_of_its_layout_drawn_whole(scene):
    size, layout = turn_layout(scene)
    assert size == turn_size(scene)
    assert _pixels(render_turn(scene)) == _drawn_whole(size, scene.deck, layout)


@pytest.mark.parametrize("scene", _scenes(20, seed=36))
def test_a_hand_image_has_the_pixels_of_its_layout_drawn_whole(scene):
    playable = None if scene.playable is None else set(scene.playable)
    layout = hand_layout(scene.cards, playable, scene.trump, scene.deck, scene.lang, scene.contract_label)
    png = render_hand(scene.cards, scene.playable, scene.trump, scene.deck, scene.lang, scene.contract_label)
    assert _pixels(png) == _drawn_whole(HAND_SIZE, scene.deck, layout)


@pytest.mark.parametrize("scene", _scenes(20, seed=37))
def test_pieces_lie_inside_the_image_and_overlap_no_other(scene):
    (width, height), layout = turn_layout(scene)
    boxes = [(x, y, x + piece.size[0], y + piece.size[1]) for (x, y), piece in layout]
    assert all(min(left, top) >= 0 and right <= width and bottom <= height for left, top, right, bottom in boxes)
    for a, b in combinations(boxes, 2):
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_a_piece_is_drawn_once_and_then_copied():
    scene = _scenes(1, seed=38)[0]
    render_turn(scene)
    before = _piece_in_palette.cache_info()
    render_turn(scene)
    after = _piece_in_palette.cache_info()
    assert after.misses == before.misses
    assert after.hits - before.hits == len(turn_layout(scene)[1])
