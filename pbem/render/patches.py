"""A layered board picture made as palette indices from patches: each piece's box as it looks on the
board, composed, counted and indexed once, then pasted.

A board picture (:mod:`pbem.render.pictures`) is its static layer with its pieces laid over it. Reducing
the laid picture to a palette took most of a new picture's cost (Pillow's octree of the pieces' pixels
and its mapping of them to the palette, per pixel, every picture). But what a piece's box looks like on
the board depends only on the static layer under it and on the pieces drawn in it: the same polyp on
the same space is the same pixels in every game and turn. So each box is a :class:`Patch` made once
(its pixels composed as they would be on the whole picture, their colours listed, each pixel the index
of its colour), and a picture is a copy of the static layer's indices with its patches' indices pasted
in, translated to the picture's palette: the static layer's colours and the patches' colours, every
colour its own entry when they are 256 or fewer (a Reef Encounter board most turns: then the picture is
exactly its layers), else reduced (:func:`_palette`).

A box's pixels depend on every piece whose box meets it (a neighbour's edge drawn over it), so a
patch is keyed by the static layer, its box, and each of those pieces' drawing and place relative to
it, in their order; any two patches then agree where their boxes overlap, and pasting them in any
order is the laid picture.
"""

from __future__ import annotations

import heapq
import struct
import sys
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from PIL import Image, ImageChops

#: the most colours a picture has (a PNG palette's most)
COLOURS = 256
#: what the patches kept may weigh in all: a Reef Encounter patch is some 6 KB, a Coral Divers space 20;
#: a tick's games on one board set come back to the same patches (a piece on a space) again and again
PATCH_BYTES = 24_000_000


class Placed(NamedTuple):
    """One piece where a picture lays it: ``key`` (everything its pixels depend on: its drawing, its
    place on the pixel grid), its pixels (RGBA) and where their top left corner is on the picture."""

    key: Hashable
    image: Image.Image
    left: int
    top: int


@dataclass(frozen=True)
class Patch:
    """One box of a picture as it looks there: its ``colours`` (``0xRRGGBB``, sorted), those of them
    that ``fill`` it (a twentieth of its pixels or more: a piece's own colours, not its edges' blends),
    and each pixel (row by row) as the index of its colour in ``colours``."""

    colours: tuple[int, ...]
    fill: frozenset[int]
    indices: bytes


def compose(
    static_key: Hashable,
    static_rgb: Image.Image,
    static_rows: bytes,
    static_colours: Sequence[int],
    placed: Sequence[Placed],
) -> tuple[bytes, bytes] | None:
    """The picture ``placed`` laid over the static layer (``static_rgb``; ``static_rows`` the same as a
    PNG's rows of indices of ``static_colours``, sorted: :func:`pbem.render.png.png_rows`) as its palette
    and its rows; ``None`` if a box has more colours than a palette holds (it is then made as before,
    from the laid RGB picture)."""
    width, height = static_rgb.size
    boxes = tuple(_clipped(p, width, height) for p in placed)
    patches: list[tuple[tuple[int, int, int, int], Patch]] = []
    for i, members in enumerate(_meeting(boxes)):
        box = boxes[i]
        if box is None:
            continue
        key = (
            static_key,
            box,
            tuple((placed[j].key, placed[j].left - box[0], placed[j].top - box[1]) for j in members),
        )
        patch = _PATCHES.get(key)
        if patch is None:
            patch = _patch(static_rgb, box, [placed[j] for j in members])
            if patch is None:
                return None
            _PATCHES.put(key, patch)
        patches.append((box, patch))
    colours, index = _palette(static_colours, [patch for _box, patch in patches])
    # the rows as a picture of one byte a pixel, one pixel wider (the first column: each row's filter
    # byte), each patch's indices pasted in by Pillow (in C, not a slice a row)
    canvas = Image.frombytes("L", (width + 1, height), static_rows)
    for (left, top, right, bottom), patch in patches:
        table = bytes(map(index.__getitem__, patch.colours)).ljust(256, b"\0")
        pixels = _band((right - left, bottom - top), patch.indices.translate(table))
        canvas.paste(pixels, (left + 1, top))
    rows = canvas.tobytes()
    # the palette's RGB: each colour as four bytes (big-endian, by struct in C), its high zero byte cut
    palette = bytearray(struct.pack(f">{len(colours)}I", *colours))
    del palette[::4]
    return bytes(palette), rows


def _band(size: tuple[int, int], pixels: bytes) -> Image.Image:
    """``pixels`` (a byte a pixel) as an ``L`` picture to read from: Pillow's picture of the bytes
    themselves (``frombuffer``: no decoder set up and run, half the cost of ``frombytes`` for a box)."""
    return Image.frombuffer("L", size, pixels, "raw", "L", 0, 1)


def _clipped(placed: Placed, width: int, height: int) -> tuple[int, int, int, int] | None:
    """The piece's box on the picture, cut at its edges; ``None`` if nothing of it is on the picture."""
    box = (
        max(0, placed.left),
        max(0, placed.top),
        min(width, placed.left + placed.image.width),
        min(height, placed.top + placed.image.height),
    )
    return box if box[0] < box[2] and box[1] < box[3] else None


@lru_cache(maxsize=256)
def _meeting(boxes: tuple[tuple[int, int, int, int] | None, ...]) -> tuple[tuple[int, ...], ...]:
    """For each box, the boxes that meet it (itself too), in their order: the pieces whose pixels may be
    in it. A function of the boxes alone (a board's layout: on the sea floor, the same every turn)."""
    order = sorted((box[0], i) for i, box in enumerate(boxes) if box is not None)
    meets: list[list[int]] = [[i] if box is not None else [] for i, box in enumerate(boxes)]
    for at, (_left, i) in enumerate(order):
        a = boxes[i]
        assert a is not None
        for _left, j in order[at + 1 :]:
            b = boxes[j]
            assert b is not None
            if b[0] >= a[2]:
                break  # sorted by left edge: no later box reaches back to this one
            if b[1] < a[3] and a[1] < b[3]:
                meets[i].append(j)
                meets[j].append(i)
    return tuple(tuple(sorted(m)) for m in meets)


def _patch(static_rgb: Image.Image, box: tuple[int, int, int, int], members: list[Placed]) -> Patch | None:
    """The pixels of ``box``: the static layer's, with each piece meeting it laid over them in order
    (pasted through its alpha, as the whole picture is laid), counted and indexed; ``None`` if they
    have more colours than a palette holds."""
    canvas = static_rgb.crop(box)
    for piece in members:
        # the part of the piece inside the box, in the piece's own pixels
        crop = (
            max(0, box[0] - piece.left),
            max(0, box[1] - piece.top),
            min(piece.image.width, box[2] - piece.left),
            min(piece.image.height, box[3] - piece.top),
        )
        if crop[0] < crop[2] and crop[1] < crop[3]:
            part = piece.image.crop(crop)
            where = (piece.left + crop[0] - box[0], piece.top + crop[1] - box[1])
            canvas.paste(part, where, part.getchannel("A"))
    found = canvas.getcolors(COLOURS)
    if found is None:
        return None
    found.sort(key=lambda pair: pair[1])
    indices = _indices(canvas, [rgb for _count, rgb in found])
    packed = [(r << 16) | (g << 8) | b for _count, (r, g, b) in found]
    least = canvas.width * canvas.height / 20
    fill = frozenset(colour for colour, (count, _rgb) in zip(packed, found, strict=True) if count >= least)
    return Patch(tuple(packed), fill, indices)


def _indices(canvas: Image.Image, colours: list[tuple[int, int, int]]) -> bytes:
    """Each pixel of ``canvas`` (RGB) as the index of its colour in ``colours`` (all it has, sorted).

    Exact, where Pillow's mapping to a given palette is not: each pixel read as one number (RGBA,
    opaque: four bytes a pixel) and looked up in a dict, the lookups run by ``map`` in C. Some 0.4 ms
    a Reef Encounter patch, made once and kept (:class:`_Patches`)."""
    word = {int.from_bytes(bytes((*rgb, 255)), sys.byteorder): i for i, rgb in enumerate(colours)}
    return bytes(map(word.__getitem__, memoryview(canvas.convert("RGBA").tobytes()).cast("I")))


def exactly_indexed(rgb: Image.Image, colours: list[tuple[int, int, int]]) -> Image.Image | None:
    """``rgb`` (whose colours are ``colours``, sorted) as a P-mode picture whose palette is ``colours``
    in that order, each pixel its own colour. Not by ``quantize(palette=...)``: Pillow's mapping to a
    given palette looks colours up in a 5-6-5-bit grid, so two close colours of the board's edges can
    land on one entry. Its median cut asked for as many colours as there are keeps each colour in a box
    of its own (exact, 12 ms once a process for a Reef Encounter board); the result is checked pixel
    for pixel all the same, and ``None`` if it is not exact."""
    cut = rgb.quantize(len(colours), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    flat = (cut.getpalette() or [])[: 3 * len(colours)]
    index = {tuple(flat[i : i + 3]): i // 3 for i in range(0, len(flat), 3)}
    if sorted(index) != colours:
        return None
    indexed = cut.remap_palette([index[colour] for colour in colours])
    if ImageChops.difference(indexed.convert("RGB"), rgb).getbbox() is not None:
        return None
    return indexed


def _palette(static_colours: Sequence[int], patches: Sequence[Patch]) -> tuple[list[int], dict[int, int]]:
    """The picture's palette (the static layer's colours first, at the indices its picture has them,
    then the others sorted: a function of the drawing alone) and each colour's entry in it. Every
    colour its own entry if they fit; else the others merged (:func:`_reduced_palette`)."""
    extra = set().union(*(patch.colours for patch in patches)).difference(static_colours)
    colours = list(static_colours) + sorted(extra)
    if len(colours) > COLOURS:
        return _reduced_palette(static_colours, patches, extra)
    return colours, {colour: i for i, colour in enumerate(colours)}


def _reduced_palette(
    static_colours: Sequence[int], patches: Sequence[Patch], extra: set[int]
) -> tuple[list[int], dict[int, int]]:
    """A palette of at most :data:`COLOURS` for a picture with more colours: the static layer's, then
    the patches' other colours merged in cubes, each colour taking its cube's entry. The cubes start
    as coarse as needed for them to fit (``2 ** bits`` shades a side) and the most crowded are split
    in eight while they still fit, so a colour is a shade or two off where the blends are many and
    the palette has room. A cube's entry is a colour that fills a patch if one is in it (a piece's own
    colour stays exact), else the mean of its colours. Not Pillow's octree and its mapping to the
    palette: the mapping sets up a lookup table for every new palette (2 ms however few the colours);
    and the octree's own mapping is coarser."""
    room = COLOURS - len(static_colours)
    bits = 1
    while bits < 8 and len({colour & _MASKS[bits] for colour in extra}) > room:
        bits += 1
    cubes: dict[int, list[int]] = {}
    for colour in sorted(extra):
        cubes.setdefault(colour & _MASKS[bits], []).append(colour)
    # split the most crowded cubes first (fewest bits left last), while the palette has room
    final: list[list[int]] = []
    crowded: list[tuple[int, int, int, list[int]]] = []
    for cube, members in cubes.items():
        if len(members) == 1:
            final.append(members)
        else:
            crowded.append((-len(members), bits, cube, members))
    heapq.heapify(crowded)
    count = len(cubes)
    while crowded:
        if count >= room:
            # no split into two or more fits any more (and the count never falls): every cube left is
            # its colours as they are, whatever splitting them would try (the entries are sorted below)
            final += [members for _size, _level, _cube, members in crowded]
            break
        _size, level, _cube, members = heapq.heappop(crowded)
        parts: dict[int, list[int]] = {}
        for colour in members:
            parts.setdefault(colour & _MASKS[level - 1], []).append(colour)
        if count - 1 + len(parts) > room:
            final.append(members)
            continue
        count += len(parts) - 1
        for part, inside in parts.items():
            if len(inside) == 1 or level == 1:
                final.append(inside)
            else:
                heapq.heappush(crowded, (-len(inside), level - 1, part, inside))
    fill = set().union(*(patch.fill for patch in patches))
    index = {colour: i for i, colour in enumerate(static_colours)}
    colours = list(static_colours)
    # the cubes in the order of their colours (they are disjoint and each sorted: by their first)
    final.sort(key=_first)
    for members in final:
        if len(members) == 1:
            index[members[0]] = len(colours)
            colours.append(members[0])
            continue
        entry = -1 if fill.isdisjoint(members) else next(c for c in members if c in fill)
        if entry < 0:
            entry = _mean(members)
        index.update(dict.fromkeys(members, len(colours)))
        colours.append(entry)
    return colours, index


_first = itemgetter(0)
_RED_BLUE = (0xFF00FF).__and__


def _mean(members: list[int]) -> int:
    """The mean colour of ``members`` (``0xRRGGBB``), each channel rounded. The channels' sums are
    read off two sums run in C (all of it, and red and blue alone: blue's sum stays under red's
    bits for up to 257 colours), not three sums of a channel each."""
    n = len(members)
    if n > 257:
        return (
            (round(sum(c >> 16 for c in members) / n) << 16)
            | (round(sum((c >> 8) & 255 for c in members) / n) << 8)
            | round(sum(c & 255 for c in members) / n)
        )
    red_blue = sum(map(_RED_BLUE, members))
    green = (sum(members) - red_blue) >> 8
    return (round((red_blue >> 16) / n) << 16) | (round(green / n) << 8) | round((red_blue & 0xFFFF) / n)


#: for ``bits``, the mask that keeps a colour's cube of ``2 ** bits`` shades a side
_MASKS = tuple(0xFFFFFF ^ (((1 << bits) - 1) * 0x010101) for bits in range(9))


class _Patches:
    """The patches made, by key, the least lately used dropped when they weigh more than
    :data:`PATCH_BYTES`. Safe to share across games and seats: a patch is a function of its key, which
    is everything drawn in its box (a seat's piece that differs is another key)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.weight = 0
        self.kept: OrderedDict[Hashable, Patch] = OrderedDict()

    def get(self, key: Hashable) -> Patch | None:
        patch = self.kept.get(key)
        if patch is not None:
            self.kept.move_to_end(key)
        return patch

    def put(self, key: Hashable, patch: Patch) -> None:
        self.kept[key] = patch
        self.weight += _weight(patch)
        while self.weight > self.budget and self.kept:
            _key, dropped = self.kept.popitem(last=False)
            self.weight -= _weight(dropped)

    def clear(self) -> None:
        self.kept.clear()
        self.weight = 0


def _weight(patch: Patch) -> int:
    """About what a patch weighs in memory: its indices, and some 64 bytes a colour (the key's strings
    are the drawing's own, shared)."""
    return len(patch.indices) + 64 * len(patch.colours)


_PATCHES = _Patches(PATCH_BYTES)


def clear_caches() -> None:
    """Forget every patch (tests: a fresh process's first picture)."""
    _PATCHES.clear()
    _meeting.cache_clear()
