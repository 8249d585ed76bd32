"""Build the 256-colour palette each deck's images are encoded with, and write it next to the deck's cards.

Run from anywhere:  python tools/gen_palette.py [--out DIR]

Writes assets/cards/<deck>/palette.png for each deck style: a 16×16 palette-mode image whose pixel i is
palette entry i, so the file is both what the renderer loads and a swatch chart a person can look at.

The palette is cut from sample renders that contain every card tile at every size the renderer uses, so the
flat card art and its anti-aliased edges keep their colours. Building it means composing a tall montage and
counting its distinct colours, which takes a second and well over 100 MB, hence it runs here and not in the
bot. Re-run it after changing the card art, the renderer's colours or layout, the fonts or Pillow;
tests/render checks that a re-run reproduces the committed files.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.render import images, review  # noqa: E402  (needs ROOT on the path when run as a script)
from bot.render._assets import CARDS_DIR, PALETTE_FILE  # noqa: E402
from bot.render.names import DECK_STYLES, RANKS, SUITS  # noqa: E402
from bot.render.scenes import ResultScene, TableScene  # noqa: E402

PALETTE_SIZE = 256
SWATCH_SIDE = 16  # 16 × 16 pixels, one per palette entry
EXACT_COLOURS = 48
# The renderer's own colours always get an exact entry.
FIXED_COLOURS = (
    images.FELT,
    images.FELT_DARK,
    images.PANEL,
    images.SLOT,
    images.TEXT,
    images.MUTED,
    images.GOLD,
    images.GOLD_DARK,
    images.INK,
)
SAMPLE_NAMES = ("Anna", "Benedikt", "Carla", "Dominik")


def _hand(cards: tuple[str, ...], playable: set[str] | None, trump: str | None, deck: str, lang: str) -> Image.Image:
    return images.drawn_whole(images.HAND_SIZE, images.hand_layout(cards, playable, trump, deck, lang))


def sample_renders(deck: str) -> list[Image.Image]:
    """Hands, tables, a result and a deal review that between them show every card, plain, dimmed and small."""
    samples = [
        _hand(tuple(suit + rank for rank in RANKS), {suit + "A", suit + "T"}, suit, deck, "en") for suit in SUITS
    ]
    samples.append(_hand(("HA", "DT", "CK", "SQ", "HJ"), None, None, deck, "de"))
    for suit in SUITS:
        cards = [suit + rank for rank in RANKS]
        scene = TableScene(
            viewer_seat=0,
            seat_names=SAMPLE_NAMES,
            trick=((0, cards[0]), (1, cards[1]), (2, cards[2])),
            to_act_seat=3,
            trump=suit,
            contract_label="Schnapser",
            multiplier=2,
            team_points=(34, 21),
            team_tricks=(2, 1),
            first_tricks=(tuple(cards[1:]), tuple(cards[:4])),
            deck=deck,
        )
        samples.append(images._compose_table(scene))
    scene = TableScene(
        viewer_seat=None,
        seat_names=SAMPLE_NAMES,
        trick=((0, "SK"),),
        sitting_out_seat=1,
        to_act_seat=2,
        deck=deck,
    )
    samples.append(images._compose_table(scene))
    result = ResultScene(
        seat_names=SAMPLE_NAMES,
        winner_team=1,
        game_points=3,
        score=(15, 9),
        card_points=(72, 48),
        detail="Schneider",
        deck=deck,
    )
    samples.append(images._compose_result(result))
    # The deal review: every card small, two tricks played and the rest dimmed (never played).
    hands = tuple(tuple(suit + rank for rank in RANKS) for suit in SUITS)
    tricks = tuple(
        review.ReviewTrick(tuple((seat, hands[seat][n]) for seat in range(4)), 0) for n in range(2)
    )
    samples.append(review._compose_review(review.DealReviewScene(
        seat_names=SAMPLE_NAMES, hands=hands, tricks=tricks, winner_team=0, game_points=1, trump="H",
        aufschlag_card="HK", deck=deck,
    )))  # fmt: skip
    return samples


def build_palette(deck: str) -> bytes:
    """The deck's palette as 768 bytes (256 RGB entries)."""
    samples = sample_renders(deck)
    montage = Image.new("RGB", (images.WIDTH, sum(sample.height for sample in samples)))
    y = 0
    for sample in samples:
        montage.paste(sample, (0, y))
        y += sample.height
    # The most common colours (felt, paper, the art's flat fills) get exact entries. The rest of the palette
    # is cut from the set of distinct colours, each counted once, so that rare hues such as a heart's
    # highlight keep a close entry instead of being outvoted by the large flat areas.
    counts = Counter(dict((colour, count) for count, colour in montage.getcolors(maxcolors=1 << 24)))
    fixed = list(FIXED_COLOURS)
    fixed += [colour for colour, _ in counts.most_common(EXACT_COLOURS) if colour not in fixed]
    distinct = Image.new("RGB", (len(counts), 1))
    distinct.putdata(sorted(counts))
    shades = distinct.quantize(
        colors=PALETTE_SIZE - len(fixed), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    entries = [channel for colour in fixed for channel in colour]
    entries += shades.getpalette()[: 3 * (PALETTE_SIZE - len(fixed))]
    return bytes(entries)


def swatch_image(palette: bytes) -> Image.Image:
    """The palette as a 16×16 palette-mode image whose pixel i shows entry i."""
    swatch = Image.new("P", (SWATCH_SIDE, SWATCH_SIDE))
    swatch.putpalette(palette)
    swatch.putdata(range(PALETTE_SIZE))
    return swatch


def generate(out_dir: Path = CARDS_DIR) -> list[Path]:
    written = []
    for deck in DECK_STYLES:
        path = out_dir / deck / PALETTE_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        swatch_image(build_palette(deck)).save(path, format="PNG")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CARDS_DIR, help="output folder (default: assets/cards)")
    args = parser.parse_args(argv)
    written = generate(args.out)
    print(f"wrote {len(written)} palettes to {args.out}")


if __name__ == "__main__":
    main()
