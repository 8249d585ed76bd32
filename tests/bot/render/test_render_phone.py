"""Every image the bot posts, as a phone shows it.

The assumption (docs/cards.md): Discord shows an image in a message at most as wide as the message; on a
phone 360 px wide that is about 360 px (minus a little margin, which we leave out), on a desktop up to about
550 px, so the phone is the harder case. An image narrower than that is shown at its own size. A text's size
on the phone is its font size in the image times min(1, 360 / the image's width): no text may be below 12 px
there (16 px in the 480 px images), and no image is wider than 800 px. A field too large for one image comes
as pages, each in a message of its own (``tournament_images.picture_messages``), so each page counts alone.
Names of everyday length are drawn whole (on two lines where one is too short), never cut with "…".
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Sequence

import pytest
from PIL import Image

from bot.render import (
    LANGUAGES,
    DealReviewScene,
    ProfileScene,
    ResultScene,
    ReviewTrick,
    TableScene,
    TurnScene,
    fonts,
    images,
    label,
    render_deal_review,
    render_hand,
    render_profile,
    render_result,
    render_table,
    render_turn,
    tournament,
)
from bot.render.dailyboard import BoardRow, render_daily_board
from bot.render.tournament import (
    BracketMatch,
    BracketScene,
    BracketSide,
    StandingRow,
    StandingsScene,
    render_bracket,
    render_standings,
)
from tests.bot.render.test_render_review import ENDED_ON_A_LEAD, WHOLE_DEAL

PHONE_WIDTH = 360  # what a phone shows of an image's width, at most
PHONE_SMALLEST = 12  # px of text on that phone
WIDEST = 800

# Long and short names in several scripts, an AI seat's, and one of 25 characters with long words.
LONG = "Maximiliane von Hohenberg"
NAMES = (LONG, "Resi 🤖", "王小明", "Владимир Петров")
TEAMS = (f"{LONG} & Kai", "Ελένη & Joost", "王小明 & Zoë 🎉", "Владимир & Bert")
HAND = ("HA", "HT", "SQ", "CK", "DJ")


def hand(lang: str) -> list[bytes]:
    return [render_hand(HAND, playable=("HA", "HT"), trump="D", lang=lang, contract="Kontrabauernschnapser")]


def turn(lang: str) -> list[bytes]:
    places = ((LONG, "CQ", False), ("Resi 🤖", "CJ", False), ("Zoë 🎉", None, True), ("Владимир Петров", None, False))
    scene = TurnScene(cards=HAND, playable=("HA",), places=places, caption=f"{LONG} led · your turn", trump="D",
                      contract_label="Kontrabauernschnapser", multiplier=8, lang=lang)  # fmt: skip
    return [render_turn(scene)]


def table(lang: str) -> list[bytes]:
    scene = TableScene(viewer_seat=None, seat_names=NAMES, trick=((1, "HK"), (2, "HA")), to_act_seat=3, trump="S",
                       contract_label="Kontrabauernschnapser", multiplier=4, team_points=(34, 21), team_tricks=(1, 2),
                       first_tricks=(("ST", "SA", "SK", "SJ"), ("DQ", "DK", "CA", "HJ")), lang=lang)  # fmt: skip
    sitting_out = dataclasses.replace(scene, viewer_seat=0, sitting_out_seat=3, to_act_seat=1, team_points=None)
    return [render_table(scene), render_table(sitting_out)]


def result(lang: str) -> list[bytes]:
    scene = ResultScene(seat_names=NAMES, winner_team=1, game_points=3, score=(20, 24), bummerls=(1, 0),
                        detail="Schneider", card_points=(30, 90), contract_label="Kontrabauernschnapser",
                        multiplier=2, trump="H", lang=lang)  # fmt: skip
    return [render_result(scene)]


def review(lang: str) -> list[bytes]:
    scenes: Sequence[DealReviewScene] = (WHOLE_DEAL, ENDED_ON_A_LEAD, dataclasses.replace(WHOLE_DEAL, tricks=(
        ReviewTrick(((0, "HA"), (1, "HQ"), (2, "DQ"), (3, "CJ")), 0),), sitting_out_seat=3))  # fmt: skip
    return [render_deal_review(dataclasses.replace(scene, seat_names=NAMES, lang=lang)) for scene in scenes]


def profile(lang: str) -> list[bytes]:
    veteran = ProfileScene(display_name=LONG, lang=lang, rating=1487, uncertainty=112, history=(1200, 1350, 1487),
                           rank=3, bummerl=(27, 41), deals=(310, 590), kontra=(11, 17),
                           contracts=(("normal", 120, 70), ("bettler", 14, 9), ("all_tricks", 3, 1)),
                           partner=("Владимир Петров", 19, 13))  # fmt: skip
    return [render_profile(veteran), render_profile(ProfileScene(display_name=LONG, lang=lang))]


def daily_board(lang: str) -> list[bytes]:
    rows = [BoardRow(n, name, 7 - 3 * n, 6) for n, name in enumerate((*NAMES, "Ferdinand Huber"), start=1)]
    return [render_daily_board("Daily deal, 2026-12-03", rows, "Nobody yet", "deals")]


def standings(lang: str) -> list[bytes]:
    rows = tuple(StandingRow(n, TEAMS[n % 4], f"#{n} · gewonnen 2 · verloren 1", 3, 12, 40 - n, byes=n % 3 == 0,
                             forfeits=n % 5 == 0) for n in range(1, 21))  # fmt: skip
    scene = StandingsScene("Saturday Cup", "K.-o.-System · Stand nach Runde 2 von 3",
                           ("Punkte", "Buchholz", "Spielpunkte"), rows, "spielfrei", "kampflos", "-")  # fmt: skip
    return list(render_standings(scene))


def bracket(lang: str) -> list[bytes]:
    first = tuple(BracketMatch(BracketSide(TEAMS[n % 4], "1"), BracketSide(TEAMS[(n + 1) % 4], "0"), 0)
                  for n in range(16))  # fmt: skip
    rounds = [first]
    while len(rounds[-1]) > 1:
        rounds.append(tuple(BracketMatch(BracketSide(m.top.name), BracketSide(None)) for m in rounds[-1][::2]))
    names = tuple(f"Round {n + 1}" for n in range(len(rounds)))
    return list(render_bracket(BracketScene("Winter Knockout · bracket", tuple(rounds), names, 1, None, "Winners",
                                            "bye", "to come")))  # fmt: skip


KINDS: dict[str, Callable[[str], list[bytes]]] = {
    "hand": hand,
    "turn": turn,
    "table": table,
    "result": result,
    "review": review,
    "profile": profile,
    "daily board": daily_board,
    "standings": standings,
    "bracket": bracket,
}


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every text the images draw, with its size (the text caches are bypassed, so every text is seen)."""
    seen: list[tuple[str, int]] = []
    real = fonts.mask

    def recording(text: str, size: int, weight: str, anchor: str):  # type: ignore[no-untyped-def]
        seen.append((text, size))
        return real(text, size, weight, anchor)

    monkeypatch.setattr(fonts, "mask", recording)
    images._text_mask.cache_clear()
    tournament._mask.cache_clear()
    yield seen
    images._text_mask.cache_clear()
    tournament._mask.cache_clear()


def phone_scale(png: bytes) -> float:
    width = Image.open(io.BytesIO(png)).width
    assert width <= WIDEST, f"an image {width} px wide"
    return min(1.0, PHONE_WIDTH / width)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_no_text_is_below_12_px_on_a_phone(drawn: list[tuple[str, int]], kind: str, lang: str) -> None:
    pngs = KINDS[kind](lang)
    assert drawn, "the recorder saw no text"
    scale = min(phone_scale(png) for png in pngs)  # every page is drawn alike: the narrowest scale counts
    small = sorted({(round(size * scale, 1), text) for text, size in drawn if size * scale < PHONE_SMALLEST})
    assert small == [], f"{kind}: texts below {PHONE_SMALLEST} px on a {PHONE_WIDTH} px phone: {small[:5]}"


@pytest.mark.parametrize("kind", KINDS)
def test_names_and_contracts_are_drawn_whole(drawn: list[tuple[str, int]], kind: str) -> None:
    KINDS[kind]("de")
    cut = sorted({text for text, _ in drawn if text.endswith("…")})
    assert cut == [], f"{kind}: cut short: {cut}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_result_names_the_bummerl_a_team_lost_and_nothing_under_a_team_without(
    drawn: list[tuple[str, int]], lang: str
) -> None:
    result(lang)  # the losers of the Bummerl so far are North-South, with one
    texts = [text for text, _ in drawn]
    assert label("bummerl_lost", lang, n=1) in texts
    assert label("bummerl_lost", lang, n=0) not in texts
    assert label("bummerl_lost", "en", n=1) == "Bummerl lost: 1"


def test_a_long_headline_shrinks_before_it_is_cut() -> None:
    headline = "Anna Müller & 王小明 gewinnen"
    size = images._size_to_fit(headline, 22, images.SMALL, 345)
    assert images.SMALL <= size < 22 and fonts.length(headline, size) <= 345
    assert images._size_to_fit("Anna & Ben win", 34, 20, 720) == 34
    assert images._size_to_fit("x" * 200, 34, 20, 720) == 20  # too long at any size: the smallest, then cut


def test_a_name_too_long_for_a_line_takes_two_and_only_then_is_cut() -> None:
    assert fonts.wrap(LONG, 16, 160) == ("Maximiliane von", "Hohenberg")
    assert fonts.wrap("王小明王小明", 16, 50) == ("王小明", "王小明"), "a name without spaces breaks anywhere"
    assert fonts.wrap("王小明王小明王小明", 16, 50) == ("王小明", "王小…"), "past two lines it is cut"
    assert fonts.wrap("Übermüller-Großkopf", 16, 120) == ("Übermüller-", "Großkopf"), "after its hyphen"
