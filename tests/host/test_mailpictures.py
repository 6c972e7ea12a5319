"""The board pictures' own machinery (pbem.mailpictures, pbem.mailpng): the PNG writer, the pieces'
patches and the palette."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from pbem import mailpng


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The chunks of a PNG, each checked against its CRC."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    found, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        found.append((kind, body))
        at += 12 + length
    return found


def palette_picture(width: int, height: int, colours: int, seed: int = 7) -> Image.Image:
    """A P-mode picture of flat runs (a board's kind of pixels) over ``colours`` palette entries."""
    image = Image.new("P", (width, height))
    rows = bytearray()
    state = seed
    for y in range(height):
        for x in range(0, width, 9):
            state = (state * 1103515245 + 12345) & 0x7FFFFFFF
            rows += bytes([(state >> 16) % colours]) * min(9, width - x)
    image.putdata(list(rows))
    image.putpalette([(i * 37 + c * 91) % 256 for i in range(colours) for c in range(3)])
    return image


def test_a_palette_picture_is_written_as_a_png_any_reader_reads_back() -> None:
    image = palette_picture(123, 45, 200)
    png = mailpng.png_of_palette_image(image)
    assert [kind for kind, _ in chunks(png)] == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
    with Image.open(io.BytesIO(png)) as read:
        assert read.mode == "P" and read.size == (123, 45)
        assert read.tobytes() == image.tobytes()
        assert read.getpalette() == image.getpalette()
    assert mailpng.png_of_palette_image(image) == png  # the same picture, the same bytes


def test_a_heavy_picture_is_packed_tighter_by_pillow() -> None:
    # noise packs badly: ISA-L's stream would pass the limit, so Pillow's zlib level 6 writes it
    image = Image.effect_noise((400, 400), 120).convert("P")
    png = mailpng.png_of_palette_image(image)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=6)
    assert png == out.getvalue()
    light = palette_picture(400, 400, 40)
    assert len(mailpng.png_of_palette_image(light)) < mailpng.TIGHTER_ABOVE
    with Image.open(io.BytesIO(mailpng.png_of_palette_image(light))) as read:
        assert read.tobytes() == light.tobytes()


def test_only_a_palette_picture_is_written() -> None:
    with pytest.raises(ValueError, match="palette picture"):
        mailpng.png_of_palette_image(Image.new("RGB", (4, 4)))
