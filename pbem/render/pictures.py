"""The board pictures of a report mail: each board's SVG drawn to PNG by resvg, in layers, cached.

A board drawing whose pieces are marked, each a ``<g data-sprite="x y w h">`` after everything else, is
drawn in layers: the drawing without its pieces (the board's spaces, labels: the same turn after turn,
game after game) is drawn by resvg once per process, each piece once where it stands, and the picture
is those pixels laid over each other as palette indices, each piece's box made once
(:mod:`pbem.render.patches`), and written as PNG by ISA-L (:mod:`pbem.render.png`). A turn pays for its moved
pieces, not for the board: about 1 ms a new Reef Encounter picture where resvg took 40. The caches are
keyed by the drawing's content only (a seat's drawing that differs is another key), hold nothing but
what that drawing shows, and live in the process (a tick's jobs draw a board set once each).
"""

from __future__ import annotations

import io
import math
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import resvg_py
from PIL import Image

from pbem.core import caches
from pbem.core.codec import sha256_hex
from pbem.render import patches
from pbem.render.png import png_of_palette_image, png_of_rows, png_rows

#: the widest a picture is shown (CSS px): the mail is some 600 px wide with its padding
MAX_WIDTH = 560
#: pixels per shown pixel: sharp on a phone's or laptop's dense screen
DENSITY = 2
#: a picture heavier than this is reduced to a palette (flat colours: it looks the same, weighs half or
#: less: the Mare Balticum map 160 KB -> 60 KB). The reduction costs 1 to 2 ms a board, once per
#: drawing (:func:`_reduced`); the bytes it saves are carried, base64'd and packed in every seat's mail,
#: and a tick mails far more than it draws.
QUANTISE_ABOVE = 8_000
#: the most colours a reduced picture has (a PNG palette's most: the index is a byte whatever the count)
COLOURS = 256
#: fonts handed to resvg: loading the system's hundreds of fonts took most of a render. DejaVu covers
#: Latin, Greek and Cyrillic; Noto CJK is added only for a picture that writes Chinese (it is 20 MB).
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/opentype/noto"))
LATIN_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
CJK_FONTS = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Bold.ttc")

_ATTR = re.compile(r'\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"')
_SPRITE = re.compile(r'<g\b[^>]*?\bdata-sprite="([^"]*)"[^>]*>')
_TRANSLATE = re.compile(r"\s*translate\(\s*([-+0-9.eE]+)(?:\s*,\s*|\s+)([-+0-9.eE]+)\s*\)\s*")
_G_TAG = re.compile(r"<(/?)g\b[^>]*?(/?)>")
_DEFS = re.compile(r"<defs\b.*?</defs>", re.S)
#: the white space after a piece (what ``str.lstrip`` strips; matched in place, not on a copy of the rest)
_SPACE = re.compile(r"\s*")
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


@dataclass(frozen=True)
class Picture:
    """One board as a PNG, named in the mail by its Content-ID (derived from its bytes)."""

    cid: str
    filename: str
    png: bytes
    width: int  # CSS px it is shown at
    height: int


def picture_of(svg: str, style_sheet: str, name: str) -> Picture:
    """The PNG of one board's SVG, drawn with the page's CSS; the same drawing is rendered once."""
    return _render(svg, style_sheet, name)


@caches.memo("mail-pictures", 256)
def _render(svg: str, style_sheet: str, name: str) -> Picture:
    attrs = dict(_ATTR.findall(svg[: svg.index(">") + 1]))
    natural_w, natural_h = _size(attrs)
    shown_w = min(MAX_WIDTH, round(natural_w))
    shown_h = round(natural_h * shown_w / natural_w)
    standalone = (
        svg
        if "xmlns=" in svg[: svg.index(">")]
        else svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    )
    cjk = bool(_CJK.search(svg))
    layers = split_layers(standalone)
    if layers is None:
        png = _draw(standalone, style_sheet, shown_w * DENSITY, cjk, background="#ffffff")
        if len(png) > QUANTISE_ABOVE:
            png = _quantise(png)
    else:
        png = _layered(layers, attrs, style_sheet, shown_w * DENSITY, cjk)
    slug = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "board"
    return Picture(f"{slug}-{sha256_hex(png)[:16]}@pbem", f"{slug}.png", png, shown_w, shown_h)


def _draw(svg: str, style_sheet: str, width: int, cjk: bool, background: str | None = None) -> bytes:
    """resvg's PNG of ``svg``, ``width`` pixels wide; transparent where nothing is drawn unless a
    ``background`` is given."""
    options: dict[str, object] = {"background": background} if background else {}
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            style_sheet=style_sheet,
            width=width,
            skip_system_fonts=True,
            font_files=_fonts(cjk),
            font_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
            **options,
        )
    )


@dataclass(frozen=True)
class Sprite:
    """One piece of a drawing: its SVG, the box (the drawing's units) it is drawn within, and where
    its own units start (``origin``: its group's ``translate``; the body is drawn relative to it)."""

    box: tuple[float, float, float, float]
    body: str
    origin: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Layers:
    """A drawing split in two: ``static`` (the drawing without its pieces: the board's spaces, labels,
    legend, the same turn after turn and game after game) and the ``sprites`` drawn over it in order."""

    static: str
    sprites: tuple[Sprite, ...]


def split_layers(svg: str) -> Layers | None:
    """``svg`` split into its static layer and its pieces, each piece a ``<g data-sprite="x y w h">``
    (its box in the drawing's units; nothing of it outside), which may be moved by a
    ``transform="translate(x y)"`` (a piece drawn relative to its box is one drawing wherever it stands:
    :func:`_layered`). The pieces must come last in the drawing, after everything else, so that drawing
    them over the rest is the same picture. ``None`` if the drawing has no pieces, they are not last, or
    a piece's group has another transform: it is then drawn whole."""
    first = _SPRITE.search(svg)
    if first is None:
        return None
    sprites: list[Sprite] = []
    at = first.start()
    while True:
        match = _SPRITE.match(svg, at)
        if match is None:
            break
        end = _group_end(svg, match.end())
        if end is None:
            return None
        box = tuple(float(v) for v in match.group(1).replace(",", " ").split())
        if len(box) != 4 or box[2] <= 0 or box[3] <= 0:
            return None
        origin = (0.0, 0.0)
        transform = dict(_ATTR.findall(match.group(0))).get("transform")
        if transform is not None:
            moved = _TRANSLATE.fullmatch(transform)
            if moved is None:
                return None  # a scale or rotation: the box would not be where the piece is
            origin = (float(moved.group(1)), float(moved.group(2)))
        body = svg[match.end() : end - len("</g>")]
        sprites.append(Sprite(box, body, origin))  # type: ignore[arg-type]
        at = _SPACE.match(svg, end).end()  # type: ignore[union-attr]  # (it matches nothing too)
    if not svg.startswith("</svg>", at):
        return None  # something else follows the pieces: it may cover them
    # the root's words (its aria-label counts the pieces) are not drawn: left out, the static layer is
    # the same drawing turn after turn
    attrs = dict(_ATTR.findall(svg[: svg.index(">") + 1]))
    sized = "".join(f' {k}="{attrs[k]}"' for k in ("width", "height", "viewBox") if k in attrs)
    root = f'<svg xmlns="http://www.w3.org/2000/svg"{_root_attrs(attrs)}{sized}>'
    return Layers(root + svg[svg.index(">") + 1 : first.start()] + svg[at:], tuple(sprites))


def _group_end(svg: str, start: int) -> int | None:
    """Where the ``<g>`` whose content begins at ``start`` ends (just after its ``</g>``)."""
    depth = 1
    for tag in _G_TAG.finditer(svg, start):
        if tag.group(2):
            continue  # <g/>: opens nothing
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return tag.end()
    return None


def _layered(layers: Layers, attrs: dict[str, str], style_sheet: str, width: int, cjk: bool) -> bytes:
    """The PNG of a drawing in layers: its static layer (drawn once, cached) with every piece (each
    drawn once, cached) laid over it. Each piece is drawn on the picture's own pixel grid (its box
    widened to whole pixels), so it is the same pixels the whole drawing would have there. Made as
    palette indices from the pieces' patches (:func:`pbem.render.patches.compose`) when the static layer
    has its own exact palette; else laid in RGB and reduced (:func:`_encode`)."""
    # the drawing's long strings interned: every patch's and piece's key made from them holds one copy
    # (a tick's pages each bring an equal style sheet, each new drawing an equal static layer)
    style_sheet = sys.intern(style_sheet)
    static_key = (sys.intern(layers.static), style_sheet, width, cjk)
    static = _static_image(*static_key)
    placed = _placed(layers, attrs, style_sheet, static.rgb.size, cjk)
    if static.rows is not None and static.palette is not None:
        made = patches.compose(static_key, static.rgb, static.rows, static.palette, placed)
        if made is not None:
            return png_of_rows(*static.rgb.size, *made)
    return _encode(*_laid(static, placed))


def _placed(
    layers: Layers, attrs: dict[str, str], style_sheet: str, size: tuple[int, int], cjk: bool
) -> list[patches.Placed]:
    """Every piece of ``layers`` as pixels (drawn once, cached) and where they go on the picture."""
    placed: list[patches.Placed] = []
    # where resvg puts the drawing's units on the picture's pixels: it stretches the viewBox over the
    # whole picture, whose height is rounded to whole pixels (so across and down differ a little)
    vx, vy, vw, vh = _view_box(attrs)
    sx, sy = size[0] / vw, size[1] / vh
    root = sys.intern(_root_attrs(attrs))
    defs = sys.intern("".join(_DEFS.findall(layers.static)))
    for sprite in layers.sprites:
        x, y, w, h = sprite.box
        left, top = math.floor((x - vx) * sx), math.floor((y - vy) * sy)
        right, bottom = math.ceil((x + w - vx) * sx), math.ceil((y + h - vy) * sy)
        # the pixels' box in the piece's own units: a piece drawn relative to its box (its group's
        # translate) at the same offset from the pixel grid is the same drawing wherever it stands
        # (on a Reef Encounter board, 2 px a unit and whole units: every polyp of a colour is one)
        ox, oy = sprite.origin
        box = (vx + left / sx - ox, vy + top / sy - oy, (right - left) / sx, (bottom - top) / sy)
        key = (root, defs, sprite.body, box, (right - left, bottom - top), style_sheet, cjk)
        placed.append(patches.Placed(key, _sprite_image(*key), left, top))
    return placed


def _laid(
    static: Static, placed: list[patches.Placed]
) -> tuple[Image.Image, Static, list[tuple[int, int, int, int]]]:
    """The picture as the static layer's pixels with every piece's laid over them, in RGB, the static
    layer and the boxes (pixels) the pieces were laid in."""
    image = static.rgb.copy()
    laid: list[tuple[int, int, int, int]] = []
    for left, top, piece in ((p.left, p.top, p.image) for p in placed):
        # clipped to the picture: a piece's box may reach past the drawing's edge
        crop = (
            max(0, -left),
            max(0, -top),
            min(piece.width, image.width - left),
            min(piece.height, image.height - top),
        )
        if crop[0] < crop[2] and crop[1] < crop[3]:
            # over an opaque picture, pasting through the piece's alpha is its alpha composite
            image.paste(piece.crop(crop), (left + crop[0], top + crop[1]), piece.getchannel("A").crop(crop))
            laid.append((left + crop[0], top + crop[1], left + crop[2], top + crop[3]))
    return image, static, laid


def _root_attrs(attrs: dict[str, str]) -> str:
    """The drawing's own attributes a piece keeps (its class and fonts: the CSS may select by them)."""
    kept = {
        k: v
        for k, v in attrs.items()
        if k not in ("width", "height", "viewBox", "role")
        and k != "xmlns"
        and not k.startswith(("data-", "aria-"))
    }
    return "".join(f' {k}="{v}"' for k, v in sorted(kept.items()))


@dataclass(frozen=True)
class Static:
    """A drawing's static layer as pixels, and when it has at most half of :data:`COLOURS` colours (a
    board's flat fills and their edges: 41 on a Reef Encounter board) those ``colours`` and the layer
    as a P-mode picture of exactly those colours in that order (``indexed``: every pixel its own colour's
    index; ``rows`` the same as a PNG's rows), which the pictures on it keep as they are; else ``None``
    for all of them (the Mare Balticum map: 753 colours)."""

    rgb: Image.Image
    colours: list[tuple[int, int, int]] | None
    indexed: Image.Image | None
    palette: tuple[int, ...] | None = None  # ``colours`` as ``0xRRGGBB``: the patches' kind
    rows: bytes | None = None  # ``indexed`` as a PNG's rows (each row its filter's byte and its indices)


@caches.memo("mail-picture-layers", 16)
def _static_image(svg: str, style_sheet: str, width: int, cjk: bool) -> Static:
    """A drawing's static layer (the same for every turn and game on that board set), drawn once."""
    with Image.open(io.BytesIO(_draw(svg, style_sheet, width, cjk, background="#ffffff"))) as image:
        rgb = image.convert("RGB")
    found = rgb.getcolors(COLOURS // 2)  # half the palette at most: the pieces have the rest
    if found is None:
        return Static(rgb, None, None)
    colours = sorted(colour for _count, colour in found)
    indexed = patches.exactly_indexed(rgb, colours)
    if indexed is None:
        return Static(rgb, None, None)
    palette = tuple((r << 16) | (g << 8) | b for r, g, b in colours)
    return Static(rgb, colours, indexed, palette, png_rows(indexed))


@caches.memo("mail-picture-sprites", 2048)
def _sprite_image(
    root: str,
    defs: str,
    body: str,
    box: tuple[float, float, float, float],
    pixels: tuple[int, int],
    style_sheet: str,
    cjk: bool,
) -> Image.Image:
    """One piece as pixels, transparent around it: a piece at the same place (or drawn relative to its
    box: anywhere on the same pixel offset) looks the same in every turn and game, so it is drawn once;
    the key is its drawing only. Its ``box`` (its own units) is stretched over exactly ``pixels``:
    resvg rounds a drawing's own size to whole units before it scales, so the size is given in pixels
    and the units are mapped by the viewBox."""
    x, y, w, h = box
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg"{root} viewBox="{x!r} {y!r} {w!r} {h!r}" '
        f'width="{pixels[0]}" height="{pixels[1]}" preserveAspectRatio="none">{defs}{body}</svg>'
    )
    with Image.open(io.BytesIO(_draw(svg, style_sheet, pixels[0], cjk))) as image:
        return image.convert("RGBA")


def _encode(image: Image.Image, static: Static, laid: list[tuple[int, int, int, int]]) -> bytes:
    """A layered picture laid in RGB (:func:`_laid`: a static layer of too many colours, or a piece's
    box of more colours than a palette holds) as PNG, reduced to a palette, undithered. Outside the
    pieces' boxes ``laid`` it is its static layer, whose few colours are the first entries of the
    palette, as they are; the rest of the palette (up to :data:`COLOURS`) is the fast octree's of the
    pixels in those boxes. Only the pixels in the boxes are mapped to the palette (Pillow's nearest
    colour); the rest are the static layer's own indices (:attr:`Static.indexed`), pasted from its
    copy. A static layer of too many colours to keep is reduced as a whole drawing is
    (:func:`_reduced`)."""
    if static.colours is None or static.indexed is None or not laid:
        return _png(_reduced(image))
    crops = [image.crop(box) for box in laid]
    pixels = b"".join(crop.tobytes() for crop in crops)
    pieces = Image.frombytes("RGB", (len(pixels) // 3, 1), pixels)
    room = COLOURS - len(static.colours)
    octree = pieces.quantize(room, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    colours = [c for rgb in static.colours for c in rgb] + (octree.getpalette() or [])[: 3 * room]
    palette = Image.new("P", (1, 1))
    palette.putpalette(colours)
    # the boxes' pixels mapped in one call (one palette lookup table), then cut back into the boxes
    mapped = pieces.quantize(palette=palette, dither=Image.Dither.NONE).tobytes()
    picture = static.indexed.copy()
    picture.putpalette(colours)
    at = 0
    for box, crop in zip(laid, crops, strict=True):
        size = crop.width * crop.height
        picture.paste(Image.frombytes("P", crop.size, mapped[at : at + size]), box[:2])
        at += size
    return _png(picture)


def _reduced(image: Image.Image) -> Image.Image:
    """``image`` with at most :data:`COLOURS` colours, undithered: a board's flat fills and their
    anti-aliased edges. The palette is the fast octree's of the picture at half its size, each 2 × 2
    pixels averaged (a quarter of the pixels, and the octree's cost is per pixel; the averages stand
    for the edges' blends), and each pixel takes the nearest of its colours."""
    sample = image.reduce(2) if min(image.size) >= 2 else image
    palette = sample.quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


def _png(image: Image.Image) -> bytes:
    """``image`` as PNG: a palette picture (every board of more than :data:`QUANTISE_ABOVE` bytes) by
    :func:`pbem.render.png.png_of_palette_image` (ISA-L: a Reef Encounter board in 0.15 ms where Pillow's
    zlib level 3 took 0.8), any other by Pillow at zlib's level 6."""
    if image.mode == "P":
        return png_of_palette_image(image)
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=6)
    return out.getvalue()


def _size(attrs: dict[str, str]) -> tuple[float, float]:
    """The drawing's own size in CSS px: its width and height, else its viewBox."""
    try:
        return float(attrs["width"]), float(attrs["height"])
    except (KeyError, ValueError):
        box = [float(v) for v in attrs.get("viewBox", "0 0 300 150").replace(",", " ").split()]
        return box[2], box[3]


def _view_box(attrs: dict[str, str]) -> tuple[float, float, float, float]:
    """The drawing's viewBox (its units), else its own size."""
    try:
        x, y, w, h = (float(v) for v in attrs["viewBox"].replace(",", " ").split())
        return x, y, w, h
    except (KeyError, ValueError):
        w, h = _size(attrs)
        return 0.0, 0.0, w, h


@lru_cache(maxsize=2)
def _fonts(cjk: bool) -> list[str]:
    wanted = LATIN_FONTS + (CJK_FONTS if cjk else ())
    found = [str(d / f) for f in wanted for d in FONT_DIRS if (d / f).is_file()]
    if not found:
        raise FileNotFoundError(
            "no font for the board pictures: install Debian's fonts-dejavu-core (scripts/system-deps.sh)"
        )
    return found


def _quantise(png: bytes) -> bytes:
    """The picture reduced to a palette (:func:`_reduced`): at 40 % of the weight, looking the same."""
    with Image.open(io.BytesIO(png)) as image:
        return _png(_reduced(image.convert("RGB")))
