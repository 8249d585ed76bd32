"""The shipped per-deck palettes: reproduced by tools/gen_palette.py, used by the renderer, safe from threads."""

import importlib.util
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from bot.render import DECK_STYLES, TableScene, _assets, render_table

ROOT = Path(__file__).resolve().parents[3]  # tests/bot/render/ -> the repository


def _load_tool():
    spec = importlib.util.spec_from_file_location("gen_palette", ROOT / "tools" / "gen_palette.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _shipped(deck: str) -> Image.Image:
    image = Image.open(_assets.CARDS_DIR / deck / _assets.PALETTE_FILE)
    image.load()
    return image


@pytest.fixture
def cold_palettes():
    """Forget loaded palettes so the test sees the first load, and again afterwards for the next test."""
    _assets.palette.cache_clear()
    yield
    _assets.palette.cache_clear()


@pytest.mark.parametrize("deck", DECK_STYLES)
def test_tool_reproduces_the_shipped_palette(deck):
    tool = _load_tool()
    assert bytes(_shipped(deck).getpalette("RGB")) == tool.build_palette(deck), (
        f"{deck}/palette.png is stale; re-run python tools/gen_palette.py"
    )


@pytest.mark.parametrize("deck", DECK_STYLES)
def test_shipped_palette_is_a_swatch_of_256_colours_that_the_renderer_loads(deck):
    swatch = _shipped(deck)
    assert (swatch.mode, swatch.size) == ("P", (16, 16))
    assert swatch.tobytes() == bytes(range(256))
    assert _assets.palette(deck).getpalette("RGB") == swatch.getpalette("RGB")


def test_the_two_decks_have_their_own_palettes():
    first, second = (_shipped(deck).getpalette("RGB") for deck in DECK_STYLES)
    assert first != second


def test_threads_loading_a_palette_together_get_the_same_colours(cold_palettes):
    threads = 8
    start = threading.Barrier(threads)

    def load(deck: str) -> Image.Image:
        start.wait()
        return _assets.palette(deck)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        loaded = list(pool.map(load, ["doppeldeutsch"] * threads))
    assert all(image.getpalette() == loaded[0].getpalette() for image in loaded)
    assert _assets.palette("doppeldeutsch") is _assets.palette("doppeldeutsch")


def test_first_renders_from_threads_match_sequential_renders(cold_palettes):
    scenes = [
        TableScene(viewer_seat=0, seat_names=("A", "B", "C", "D"), trick=((1, card),), deck=deck)
        for card in ("HA", "DT", "CK", "SQ")
        for deck in DECK_STYLES
    ]
    expected = [render_table(scene) for scene in scenes]
    _assets.palette.cache_clear()
    threads = 8
    start = threading.Barrier(threads)

    def render(scene: TableScene) -> bytes:
        start.wait()
        return render_table(scene)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        assert list(pool.map(render, scenes)) == expected


def test_a_palette_file_without_256_colours_is_refused(tmp_path, monkeypatch, cold_palettes):
    short = Image.new("P", (4, 4))
    short.putpalette(bytes(range(3 * 16)))
    (tmp_path / "french").mkdir()
    short.save(tmp_path / "french" / _assets.PALETTE_FILE)
    monkeypatch.setattr(_assets, "CARDS_DIR", tmp_path)  # (no card art there: the palette is what is read)
    with pytest.raises(ValueError, match="gen_palette"):
        _assets.palette("french")
