"""Card tiles, fonts and palettes, loaded once and shared read-only between threads.

Cached images are never drawn on: callers paste them onto their own canvas (or copy them first), so
rendering from several threads (asyncio.to_thread) is safe.
"""

from __future__ import annotations

import math
import struct
import threading
from array import array
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageEnhance, ImageFont

ASSETS = Path(__file__).resolve().parents[2] / "assets"
CARDS_DIR = ASSETS / "cards"
FONTS_DIR = ASSETS / "fonts"
FONT_FILES = {
    "bold": FONTS_DIR / "DejaVuSans-Bold.ttf",
    "regular": FONTS_DIR / "DejaVuSans.ttf",
}
# Drawn where the weight's own font (above: Latin, Greek, Cyrillic, Hebrew, Arabic, symbols) has no glyph;
# each character takes the first of these that has it (bot/render/text.py). One weight each, to keep the
# repository small; docs/cards.md lists sources and licences.
FALLBACK_FONTS = (
    FONTS_DIR / "NotoSansThai-Regular.ttf",
    FONTS_DIR / "NotoSansDevanagari-Regular.ttf",
    FONTS_DIR / "DroidSansFallback.ttf",  # Chinese, Japanese, Korean
    FONTS_DIR / "NotoEmoji-Bold.ttf",  # monochrome emoji, drawn in the text's colour
)
EMOJI_FONT = FALLBACK_FONTS[-1]

ART_SIZE = (240, 360)  # the size the generator draws at; tiles are scaled down from it
PALETTE_FILE = "palette.png"  # per deck, written by tools/gen_palette.py
PALETTE_BYTES = 3 * 256


def card_path(deck: str, name: str) -> Path:
    """name is a card code, "back" or "suit_<S>"."""
    return CARDS_DIR / deck / f"{name}.png"


@lru_cache(maxsize=4)
def _art(deck: str, name: str) -> Image.Image:
    # Only the scaled tiles are kept for good: full-size art for both decks would hold about 17 MB. The few
    # entries here let preload scale one card to every tile size from a single decode.
    with Image.open(card_path(deck, name)) as image:
        return image.convert("RGBA")


@lru_cache(maxsize=512)
def card_tile(deck: str, name: str, width: int) -> Image.Image:
    """A card (or "back") scaled to width, keeping the 2:3 shape. Read-only: paste it, never draw on it."""
    art = _art(deck, name)
    height = round(width * art.height / art.width)
    return art.resize((width, height), Image.Resampling.LANCZOS)


@lru_cache(maxsize=256)
def dimmed_tile(deck: str, name: str, width: int) -> Image.Image:
    """The card faded towards the table colour, for cards that cannot be played now."""
    tile = card_tile(deck, name, width)
    rgb = ImageEnhance.Brightness(tile.convert("RGB")).enhance(0.55)
    faded = ImageEnhance.Color(rgb).enhance(0.45).convert("RGBA")
    faded.putalpha(tile.getchannel("A"))
    return faded


@lru_cache(maxsize=64)
def suit_icon(deck: str, suit: str, size: int) -> Image.Image:
    art = _art(deck, f"suit_{suit}")
    return art.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=8)
def palette(deck: str) -> Image.Image:
    """The deck's fixed 256-colour palette as a 1×1 palette-mode image, for Image.quantize(palette=...)."""
    path = CARDS_DIR / deck / PALETTE_FILE
    with Image.open(path) as swatch:
        entries = swatch.getpalette("RGB")
    if entries is None or len(entries) != PALETTE_BYTES:
        raise ValueError(f"{path} must hold 256 colours; re-run tools/gen_palette.py")
    holder = Image.new("P", (1, 1))
    holder.putpalette(entries)
    # Push the palette into the image now: the first load() does that and writes to the image, which
    # would otherwise happen inside quantize(), possibly in two threads at once. Later loads only read.
    holder.load()
    return holder


# FreeType faces are not safe to render from two threads at once, so each thread loads its own.
_thread_fonts = threading.local()


def font(size: int, weight: str = "bold") -> ImageFont.FreeTypeFont:
    """The weight's own font (DejaVu Sans), which draws every label and most names."""
    return face(FONT_FILES[weight], size)


def face(path: Path, size: int) -> ImageFont.FreeTypeFont:
    """Any font of the chain at a size, loaded once per thread."""
    cache: dict[tuple[Path, int], ImageFont.FreeTypeFont] | None = getattr(_thread_fonts, "cache", None)
    if cache is None:
        cache = _thread_fonts.cache = {}
    key = (path, size)
    if key not in cache:
        cache[key] = ImageFont.truetype(str(path), size)
    return cache[key]


def font_chain(weight: str) -> tuple[Path, ...]:
    """The fonts a text of this weight may be drawn with, in the order they are asked for a glyph."""
    return (FONT_FILES[weight], *FALLBACK_FONTS)


class CodeRanges:
    """A set of code points kept as sorted ranges: the CJK font's 33 000 code points are 96 ranges, under
    a kilobyte instead of the 3 MB a Python set of them takes."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, codes: set[int]) -> None:
        starts, ends = array("I"), array("I")
        for code in sorted(codes):
            if ends and code == ends[-1] + 1:
                ends[-1] = code
            else:
                starts.append(code)
                ends.append(code)
        self._starts, self._ends = starts, ends

    def __contains__(self, code: object) -> bool:
        if not isinstance(code, int):
            return False
        index = bisect_right(self._starts, code) - 1
        return index >= 0 and code <= self._ends[index]

    def __len__(self) -> int:
        return sum(end - start + 1 for start, end in zip(self._starts, self._ends, strict=True))


@lru_cache(maxsize=16)
def coverage(path: Path) -> CodeRanges:
    """The code points a font has a glyph for, read once from its character map ('cmap' table)."""
    return read_cmap(path.read_bytes())


def read_cmap(font: bytes) -> CodeRanges:
    """The code points the Unicode subtables of a TrueType/OpenType font's character map send to a glyph.

    Formats 4 (the Basic Multilingual Plane) and 12 (all planes) are the ones fonts use for Unicode; both
    are read and joined. Reading the bundled chain takes about 50 ms (the CJK font's 33 000 code points
    most of it), so the renderer needs no font library beyond Pillow.
    """
    (tables,) = struct.unpack_from(">H", font, 4)
    directory = (struct.unpack_from(">4sIII", font, 12 + 16 * i) for i in range(tables))
    cmap = next((offset for tag, _, offset, _ in directory if tag == b"cmap"), None)
    if cmap is None:
        raise ValueError("the font has no character map")
    (_, subtables) = struct.unpack_from(">HH", font, cmap)
    codes: set[int] = set()
    for index in range(subtables):
        platform, encoding, offset = struct.unpack_from(">HHI", font, cmap + 4 + 8 * index)
        if platform == 0 or (platform == 3 and encoding in (1, 10)):  # Unicode, Windows Unicode BMP / full
            _read_subtable(font, cmap + offset, codes)
    return CodeRanges(codes)


def _read_subtable(font: bytes, at: int, codes: set[int]) -> None:
    (layout,) = struct.unpack_from(">H", font, at)
    if layout == 4:  # segments of consecutive code points, each with a delta or an array of glyph ids
        (segments_x2,) = struct.unpack_from(">H", font, at + 6)
        segments = segments_x2 // 2
        ends = struct.unpack_from(f">{segments}H", font, at + 14)
        starts = struct.unpack_from(f">{segments}H", font, at + 16 + segments_x2)
        deltas = struct.unpack_from(f">{segments}H", font, at + 16 + 2 * segments_x2)
        range_table = at + 16 + 3 * segments_x2
        range_offsets = struct.unpack_from(f">{segments}H", font, range_table)
        for k in range(segments):
            start, end, delta, range_offset = starts[k], ends[k], deltas[k], range_offsets[k]
            for code in range(start, min(end, 0xFFFE) + 1):  # 0xFFFF ends the table, it is no character
                if range_offset == 0:
                    glyph = (code + delta) & 0xFFFF
                else:
                    where = range_table + 2 * k + range_offset + 2 * (code - start)
                    (glyph,) = struct.unpack_from(">H", font, where)
                    glyph = (glyph + delta) & 0xFFFF if glyph else 0
                if glyph:
                    codes.add(code)
    elif layout == 12:  # groups of consecutive code points mapped to consecutive glyphs
        (groups,) = struct.unpack_from(">I", font, at + 12)
        for index in range(groups):
            start, end, glyph = struct.unpack_from(">III", font, at + 16 + 12 * index)
            codes.update(range(start + (glyph == 0), end + 1))  # glyph 0 is the placeholder box


SUPERSAMPLE = 4


@lru_cache(maxsize=8)
def star(size: int, fill: tuple[int, int, int], edge: tuple[int, int, int]) -> Image.Image:
    """A five-pointed star stamp (marks trump cards), drawn large and scaled down for smooth edges."""
    big = size * SUPERSAMPLE
    stamp = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    centre, outer, inner = big / 2, big / 2 - SUPERSAMPLE, big / 5
    points = []
    for k in range(10):
        radius = outer if k % 2 == 0 else inner
        angle = math.pi * k / 5 - math.pi / 2
        points.append((centre + radius * math.cos(angle), centre + radius * math.sin(angle)))
    draw = ImageDraw.Draw(stamp)
    draw.polygon(points, fill=(*fill, 255), outline=(*edge, 255), width=SUPERSAMPLE * 2)
    return stamp.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=128)
def rounded_stamp(
    width: int,
    height: int,
    radius: int,
    fill: tuple[int, int, int] | None,
    outline: tuple[int, int, int] | None = None,
    thickness: int = 0,
) -> Image.Image:
    """A smooth rounded rectangle (pills, panels, slot outlines) as an RGBA stamp."""
    s = SUPERSAMPLE
    big = Image.new("RGBA", (width * s, height * s), (0, 0, 0, 0))
    ImageDraw.Draw(big).rounded_rectangle(
        (0, 0, width * s - 1, height * s - 1),
        radius=radius * s,
        fill=(*fill, 255) if fill else None,
        outline=(*outline, 255) if outline else None,
        width=thickness * s,
    )
    return big.resize((width, height), Image.Resampling.LANCZOS)


@lru_cache(maxsize=8)
def triangle(width: int, height: int, fill: tuple[int, int, int]) -> Image.Image:
    """A triangle pointing right (the deal review marks the card that led a trick with it), as an RGBA stamp."""
    s = SUPERSAMPLE
    big = Image.new("RGBA", (width * s, height * s), (0, 0, 0, 0))
    ImageDraw.Draw(big).polygon([(0, 0), (width * s - 1, height * s / 2), (0, height * s - 1)], fill=(*fill, 255))
    return big.resize((width, height), Image.Resampling.LANCZOS)
