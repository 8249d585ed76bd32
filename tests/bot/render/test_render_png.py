"""Our PNG writer (bot/render/png.py): what it writes is a PNG every decoder reads back pixel for pixel."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from bot.render import _assets
from bot.render.png import SIGNATURE, palette_png


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The file's chunks in order, each checked against its CRC."""
    assert png.startswith(SIGNATURE)
    found, at = [], len(SIGNATURE)
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + data), kind
        found.append((kind, data))
        at += 12 + length
    return found


def a_picture() -> Image.Image:
    """A palette image as the bot makes them: drawn in RGB, mapped to a deck's 256 colours."""
    canvas = Image.new("RGB", (37, 11), (20, 90, 40))
    canvas.paste((250, 250, 250), (3, 2, 20, 9))
    canvas.paste((200, 30, 30), (21, 0, 37, 5))
    return canvas.quantize(palette=_assets.palette("french"), dither=Image.Dither.NONE)


def test_a_palette_image_is_read_back_pixel_for_pixel_with_its_palette() -> None:
    picture = a_picture()
    png = palette_png(picture)
    assert [kind for kind, _ in chunks(png)] == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    with Image.open(io.BytesIO(png)) as read:
        read.load()
        assert (read.format, read.mode, read.size) == ("PNG", "P", picture.size)
        assert read.tobytes() == picture.tobytes()
        assert read.getpalette("RGB") == picture.getpalette("RGB")
        assert read.convert("RGB").tobytes() == picture.convert("RGB").tobytes()


def test_each_row_is_stored_unfiltered_and_the_data_is_a_zlib_stream() -> None:
    picture = a_picture()
    idat = dict(chunks(palette_png(picture)))[b"IDAT"]
    rows = zlib.decompress(idat)
    width, height = picture.size
    assert len(rows) == (width + 1) * height
    assert all(rows[row * (width + 1)] == 0 for row in range(height))


def test_only_palette_images_are_written() -> None:
    with pytest.raises(ValueError, match="palette"):
        palette_png(Image.new("RGB", (2, 2)))
