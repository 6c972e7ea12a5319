"""A palette picture (Pillow's P mode) written as PNG, its pixels packed by ISA-L
(:func:`pbem.core.fast_zlib.compress`).

What it buys, measured (CPU time): a Reef Encounter board in 0.14 ms (11.3 KB), where Pillow's PNG
writer (the system's zlib) took 1.38 ms at level 3 (10.7 KB) and 2.2 ms at level 6 (8.9 KB); the sea
floor of Coral Divers early in a game in 1.7 ms (33 KB) against 4.7 ms (33 KB) and 7.9 ms (27 KB).
The largest single cost of a new board picture was the writer's.

The plain alternative is Pillow's own writer, ``image.save(out, "PNG", compress_level=...)``: the
pictures look the same, their bytes (and so the mails') differ. It is still what writes a picture too
large for ISA-L's level to pack small enough (:data:`TIGHTER_ABOVE`, :data:`PILLOW_ABOVE`). A PNG of a
palette picture is four chunks (header, palette, the packed rows, end), so it is written here around
ISA-L's stream; any PNG reader reads it (the tests read every picture back with Pillow, which checks
each chunk's CRC).
"""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

from pbem.core import fast_zlib

#: a picture ISA-L packs heavier than this is written again by Pillow at zlib's level 6, as it was before
#: (8 ms for the Baltic map, 70 KB -> 62 KB; the sea floor is 54-61 KB either way): every picture stays
#: well under the 80 KB a mail's picture may weigh
TIGHTER_ABOVE = 64_000
#: a picture of more pixels than this is written by Pillow at level 6 without trying ISA-L first (the
#: Baltic map, 1.2 million: ISA-L's 70 KB would be packed again): the sea floor has 880,000
PILLOW_ABOVE = 1_000_000
_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_of_palette_image(image: Image.Image) -> bytes:
    """``image`` (P mode, 8 bits an index) as PNG bytes (:func:`png_of_rows`); a picture of more than
    :data:`PILLOW_ABOVE` pixels by Pillow at zlib's level 6 straight away."""
    if image.mode != "P":
        raise ValueError(f"a palette picture is wanted, not {image.mode}")
    if image.width * image.height > PILLOW_ABOVE:
        return _by_pillow(image)
    return png_of_rows(image.width, image.height, bytes(image.getpalette() or []), png_rows(image))


def png_rows(image: Image.Image) -> bytes:
    """A P-mode picture's indices as a PNG's rows: each row its filter's byte (0: none) and the row."""
    rows = Image.new("P", (image.width + 1, image.height), 0)
    rows.paste(image, (1, 0))  # the picture one pixel in: the first column is the filter bytes
    return rows.tobytes()


def png_of_rows(width: int, height: int, palette: bytes, rows: bytes | bytearray) -> bytes:
    """The PNG of a palette picture given as its ``palette`` (RGB, three bytes an entry) and its
    ``rows`` (:func:`png_rows`): no row filter (a board's indices are flat runs that deflate packs as
    they are; the 'up' filter made them heavier), not interlaced."""
    packed = fast_zlib.compress(rows)
    if len(packed) > TIGHTER_ABOVE:
        image = Image.frombytes("P", (width + 1, height), bytes(rows)).crop((1, 0, width + 1, height))
        image.putpalette(palette)
        return _by_pillow(image)
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits, palette, deflate, no filter
    return b"".join(
        (
            _SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", packed),
            _chunk(b"IEND", b""),
        )
    )


def _by_pillow(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=6)
    return out.getvalue()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(body, zlib.crc32(kind)))
