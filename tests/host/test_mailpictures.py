"""The board pictures' own machinery (pbem.render.pictures, pbem.render.png): the PNG writer, the pieces'
patches and the palette."""

from __future__ import annotations

import io
import struct
import zlib
from hashlib import sha256

import pytest
from PIL import Image

from pbem.render import patches as mailpatches
from pbem.render import png as mailpng


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
    for _y in range(height):
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


def test_a_picture_of_more_pixels_than_isal_is_tried_on_is_written_by_pillow() -> None:
    image = palette_picture(1001, 1000, 30)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=6)
    assert mailpng.png_of_palette_image(image) == out.getvalue()


def test_only_a_palette_picture_is_written() -> None:
    with pytest.raises(ValueError, match="palette picture"):
        mailpng.png_of_palette_image(Image.new("RGB", (4, 4)))


# ------------------------------------------------------------------ pictures made from the pieces' patches

STYLE = ".sq { fill: #2f6fd6 } text.l { font-family: sans-serif; font-weight: bold; font-size: 12px }"


def board(pieces: str) -> str:
    """A board (a sea, two roads, a word) with ``pieces`` drawn last."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="100" viewBox="0 0 150 100" '
        'data-picture="b"><rect width="150" height="100" fill="#9fc3cf"/>'
        '<path d="M0,0 L150,100 M0,100 L150,0" stroke="#b89d62" stroke-width="3"/>'
        '<text x="75" y="96" text-anchor="middle" class="l">board</text>'
        f"{pieces}</svg>"
    )


def disc(x: float, y: float, fill: str = "#f08a24", r: float = 9.5, extra: str = "") -> str:
    """A piece drawn relative to its box (20 units a side) at ``x, y``."""
    return (
        f'<g data-sprite="{x} {y} 20 20" transform="translate({x} {y})">'
        f'<circle cx="10" cy="10" r="{r}" fill="{fill}" stroke="#4b5563"/>{extra}</g>'
    )


def gradient_piece(x: float, y: float, name: str, start: str, stop: str) -> str:
    """A piece of many colours: a gradient fill, its own definition inside it."""
    return (
        f'<g data-sprite="{x} {y} 40 20" transform="translate({x} {y})">'
        f'<defs><linearGradient id="{name}"><stop offset="0" stop-color="{start}"/>'
        f'<stop offset="1" stop-color="{stop}"/></linearGradient></defs>'
        f'<rect x="0.5" y="0.5" width="39" height="19" rx="6" fill="url(#{name})" stroke="#222"/></g>'
    )


def pixels(png: bytes) -> Image.Image:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB")


def laid_in_rgb(svg: str) -> tuple[Image.Image, object, list[tuple[int, int, int, int]]]:
    """The picture as its layers laid over each other in RGB, before any palette (with its static layer
    and the pieces' boxes: what :func:`pbem.render.pictures._encode` reduces)."""
    from pbem.render import pictures as mailpictures

    attrs = dict(mailpictures._ATTR.findall(svg[: svg.index(">") + 1]))
    layers = mailpictures.split_layers(svg)
    assert layers is not None
    static = mailpictures._static_image(layers.static, STYLE, 300, False)
    return mailpictures._laid(static, mailpictures._placed(layers, attrs, STYLE, static.rgb.size, False))


def laid(svg: str) -> Image.Image:
    return laid_in_rgb(svg)[0]


def furthest(one: Image.Image, other: Image.Image) -> int:
    """How many shades the two pictures are apart where they differ most (any of red, green, blue)."""
    from PIL import ImageChops

    return max(high for _low, high in ImageChops.difference(one, other).getextrema())


def test_a_picture_of_few_colours_is_its_layers_exactly() -> None:
    from pbem.render import mail_html as mailhtml
    from pbem.render import patches as mailpatches
    from pbem.render import pictures as mailpictures

    mailhtml.clear_caches()
    svg = board(
        disc(9, 9) + disc(60, 40, "#3a9d5d", extra='<text x="10" y="14" class="l">7</text>') + disc(140, 70)
    )
    picture = mailpictures.picture_of(svg, STYLE, "b")
    with Image.open(io.BytesIO(picture.png)) as image:
        assert image.mode == "P" and len(image.getpalette() or []) // 3 <= 256
    assert furthest(pixels(picture.png), laid(svg)) == 0  # every colour its own entry
    assert len(mailpatches._PATCHES.kept) == 3  # a patch a piece


def test_a_piece_beyond_the_drawing_leaves_the_board_as_it_is() -> None:
    from pbem.render import mail_html as mailhtml
    from pbem.render import patches as mailpatches
    from pbem.render import pictures as mailpictures

    mailhtml.clear_caches()
    svg = board(disc(170, 20))  # its box wholly right of the 150 units drawn
    drawn = pixels(mailpictures.picture_of(svg, STYLE, "b").png)
    assert furthest(drawn, laid(svg)) == 0 and not mailpatches._PATCHES.kept


def test_overlapping_pieces_are_laid_as_the_whole_picture_lays_them() -> None:
    from pbem.render import mail_html as mailhtml
    from pbem.render import patches as mailpatches
    from pbem.render import pictures as mailpictures

    # each piece's edge over its neighbour's: a box's pixels depend on every piece that meets it
    svg = board(disc(20, 20) + disc(32, 26, "#d42a2a") + disc(44, 20, "#3a9d5d") + disc(100, 50))
    mailhtml.clear_caches()
    assert furthest(pixels(mailpictures.picture_of(svg, STYLE, "b").png), laid(svg)) == 0
    # the same piece with another neighbour is another patch: moving the neighbour away redraws it
    before = set(mailpatches._PATCHES.kept)
    moved = board(disc(20, 20) + disc(32, 26, "#d42a2a") + disc(44, 30, "#3a9d5d") + disc(100, 50))
    assert furthest(pixels(mailpictures.picture_of(moved, STYLE, "b").png), laid(moved)) == 0
    # the moved piece and the one it overlaps (before and after) are new patches; the other two are kept
    assert len(set(mailpatches._PATCHES.kept) - before) == 2


def test_a_picture_is_the_same_bytes_whatever_was_drawn_before() -> None:
    from pbem.render import mail_html as mailhtml
    from pbem.render import pictures as mailpictures

    svg = board(disc(20, 20) + disc(32, 26, "#d42a2a") + gradient_piece(60, 60, "g1", "#ff0000", "#0000ff"))
    mailhtml.clear_caches()
    fresh = mailpictures.picture_of(svg, STYLE, "b").png
    mailhtml.clear_caches()
    for other in (
        board(disc(20, 20) + gradient_piece(60, 60, "g1", "#ff0000", "#0000ff")),
        board(gradient_piece(10, 10, "g2", "#00ff00", "#ff00ff") + disc(32, 26, "#d42a2a")),
    ):
        mailpictures.picture_of(other, STYLE, "b")  # patches, a palette made before: none carries over
    mailpictures._render.cache_clear()
    assert mailpictures.picture_of(svg, STYLE, "b").png == fresh


def test_a_picture_of_more_colours_than_a_palette_is_reduced_close_to_its_layers() -> None:
    from pbem.render import mail_html as mailhtml
    from pbem.render import pictures as mailpictures

    pieces = [
        gradient_piece(5, 5, "a", "#ff0000", "#0000ff"),
        gradient_piece(55, 5, "b", "#00ff00", "#ff00ff"),
        gradient_piece(105, 5, "c", "#ffff00", "#00ffff"),
        gradient_piece(5, 70, "d", "#000000", "#ffffff"),
        gradient_piece(105, 70, "e", "#ff8000", "#0080ff"),
        disc(60, 40, "#3a9d5d"),
    ]
    svg = board("".join(pieces))
    assert len(laid(svg).getcolors(1 << 16) or []) > 256
    mailhtml.clear_caches()
    picture = mailpictures.picture_of(svg, STYLE, "b")
    drawn = pixels(picture.png)
    with Image.open(io.BytesIO(picture.png)) as image:
        assert len(image.getpalette() or []) // 3 <= 256
    # close, not exact (the gradients' colours are merged): nearer than the whole picture's octree was
    reduced = mailpictures._reduced(laid(svg)).convert("RGB")
    assert 0 < furthest(drawn, laid(svg)) <= min(16, furthest(reduced, laid(svg)))
    # the disc's own fill (a colour that fills its patch) is kept exactly, and so is the board's
    assert drawn.getpixel((2 * 70, 2 * 50)) == (0x3A, 0x9D, 0x5D)
    assert drawn.getpixel((2 * 75, 2 * 30)) == laid(svg).getpixel((2 * 75, 2 * 30))


def test_a_piece_of_more_colours_than_a_palette_is_reduced_with_its_picture() -> None:
    from pbem.render import mail_html as mailhtml
    from pbem.render import patches as mailpatches
    from pbem.render import pictures as mailpictures

    # a gradient across and a see-through one down over it: some 600 colours in one box
    piece = (
        '<g data-sprite="10 10 120 60" transform="translate(10 10)"><defs>'
        '<linearGradient id="x"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/>'
        '</linearGradient><linearGradient id="y" x2="0" y2="1"><stop offset="0" stop-color="#0f0" '
        'stop-opacity="0"/><stop offset="1" stop-color="#0f0"/></linearGradient></defs>'
        '<rect width="120" height="60" fill="url(#x)"/><rect width="120" height="60" fill="url(#y)"/></g>'
    )
    svg = board(piece)
    mailhtml.clear_caches()
    drawn = pixels(mailpictures.picture_of(svg, STYLE, "b").png)
    assert not mailpatches._PATCHES.kept  # no patch: the picture was laid and reduced as a whole
    assert drawn == pixels(mailpictures._encode(*laid_in_rgb(svg)))  # type: ignore[arg-type]
    assert furthest(drawn, laid(svg)) <= 32


def test_the_patches_kept_are_bounded_by_their_weight() -> None:
    from pbem.render import patches as mailpatches

    kept = mailpatches._Patches(budget=10_000)  # 4,064 bytes a patch below
    for n in range(5):
        kept.put(("key", n), mailpatches.Patch((0,), frozenset(), bytes(4_000)))
    assert kept.weight <= 10_000 and list(kept.kept) == [("key", 3), ("key", 4)]
    assert kept.get(("key", 3)) is not None and kept.get(("key", 0)) is None
    kept.put(("key", 5), mailpatches.Patch((0,), frozenset(), bytes(4_000)))
    assert list(kept.kept) == [("key", 3), ("key", 5)]  # the one used lately stays


def _splitting_every_cube(static: list[int], extra: set[int]) -> list[list[int]]:
    """The cubes :func:`pbem.render.patches._reduced_palette` ends with, by trying every crowded cube to
    the last (as it did before it stopped once the palette was full)."""
    import heapq

    masks = mailpatches._MASKS
    room = mailpatches.COLOURS - len(static)
    bits = 1
    while bits < 8 and len({c & masks[bits] for c in extra}) > room:
        bits += 1
    cubes: dict[int, list[int]] = {}
    for colour in sorted(extra):
        cubes.setdefault(colour & masks[bits], []).append(colour)
    final = [m for m in cubes.values() if len(m) == 1]
    crowded = [(-len(m), bits, c, m) for c, m in cubes.items() if len(m) > 1]
    heapq.heapify(crowded)
    count = len(cubes)
    while crowded:
        _size, level, _cube, members = heapq.heappop(crowded)
        parts: dict[int, list[int]] = {}
        for colour in members:
            parts.setdefault(colour & masks[level - 1], []).append(colour)
        if count - 1 + len(parts) > room:
            final.append(members)
            continue
        count += len(parts) - 1
        for part, inside in parts.items():
            if len(inside) == 1 or level == 1:
                final.append(inside)
            else:
                heapq.heappush(crowded, (-len(inside), level - 1, part, inside))
    return sorted(final)


@pytest.mark.parametrize("seed", range(8))
def test_a_reduced_palette_is_the_one_splitting_every_crowded_cube_gives(seed: int) -> None:
    import random

    rng = random.Random(seed)
    static = sorted(rng.sample(range(1 << 24), rng.choice([10, 41, 120, 250])))
    # blends crowd around a few colours, as a board's edges do
    centres = [rng.randrange(1 << 24) for _ in range(rng.choice([3, 12, 40]))]
    extra = {
        min(0xFFFFFF, max(0, centre + rng.randrange(-3000, 3000))) for centre in centres for _ in range(20)
    } - set(static)
    fill = frozenset(rng.sample(sorted(extra), 5))
    patch = mailpatches.Patch(tuple(sorted(extra)), fill, b"")
    colours, index = mailpatches._reduced_palette(static, [patch], extra)
    assert len(colours) <= mailpatches.COLOURS
    cubes = _splitting_every_cube(static, extra)
    # the same cubes: each cube's colours share one entry, and no two cubes do
    assert len(colours) == len(static) + len(cubes)
    for cube in cubes:
        assert len({index[colour] for colour in cube}) == 1
    assert len({index[cube[0]] for cube in cubes}) == len(cubes)


# ---------------------------------------------------------------- a patch's pixels as their colours' indices


def indexed_by_word(canvas: Image.Image) -> bytes:
    """Each pixel's index among the canvas's colours (sorted), the plain way: one lookup a pixel."""
    colours = sorted(rgb for _count, rgb in canvas.getcolors(1 << 24) or [])
    index = {rgb: i for i, rgb in enumerate(colours)}
    raw = canvas.tobytes()
    return bytes(index[tuple(raw[i : i + 3])] for i in range(0, len(raw), 3))


def canvas_of(
    colours: list[tuple[int, int, int]], size: tuple[int, int] = (37, 23), seed: int = 5
) -> Image.Image:
    """A canvas of every one of ``colours`` in runs, scattered (each colour at least once)."""
    import random

    rng = random.Random(seed)
    count = size[0] * size[1]
    pixels = list(colours) + [rng.choice(colours) for _ in range(count - len(colours))]
    rng.shuffle(pixels)
    image = Image.new("RGB", size)
    image.putdata(pixels)
    return image


@pytest.mark.parametrize("seed", range(12))
def test_a_patch_s_indices_are_each_pixel_s_colour_in_its_sorted_colours(seed: int) -> None:
    import random

    rng = random.Random(seed)
    kind = seed % 4
    if kind == 0:  # a board's blends: near colours, many sharing two of their channels
        base = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(6)]
        colours = {(min(255, r + d), g, b) for r, g, b in base for d in range(8)}
        colours |= {(r, g, min(255, b + d)) for r, g, b in base for d in range(8)}
    elif kind == 1:  # channels in one narrow band, and black (every byte of its word 0 but alpha)
        colours = {
            (rng.randrange(0xD8, 0xE0), rng.randrange(0xD8, 0xE0), rng.randrange(256)) for _ in range(60)
        }
        colours.add((0, 0, 0))
    elif kind == 2:  # a palette's most: 256 colours
        colours = set()
        while len(colours) < 256:
            colours.add((rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    else:  # few, far apart
        colours = {(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(3)}
    canvas = canvas_of(sorted(colours), seed=seed)
    assert mailpatches._indices(canvas, sorted(colours)) == indexed_by_word(canvas)


def test_colours_two_channels_cannot_tell_apart_get_their_own_indices() -> None:
    # every value of every channel, colours that differ in one channel only: the whole pixel is the key
    colours = sorted({(v, (v * 7) % 256, (v * 13) % 256) for v in range(0, 256, 4)} | {(3, 3, 3)})
    colours += [(r, 100, b) for r in range(0, 200, 10) for b in (40, 41) if (r, 100, b) not in colours]
    colours.sort()
    canvas = canvas_of(colours)
    assert mailpatches._indices(canvas, colours) == indexed_by_word(canvas)


#: the indices of :func:`test_a_patch_is_the_same_bytes_as_before`'s patch as the two-channel codec (read
#: as UTF-16 through a charmap codec, removed for this plain lookup) made them
PATCH_INDICES_SHA256 = "5edb9608c905b1f4ab5fb01723d7d5e3153f481b177878cc85b863ccdb0caa5d"


def test_a_patch_is_the_same_bytes_as_before() -> None:
    """A piece's patch over a static layer, as the removed two-channel codec made it (its indices,
    colours and fill recorded from it): the one way gives the same."""
    static = Image.new("RGB", (40, 30), (10, 60, 120))
    piece = Image.new("RGBA", (20, 14), (0, 0, 0, 0))
    for x in range(20):
        for y in range(14):
            piece.putpixel((x, y), (200, 40 + x, 30, 255 if (x + y) % 3 else 128))
    patch = mailpatches._patch(static, (5, 5, 25, 19), [mailpatches.Placed("p", piece, 5, 5)])
    assert patch is not None
    assert sha256(patch.indices).hexdigest() == PATCH_INDICES_SHA256
    assert len(patch.colours) == 30 and patch.colours[0] == 0x69324B


@pytest.mark.parametrize("count", [2, 3, 50, 256, 257, 258, 400])
def test_a_cube_s_mean_colour_is_each_channel_s_mean_rounded(count: int) -> None:
    import random

    rng = random.Random(count)
    for members in (
        [0xFFFFFF] * count,  # the most every channel's sum can be
        [0x00FF00] * (count - 1) + [0x0000FF],
        [rng.randrange(1 << 24) for _ in range(count)],
    ):
        n = len(members)
        expected = tuple(round(sum((c >> shift) & 255 for c in members) / n) for shift in (16, 8, 0))
        mean = mailpatches._mean(members)
        assert (mean >> 16, (mean >> 8) & 255, mean & 255) == expected
