"""The mail rendering of a report: the stored web page made safe for Gmail, Outlook and the rest.

A report is rendered once, as the web page (inline SVG boards, one ``<style>``). Mail clients strip
``<svg>`` and ``<style>``, and Outlook on Windows knows no flex, grid or CSS variables, so the mail
carries a second rendering of the same page, made here:

- every ``<svg data-picture="NAME" aria-label="…">`` (a board: the games mark theirs) becomes a PNG
  picture, ``<img src="cid:…" alt="…" width="…">``, drawn by resvg from that very SVG at twice the
  pixels it is shown at (sharp on a phone), and sent in the mail's ``multipart/related``;
- every other ``<svg>`` (small icons beside words that say the same) is dropped;
- the web page's ``<style data-web>`` blocks (flex, media queries: web only) are dropped, and the rest
  of the CSS is inlined into ``style`` attributes by ``css-inline``; no ``<style>`` is left.

The templates write every fact as words too (each piece, each holding), so the mail still says it all
with pictures off. A picture is a pure function of its SVG: it is rendered once per process for every
seat and turn that draws the same board (cached by content), and the same report mails the same bytes.

A board drawing whose pieces are marked, each a ``<g data-sprite="x y w h">`` after everything else, is
drawn in layers: the drawing without its pieces (the board's spaces, labels: the same turn after turn,
game after game) is drawn by resvg once per process, each piece once where it stands, and the picture
is those pixels laid over each other with Pillow, then reduced to a palette. A turn pays for its moved
pieces and the palette, not for the board: 6 ms where resvg took 40 for a Reef Encounter board. The
caches are keyed by the drawing's content only (a seat's drawing that differs is another key), hold
nothing but what that drawing shows, and live in the process (a tick's jobs draw a board set once each).
"""

from __future__ import annotations

import base64
import html as htmllib
import io
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import css_inline
import resvg_py
from PIL import Image

from pbem.codec import sha256_hex

#: the widest a picture is shown (CSS px): the mail is some 600 px wide with its padding
MAX_WIDTH = 560
#: pixels per shown pixel: sharp on a phone's or laptop's dense screen
DENSITY = 2
#: a picture heavier than this is reduced to a palette (flat colours: it looks the same, weighs half or
#: less: a Reef Encounter board 18 KB -> 8.5 KB, the Mare Balticum map 160 KB -> 60 KB). The reduction
#: costs 8 ms a board, once per drawing; the bytes it saves are carried, base64'd and packed in every
#: seat's mail (packing a Reef Encounter mail took 1.9 ms at 110 KB), and a tick mails far more than it
#: draws.
QUANTISE_ABOVE = 8_000
#: fonts handed to resvg: loading the system's hundreds of fonts took most of a render. DejaVu covers
#: Latin, Greek and Cyrillic; Noto CJK is added only for a picture that writes Chinese (it is 20 MB).
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/opentype/noto"))
LATIN_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
CJK_FONTS = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Bold.ttc")

_SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", re.S)
_WEB_STYLE = re.compile(r"<style\b[^>]*\bdata-web\b[^>]*>.*?</style>\s*", re.S)
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S)
_ATTR = re.compile(r'\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"')
_SPRITE = re.compile(r'<g\b[^>]*?\bdata-sprite="([^"]*)"[^>]*>')
_G_TAG = re.compile(r"<(/?)g\b[^>]*?(/?)>")
_DEFS = re.compile(r"<defs\b.*?</defs>", re.S)
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


@dataclass(frozen=True)
class Picture:
    """One board as a PNG, named in the mail by its Content-ID (derived from its bytes)."""

    cid: str
    filename: str
    png: bytes
    width: int  # CSS px it is shown at
    height: int


@dataclass(frozen=True)
class MailPage:
    html: str
    pictures: tuple[Picture, ...]


@lru_cache(maxsize=64)
def mail_page(page: str) -> MailPage:
    """The mail rendering of the web report ``page`` (see the module's docstring). Cached: the public
    report goes to every observer."""
    all_styles = "\n".join(_STYLE.findall(page))
    pictures: dict[str, Picture] = {}

    def replace(match: re.Match[str]) -> str:
        svg = match.group(0)
        attrs = dict(_ATTR.findall(svg[: svg.index(">") + 1]))
        name = attrs.get("data-picture")
        if not name:
            return ""  # an icon: the words beside it say the same
        picture = picture_of(svg, all_styles, name)
        pictures.setdefault(picture.cid, picture)
        alt = htmllib.unescape(attrs.get("aria-label", name))
        return (
            f'<img src="cid:{picture.cid}" alt="{htmllib.escape(alt)}" width="{picture.width}" '
            f'height="{picture.height}" style="display:block;width:100%;max-width:{picture.width}px;'
            f'height:auto;border:0;margin:0 auto">'
        )

    body = _SVG.sub(replace, _WEB_STYLE.sub("", page))
    inlined = css_inline.CSSInliner(keep_style_tags=False, load_remote_stylesheets=False).inline(body)
    return MailPage(inlined.rstrip("\n") + "\n", tuple(pictures.values()))


def picture_of(svg: str, style_sheet: str, name: str) -> Picture:
    """The PNG of one board's SVG, drawn with the page's CSS; the same drawing is rendered once."""
    return _render(svg, style_sheet, name)


@lru_cache(maxsize=256)
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
        png = _encode(_layered(layers, attrs, style_sheet, shown_w * DENSITY, cjk))
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
    """One piece of a drawing: its SVG, and the box (CSS px of the drawing) it is drawn within."""

    box: tuple[float, float, float, float]
    body: str


@dataclass(frozen=True)
class Layers:
    """A drawing split in two: ``static`` (the drawing without its pieces: the board's spaces, labels,
    legend, the same turn after turn and game after game) and the ``sprites`` drawn over it in order."""

    static: str
    sprites: tuple[Sprite, ...]


def split_layers(svg: str) -> Layers | None:
    """``svg`` split into its static layer and its pieces, each piece a ``<g data-sprite="x y w h">``
    (its box in the drawing's units; nothing of it outside). The pieces must come last in the drawing,
    after everything else, so that drawing them over the rest is the same picture. ``None`` if the
    drawing has no pieces or they are not last: it is then drawn whole."""
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
        sprites.append(Sprite(box, svg[match.end() : end - len("</g>")]))  # type: ignore[arg-type]
        at = end + len(svg[end:]) - len(svg[end:].lstrip())
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


def _layered(layers: Layers, attrs: dict[str, str], style_sheet: str, width: int, cjk: bool) -> Image.Image:
    """The picture as the static layer's pixels (drawn once, cached) with every piece's pixels
    (each drawn once, cached) laid over them. Each piece is drawn on the picture's own pixel grid (its
    box widened to whole pixels), so it is the same pixels the whole drawing would have there."""
    image = _static_image(layers.static, style_sheet, width, cjk).copy()
    # where resvg puts the drawing's units on the picture's pixels: it stretches the viewBox over the
    # whole picture, whose height is rounded to whole pixels (so across and down differ a little)
    vx, vy, vw, vh = _view_box(attrs)
    sx, sy = image.width / vw, image.height / vh
    root = _root_attrs(attrs)
    defs = "".join(_DEFS.findall(layers.static))
    for sprite in layers.sprites:
        x, y, w, h = sprite.box
        left, top = math.floor((x - vx) * sx), math.floor((y - vy) * sy)
        right, bottom = math.ceil((x + w - vx) * sx), math.ceil((y + h - vy) * sy)
        box = (vx + left / sx, vy + top / sy, (right - left) / sx, (bottom - top) / sy)
        piece = _sprite_image(root, defs, sprite.body, box, (right - left, bottom - top), style_sheet, cjk)
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
    return image


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


@lru_cache(maxsize=16)
def _static_image(svg: str, style_sheet: str, width: int, cjk: bool) -> Image.Image:
    """A drawing's static layer as pixels: the same for every turn and game on that board set."""
    with Image.open(io.BytesIO(_draw(svg, style_sheet, width, cjk, background="#ffffff"))) as image:
        return image.convert("RGB")


@lru_cache(maxsize=2048)
def _sprite_image(
    root: str,
    defs: str,
    body: str,
    box: tuple[float, float, float, float],
    pixels: tuple[int, int],
    style_sheet: str,
    cjk: bool,
) -> Image.Image:
    """One piece as pixels, transparent around it: a piece at the same place looks the same in every
    turn and game, so it is drawn once. Its ``box`` (drawing units) is stretched over exactly ``pixels``:
    resvg rounds a drawing's own size to whole units before it scales, so the size is given in pixels
    and the units are mapped by the viewBox."""
    x, y, w, h = box
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg"{root} viewBox="{x!r} {y!r} {w!r} {h!r}" '
        f'width="{pixels[0]}" height="{pixels[1]}" preserveAspectRatio="none">{defs}{body}</svg>'
    )
    with Image.open(io.BytesIO(_draw(svg, style_sheet, pixels[0], cjk))) as image:
        return image.convert("RGBA")


def _encode(image: Image.Image) -> bytes:
    """A layered picture as PNG: reduced to a palette as :func:`_quantise` does."""
    reduced = image.quantize(colors=128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    reduced.save(out, "PNG", compress_level=6)
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
    """The picture with at most 128 colours, undithered: a board's flat fills and their anti-aliased
    edges, at 40 % of the weight. zlib level 6: level 9 saved 5 % more and took seven times longer."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    reduced = image.quantize(colors=128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    reduced.save(out, "PNG", compress_level=6)
    return out.getvalue()


def clear_caches() -> None:
    """Forget every drawn picture and layer (tests: a fresh process's first drawing)."""
    for cached in (mail_page, _render, _static_image, _sprite_image):
        cached.cache_clear()


def viewable(page: MailPage) -> str:
    """``page``'s HTML with each ``cid:`` picture written in as a data: URI: the mail as a mail client
    shows it, as one file a browser opens (``make demo``'s looks at the mail)."""
    html = page.html
    for picture in page.pictures:
        data = "data:image/png;base64," + base64.b64encode(picture.png).decode("ascii")
        html = html.replace(f"cid:{picture.cid}", data)
    return html
