"""A tournament's standings and its single-elimination bracket as images (issue 30).

Pure: plain values in (every word already in the reader's language), PNG bytes out; call it off the event
loop. Each image is drawn from a layout (``standings_pages``, ``bracket_pages``): the texts, places and
colours of everything on it, which the tests read instead of pixels. The images have their own dark felt
background, so they read the same in Discord's dark and light themes.

A large field is cut into pages (one PNG each, posted together): the standings ``ROWS_PER_PAGE`` teams a
page; a bracket whose first round has more than ``SECTION`` matches one page per section of it (its first
rounds up to the section's winner) and a last page with the rounds after.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.render import fonts

RGB = tuple[int, int, int]

FELT: RGB = (22, 74, 48)
FELT_DARK: RGB = (14, 52, 34)
STRIPE: RGB = (27, 86, 56)
CURRENT: RGB = (34, 100, 66)  # the column of the round being played
BOX: RGB = (16, 60, 40)
LINE: RGB = (96, 140, 112)
COLOURS: dict[str, RGB] = {
    "title": (232, 196, 92),
    "text": (240, 236, 222),
    "muted": (176, 196, 180),
    "bye": (232, 196, 92),
    "forfeit": (240, 140, 128),
}

# --- standings ------------------------------------------------------------------------------------------

WIDTH = 760
PAD = 20
TITLE_H = 74
HEADER_H = 28
ROW_H = 50
ROWS_PER_PAGE = 16
MAX_PAGES = 10  # Discord takes ten attachments a message
SMALLEST = 16  # no text is smaller: a phone shows a 760 px image about 360 px wide (docs/cards.md)
RANK_X = PAD + 40  # right edge of the rank
NAME_X = PAD + 52
POINTS_X, BUCHHOLZ_X, GAME_POINTS_X = 520, 630, WIDTH - PAD  # right edges of the numbers
NUMBER_W = 108  # a column heading's room
NAME_W = POINTS_X - NUMBER_W + 20 - NAME_X


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One team's line: its place, name (both partners), the second line's words (number, record) and the
    byes and forfeit losses it had, which are marked."""

    rank: int
    team: str
    detail: str
    points: int
    buchholz: int
    game_points: int
    byes: int = 0
    forfeits: int = 0


@dataclass(frozen=True, slots=True)
class StandingsScene:
    title: str
    subtitle: str
    headings: tuple[str, str, str]  # points, Buchholz, game points
    rows: tuple[StandingRow, ...]
    bye_mark: str  # the word on a team that had a bye
    forfeit_mark: str  # on a team that lost by forfeit ({count} is not needed: the mark shows it once)
    empty: str  # shown when no match has ended


@dataclass(frozen=True, slots=True)
class Cell:
    """A text on an image: anchored at (x, y) (Pillow's anchors), in a colour of ``COLOURS``. ``chip``: on a
    rounded patch of its colour (a mark)."""

    text: str
    x: int
    y: int
    size: int
    colour: str = "text"
    anchor: str = "lm"
    weight: str = "bold"
    max_width: int | None = None
    chip: bool = False


@dataclass(frozen=True, slots=True)
class StandingsPage:
    size: tuple[int, int]
    rows: tuple[StandingRow, ...]
    cells: tuple[Cell, ...]
    stripes: tuple[tuple[int, int], ...]  # (top, bottom) of the striped rows


def page_count(rows: int, per_page: int = ROWS_PER_PAGE) -> int:
    """Pages for ``rows`` teams: at least one, at most ``MAX_PAGES``.

    >>> page_count(0), page_count(16), page_count(17), page_count(64), page_count(500)
    (1, 1, 2, 4, 10)
    """
    return min(max(1, -(-rows // per_page)), MAX_PAGES)


def standings_size(rows: int) -> tuple[int, int]:
    return WIDTH, TITLE_H + HEADER_H + ROW_H * max(rows, 1) + PAD // 2


def _name_size(text: str, largest: int, smallest: int, max_width: int, weight: str = "bold") -> int:
    """The largest size at which ``text`` fits, down to ``smallest`` (where it is then cut with "…")."""
    for size in range(largest, smallest, -1):
        if fonts.length(text, size, weight) <= max_width:
            return size
    return smallest


def standings_pages(scene: StandingsScene, per_page: int = ROWS_PER_PAGE) -> tuple[StandingsPage, ...]:
    """Where everything of the standings goes, page by page (``per_page`` teams each; the teams past
    ``MAX_PAGES`` pages are left to the text)."""
    pages = page_count(len(scene.rows), per_page)
    laid: list[StandingsPage] = []
    for number in range(pages):
        rows = scene.rows[number * per_page : (number + 1) * per_page]
        cells: list[Cell] = []
        title_w = WIDTH - 2 * PAD - (70 if pages > 1 else 0)
        cells.append(Cell(scene.title, PAD, 28, _name_size(scene.title, 26, 18, title_w), "title",
                          max_width=title_w))  # fmt: skip
        cells.append(Cell(scene.subtitle, PAD, 56, SMALLEST, "muted", weight="regular", max_width=title_w))
        if pages > 1:
            cells.append(Cell(f"{number + 1}/{pages}", WIDTH - PAD, 28, 18, "muted", anchor="rm"))
        heading_y = TITLE_H + HEADER_H // 2
        for heading, right in zip(scene.headings, (POINTS_X, BUCHHOLZ_X, GAME_POINTS_X), strict=True):
            cells.append(Cell(heading, right, heading_y, SMALLEST, "muted", "rm", "regular", NUMBER_W))
        if not rows:
            cells.append(Cell(scene.empty, NAME_X, TITLE_H + HEADER_H + ROW_H // 2, 18, "muted",
                              weight="regular", max_width=WIDTH - NAME_X - PAD))  # fmt: skip
        stripes = []
        for index, row in enumerate(rows):
            top = TITLE_H + HEADER_H + index * ROW_H
            if index % 2 == 0:
                stripes.append((top, top + ROW_H))
            middle = top + ROW_H // 2
            cells.append(Cell(f"{row.rank}.", RANK_X, middle, 22, "title", "rm"))
            cells.append(
                Cell(row.team, NAME_X, top + 17, _name_size(row.team, 20, SMALLEST, NAME_W), max_width=NAME_W)
            )
            cells.extend(_detail_cells(scene, row, top + 37))
            cells.append(Cell(str(row.points), POINTS_X, middle, 24, "text", "rm"))
            cells.append(Cell(str(row.buchholz), BUCHHOLZ_X, middle, 20, "text", "rm", "regular"))
            cells.append(Cell(str(row.game_points), GAME_POINTS_X, middle, 20, "text", "rm", "regular"))
        laid.append(StandingsPage(standings_size(len(rows)), tuple(rows), tuple(cells), tuple(stripes)))
    return tuple(laid)


def _detail_cells(scene: StandingsScene, row: StandingRow, y: int) -> list[Cell]:
    """The second line of a team: its words, then a mark for a bye and one for forfeit losses."""
    marks = []
    if row.byes:
        marks.append((scene.bye_mark, "bye"))
    if row.forfeits:
        marks.append((scene.forfeit_mark, "forfeit"))
    room = NAME_W - sum(int(fonts.length(mark, SMALLEST)) + 22 for mark, _ in marks)
    cells = [Cell(row.detail, NAME_X, y, SMALLEST, "muted", weight="regular", max_width=room)]
    shown = fonts.fit(row.detail, SMALLEST, room, "regular")  # as drawn: cut where the marks need the room
    x = NAME_X + min(int(fonts.length(shown, SMALLEST, "regular")), room) + 14
    for mark, colour in marks:
        cells.append(Cell(mark, x, y, SMALLEST, colour, chip=True))
        x += int(fonts.length(mark, SMALLEST)) + 22
    return cells


def render_standings(scene: StandingsScene, per_page: int = ROWS_PER_PAGE) -> tuple[bytes, ...]:
    """The standings as PNGs, one a page."""
    images = []
    for page in standings_pages(scene, per_page):
        canvas = Image.new("RGB", page.size, FELT)
        canvas.paste(FELT_DARK, (0, 0, page.size[0], TITLE_H))
        for top, bottom in page.stripes:
            canvas.paste(STRIPE, (0, top, page.size[0], bottom))
        _draw_cells(canvas, page.cells)
        images.append(_png(canvas))
    return tuple(images)


# --- the bracket -----------------------------------------------------------------------------------------

SECTION = 8  # first-round matches a bracket page shows at most
COLUMN_W = 250
BOX_W, BOX_H = 226, 56
BOX_GAP = 14
BRACKET_TOP = 96  # below the title and the round names


@dataclass(frozen=True, slots=True)
class BracketSide:
    """A team's place in a bracket match: its name (None: not known yet, the match before still plays) and
    a short score (Bummerl won) once the match is decided."""

    name: str | None
    score: str = ""


@dataclass(frozen=True, slots=True)
class BracketMatch:
    top: BracketSide
    bottom: BracketSide | None  # None: a bye for the top team
    winner: int | None = None  # 0 the top team, 1 the bottom one; None while undecided


@dataclass(frozen=True, slots=True)
class BracketScene:
    """Every round of the bracket, the first with all its matches, each later one with half as many (their
    teams known as far as the rounds before were decided). ``current`` is the index of the round being
    played (None before the start or after the end)."""

    title: str
    rounds: tuple[tuple[BracketMatch, ...], ...]
    round_names: tuple[str, ...]
    current: int | None
    champion: str | None
    champion_label: str
    bye_label: str
    unknown_label: str

    def __post_init__(self) -> None:
        first = len(self.rounds[0]) if self.rounds else 0
        if first & (first - 1) or any(len(r) != first >> n for n, r in enumerate(self.rounds)):
            raise ValueError("a bracket's rounds halve down from a power of two")
        if len(self.round_names) != len(self.rounds):
            raise ValueError("a name for every round")


@dataclass(frozen=True, slots=True)
class Box:
    """A match's box: its two lines of cells, whether it is of the round being played."""

    x: int
    y: int
    w: int
    h: int
    current: bool
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class BracketPage:
    size: tuple[int, int]
    rounds: tuple[int, ...]  # the indexes of the rounds this page shows
    boxes: tuple[Box, ...]
    lines: tuple[tuple[int, int, int, int], ...]  # connector segments (x0, y0, x1, y1)
    cells: tuple[Cell, ...]  # the title, the round names, the champion
    bands: tuple[tuple[int, int], ...] = field(default=())  # (left, right) of the current round's column
    matches: tuple[tuple[int, int], ...] = field(default=())  # (round, match) of each match box, in order
    champion: bool = False  # the page ends with the winners' box


def bracket_pages(scene: BracketScene) -> tuple[BracketPage, ...]:
    """Where everything of the bracket goes, page by page: one page for a first round of up to ``SECTION``
    matches; else a page per section of the first round with its rounds up to the section's winner, then a
    page with the rounds after (and the champion)."""
    if not scene.rounds:
        return ()
    first = len(scene.rounds[0])
    if first <= SECTION:
        return (_bracket_page(scene, range(len(scene.rounds)), 0, first, 1, 1),)
    section_rounds = SECTION.bit_length()  # 8 matches, then 4, 2 and the section's 1
    sections = first // SECTION
    pages = [
        _bracket_page(scene, range(section_rounds), k * SECTION, SECTION, k + 1, sections + 1)
        for k in range(sections)
    ]
    rest = range(section_rounds, len(scene.rounds))
    pages.append(_bracket_page(scene, rest, 0, len(scene.rounds[rest[0]]), sections + 1, sections + 1))
    return tuple(pages)


def _bracket_page(
    scene: BracketScene, rounds: range, start: int, count: int, number: int, pages: int
) -> BracketPage:
    """Rounds ``rounds`` from the matches ``start`` .. ``start + count`` of the first of them (and what they
    lead to in the rounds after)."""
    last = rounds[-1] == len(scene.rounds) - 1
    unit = BOX_H + BOX_GAP
    columns = len(rounds) + (1 if last else 0)
    size = (2 * PAD + (columns - 1) * COLUMN_W + BOX_W, BRACKET_TOP + count * unit + PAD)
    title = scene.title + (f"  {number}/{pages}" if pages > 1 else "")
    cells = [Cell(title, PAD, 28, _name_size(title, 26, 18, size[0] - 2 * PAD), "title",
                  max_width=size[0] - 2 * PAD)]  # fmt: skip
    boxes: list[Box] = []
    lines: list[tuple[int, int, int, int]] = []
    bands: list[tuple[int, int]] = []
    shown: list[tuple[int, int]] = []
    centre_y = 0
    for column, index in enumerate(rounds):
        x = PAD + column * COLUMN_W
        current = index == scene.current
        if current:
            bands.append((x - 8, x + BOX_W + 8))
        cells.append(Cell(scene.round_names[index], x, 72, 17, "title" if current else "muted",
                          weight="bold" if current else "regular", max_width=BOX_W))  # fmt: skip
        span = 1 << column  # first-column slots each match of this column spans
        first_match = start >> column
        for n in range(max(count >> column, 1)):
            match = scene.rounds[index][first_match + n]
            shown.append((index, first_match + n))
            centre_y = BRACKET_TOP + round(unit * span * (n + 0.5))
            top = centre_y - BOX_H // 2
            boxes.append(Box(x, top, BOX_W, BOX_H, current and match.winner is None,
                             _match_cells(scene, match, x, top)))  # fmt: skip
            if column + 1 < columns:  # the elbow to where the winner goes next
                elbow = x + BOX_W + (COLUMN_W - BOX_W) // 2
                target = BRACKET_TOP + round(unit * span * 2 * (n // 2 + 0.5))
                if last and column + 2 == columns:  # the final's winner goes straight on to the champion
                    target = centre_y
                lines += [(x + BOX_W, centre_y, elbow, centre_y), (elbow, centre_y, elbow, target),
                          (elbow, target, x + COLUMN_W, target)]  # fmt: skip
    if last:
        x = PAD + (columns - 1) * COLUMN_W
        cells.append(Cell(scene.champion_label, x, 72, 17, "title", max_width=BOX_W))
        name = scene.champion if scene.champion is not None else scene.unknown_label
        boxes.append(Box(x, centre_y - BOX_H // 2, BOX_W, BOX_H, False, (
            Cell(name, x + 12, centre_y, _name_size(name, 20, SMALLEST, BOX_W - 24),
                 "title" if scene.champion is not None else "muted", max_width=BOX_W - 24),
        )))  # fmt: skip
    return BracketPage(size, tuple(rounds), tuple(boxes), tuple(lines), tuple(cells), tuple(bands), tuple(shown),
                       last)  # fmt: skip


def _match_cells(scene: BracketScene, match: BracketMatch, x: int, top: int) -> tuple[Cell, ...]:
    cells: list[Cell] = []
    sides = (match.top, match.bottom)
    for line, side in enumerate(sides):
        y = top + 15 + line * 26
        if side is None:
            cells.append(
                Cell(scene.bye_label, x + 12, y, SMALLEST, "muted", weight="regular", max_width=BOX_W - 24)
            )
            continue
        known = side.name is not None
        won = match.winner == line
        lost = match.winner is not None and not won
        name = side.name if side.name is not None else scene.unknown_label
        colour = "title" if won else "muted" if lost or not known else "text"
        room = BOX_W - 24 - (26 if side.score else 0)
        cells.append(Cell(name, x + 12, y, _name_size(name, 18, SMALLEST, room, "bold" if known else "regular"),
                          colour, weight="bold" if known else "regular", max_width=room))  # fmt: skip
        if side.score:
            cells.append(Cell(side.score, x + BOX_W - 10, y, 16, colour, "rm"))
    return tuple(cells)


def render_bracket(scene: BracketScene) -> tuple[bytes, ...]:
    """The bracket as PNGs, one a page."""
    images = []
    for page in bracket_pages(scene):
        canvas = Image.new("RGB", page.size, FELT)
        canvas.paste(FELT_DARK, (0, 0, page.size[0], 50))
        draw = ImageDraw.Draw(canvas)
        for left, right in page.bands:
            draw.rectangle((left, 56, right, page.size[1] - 6), fill=CURRENT)
        for segment in page.lines:
            draw.line(segment, fill=LINE, width=2)
        for box in page.boxes:
            outline = COLOURS["title"] if box.current else LINE
            draw.rounded_rectangle((box.x, box.y, box.x + box.w, box.y + box.h), 8, fill=BOX, outline=outline,
                                   width=2 if box.current else 1)  # fmt: skip
            if len(box.cells) > 1:  # a match's two teams; the champion's box has one line
                draw.line(
                    (box.x + 8, box.y + box.h // 2, box.x + box.w - 8, box.y + box.h // 2), fill=FELT, width=1
                )
        _draw_cells(canvas, [cell for box in page.boxes for cell in box.cells])
        _draw_cells(canvas, page.cells)
        images.append(_png(canvas))
    return tuple(images)


# --- drawing ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _mask(
    text: str, size: int, weight: str, anchor: str, max_width: int | None
) -> tuple[Image.Image, int, int]:
    return fonts.mask(fonts.fit(text, size, max_width, weight), size, weight, anchor)


def _draw_cells(canvas: Image.Image, cells: Sequence[Cell]) -> None:
    draw = ImageDraw.Draw(canvas)
    for cell in cells:
        mask, dx, dy = _mask(cell.text, cell.size, cell.weight, cell.anchor, cell.max_width)
        colour = COLOURS[cell.colour]
        if cell.chip:
            left, top = cell.x + dx - 7, cell.y - cell.size // 2 - 4
            dark = tuple(part // 4 for part in colour)
            draw.rounded_rectangle((left, top, left + mask.width + 14, top + cell.size + 8), 6, fill=dark,
                                   outline=colour)  # fmt: skip
        canvas.paste(colour, (cell.x + dx, cell.y + dy), mask)


def _png(canvas: Image.Image) -> bytes:
    buffer = io.BytesIO()
    canvas.save(buffer, format="PNG", optimize=False, compress_level=6)
    return buffer.getvalue()
