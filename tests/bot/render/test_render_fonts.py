"""Names in every script the docs promise are drawn with real glyphs, never the placeholder box."""

import io

import pytest
from PIL import Image, ImageDraw

from bot.game.service import AI_NAMES
from bot.render import TABLE_SIZE, TableScene, _assets, fonts, render_table
from bot.render.images import _text_mask

# Display names as people choose them, and an AI seat as the bot names it (bot/schnapsen/texts.py).
NAMES = {
    "latin": "Zoë Müller-Łukasz Çağrı Jiří Đặng Ångström",
    "cyrillic": "Владимир Ёлкин",
    "greek": "Ελένη Παπαδοπούλου",
    "chinese": "王小明",
    "japanese": "山田 たろう カタカナ",
    "korean": "김민수",
    "emoji": "Anna 😀🎉❤️👍🏽🥰🫠",
    "emoji sequence": "👨‍👩‍👧 team",
    "ai seat": "Ferdl 🤖",
    "thai": "สมชาย",
    "devanagari": "राहुल",
    "hebrew": "דוד",
}
SIZES = (16, 20)
WEIGHTS = tuple(_assets.FONT_FILES)
NO_SUCH_GLYPH = "\U0010fffd"  # a private-use code point no bundled font draws


def _glyph(path, size, char) -> bytes:
    """char drawn alone by one font, as mask bytes."""
    face = _assets.face(path, size)
    box = face.getbbox(char, anchor="ls")
    mask = Image.new("L", (max(1, box[2] - box[0]), max(1, box[3] - box[1])), 0)
    ImageDraw.Draw(mask).text((-box[0], -box[1]), char, font=face, fill=255, anchor="ls")
    return mask.tobytes()


def _placeholder(path, size) -> bytes:
    return _glyph(path, size, NO_SUCH_GLYPH)


@pytest.mark.parametrize("weight", WEIGHTS)
@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
def test_every_character_has_a_font_in_the_chain(name, weight):
    assert fonts.missing(name, weight) == []


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("weight", WEIGHTS)
@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
def test_no_character_is_drawn_as_the_placeholder_box(name, weight, size):
    for path, part in fonts.runs(name, weight):
        assert ord(part[0]) in _assets.coverage(path) or part[0].isspace(), (part, path.name)
        box = _placeholder(path, size)
        for char in part:
            if char.isspace() or fonts._modifies_previous(char):
                continue
            drawn = _glyph(path, size, char)
            assert drawn != box, f"{char!r} (U+{ord(char):04X}) is drawn as {path.name}'s placeholder box"
            assert any(drawn), f"{char!r} (U+{ord(char):04X}) draws nothing in {path.name}"


def test_a_character_no_font_has_is_reported_and_would_be_the_box():
    """The checks above can fail: a code point outside every font is reported and drawn as the box."""
    assert fonts.missing(f"Anna {NO_SUCH_GLYPH}") == [NO_SUCH_GLYPH]
    main = _assets.FONT_FILES["bold"]
    assert fonts.runs(NO_SUCH_GLYPH) == ((main, NO_SUCH_GLYPH),)
    assert _glyph(main, 20, NO_SUCH_GLYPH) == _placeholder(main, 20)


def test_the_ai_mark_is_the_emoji_fonts_robot_and_latin_stays_in_the_main_font():
    runs = fonts.runs("Ferdl 🤖")
    assert [(path.name, part) for path, part in runs] == [
        ("DejaVuSans-Bold.ttf", "Ferdl "),
        ("NotoEmoji-Bold.ttf", "🤖"),
    ]
    assert fonts.runs("Zoë Владимир Ελένη") == ((_assets.FONT_FILES["bold"], "Zoë Владимир Ελένη"),)


def test_joiners_selectors_and_skin_tones_stay_with_their_emoji():
    assert [part for _, part in fonts.runs("👨‍👩‍👧 👍🏽 ❤️")] == ["👨‍👩‍👧", " ", "👍🏽", " ", "❤️"]


def test_a_text_of_several_fonts_is_measured_and_drawn_as_one_line():
    plain, _, _ = _text_mask("Ferdl", 18, "bold", "lm", None)
    mixed, left, top = _text_mask("Ferdl 🤖", 18, "bold", "lm", None)
    assert mixed.width > plain.width + 10  # the robot is drawn after the name
    assert abs(fonts.length("Ferdl 🤖", 18) - mixed.width) < 4
    assert left <= 1 and -20 < top < 0  # left-aligned, centred on the anchor
    # Cut to a width, it ends in an ellipsis and fits.
    cut = fonts.fit("王小明王小明王小明 🤖", 18, 80)
    assert cut.endswith("…") and fonts.length(cut, 18) <= 80


def test_a_table_with_names_in_every_script_renders():
    names = (NAMES["chinese"], NAMES["ai seat"], NAMES["cyrillic"], NAMES["emoji"])
    image = Image.open(
        io.BytesIO(render_table(TableScene(viewer_seat=None, seat_names=names, to_act_seat=1)))
    )
    assert image.size == TABLE_SIZE


def _has_all(path, chars: str) -> bool:
    return all(ord(char) in _assets.coverage(path) for char in chars)


def test_the_character_maps_are_read_as_the_fonts_have_them():
    main, cjk, emoji = (
        _assets.FONT_FILES["bold"],
        _assets.FONTS_DIR / "DroidSansFallback.ttf",
        _assets.EMOJI_FONT,
    )
    assert _has_all(main, "AzÄжΩ") and not _has_all(main, "王") and not _has_all(main, "🤖")
    assert _has_all(cjk, "王김カ")  # format 4: the Basic Multilingual Plane
    assert _has_all(emoji, "🤖🫠")  # format 12: beyond it
    assert len(_assets.coverage(cjk)) == 33_247  # every code point of its map, as fontTools counts them
    assert 0x10FFFD not in _assets.coverage(cjk)
    with pytest.raises(ValueError):
        _assets.read_cmap(b"\x00\x01\x00\x00" + bytes(8))  # a font directory without a character map


def test_every_ai_seat_name_the_bot_gives_is_drawn_whole():
    """AI seats are named by the service and drawn with a robot (bot/schnapsen/texts.py's seat_name)."""
    for name in AI_NAMES:
        drawn = f"{name} 🤖"
        assert fonts.missing(drawn) == [] and fonts.runs(drawn)[-1] == (_assets.EMOJI_FONT, "🤖")
