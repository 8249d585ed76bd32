"""A tournament's standings and its single-elimination bracket as images (issue 30).

Pure: plain values in (every word already in the reader's language), PNG bytes out; call it off the event
loop. Each image is drawn from a layout (``standings_pages``, ``bracket_pages``): the texts, places and
colours of everything on it, which the tests read instead of pixels. The images have their own dark felt
background, so they read the same in Discord's dark and light themes.

Like the card images they are at most 480 px wide with no text below 16 px, so that a phone, which shows an
image about 360 px wide, shows no text below 12 px (docs/cards.md). A long team name takes two lines rather
than being cut. A large field is cut into pages (one PNG each, each in a message of its own): the standings
``ROWS_PER_PAGE`` teams a page; a bracket two rounds a page, the first of them in sections of ``SECTION``
matches, the final's page ending with the winners.
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

# --- shared ----------------------------------------------------------------------------------------------

WIDTH = 480
PAD = 16
SMALLEST = 16  # no text is smaller: a phone shows a 480 px image about 360 px wide (docs/cards.md)
MAX_PAGES = 10  # Discord takes ten attachments a message


@dataclass(frozen=True, slots=True)
class Cell:
    """A text on an image: anchored at (x, y) (Pillow's anchors), in a colour of ``COLOURS``. ``chip``: on a
    rounded patch of its colour (a mark). ``lines``: the text as drawn on several lines (the first at y, each
    next one ``line_height(size)`` lower); empty for one line."""

    text: str
    x: int
    y: int
    size: int
    colour: str = "text"
    anchor: str = "lm"
    weight: str = "bold"
    max_width: int | None = None
    chip: bool = False
    lines: tuple[str, ...] = ()

    @property
    def height(self) -> int:
        return line_height(self.size) * max(len(self.lines), 1)


def line_height(size: int) -> int:
    return round(size * 1.25)


@lru_cache(maxsize=2048)
def _fit(text: str, largest: int, smallest: int, max_width: int, weight: str = "bold",
         max_lines: int = 2) -> tuple[int, tuple[str, ...]]:  # fmt: skip
    """The size and lines for text in max_width: one line at the largest size that fits (down to smallest),
    else up to max_lines lines at the largest size that needs no cut; cut ("…") only past that, at smallest.
    One line is returned as ()."""
    for size in range(largest, smallest - 1, -1):
        if fonts.length(text, size, weight) <= max_width:
            return size, ()
    for size in range(largest, smallest - 1, -1):
        lines = fonts.wrap(text, size, max_width, weight, max_lines=len(text))
        if len(lines) <= max_lines:
            return size, lines
    return smallest, fonts.wrap(text, smallest, max_width, weight, max_lines)


def _block(text: str, x: int, top: int, largest: int, max_width: int, colour: str = "text",
           weight: str = "bold", anchor: str = "l", smallest: int = SMALLEST, max_lines: int = 2) -> Cell:  # fmt: skip
    """text from ``top`` down, on as many lines as it needs (up to max_lines), as one cell."""
    size, lines = _fit(text, largest, smallest, max_width, weight, max_lines)
    return Cell(text, x, top + line_height(size) // 2, size, colour, f"{anchor}m", weight, max_width,
                lines=lines)  # fmt: skip


def _title_cells(title: str, subtitle: str | None, page: str | None, width: int = WIDTH) -> tuple[list[Cell], int]:
    """The title (and subtitle) across the top, the page number ("2/4") on the right; and the band's height."""
    room = width - 2 * PAD - (56 if page else 0)
    title_cell = _block(title, PAD, 12, 24, room, "title", smallest=18)
    cells = [title_cell]
    bottom = 12 + title_cell.height
    if subtitle:
        sub = _block(subtitle, PAD, bottom + 2, SMALLEST, width - 2 * PAD, "muted", "regular")
        cells.append(sub)
        bottom += 2 + sub.height
    if page:
        cells.append(Cell(page, width - PAD, title_cell.y, 18, "muted", anchor="rm"))
    return cells, bottom + 10


# --- standings ------------------------------------------------------------------------------------------

TITLE_H = 56  # the dark title band is at least this tall
ROWS_PER_PAGE = 16
RANK_X = PAD + 30  # right edge of the rank
NAME_X = PAD + 38
GAME_POINTS_X = WIDTH - PAD  # right edges of the numbers
BUCHHOLZ_X = GAME_POINTS_X - 78
POINTS_X = BUCHHOLZ_X - 70
NAME_W = POINTS_X - 44 - NAME_X  # the team's name: left of the points
DETAIL_W = WIDTH - PAD - NAME_X  # its second line runs under the numbers too


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
class StandingsPage:
    size: tuple[int, int]
    rows: tuple[StandingRow, ...]
    cells: tuple[Cell, ...]
    stripes: tuple[tuple[int, int], ...]  # (top, bottom) of the striped rows
    title_h: int = TITLE_H  # the dark band's height


def page_count(rows: int, per_page: int = ROWS_PER_PAGE) -> int:
    """Pages for ``rows`` teams: at least one, at most ``MAX_PAGES``.

    >>> page_count(0), page_count(16), page_count(17), page_count(64), page_count(500)
    (1, 1, 2, 4, 10)
    """
    return min(max(1, -(-rows // per_page)), MAX_PAGES)


def _heading_cells(headings: Sequence[str], top: int) -> tuple[list[Cell], int]:
    """The numbers' headings right-aligned over their columns: on one line where they fit side by side,
    else staggered on two (the middle one lower), so that each keeps its whole word."""
    rights = (POINTS_X, BUCHHOLZ_X, GAME_POINTS_X)
    widths = [fonts.length(text, SMALLEST, "regular") for text in headings]
    one_line = all(rights[n] - widths[n] >= rights[n - 1] + 8 for n in (1, 2)) and POINTS_X - widths[0] > NAME_X
    step = line_height(SMALLEST)
    cells = [
        Cell(text, right, top + step // 2 + (step if n == 1 and not one_line else 0), SMALLEST, "muted", "rm",
             "regular", max_width=right - NAME_X)
        for n, (text, right) in enumerate(zip(headings, rights, strict=True))
    ]  # fmt: skip
    return cells, step * (1 if one_line else 2) + 4


def _row_cells(scene: StandingsScene, row: StandingRow, top: int) -> tuple[list[Cell], int]:
    """A team's cells from ``top`` down: rank, name (two lines if need be) and the numbers on its first line,
    the detail with its marks under it. Returns them and the row's height."""
    name = _block(row.team, NAME_X, top + 6, 20, NAME_W)
    first = name.y
    cells = [
        Cell(f"{row.rank}.", RANK_X, first, 20, "title", "rm"),
        name,
        Cell(str(row.points), POINTS_X, first, 22, "text", "rm"),
        Cell(str(row.buchholz), BUCHHOLZ_X, first, 20, "text", "rm", "regular"),
        Cell(str(row.game_points), GAME_POINTS_X, first, 20, "text", "rm", "regular"),
    ]
    detail, height = _detail_cells(scene, row, top + 6 + name.height + 2)
    cells.extend(detail)
    return cells, 6 + name.height + 2 + height + 8


def _detail_cells(scene: StandingsScene, row: StandingRow, top: int) -> tuple[list[Cell], int]:
    """The second line of a team: its words, then a mark for a bye and one for forfeit losses (on a line of
    their own when the words leave no room for them)."""
    marks = []
    if row.byes:
        marks.append((scene.bye_mark, "bye"))
    if row.forfeits:
        marks.append((scene.forfeit_mark, "forfeit"))
    marks_w = sum(int(fonts.length(mark, SMALLEST)) + 22 for mark, _ in marks)
    detail = _block(row.detail, NAME_X, top, SMALLEST, DETAIL_W, "muted", "regular")
    cells = [detail]
    last = detail.lines[-1] if detail.lines else row.detail
    x = NAME_X + int(fonts.length(last, SMALLEST, "regular")) + 14
    y = detail.y + detail.height - line_height(SMALLEST)
    height = detail.height
    if marks and x + marks_w > WIDTH - PAD:  # the marks on the next line
        x, y, height = NAME_X + 7, y + line_height(SMALLEST) + 6, height + line_height(SMALLEST) + 6
    for mark, colour in marks:
        cells.append(Cell(mark, x, y, SMALLEST, colour, chip=True))
        x += int(fonts.length(mark, SMALLEST)) + 22
    return cells, height + (4 if marks else 0)


def standings_pages(scene: StandingsScene, per_page: int = ROWS_PER_PAGE) -> tuple[StandingsPage, ...]:
    """Where everything of the standings goes, page by page (``per_page`` teams each; the teams past
    ``MAX_PAGES`` pages are left to the text)."""
    pages = page_count(len(scene.rows), per_page)
    laid: list[StandingsPage] = []
    for number in range(pages):
        rows = scene.rows[number * per_page : (number + 1) * per_page]
        cells, title_h = _title_cells(scene.title, scene.subtitle, f"{number + 1}/{pages}" if pages > 1 else None)
        title_h = max(title_h, TITLE_H)
        headings, headings_h = _heading_cells(scene.headings, title_h + 4)
        cells.extend(headings)
        y = title_h + 4 + headings_h
        if not rows:
            empty = _block(scene.empty, NAME_X, y + 12, 18, WIDTH - NAME_X - PAD, "muted", "regular", max_lines=3)
            cells.append(empty)
            y += 24 + empty.height
        stripes = []
        for index, row in enumerate(rows):
            row_cells, height = _row_cells(scene, row, y)
            cells.extend(row_cells)
            if index % 2 == 0:
                stripes.append((y, y + height))
            y += height
        laid.append(StandingsPage((WIDTH, y + PAD // 2), tuple(rows), tuple(cells), tuple(stripes), title_h))
    return tuple(laid)


def render_standings(scene: StandingsScene, per_page: int = ROWS_PER_PAGE) -> tuple[bytes, ...]:
    """The standings as PNGs, one a page."""
    images = []
    for page in standings_pages(scene, per_page):
        canvas = Image.new("RGB", page.size, FELT)
        canvas.paste(FELT_DARK, (0, 0, page.size[0], page.title_h))
        for top, bottom in page.stripes:
            canvas.paste(STRIPE, (0, top, page.size[0], bottom))
        _draw_cells(canvas, page.cells)
        images.append(_png(canvas))
    return tuple(images)


# --- the bracket -----------------------------------------------------------------------------------------

SECTION = 8  # matches of a page's first round a bracket page shows at most
ROUNDS_PER_PAGE = 2  # two columns fit a phone's width with whole names
BOX_W = 212
COLUMN_W = BOX_W + 24  # a round's column: its boxes and the connectors to the next round
BOX_GAP = 12
SIDE_PAD = 6  # above and below a side's name in its box


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
    winners: bool = False  # the winners' box (one side), not a match


@dataclass(frozen=True, slots=True)
class BracketPage:
    size: tuple[int, int]
    rounds: tuple[int, ...]  # the indexes of the rounds this page shows
    boxes: tuple[Box, ...]
    lines: tuple[tuple[int, int, int, int], ...]  # connector segments (x0, y0, x1, y1)
    cells: tuple[Cell, ...]  # the title, the round names
    bands: tuple[tuple[int, int], ...] = field(default=())  # (left, right) of the current round's column
    matches: tuple[tuple[int, int], ...] = field(default=())  # (round, match) of each match box, in order
    champion: bool = False  # the page ends with the winners' box
    title_h: int = 50  # the dark band's height


def bracket_pages(scene: BracketScene) -> tuple[BracketPage, ...]:
    """Where everything of the bracket goes, page by page: the rounds two by two, the first of each two in
    sections of up to ``SECTION`` matches (with what they lead to in the second); the final's page ends with
    the winners under the final."""
    if not scene.rounds:
        return ()
    plan = []
    for first in range(0, len(scene.rounds), ROUNDS_PER_PAGE):
        rounds = range(first, min(first + ROUNDS_PER_PAGE, len(scene.rounds)))
        matches = len(scene.rounds[first])
        for start in range(0, matches, SECTION):
            plan.append((rounds, start, min(SECTION, matches)))
    return tuple(
        _bracket_page(scene, rounds, start, count, number, len(plan))
        for number, (rounds, start, count) in enumerate(plan, start=1)
    )


def _side_lines(scene: BracketScene, side: BracketSide | None) -> int:
    if side is None or side.name is None:
        return 1
    return len(_fit(side.name, 18, SMALLEST, _name_room(side))[1]) or 1


def _name_room(side: BracketSide) -> int:
    return BOX_W - 20 - (24 if side.score else 0)


def _bracket_page(
    scene: BracketScene, rounds: range, start: int, count: int, number: int, pages: int
) -> BracketPage:
    """Rounds ``rounds`` from the matches ``start`` .. ``start + count`` of the first of them (and what they
    lead to in the round after)."""
    last = rounds[-1] == len(scene.rounds) - 1
    shown = [
        (index, start // (1 << column) + n)
        for column, index in enumerate(rounds)
        for n in range(max(count >> column, 1))
    ]
    lines_per_side = max(
        _side_lines(scene, side)
        for index, n in shown
        for side in (scene.rounds[index][n].top, scene.rounds[index][n].bottom)
    )
    side_h = lines_per_side * line_height(18) + 2 * SIDE_PAD
    box_h = 2 * side_h
    unit = box_h + BOX_GAP
    columns = len(rounds)
    beside = last and columns == 1  # a page of the final alone has the winners in a column of their own
    width = 2 * PAD + (columns - (0 if beside else 1)) * COLUMN_W + BOX_W
    title = scene.title + (f"  {number}/{pages}" if pages > 1 else "")
    cells, title_h = _title_cells(title, None, None, width)
    names_y = title_h + 16
    top_y = names_y + 16
    boxes: list[Box] = []
    lines: list[tuple[int, int, int, int]] = []
    bands: list[tuple[int, int]] = []
    final_box = None
    for column, index in enumerate(rounds):
        x = PAD + column * COLUMN_W
        current = index == scene.current
        if current:
            bands.append((x - 8, x + BOX_W + 8))
        cells.append(Cell(scene.round_names[index], x, names_y, 18 if current else SMALLEST,
                          "title" if current else "muted", weight="bold" if current else "regular",
                          max_width=BOX_W))  # fmt: skip
        span = 1 << column  # first-column slots each match of this column spans
        first_match = start >> column
        for n in range(max(count >> column, 1)):
            match = scene.rounds[index][first_match + n]
            centre_y = top_y + round(unit * span * (n + 0.5))
            box_top = centre_y - box_h // 2
            boxes.append(Box(x, box_top, BOX_W, box_h, current and match.winner is None,
                             _match_cells(scene, match, x, box_top, side_h)))  # fmt: skip
            if column + 1 < columns:  # the elbow to where the winner goes next
                elbow = x + BOX_W + (COLUMN_W - BOX_W) // 2
                target = top_y + round(unit * span * 2 * (n // 2 + 0.5))
                lines += [(x + BOX_W, centre_y, elbow, centre_y), (elbow, centre_y, elbow, target),
                          (elbow, target, x + COLUMN_W, target)]  # fmt: skip
            if last and index == len(scene.rounds) - 1:
                final_box = boxes[-1]
    bottom = top_y + count * unit
    if final_box is not None:  # the winners after the final, joined to it: beside it, or else under it
        if beside:
            x = final_box.x + COLUMN_W
            cells.append(Cell(scene.champion_label, x, names_y, SMALLEST, "text", weight="regular",
                              max_width=BOX_W))  # fmt: skip
            winners = _winners_box(scene, x, final_box.y + final_box.h // 2, beside=True)
            middle = final_box.y + final_box.h // 2
            lines.append((final_box.x + BOX_W, middle, x, middle))
        else:
            winners = _winners_box(scene, final_box.x, final_box.y + final_box.h + 24)
            middle = final_box.x + BOX_W // 2
            lines.append((middle, final_box.y + final_box.h, middle, winners.y))
        boxes.append(winners)
        bottom = max(bottom, winners.y + winners.h + BOX_GAP)
    return BracketPage((width, bottom + PAD // 2), tuple(rounds), tuple(boxes), tuple(lines), tuple(cells),
                       tuple(bands), tuple(shown), last, title_h)  # fmt: skip


def _winners_box(scene: BracketScene, x: int, y: int, beside: bool = False) -> Box:
    """The box with the winners (or "to come") at x, from y down; beside the final (centred on y) its column's
    heading names it, under the final its own first line does. That label is in the text colour, so that it
    is not taken for the round being played, the only gold heading."""
    name = scene.champion if scene.champion is not None else scene.unknown_label
    known = scene.champion is not None
    size, lines = _fit(name, 20, SMALLEST, BOX_W - 24, "bold" if known else "regular")
    label_h = 0 if beside else line_height(SMALLEST)
    height = SIDE_PAD + label_h + line_height(size) * max(len(lines), 1) + SIDE_PAD + 2
    top = y - height // 2 if beside else y
    block = _block(name, x + 12, top + SIDE_PAD + label_h, 20, BOX_W - 24, "title" if known else "muted",
                   "bold" if known else "regular")  # fmt: skip
    cells = [block]
    if not beside:
        cells.append(Cell(scene.champion_label, x + 12, top + SIDE_PAD + label_h // 2, SMALLEST, "text",
                          weight="regular", max_width=BOX_W - 24))  # fmt: skip
    return Box(x, top, BOX_W, height, False, tuple(cells), winners=True)


def _match_cells(scene: BracketScene, match: BracketMatch, x: int, top: int, side_h: int) -> tuple[Cell, ...]:
    cells: list[Cell] = []
    sides = (match.top, match.bottom)
    for line, side in enumerate(sides):
        side_top = top + line * side_h
        if side is None:
            cells.append(Cell(scene.bye_label, x + 10, side_top + side_h // 2, SMALLEST, "muted",
                              weight="regular", max_width=BOX_W - 20))  # fmt: skip
            continue
        known = side.name is not None
        won = match.winner == line
        lost = match.winner is not None and not won
        name = side.name if side.name is not None else scene.unknown_label
        colour = "title" if won else "muted" if lost or not known else "text"
        weight = "bold" if known else "regular"
        size, lines = _fit(name, 18, SMALLEST, _name_room(side), weight)
        name_top = side_top + (side_h - line_height(size) * max(len(lines), 1)) // 2
        cells.append(Cell(name, x + 10, name_top + line_height(size) // 2, size, colour, "lm", weight,
                          _name_room(side), lines=lines))  # fmt: skip
        if side.score:
            cells.append(Cell(side.score, x + BOX_W - 10, side_top + side_h // 2, 18, colour, "rm"))
    return tuple(cells)


def render_bracket(scene: BracketScene) -> tuple[bytes, ...]:
    """The bracket as PNGs, one a page."""
    images = []
    for page in bracket_pages(scene):
        canvas = Image.new("RGB", page.size, FELT)
        canvas.paste(FELT_DARK, (0, 0, page.size[0], page.title_h))
        draw = ImageDraw.Draw(canvas)
        for left, right in page.bands:
            draw.rectangle((left, page.title_h + 4, right, page.size[1] - 6), fill=CURRENT)
        for segment in page.lines:
            draw.line(segment, fill=LINE, width=2)
        for box in page.boxes:
            outline = COLOURS["title"] if box.current else LINE
            draw.rounded_rectangle((box.x, box.y, box.x + box.w, box.y + box.h), 8, fill=BOX, outline=outline,
                                   width=2 if box.current else 1)  # fmt: skip
            if not box.winners:  # a line between a match's two sides
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
        colour = COLOURS[cell.colour]
        if cell.lines:
            for index, line in enumerate(cell.lines):
                mask, dx, dy = _mask(line, cell.size, cell.weight, cell.anchor, cell.max_width)
                canvas.paste(colour, (cell.x + dx, cell.y + index * line_height(cell.size) + dy), mask)
            continue
        mask, dx, dy = _mask(cell.text, cell.size, cell.weight, cell.anchor, cell.max_width)
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
