"""Text in any script: each character is drawn with the first font of the chain that has a glyph for it.

Display names come in every script and often carry emoji (an AI seat is drawn ``Ferdl 🤖``). No single
small font covers that, so a text is cut into runs, one per font (``runs``), measured and drawn run by run
on one baseline. Glyph coverage is read from each font's character map once (``_assets.coverage``) and the
runs of a text are cached, so a text that needs only the main font costs what it did before the chain.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw

from bot.render import _assets

Run = tuple[Path, str]  # a font and the part of the text it draws

# Characters that modify the one before them and so belong to its run: zero-width joiner, variation
# selectors, skin tones, tag characters (subdivision flags) and combining marks.
_ZWJ, _TEXT_STYLE, _EMOJI_STYLE = 0x200D, 0xFE0E, 0xFE0F
_SKIN_TONES = range(0x1F3FB, 0x1F400)
_TAGS = range(0xE0020, 0xE0080)
_FIRST_PICTOGRAPH = 0x1F000  # from here on, a symbol is meant as an emoji (mahjong, cards, faces, ...)


def _modifies_previous(char: str) -> bool:
    code = ord(char)
    return (
        code in (_ZWJ, _TEXT_STYLE, _EMOJI_STYLE)
        or code in _SKIN_TONES
        or code in _TAGS
        or unicodedata.category(char) in ("Mn", "Mc", "Me")
    )


def _font_for(text: str, index: int, chain: tuple[Path, ...]) -> Path:
    """The first font of the chain with a glyph for text[index]. An emoji (a pictograph, or a symbol asked
    to look like one with U+FE0F) goes to the emoji font first, so that 😀 and 🎉 look alike though the main
    font has a few faces of its own. A character no font has goes to the main font (which draws its
    placeholder box; the tests keep that from happening to the scripts the docs promise)."""
    code = ord(text[index])
    emoji = code >= _FIRST_PICTOGRAPH or text[index + 1 : index + 2] == chr(_EMOJI_STYLE)
    if emoji and code in _assets.coverage(_assets.EMOJI_FONT):
        return _assets.EMOJI_FONT
    for path in chain:
        if code in _assets.coverage(path):
            return path
    return chain[0]


@lru_cache(maxsize=4096)
def runs(text: str, weight: str = "bold") -> tuple[Run, ...]:
    """The text cut into runs of one font each, in order. Joiners and marks stay with the character they
    modify, so an emoji sequence or an accented letter is drawn by one font."""
    chain = _assets.font_chain(weight)
    cut: list[list] = []
    for index, char in enumerate(text):
        if cut and _modifies_previous(char):
            cut[-1][1] += char
            continue
        if cut and text[index - 1] == chr(_ZWJ):  # the next part of a ZWJ sequence (👨‍👩‍👧)
            cut[-1][1] += char
            continue
        path = _font_for(text, index, chain)
        if cut and cut[-1][0] == path:
            cut[-1][1] += char
        else:
            cut.append([path, char])
    return tuple((path, part) for path, part in cut)


def missing(text: str, weight: str = "bold") -> list[str]:
    """The characters of text that no font of the chain has a glyph for (joiners and selectors, which draw
    nothing of their own, excepted)."""
    chain = _assets.font_chain(weight)
    return [
        char
        for char in text
        if not _modifies_previous(char)
        and not unicodedata.category(char).startswith("Z")  # spaces are spacing, not glyphs to miss
        and not any(ord(char) in _assets.coverage(path) for path in chain)
    ]


@lru_cache(maxsize=8192)
def length(text: str, size: int, weight: str = "bold") -> float:
    """The advance width of text in pixels, as drawn by ``mask``. Cached: every picture of a table measures
    the same names, at several sizes, to fit them, and FreeType's measure was the costliest step of a turn's
    picture."""
    return sum(_assets.face(path, size).getlength(part) for path, part in runs(text, weight))


def fit(text: str, size: int, max_width: int | None, weight: str = "bold") -> str:
    """Shorten text with an ellipsis until it fits max_width pixels."""
    if max_width is None or length(text, size, weight) <= max_width:
        return text
    while text and length(text + "…", size, weight) > max_width:
        text = text[:-1]
    return text + "…"


@lru_cache(maxsize=2048)
def wrap(text: str, size: int, max_width: int, weight: str = "bold", max_lines: int = 2) -> tuple[str, ...]:
    """text in lines of at most max_width pixels, broken between words (a word too long for a line, or a
    name in a script without spaces, is broken between its characters); only past max_lines is the last
    line cut with an ellipsis. Names are drawn whole this way wherever two lines fit."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        joined = f"{line} {word}" if line else word
        if length(joined, size, weight) <= max_width:
            line = joined
            continue
        if line:
            lines.append(line)
        line = word
        while length(line, size, weight) > max_width and len(line) > 1:
            cut = _longest_start(line, size, max_width, weight)
            lines.append(line[:cut])
            line = line[cut:]
    if line:
        lines.append(line)
    if len(lines) > max_lines:
        lines[max_lines - 1 :] = [fit(" ".join(lines[max_lines - 1 :]), size, max_width, weight)]
    return tuple(lines) or ("",)


def _longest_start(word: str, size: int, max_width: int, weight: str) -> int:
    """How many characters of word fit max_width (at least one), ending after a hyphen where one fits."""
    count = 1
    while count < len(word) and length(word[: count + 1], size, weight) <= max_width:
        count += 1
    while count > 1 and count < len(word) and (_modifies_previous(word[count]) or word[count - 1] == chr(_ZWJ)):
        count -= 1  # an accent, a joiner or a skin tone stays with its character
    hyphen = word.rfind("-", 0, count)
    return hyphen + 1 if hyphen > 0 else count


def _baseline(anchor: str, size: int, weight: str) -> float:
    """How far below the anchor point the baseline lies, by the main font's metrics, so that a line keeps
    its place whichever fonts draw it. Vertical anchors: a(scender), m(iddle), s (baseline), d(escender)."""
    ascent, descent = _assets.font(size, weight).getmetrics()
    offsets = {"a": ascent, "m": (ascent - descent) / 2, "s": 0.0, "d": -descent}
    if anchor[1] not in offsets:
        raise ValueError(f"text anchors are l/m/r with a/m/s/d, got {anchor!r}")
    return offsets[anchor[1]]


def mask(text: str, size: int, weight: str, anchor: str) -> tuple[Image.Image, int, int]:
    """Text as an anti-aliased mask, and the mask's offset from the anchor point."""
    parts = runs(text, weight)
    if len(parts) <= 1 and (not parts or parts[0][0] == _assets.FONT_FILES[weight]):
        # One font, the main one: Pillow places it by the anchor itself.
        face = _assets.font(size, weight)
        left, top, right, bottom = map(int, face.getbbox(text, anchor=anchor))  # typed float; FreeType: int
        drawn = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(drawn).text((-left, -top), text, font=face, fill=255, anchor=anchor)
        return drawn, left, top
    # Several fonts: each run's own mask placed along one baseline (pen positions rounded to whole pixels).
    drawn_runs = [_run_mask(path, part, size) for path, part in parts]
    total = sum(advance for *_, advance in drawn_runs)
    pen = {"l": 0.0, "m": -total / 2, "r": -total}[anchor[0]]
    baseline = round(_baseline(anchor, size, weight))
    placed = []
    for run, run_left, run_top, advance in drawn_runs:
        placed.append((run, round(pen) + run_left, baseline + run_top))
        pen += advance
    left = min(x for _, x, _ in placed)
    top = min(y for _, _, y in placed)
    right = max(x + run.width for run, x, _ in placed)
    bottom = max(y + run.height for run, _, y in placed)
    drawn = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    for run, x, y in placed:
        drawn.paste(255, (x - left, y - top), run)
    return drawn, left, top


@lru_cache(maxsize=1024)
def _run_mask(path: Path, part: str, size: int) -> tuple[Image.Image, int, int, float]:
    """One run drawn by its font: the mask, its offset from the pen on the baseline, and the advance. Kept,
    because an emoji costs about 2 ms to draw and the same ones (an AI seat's 🤖) recur in new texts."""
    face = _assets.face(path, size)
    left, top, right, bottom = map(int, face.getbbox(part, anchor="ls"))  # typed float; FreeType: int
    drawn = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(drawn).text((-left, -top), part, font=face, fill=255, anchor="ls")
    return drawn, left, top, face.getlength(part)
