"""The committed decks: complete, all different, and reproduced by the generator."""

import importlib.util
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[3]
CARDS_DIR = ROOT / "assets" / "cards"
DECKS = ("doppeldeutsch", "french")
CODES = [suit + rank for suit in "HDCS" for rank in "ATKQJ"]


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_cards", ROOT / "tools" / "gen_cards.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file executes
    spec.loader.exec_module(module)
    return module


def _pixels(path: Path) -> tuple[str, tuple[int, int], bytes]:
    with Image.open(path) as image:
        return image.mode, image.size, image.tobytes()


@pytest.mark.parametrize("deck", DECKS)
def test_every_card_and_the_back_exist_as_rgba_at_art_size(deck):
    for name in [*CODES, "back"]:
        mode, size, _ = _pixels(CARDS_DIR / deck / f"{name}.png")
        assert (mode, size) == ("RGBA", (240, 360)), name


@pytest.mark.parametrize("deck", DECKS)
def test_suit_icons_exist(deck):
    for suit in "HDCS":
        mode, size, _ = _pixels(CARDS_DIR / deck / f"suit_{suit}.png")
        assert (mode, size) == ("RGBA", (96, 96))


def test_every_card_differs_from_every_other_across_both_decks():
    faces = {}
    for deck in DECKS:
        for name in [*CODES, "back"]:
            faces[(deck, name)] = _pixels(CARDS_DIR / deck / f"{name}.png")[2]
    assert len(set(faces.values())) == len(faces)


def test_card_corners_are_transparent_and_face_is_opaque():
    with Image.open(CARDS_DIR / "doppeldeutsch" / "HA.png") as image:
        assert image.getpixel((0, 0))[3] == 0
        assert image.getpixel((120, 180))[3] == 255


def test_generator_reproduces_the_committed_images():
    generator = _load_generator()
    for deck in DECKS:
        for name, draw in generator.all_images(deck).items():
            drawn = draw()
            committed = _pixels(CARDS_DIR / deck / name)
            assert (drawn.mode, drawn.size, drawn.tobytes()) == committed, f"{deck}/{name} differs; re-run the generator"
