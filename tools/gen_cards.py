"""Draw the project's two card decks with Pillow primitives.

Run from anywhere:  python tools/gen_cards.py [--out DIR]

Writes, for each deck style ("doppeldeutsch" and "french"), into assets/cards/<deck>/:
  <code>.png   the 20 cards (code = suit letter H D C S + rank letter A T K Q J)
  back.png     the card back
  suit_<S>.png a suit symbol on transparent ground, for trump markers

Everything is drawn SUPERSAMPLE times larger and scaled down with a Lanczos filter for smooth edges.
The output depends only on this file, the bundled font and Pillow, so a re-run reproduces the committed
files (tests/render compares them pixel by pixel).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "assets" / "cards"
FONT_BOLD = ROOT / "assets" / "fonts" / "DejaVuSans-Bold.ttf"

SUPERSAMPLE = 4
CARD_W, CARD_H = 240, 360
CORNER_RADIUS = 18
ICON_SIZE = 96

DECKS = ("doppeldeutsch", "french")
SUITS = "HDCS"
RANKS = "ATKQJ"
INDEX_LABELS = {
    "doppeldeutsch": {"A": "A", "T": "10", "K": "K", "Q": "O", "J": "U"},
    "french": {"A": "A", "T": "10", "K": "K", "Q": "Q", "J": "J"},
}

RGB = tuple[int, int, int]
# Four suit colours chosen after Okabe & Ito so that red-green colour-blind players still see four
# different colours (they also differ in lightness), following the four-colour tournament pack:
# hearts red, diamonds/bells gold, clubs/acorns near-black brown, spades/leaves bluish green.
SUIT_INK: dict[str, RGB] = {"H": (204, 34, 41), "D": (232, 160, 0), "C": (52, 36, 24), "S": (0, 138, 96)}
SUIT_EDGE: dict[str, RGB] = {"H": (110, 10, 18), "D": (110, 62, 0), "C": (20, 12, 6), "S": (0, 70, 48)}
SUIT_LIGHT: dict[str, RGB] = {"H": (246, 140, 130), "D": (255, 222, 120), "C": (150, 110, 70), "S": (120, 214, 176)}

PAPER: RGB = (252, 250, 243)
CARD_EDGE: RGB = (110, 110, 110)
INK: RGB = (34, 30, 28)
GOLD: RGB = (226, 176, 40)
GOLD_EDGE: RGB = (130, 90, 10)
SKIN: RGB = (246, 214, 184)
CHEEK: RGB = (238, 160, 150)
HAIR: RGB = (120, 72, 34)
WHITE: RGB = (250, 250, 250)
BACK_COLOURS: dict[str, tuple[RGB, RGB]] = {
    "doppeldeutsch": ((136, 26, 38), (186, 70, 80)),
    "french": ((24, 58, 122), (70, 110, 180)),
}


def _opaque(colour: RGB) -> tuple[int, int, int, int]:
    return (*colour, 255)


def _blend(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


class Pen:
    """ImageDraw in art units: every coordinate is multiplied by the supersampling factor."""

    def __init__(self, image: Image.Image, scale: int = SUPERSAMPLE) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.scale = scale

    def _pts(self, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x * self.scale, y * self.scale) for x, y in points]

    def _box(self, box: Sequence[float]) -> list[float]:
        return [v * self.scale for v in box]

    def polygon(self, points, fill: RGB, edge: RGB | None = None, edge_width: float = 0) -> None:
        if edge is not None:
            # A centred stroke plus the fill below it: the visible rim is edge_width wide outside the fill.
            closed = [*points, points[0]]
            self.draw.line(self._pts(closed), fill=_opaque(edge), width=round(2 * edge_width * self.scale),
                           joint="curve")
            self.draw.polygon(self._pts(points), fill=_opaque(edge))
        self.draw.polygon(self._pts(points), fill=_opaque(fill))

    def ellipse(self, box, fill: RGB | None, edge: RGB | None = None, edge_width: float = 0) -> None:
        x0, y0, x1, y1 = box
        if edge is not None:
            w = edge_width
            self.draw.ellipse(self._box((x0 - w, y0 - w, x1 + w, y1 + w)), fill=_opaque(edge))
        if fill is not None:
            self.draw.ellipse(self._box(box), fill=_opaque(fill))

    def ring(self, box, colour: RGB, width: float) -> None:
        self.draw.ellipse(self._box(box), outline=_opaque(colour), width=round(width * self.scale))

    def rounded(self, box, radius: float, fill: RGB | None, edge: RGB | None = None,
                edge_width: float = 0) -> None:
        self.draw.rounded_rectangle(self._box(box), radius=radius * self.scale,
                                    fill=_opaque(fill) if fill else None,
                                    outline=_opaque(edge) if edge else None,
                                    width=round(edge_width * self.scale))

    def line(self, points, colour: RGB, width: float) -> None:
        self.draw.line(self._pts(points), fill=_opaque(colour), width=max(1, round(width * self.scale)),
                       joint="curve")

    def dot(self, x: float, y: float, r: float, colour: RGB) -> None:
        self.ellipse((x - r, y - r, x + r, y + r), colour)


@dataclass(frozen=True)
class Place:
    """Maps a symbol's unit coordinates (about -1..1, y down) to art coordinates; flip turns it upside down."""

    cx: float
    cy: float
    r: float
    flip: bool = False

    def pt(self, u: float, v: float) -> tuple[float, float]:
        return (self.cx + u * self.r, self.cy + (-v if self.flip else v) * self.r)

    def pts(self, uv: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        return [self.pt(u, v) for u, v in uv]

    def box(self, u: float, v: float, ru: float, rv: float) -> tuple[float, float, float, float]:
        x, y = self.pt(u, v)
        return (x - ru * self.r, y - rv * self.r, x + ru * self.r, y + rv * self.r)


def _heart_outline(steps: int = 160) -> list[tuple[float, float]]:
    """The classic parametric heart, scaled to x in -1..1 and centred vertically."""
    points = []
    for i in range(steps):
        t = 2 * math.pi * i / steps
        x = 16 * math.sin(t) ** 3
        y = -(13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t))
        points.append((x / 16, (y - 2.54) / 16))
    return points


HEART = _heart_outline()


def _bezier(p0, p1, p2, steps: int = 24) -> list[tuple[float, float]]:
    return [((1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t * t * p2[0],
             (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t * t * p2[1])
            for t in (i / steps for i in range(steps))]


def _stem(top: float, bottom: float, narrow: float, wide: float) -> list[tuple[float, float]]:
    """A flared stem as used by clubs and spades."""
    return [(-narrow, top), (narrow, top), *_bezier((narrow, bottom - 0.25), (narrow, bottom), (wide, bottom)),
            (wide, bottom), (-wide, bottom), *_bezier((-wide, bottom), (-narrow, bottom), (-narrow, bottom - 0.25))]


# ---------------------------------------------------------------- suit symbols


def _french_heart(pen: Pen, p: Place, suit: str) -> None:
    pen.polygon(p.pts(HEART), SUIT_INK[suit])


def _french_diamond(pen: Pen, p: Place, suit: str) -> None:
    top, right, bottom, left = (0, -1), (0.78, 0), (0, 1), (-0.78, 0)
    outline = (_bezier(top, (0.26, -0.34), right) + _bezier(right, (0.26, 0.34), bottom)
               + _bezier(bottom, (-0.26, 0.34), left) + _bezier(left, (-0.26, -0.34), top))
    pen.polygon(p.pts(outline), SUIT_INK[suit], SUIT_EDGE[suit], 0.035 * p.r)


def _french_club(pen: Pen, p: Place, suit: str) -> None:
    ink = SUIT_INK[suit]
    pen.polygon(p.pts(_stem(0.0, 0.98, 0.09, 0.42)), ink)
    for u, v in ((0, -0.53), (-0.5, 0.06), (0.5, 0.06)):
        pen.ellipse(p.box(u, v, 0.37, 0.37), ink)
    pen.ellipse(p.box(0, -0.06, 0.26, 0.26), ink)


def _french_spade(pen: Pen, p: Place, suit: str) -> None:
    ink = SUIT_INK[suit]
    leaf = [(u * 0.95, -v * 0.82 - 0.18) for u, v in HEART]
    pen.polygon(p.pts(_stem(0.1, 0.98, 0.09, 0.42)), ink)
    pen.polygon(p.pts(leaf), ink)


def _german_heart(pen: Pen, p: Place, suit: str) -> None:
    body = [(u * 0.98, v * 1.02) for u, v in HEART]
    pen.polygon(p.pts(body), SUIT_INK[suit], SUIT_EDGE[suit], 0.05 * p.r)
    pen.ellipse(p.box(-0.45, -0.42, 0.2, 0.13), SUIT_LIGHT[suit])


def _german_bell(pen: Pen, p: Place, suit: str) -> None:
    ink, edge, light = SUIT_INK[suit], SUIT_EDGE[suit], SUIT_LIGHT[suit]
    pen.ring(p.box(0, -0.8, 0.17, 0.15), edge, 0.09 * p.r)
    pen.ellipse(p.box(0, 0.1, 0.8, 0.8), ink, edge, 0.05 * p.r)
    radius, centre = 0.8, 0.1
    for v in (-0.08, 0.08):
        half = math.sqrt(radius**2 - (v - centre) ** 2) - 0.02
        pen.line(p.pts([(-half, v), (half, v)]), edge, 0.06 * p.r)
    pen.ellipse(p.box(0, 0.48, 0.14, 0.12), edge)
    pen.line(p.pts([(0, 0.5), (0, 0.9)]), edge, 0.08 * p.r)
    pen.ellipse(p.box(-0.34, -0.3, 0.16, 0.12), light)


def _german_acorn(pen: Pen, p: Place, suit: str) -> None:
    nut, cap, edge, light = (150, 96, 46), SUIT_INK[suit], SUIT_EDGE[suit], SUIT_LIGHT[suit]
    pen.line(p.pts([(0, -0.62), (0.08, -0.98)]), edge, 0.12 * p.r)
    pen.ellipse(p.box(0, 0.38, 0.46, 0.6), nut, edge, 0.05 * p.r)
    pen.ellipse(p.box(-0.18, 0.3, 0.1, 0.22), (205, 150, 95))
    cap_shape = [(math.cos(a) * 0.6, -0.12 + math.sin(a) * 0.55) for a in
                 (math.pi + math.pi * i / 32 for i in range(33))]
    cap_shape += _bezier((0.6, -0.12), (0.0, 0.16), (-0.6, -0.12))
    pen.polygon(p.pts(cap_shape), cap, edge, 0.05 * p.r)
    # A scale pattern on the cap, kept inside its half ellipse.
    for row, v in enumerate((-0.5, -0.34, -0.18)):
        for k in range(-3, 4):
            u = k * 0.17 + (0.085 if row % 2 else 0)
            if (u / 0.52) ** 2 + ((v + 0.12) / 0.48) ** 2 < 1:
                pen.ellipse(p.box(u, v, 0.045, 0.045), light)


def _german_leaf(pen: Pen, p: Place, suit: str) -> None:
    ink, edge, light = SUIT_INK[suit], SUIT_EDGE[suit], SUIT_LIGHT[suit]
    pen.line(p.pts([*_bezier((0, 0.55), (0.02, 0.8), (0.2, 0.98), 8), (0.2, 0.98)]), edge, 0.1 * p.r)
    blade = [(u * 0.92, -v * 0.9 - 0.12) for u, v in HEART]
    pen.polygon(p.pts(blade), ink, edge, 0.05 * p.r)
    pen.line(p.pts([(0, 0.62), (0, -0.8)]), light, 0.07 * p.r)
    for v, du in ((0.3, 0.52), (-0.05, 0.55), (-0.38, 0.42)):
        pen.line(p.pts([(0, v + 0.08), (-du, v - 0.2)]), light, 0.05 * p.r)
        pen.line(p.pts([(0, v + 0.08), (du, v - 0.2)]), light, 0.05 * p.r)


SYMBOLS: dict[str, dict[str, Callable[[Pen, Place, str], None]]] = {
    "french": {"H": _french_heart, "D": _french_diamond, "C": _french_club, "S": _french_spade},
    "doppeldeutsch": {"H": _german_heart, "D": _german_bell, "C": _german_acorn, "S": _german_leaf},
}


def draw_suit(pen: Pen, deck: str, suit: str, cx: float, cy: float, size: float, flip: bool = False) -> None:
    SYMBOLS[deck][suit](pen, Place(cx, cy, size / 2, flip), suit)


# ---------------------------------------------------------------- figures
# A figure is drawn as a half-length bust in a HALF_W x HALF_H panel and mirrored, as on real double-headed
# cards. Each rank has its own headwear and attribute so that the three figures differ at a glance.

HALF_W, HALF_H = 128, 164


def _face(pen: Pen, young: bool = False) -> None:
    pen.line([(58, 96), (58, 116)], SKIN, 14)
    pen.ellipse((44, 52, 84, 100), SKIN, INK, 1.2)
    for x in (56, 72):
        pen.ellipse((x - 2.6, 70, x + 2.6, 75.5), INK)
        pen.line([(x - 5, 65), (x + 4, 64)], HAIR, 1.6)
    pen.line([(64, 74), (62, 84), (66, 85)], _blend(SKIN, INK, 0.45), 1.2)
    pen.ellipse((49, 81, 56, 87), CHEEK)
    pen.ellipse((72, 81, 79, 87), CHEEK)
    if young:
        pen.line([(59, 91), (64, 93), (69, 91)], (180, 60, 60), 1.6)


def _robe(pen: Pen, colour: RGB, edge: RGB) -> None:
    pen.polygon([(6, 166), (12, 130), (30, 112), (98, 112), (116, 130), (122, 166)], colour, edge, 1.2)


def _emblem(pen: Pen, deck: str, suit: str, x: float, y: float, size: float = 26) -> None:
    pen.ellipse((x - size * 0.62, y - size * 0.62, x + size * 0.62, y + size * 0.62), PAPER, GOLD_EDGE, 1)
    draw_suit(pen, deck, suit, x, y, size * 0.9)


def _king(pen: Pen, deck: str, suit: str) -> None:
    ink, edge = SUIT_INK[suit], SUIT_EDGE[suit]
    _robe(pen, ink, edge)
    pen.line([(64, 124), (64, 166)], GOLD, 5)
    for y in (132, 146, 160):
        pen.dot(64, y, 3, GOLD_EDGE)
    pen.ellipse((32, 104, 96, 126), WHITE, INK, 1)
    for x, y in ((42, 114), (54, 120), (74, 120), (86, 114), (64, 122)):
        pen.ellipse((x - 1.6, y - 2.4, x + 1.6, y + 2.4), INK)
    # Sceptre on the right.
    pen.line([(108, 166), (112, 64)], GOLD_EDGE, 4.5)
    pen.line([(108, 166), (112, 64)], GOLD, 2.5)
    pen.ellipse((105, 54, 119, 68), GOLD, GOLD_EDGE, 1.2)
    _face(pen)
    beard = [(45, 80), (83, 80), (82, 96), (72, 112), (64, 118), (56, 112), (46, 96)]
    pen.polygon(beard, (236, 236, 232), INK, 1.1)
    pen.polygon([(52, 86), (64, 83), (76, 86), (70, 90), (64, 88), (58, 90)], (200, 200, 196))
    pen.line([(60, 94), (68, 94)], (170, 60, 60), 1.6)
    crown = [(43, 50), (43, 18), (53, 32), (64, 10), (75, 32), (85, 18), (85, 50)]
    pen.polygon(crown, GOLD, GOLD_EDGE, 1.4)
    pen.rounded((42, 42, 86, 54), 2, GOLD, GOLD_EDGE, 1.2)
    for x, colour in ((52, SUIT_INK["S"]), (64, SUIT_INK["H"]), (76, SUIT_INK["S"])):
        pen.dot(x, 48, 3, colour)
    for x, y in ((43, 18), (64, 10), (85, 18)):
        pen.dot(x, y, 3.4, GOLD)
    _emblem(pen, deck, suit, 20, 22)


def _feather(pen: Pen, base: tuple[float, float], tip: tuple[float, float], bend: float) -> None:
    (bx, by), (tx, ty) = base, tip
    mx, my = (bx + tx) / 2 + bend, (by + ty) / 2 - abs(bend)
    spine = [*_bezier(base, (mx, my), tip, 16), tip]
    upper = [(x - 5 * math.sin(math.pi * i / 16), y - 3 * math.sin(math.pi * i / 16)) for i, (x, y) in
             enumerate(spine)]
    lower = [(x + 5 * math.sin(math.pi * i / 16), y + 3 * math.sin(math.pi * i / 16)) for i, (x, y) in
             enumerate(spine)]
    pen.polygon(upper + lower[::-1], (252, 248, 236), INK, 0.9)
    pen.line(spine, _blend(INK, WHITE, 0.4), 1)


def _ober(pen: Pen, deck: str, suit: str) -> None:
    ink, edge = SUIT_INK[suit], SUIT_EDGE[suit]
    _robe(pen, ink, edge)
    for y in (122, 136, 150, 164):
        pen.line([(30, y - 8), (98, y - 8)], _blend(ink, WHITE, 0.35), 1.5)
    # A pleated white ruff.
    pen.ellipse((34, 104, 94, 124), WHITE, INK, 1)
    for x in range(40, 92, 8):
        pen.line([(x, 108), (x + 2, 121)], _blend(WHITE, INK, 0.4), 1)
    pen.ellipse((40, 58, 88, 90), HAIR)
    _face(pen)
    pen.polygon([(54, 89), (64, 86), (74, 89), (80, 86), (74, 92), (64, 90), (54, 92), (48, 86)], HAIR)
    pen.polygon([(60, 96), (68, 96), (64, 108)], HAIR)
    # Broad hat with a feather.
    hat = _blend(edge, INK, 0.3)
    pen.ellipse((26, 44, 102, 60), hat, INK, 1)
    pen.rounded((42, 22, 86, 52), 10, hat, INK, 1)
    pen.rounded((42, 44, 86, 50), 1, GOLD)
    _feather(pen, (84, 40), (122, 8), 6)
    _emblem(pen, deck, suit, 20, 22)


def _unter(pen: Pen, deck: str, suit: str) -> None:
    ink, edge = SUIT_INK[suit], SUIT_EDGE[suit]
    _robe(pen, _blend(ink, WHITE, 0.2), edge)
    pen.polygon([(50, 112), (78, 112), (64, 136)], WHITE, INK, 1)
    pen.rounded((12, 150, 116, 158), 2, INK)
    pen.rounded((58, 148, 70, 160), 2, GOLD, GOLD_EDGE, 1)
    pen.ellipse((42, 54, 86, 84), HAIR)
    _face(pen, young=True)
    # A soft cap with a pompom, tilted over one ear.
    cap = _blend(edge, ink, 0.4)
    pen.polygon([(38, 60), (42, 42), (58, 32), (80, 32), (94, 44), (92, 58), (64, 54)], cap, INK, 1)
    pen.rounded((40, 54, 92, 62), 3, _blend(cap, WHITE, 0.35), INK, 0.8)
    pen.dot(84, 30, 6, _blend(cap, WHITE, 0.5))
    # The Unter holds his symbol low, in front of the chest.
    pen.ellipse((92, 124, 106, 138), SKIN, INK, 1)
    _emblem(pen, deck, suit, 100, 142, 24)


def _queen(pen: Pen, deck: str, suit: str) -> None:
    ink, edge = SUIT_INK[suit], SUIT_EDGE[suit]
    hair = (176, 112, 44)
    pen.ellipse((32, 42, 96, 132), hair, INK, 1)
    _robe(pen, ink, edge)
    pen.polygon([(44, 112), (84, 112), (64, 140)], SKIN, INK, 1)
    for i in range(7):
        a = math.pi * (0.15 + 0.7 * i / 6)
        pen.dot(64 - 20 * math.cos(a), 112 + 16 * math.sin(a), 2.2, GOLD)
    _face(pen)
    pen.polygon([(44, 70), (48, 54), (64, 48), (80, 54), (84, 70), (74, 58), (54, 58)], hair)
    pen.ellipse((59, 90, 69, 95), (200, 50, 60))
    tiara = [(48, 52), (50, 36), (57, 44), (64, 30), (71, 44), (78, 36), (80, 52)]
    pen.polygon(tiara, GOLD, GOLD_EDGE, 1.2)
    pen.dot(64, 45, 2.6, SUIT_INK["H"] if suit != "H" else SUIT_INK["S"])
    # A flower in the suit colour.
    pen.line([(104, 166), (106, 112)], SUIT_INK["S"] if suit != "S" else SUIT_EDGE["S"], 2.4)
    for a in range(5):
        ang = 2 * math.pi * a / 5
        pen.ellipse((106 + 8 * math.cos(ang) - 6, 104 + 8 * math.sin(ang) - 6,
                     106 + 8 * math.cos(ang) + 6, 104 + 8 * math.sin(ang) + 6), ink, INK, 0.8)
    pen.dot(106, 104, 4, GOLD)
    _emblem(pen, deck, suit, 20, 22)


def _jack(pen: Pen, deck: str, suit: str) -> None:
    ink, edge = SUIT_INK[suit], SUIT_EDGE[suit]
    # A halberd on the left.
    pen.line([(20, 166), (20, 46)], (120, 80, 40), 3.5)
    pen.polygon([(20, 34), (24, 46), (36, 44), (38, 58), (20, 60), (16, 46)], (190, 196, 204), INK, 1)
    _robe(pen, ink, edge)
    pen.polygon([(40, 112), (88, 112), (80, 126), (48, 126)], WHITE, INK, 1)
    for x in (50, 64, 78):
        pen.line([(x, 130), (x, 166)], _blend(ink, INK, 0.35), 2)
    pen.ellipse((42, 54, 86, 88), HAIR)
    _face(pen, young=True)
    cap = _blend(ink, INK, 0.25)
    pen.polygon([(40, 56), (44, 36), (64, 28), (84, 34), (90, 56)], cap, INK, 1)
    pen.rounded((38, 50, 90, 58), 2, GOLD, GOLD_EDGE, 0.8)
    _feather(pen, (46, 42), (14, 12), -4)
    _emblem(pen, deck, suit, 108, 22)


FIGURES: dict[str, dict[str, Callable[[Pen, str, str], None]]] = {
    "doppeldeutsch": {"K": _king, "Q": _ober, "J": _unter},
    "french": {"K": _king, "Q": _queen, "J": _jack},
}

# ---------------------------------------------------------------- cards

FRAME = (56, 16, 184, 344)  # x0, y0, x1, y1 of the central picture, between the two corner indices
INDEX_BOX = (54, 124)


def _layer(width: float, height: float) -> Image.Image:
    return Image.new("RGBA", (round(width * SUPERSAMPLE), round(height * SUPERSAMPLE)), (0, 0, 0, 0))


def _index_layer(deck: str, code: str) -> Image.Image:
    suit, rank = code[0], code[1]
    layer = _layer(*INDEX_BOX)
    text = INDEX_LABELS[deck][rank]
    font = ImageFont.truetype(str(FONT_BOLD), 50 * SUPERSAMPLE)
    stroke = 2 * SUPERSAMPLE if suit == "D" else 0
    left, top, right, bottom = font.getbbox(text, stroke_width=stroke)
    glyphs = Image.new("RGBA", (right - left, bottom - top), (0, 0, 0, 0))
    ImageDraw.Draw(glyphs).text((-left, -top), text, font=font, fill=_opaque(SUIT_INK[suit]),
                                stroke_width=stroke, stroke_fill=_opaque(SUIT_EDGE[suit]))
    max_width = (INDEX_BOX[0] - 6) * SUPERSAMPLE
    if glyphs.width > max_width:  # "10" is squeezed to the width of one letter column
        glyphs = glyphs.resize((max_width, glyphs.height), Image.Resampling.LANCZOS)
    x = (layer.width - glyphs.width) // 2
    layer.alpha_composite(glyphs, (x, 10 * SUPERSAMPLE))
    draw_suit(Pen(layer), deck, suit, INDEX_BOX[0] / 2, 90, 38)
    return layer


def _paper(pen: Pen) -> None:
    pen.rounded((0, 0, CARD_W - 1, CARD_H - 1), CORNER_RADIUS, PAPER, CARD_EDGE, 1.5)


def _pips(pen: Pen, deck: str, code: str) -> None:
    suit, rank = code[0], code[1]
    x0, y0, x1, y1 = FRAME
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if rank == "A":
        if deck == "doppeldeutsch":
            # The Sau gets a garland frame around one large symbol.
            pen.ellipse((cx - 62, cy - 92, cx + 62, cy + 92), None, GOLD, 4)
            pen.ellipse((cx - 60, cy - 90, cx + 60, cy + 90), PAPER)
            pen.ellipse((cx - 54, cy - 84, cx + 54, cy + 84), None, SUIT_LIGHT[suit], 2)
            pen.ellipse((cx - 52, cy - 82, cx + 52, cy + 82), PAPER)
            for k in range(12):
                a = 2 * math.pi * k / 12
                pen.dot(cx + 61 * math.sin(a), cy - 91 * math.cos(a), 4, SUIT_INK["S"] if suit != "S" else GOLD)
            draw_suit(pen, deck, suit, cx, cy, 96)
        else:
            draw_suit(pen, deck, suit, cx, cy, 112)
        return
    # Ten: two columns of four and two in the middle; the lower half is upside down as on real cards.
    size = 36 if deck == "french" else 38
    rows = [y0 + 40 + i * (y1 - y0 - 80) / 3 for i in range(4)]
    spots = [(cx - 34, y) for y in rows] + [(cx + 34, y) for y in rows]
    spots += [(cx, (rows[0] + rows[1]) / 2), (cx, (rows[2] + rows[3]) / 2)]
    for x, y in spots:
        draw_suit(pen, deck, suit, x, y, size, flip=y > cy)


def _figure(card: Image.Image, deck: str, code: str) -> None:
    suit, rank = code[0], code[1]
    x0, y0, x1, y1 = FRAME
    pen = Pen(card)
    pen.rounded((x0, y0, x1, y1), 8, _blend(PAPER, SUIT_LIGHT[suit], 0.3), SUIT_EDGE[suit], 1.6)
    half = _layer(HALF_W, HALF_H)
    FIGURES[deck][rank](Pen(half), deck, suit)
    # The picture stops at the frame: crop each half to the frame's inner rectangle.
    inner = ((x1 - x0) * SUPERSAMPLE - 2 * 2 * SUPERSAMPLE, ((y1 - y0) / 2 - 2) * SUPERSAMPLE)
    top = half.crop((2 * SUPERSAMPLE, 0, 2 * SUPERSAMPLE + round(inner[0]), round(inner[1])))
    top = _clip_to_rounded(top, 6 * SUPERSAMPLE)
    card.alpha_composite(top, ((x0 + 2) * SUPERSAMPLE, (y0 + 2) * SUPERSAMPLE))
    bottom = top.rotate(180)
    card.alpha_composite(bottom, ((x0 + 2) * SUPERSAMPLE, round((y1 - 2) * SUPERSAMPLE) - bottom.height))
    cy = (y0 + y1) / 2
    pen.line([(x0 + 2, cy), (x1 - 2, cy)], SUIT_EDGE[suit], 1.4)
    pen.rounded((x0, y0, x1, y1), 8, None, SUIT_EDGE[suit], 1.6)


def _clip_to_rounded(image: Image.Image, radius: int) -> Image.Image:
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, image.width - 1, image.height - 1), radius=radius, fill=255)
    clipped = Image.new("RGBA", image.size, (0, 0, 0, 0))
    clipped.paste(image, (0, 0), mask)
    return clipped


def _finish(big: Image.Image, size: tuple[int, int]) -> Image.Image:
    return big.resize(size, Image.Resampling.LANCZOS)


def render_card(deck: str, code: str) -> Image.Image:
    """One card face as an RGBA image of CARD_W x CARD_H with transparent rounded corners."""
    card = _layer(CARD_W, CARD_H)
    pen = Pen(card)
    _paper(pen)
    if code[1] in "AT":
        _pips(pen, deck, code)
    else:
        _figure(card, deck, code)
    index = _index_layer(deck, code)
    card.alpha_composite(index, (3 * SUPERSAMPLE, 3 * SUPERSAMPLE))
    turned = index.rotate(180)
    card.alpha_composite(turned, (card.width - turned.width - 3 * SUPERSAMPLE,
                                  card.height - turned.height - 3 * SUPERSAMPLE))
    return _finish(card, (CARD_W, CARD_H))


def render_back(deck: str) -> Image.Image:
    dark, light = BACK_COLOURS[deck]
    card = _layer(CARD_W, CARD_H)
    pen = Pen(card)
    _paper(pen)
    inset = 12
    pen.rounded((inset, inset, CARD_W - inset, CARD_H - inset), 10, dark)
    # A diagonal lattice, drawn on its own layer and clipped to the inner rectangle.
    lattice = _layer(CARD_W - 2 * inset, CARD_H - 2 * inset)
    lattice_pen = Pen(lattice)
    span = CARD_W + CARD_H
    for k in range(-span, span, 16):
        lattice_pen.line([(k, 0), (k + span, span)], light, 1.6)
        lattice_pen.line([(k, 0), (k - span, span)], light, 1.6)
    card.alpha_composite(_clip_to_rounded(lattice, 10 * SUPERSAMPLE), (inset * SUPERSAMPLE, inset * SUPERSAMPLE))
    pen.rounded((inset, inset, CARD_W - inset, CARD_H - inset), 10, None, GOLD, 2.5)
    cx, cy = CARD_W / 2, CARD_H / 2
    pen.ellipse((cx - 66, cy - 80, cx + 66, cy + 80), PAPER, GOLD, 4)
    for suit, (dx, dy) in zip(SUITS, ((-26, -32), (26, -32), (-26, 32), (26, 32)), strict=True):
        draw_suit(pen, deck, suit, cx + dx, cy + dy, 40)
    return _finish(card, (CARD_W, CARD_H))


def render_suit_icon(deck: str, suit: str) -> Image.Image:
    icon = _layer(ICON_SIZE, ICON_SIZE)
    draw_suit(Pen(icon), deck, suit, ICON_SIZE / 2, ICON_SIZE / 2, ICON_SIZE * 0.86)
    return _finish(icon, (ICON_SIZE, ICON_SIZE))


def all_images(deck: str) -> dict[str, Callable[[], Image.Image]]:
    """File name -> function drawing that image, for one deck."""
    images: dict[str, Callable[[], Image.Image]] = {}
    for suit in SUITS:
        for rank in RANKS:
            images[f"{suit}{rank}.png"] = lambda code=suit + rank: render_card(deck, code)
        images[f"suit_{suit}.png"] = lambda suit=suit: render_suit_icon(deck, suit)
    images["back.png"] = lambda: render_back(deck)
    return images


def generate(out_dir: Path = DEFAULT_OUT) -> list[Path]:
    written = []
    for deck in DECKS:
        folder = out_dir / deck
        folder.mkdir(parents=True, exist_ok=True)
        for name, draw in all_images(deck).items():
            path = folder / name
            draw().save(path, format="PNG", optimize=True)
            written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: assets/cards)")
    args = parser.parse_args(argv)
    written = generate(args.out)
    print(f"wrote {len(written)} images to {args.out}")


if __name__ == "__main__":
    main()
