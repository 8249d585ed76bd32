"""A tournament's standings and bracket images: checked through the layout the drawing uses (every team on
exactly one page, the pages' sizes, the marks, the text sizes) and through a few pixels that do not depend
on how a font is hinted (stripes, mark colours, the highlighted round)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.render.tournament import (
    COLOURS,
    CURRENT,
    FELT,
    MAX_PAGES,
    ROWS_PER_PAGE,
    SMALLEST,
    STRIPE,
    TITLE_H,
    WIDTH,
    BracketMatch,
    BracketScene,
    BracketSide,
    StandingRow,
    StandingsScene,
    bracket_pages,
    page_count,
    render_bracket,
    render_standings,
    standings_pages,
)


def rows(count: int) -> tuple[StandingRow, ...]:
    return tuple(
        StandingRow(n, f"Team {n} Anna-Lena & Ferdl 🤖", f"#{n} · won 2 · lost 1", 3 - n // 10, n % 7, 40 - n)
        for n in range(1, count + 1)
    )


def scene(table: tuple[StandingRow, ...]) -> StandingsScene:
    return StandingsScene("Saturday Cup", "Swiss system, 3 rounds · after round 2 of 3",
                          ("Points", "Buchholz", "Game points"), table, "bye", "forfeit", "No match has ended yet.")  # fmt: skip


def texts(page) -> list[str]:
    return [cell.text for cell in page.cells]


@pytest.mark.parametrize(("teams", "pages"), [(0, 1), (4, 1), (16, 1), (17, 2), (64, 4)])
def test_every_team_is_on_exactly_one_page_of_at_most_sixteen(teams: int, pages: int) -> None:
    laid = standings_pages(scene(rows(teams)))
    assert len(laid) == pages == page_count(teams)
    shown = [text for page in laid for text in texts(page) if text.startswith("Team ")]
    assert sorted(shown) == sorted(row.team for row in rows(teams))
    for number, page in enumerate(laid, start=1):
        assert len(page.rows) <= ROWS_PER_PAGE
        assert page.size[0] == WIDTH and page.size[1] >= (page.stripes[-1][1] if page.stripes else TITLE_H)
        assert (f"{number}/{pages}" in texts(page)) == (pages > 1)
        assert "Saturday Cup" in texts(page) and "Game points" in texts(page)
    if teams == 0:
        assert "No match has ended yet." in texts(laid[0])


def test_a_row_shows_rank_points_and_both_tie_breaks_and_a_field_past_ten_pages_is_cut() -> None:
    (page,) = standings_pages(scene(rows(3)))
    assert [text for text in texts(page) if text.endswith(".") and text[:-1].isdigit()] == ["1.", "2.", "3."]
    row = rows(3)[1]
    for value in (row.points, row.buchholz, row.game_points):
        assert str(value) in texts(page)
    assert len(standings_pages(scene(rows(ROWS_PER_PAGE * MAX_PAGES + 5)))) == MAX_PAGES


def test_byes_and_forfeit_losses_are_marked_and_no_text_is_small() -> None:
    table = (
        StandingRow(1, "A & B", "#1 · won 2 · lost 0", 2, 1, 30, byes=1),
        StandingRow(2, "C & D", "#2 · won 1 · lost 1", 1, 2, 20, forfeits=1),
        StandingRow(3, "E & F", "#3 · won 0 · lost 2", 0, 3, 10),
    )
    (page,) = standings_pages(scene(table))
    chips = [(cell.text, cell.colour, cell.y) for cell in page.cells if cell.chip]
    row_y = {
        cell.text: cell.y for cell in page.cells if cell.text.endswith("won 2 · lost 0") or "#" in cell.text
    }
    assert chips == [
        ("bye", "bye", row_y["#1 · won 2 · lost 0"]),
        ("forfeit", "forfeit", row_y["#2 · won 1 · lost 1"]),
    ]
    assert min(cell.size for cell in page.cells) >= SMALLEST


def near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


def test_the_standings_image_has_its_stripes_and_the_forfeit_mark_only_on_its_row() -> None:
    table = (
        StandingRow(1, "A & B", "#1", 2, 1, 30),
        StandingRow(2, "C & D", "#2", 1, 2, 20, forfeits=1),
        StandingRow(3, "E & F", "#3", 0, 3, 10),
    )
    (png,) = render_standings(scene(table))
    assert render_standings(scene(table)) == (png,), "the same standings draw the same image"
    image = Image.open(io.BytesIO(png)).convert("RGB")
    (page,) = standings_pages(scene(table))
    assert image.size == page.size
    stripes = page.stripes
    assert len(stripes) == 2  # rows 1 and 3
    for top, bottom in stripes:
        assert near(image.getpixel((4, (top + bottom) // 2)), STRIPE)
    assert near(image.getpixel((4, stripes[0][1] + 5)), FELT)
    assert image.getpixel((4, TITLE_H // 2)) != image.getpixel((4, stripes[0][0] + 5)), "a dark title band"

    def forfeit_pixels(top: int, bottom: int) -> int:
        data = image.crop((0, top, image.width, bottom)).tobytes()
        pixels = zip(data[0::3], data[1::3], data[2::3], strict=True)
        return sum(1 for pixel in pixels if near(pixel, COLOURS["forfeit"], 20))

    row_h = stripes[0][1] - stripes[0][0]
    first, second, third = (stripes[0][0] + n * row_h for n in range(3))
    assert forfeit_pixels(second, second + row_h) > 50
    assert forfeit_pixels(first, first + row_h) == forfeit_pixels(third, third + row_h) == 0


def side(name: str | None, score: str = "") -> BracketSide:
    return BracketSide(name, score)


def bracket(
    teams: int, current: int | None = 0, decided: int = 0, champion: str | None = None
) -> BracketScene:
    """A bracket of ``teams`` (a power of two) whose first ``decided`` first-round matches the top team won."""
    first = tuple(
        BracketMatch(side(f"T{2 * n + 1}"), side(f"T{2 * n + 2}"), 0 if n < decided else None)
        for n in range(teams // 2)
    )
    rounds = [first]
    while len(rounds[-1]) > 1:
        rounds.append(tuple(BracketMatch(side(None), side(None)) for _ in range(len(rounds[-1]) // 2)))
    names = tuple(f"Round {n + 1}" for n in range(len(rounds)))
    return BracketScene("Cup · bracket", tuple(rounds), names, current, champion, "Winners", "bye", "to come")


def box_texts(page) -> list[str]:
    return [cell.text for box in page.boxes for cell in box.cells]


def test_a_bracket_of_eight_is_two_rounds_a_page_and_the_winners_after_the_final() -> None:
    scene_ = bracket(8, current=0, decided=1)
    first, last = bracket_pages(scene_)
    assert (first.rounds, last.rounds) == ((0, 1), (2,))
    assert len(first.boxes) == 4 + 2 and len(last.boxes) == 1 + 1  # the winners' box after the final
    assert sorted(t for t in box_texts(first) if t.startswith("T")) == sorted(f"T{n}" for n in range(1, 9))
    assert first.size[0] == last.size[0] == WIDTH, "two columns fill a phone's width"
    decided = first.boxes[0]
    assert [cell.colour for cell in decided.cells] == ["title", "muted"], "the winner stands out"
    assert [box.current for box in first.boxes[:4]] == [False, True, True, True], "undecided, this round"
    assert "Round 1" in [cell.text for cell in first.cells if cell.colour == "title"]
    assert first.bands and first.bands[0][0] < first.boxes[0].x
    assert not first.champion and last.champion and last.boxes[-1].winners
    over = bracket_pages(bracket(8, current=None, champion="T1"))[-1]
    assert over.boxes[-1].cells[0].text == "T1" and not over.bands


@pytest.mark.parametrize("teams", [2, 4, 8, 16])
def test_only_the_round_being_played_has_a_gold_heading_not_the_winners(teams: int) -> None:
    for page in bracket_pages(bracket(teams, current=0)):
        headings = [cell for cell in (*page.cells, *(c for b in page.boxes for c in b.cells)) if cell.text in
                    ("Winners", "Round 1", "Round 2", "Round 3", "Round 4")]  # fmt: skip
        gold = [cell.text for cell in headings if cell.colour == "title"]
        assert gold == (["Round 1"] if 0 in page.rounds else []), page.rounds
        assert [cell.colour for cell in headings if cell.text == "Winners"] in ([], ["text"])


def test_a_bye_is_drawn_as_one_and_the_sides_to_come_as_such() -> None:
    scene_ = BracketScene(
        "Cup · bracket",
        ((BracketMatch(side("A"), None, 0), BracketMatch(side("B"), side("C"), 1, )),
         (BracketMatch(side("A"), side("C")),)),
        ("Semi-finals", "Final"), 1, None, "Winners", "bye", "to come",
    )  # fmt: skip
    (page,) = bracket_pages(scene_)
    assert box_texts(page)[:2] == ["A", "bye"]
    assert page.boxes[-1].winners and page.boxes[-1].cells[0].text == "to come"


def test_a_field_of_64_is_cut_into_two_rounds_a_page_in_sections_of_eight_matches() -> None:
    pages = bracket_pages(bracket(64))
    assert [page.rounds for page in pages] == [(0, 1)] * 4 + [(2, 3), (4, 5)]
    assert [len(page.boxes) for page in pages] == [8 + 4] * 4 + [8 + 4, 2 + 1 + 1]
    named = [t for page in pages[:4] for t in box_texts(page) if t.startswith("T")]
    assert sorted(named) == sorted(f"T{n}" for n in range(1, 65)), "every team once"
    pngs = render_bracket(bracket(64))
    assert [Image.open(io.BytesIO(png)).size for png in pngs] == [page.size for page in pages]
    assert all(page.size[0] <= WIDTH for page in pages)
    assert all(
        cell.size >= SMALLEST
        for page in pages
        for cell in (*page.cells, *(c for b in page.boxes for c in b.cells))
    )


def test_a_long_team_name_takes_two_lines_in_the_standings_and_the_bracket() -> None:
    long = "Maximiliane von Hohenberg & Kai"
    (page,) = standings_pages(scene((StandingRow(1, long, "#1 · won 2 · lost 0", 2, 1, 30),)))
    (name,) = [cell for cell in page.cells if cell.text == long]
    assert len(name.lines) == 2 and "".join(name.lines).replace(" ", "") == long.replace(" ", "")
    match = BracketMatch(side(long, "1"), side("T2", "0"), 0)
    (page,) = bracket_pages(BracketScene("Cup", ((match,),), ("Final",), 0, None, "Winners", "bye", "to come"))
    (name,) = [cell for cell in page.boxes[0].cells if cell.text == long]
    assert len(name.lines) == 2 and not name.lines[-1].endswith("…")


def test_the_current_round_is_highlighted_in_the_bracket_image() -> None:
    (png,) = render_bracket(bracket(4, current=0))
    image = Image.open(io.BytesIO(png)).convert("RGB")
    (page,) = bracket_pages(bracket(4, current=0))
    left, right = page.bands[0]
    assert near(image.getpixel((left + 2, image.height - 10)), CURRENT)
    assert near(image.getpixel((right + 12, image.height - 10)), FELT)


def test_a_bracket_must_halve_round_by_round() -> None:
    match = BracketMatch(side("A"), side("B"))
    with pytest.raises(ValueError):
        BracketScene("x", ((match, match, match),), ("r",), 0, None, "W", "bye", "?")
    with pytest.raises(ValueError):
        BracketScene("x", ((match, match), (match, match)), ("r", "s"), 0, None, "W", "bye", "?")
