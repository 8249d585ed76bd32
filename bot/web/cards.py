"""The table's own deck on the pages: the project's card art (assets/cards), made small once per process
(WebP, sized for a phone's screen at twice its pixel density) and served from memory with long caching."""

from __future__ import annotations

import io
import re
from pathlib import Path

from PIL import Image

from bot.render._assets import CARDS_DIR
from bot.vocabulary import DECK_STYLES
from engine import DECK

# Shown at most 60 CSS pixels wide: 120 pixels are sharp on a phone's 2x screen.
CARD_SIZE = (120, 180)
CARD_NAMES = (*DECK, "back")
CARD_FILE = re.compile(r"^(?P<card>[HDCS][ATKQJ]|back)\.webp$")


def shrink(path: Path) -> bytes:
    with Image.open(path) as image:
        small = image.convert("RGBA").resize(CARD_SIZE, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    small.save(out, "WEBP", quality=78, method=4)  # 6 compresses 3% better at 25 times the time
    return out.getvalue()


def build_cards() -> dict[tuple[str, str], bytes]:
    """Every card of every deck, by (deck, card): blocking work (a second or so), run off the event loop."""
    return {(deck, card): shrink(CARDS_DIR / deck / f"{card}.png") for deck in DECK_STYLES for card in CARD_NAMES}
