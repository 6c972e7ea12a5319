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
from collections.abc import Callable, Iterator
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
#: less: the Mare Balticum map 160 KB -> 60 KB). The reduction costs 1 to 2 ms a board, once per
#: drawing (:func:`_reduced`); the bytes it saves are carried, base64'd and packed in every seat's mail,
#: and a tick mails far more than it draws.
QUANTISE_ABOVE = 8_000
#: the most colours a reduced picture has (a PNG palette's most: the index is a byte whatever the count)
COLOURS = 256
#: the most pixels a picture may have to be packed by zlib's fast level 3 (:func:`_png`): a Reef
#: Encounter board has 270,000, the Mare Balticum map 1.2 million
FAST_PNG_PIXELS = 400_000
#: fonts handed to resvg: loading the system's hundreds of fonts took most of a render. DejaVu covers
#: Latin, Greek and Cyrillic; Noto CJK is added only for a picture that writes Chinese (it is 20 MB).
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/opentype/noto"))
LATIN_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
CJK_FONTS = ("NotoSansCJK-Regular.ttc", "NotoSansCJK-Bold.ttc")

_WEB_ATTR = re.compile(r"\sdata-web\b")
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


#: the wrapper of a report's table (``templates/base.html.j2``): the part of the page every seat of a
#: turn mostly shares, made mail once (:func:`_mail_segment`)
TABLE_OPEN = '<div class="block" data-table>'
_DIV_TAG = re.compile(r"<(/?)div\b[^>]*>")
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*?(/?)>")
_HTML_TAG = re.compile(r"<html\b[^>]*>", re.I)
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_BLOCK = re.compile(r"\{[^{}]*\}")
_COMBINATOR = re.compile(r"\s*([+~>])\s*|\s+")
#: plain text standing in the page for its table while the rest is made mail (the inliner writes text
#: back as it is); a page that holds it is made mail whole
_MARK = "pbem-mail-table-b0d6c3e1"
_HOLE, _BEGIN, _END = _MARK + "-hole", _MARK + "-begin", _MARK + "-end"


@lru_cache(maxsize=64)
def mail_page(page: str) -> MailPage:
    """The mail rendering of the web report ``page`` (see the module's docstring). Cached: the public
    report goes to every observer.

    The page's table (inside ``<div class="block" data-table>``) is most of it, and the same string in
    every seat's page of a turn while each page is another (its own block), so the table is made mail
    once (:func:`_mail_segment`, cached by what it depends on) and the rest of each page around it.
    The table is inlined inside the elements that enclose it in the page (the frame, the wrapper), so
    a selector that reaches into it from them (``td.frame p``) styles it as in the whole page; a
    selector that depends on siblings or positions (``+``, ``~``, ``:first-child``) could not be told
    apart that way, and a page whose CSS has one is made mail whole. ``tests/mail/test_report_mail.py``
    checks the two ways agree for every game."""
    start = page.find(TABLE_OPEN)
    inner = start + len(TABLE_OPEN)
    close = _div_close(page, inner) if start >= 0 else None
    segment = page[inner:close] if close is not None else ""
    if close is None or "<style" in segment or _MARK in page:
        return _mail_whole(page)  # no table marked, or one with CSS of its own
    before, after = page[:inner], page[close:]
    all_styles = "\n".join([*_styles(before), *_styles(after)])
    before, after = _without_web_styles(before), _without_web_styles(after)
    css = "\n".join([*_styles(before), *_styles(after)])  # what the inliner takes from the page
    pictures: dict[str, Picture] = {}
    before = _replace_svgs(before, _picture_tag(all_styles, pictures))
    enclosing = _open_elements(before)
    if enclosing is None or not _context_free(css, enclosing):
        return _mail_whole(page)
    table = _mail_segment(segment, enclosing, all_styles, css)
    for picture in table.pictures:
        pictures.setdefault(picture.cid, picture)
    after = _replace_svgs(after, _picture_tag(all_styles, pictures))
    inlined = _inliner().inline(before + _HOLE + after)
    return MailPage(inlined.rstrip("\n").replace(_HOLE, table.html) + "\n", tuple(pictures.values()))


def _mail_whole(page: str) -> MailPage:
    """The mail rendering of ``page`` in one piece: its boards drawn, its icons dropped, its CSS
    inlined over the whole page."""
    all_styles = "\n".join(_styles(page))
    pictures: dict[str, Picture] = {}
    body = _replace_svgs(_without_web_styles(page), _picture_tag(all_styles, pictures))
    return MailPage(_inliner().inline(body).rstrip("\n") + "\n", tuple(pictures.values()))


def _elements(html: str, name: str) -> Iterator[tuple[int, int, int]]:
    """(start, end of the open tag, end) of each ``<name …>…</name>`` of ``html`` in turn, as the
    pattern ``<name\\b[^>]*>.*?</name>`` finds them: the first end tag ends it (neither SVG nor CSS
    nests). Found with ``str.find``: the pattern's lazy scan took half a millisecond over a page."""
    opening, closing = "<" + name, "</" + name + ">"
    at = 0
    while (start := html.find(opening, at)) >= 0:
        follows = html[start + len(opening) : start + len(opening) + 1]
        if follows.isalnum() or follows == "_":
            at = start + len(opening)  # another tag whose name starts the same
            continue
        tag_end = html.find(">", start) + 1
        end = html.find(closing, tag_end) if tag_end else -1
        if end < 0:
            return
        yield start, tag_end, end + len(closing)
        at = end + len(closing)


def _styles(html: str) -> list[str]:
    """The content of every ``<style>`` of ``html``."""
    return [html[tag_end : end - len("</style>")] for _start, tag_end, end in _elements(html, "style")]


def _without_web_styles(html: str) -> str:
    """``html`` without its ``<style data-web>`` blocks (and the white space after each)."""
    pieces, at = [], 0
    for start, tag_end, end in _elements(html, "style"):
        if _WEB_ATTR.search(html, start, tag_end):
            pieces.append(html[at:start])
            at = len(html) - len(html[end:].lstrip())
    return "".join(pieces) + html[at:] if pieces else html


def _replace_svgs(html: str, replace: Callable[[str], str]) -> str:
    """``html`` with each ``<svg>…</svg>`` replaced by ``replace(it)``."""
    pieces, at = [], 0
    for start, _tag_end, end in _elements(html, "svg"):
        pieces += [html[at:start], replace(html[start:end])]
        at = end
    return "".join(pieces) + html[at:] if pieces else html


@lru_cache(maxsize=16)
def _mail_segment(segment: str, enclosing: str, all_styles: str, css: str) -> MailPage:
    """A piece of a page (its table) made mail: its boards as pictures (drawn with the page's
    ``all_styles``), its icons dropped, the mail CSS ``css`` inlined into it as it stands inside the
    ``enclosing`` elements (their open tags, as the page writes them).

    Shared by the seats of a turn, and safe to: the result is a function of these four strings only
    (each is in the key), and a seat whose table differs (the table reads a view that differs) has
    another ``segment``, so another key; nothing of one seat's page outside its table is in it."""
    pictures: dict[str, Picture] = {}
    body = _replace_svgs(segment, _picture_tag(all_styles, pictures))
    root = enclosing.index(">") + 1  # the page's <html> tag, then its head (the CSS alone)
    document = f"{enclosing[:root]}<head><style>{css}</style></head>{enclosing[root:]}"
    inlined = _inliner().inline(document + _BEGIN + body + _END)
    html = inlined[inlined.index(_BEGIN) + len(_BEGIN) : inlined.index(_END)]
    return MailPage(html, tuple(pictures.values()))


def _open_elements(html: str) -> str | None:
    """The open tags, as written, of the elements that enclose the end of ``html`` (a page up to some
    point), outermost first; ``None`` unless that is certain: every element closed by its own end tag,
    no comment."""
    root = _HTML_TAG.search(html)
    body = html.find("</head>")
    if root is None or body < 0 or "<!--" in html[body:]:
        return None
    stack: list[tuple[str, str]] = []
    for tag in _TAG.finditer(html, body + len("</head>")):
        closing, name = tag.group(1), tag.group(2).lower()
        if closing:
            if not stack or stack[-1][0] != name:
                return None  # an element closed by another's end: the parser's rules, not ours
            stack.pop()
        elif not tag.group(3) and name not in _VOID:
            stack.append((name, tag.group(0)))
    return root.group(0) + "".join(text for _name, text in stack)


@lru_cache(maxsize=64)
def _context_free(css: str, enclosing: str) -> bool:
    """Whether ``css`` styles what is inside the ``enclosing`` elements (open tags) the same with and
    without the rest of the page around them: no selector of an element inside asks of one of those
    elements where it stands among its siblings (``td.frame:first-child p``, ``h1 + div p``). The
    siblings of anything inside are inside too, and the enclosing elements' own style is taken from
    the page, so ``section h2 + div`` is fine. Conservative: an at-rule, or a positional part of a
    selector (not its last) that could match an enclosing element, says no."""
    positional = _positional(css)
    if positional is None:
        return False
    elements = [_element(tag.group(0)) for tag in _TAG.finditer(enclosing)]
    return not any(_may_match(part, element) for part in positional for element in elements)


def _positional(css: str) -> tuple[str, ...] | None:
    """The compound selectors of ``css`` that depend on siblings or position; ``None`` for CSS with an
    at-rule (not followed here)."""
    selectors = _CSS_BLOCK.sub(",", _CSS_COMMENT.sub(" ", css))
    if "@" in selectors or "{" in selectors or "}" in selectors:
        return None
    found: list[str] = []
    for selector in selectors.split(","):
        parts = _COMBINATOR.split(selector.strip())  # compound, combinator (None: a space), compound…
        for at in range(0, len(parts) - 2, 2):  # not the last: the element styled, whose own style
            # is taken from the page around it when it encloses the table
            if ":" in parts[at] or (at and parts[at - 1] in ("+", "~")):
                found.append(parts[at])
    return tuple(found)


def _element(tag: str) -> tuple[str, frozenset[str], str]:
    """(name, classes, id) of an open tag."""
    attrs = dict(_ATTR.findall(tag))
    name = _TAG.match(tag).group(2).lower()  # type: ignore[union-attr]
    return name, frozenset(attrs.get("class", "").split()), attrs.get("id", "")


def _may_match(compound: str, element: tuple[str, frozenset[str], str]) -> bool:
    """Whether the compound selector could select ``element``: its type, classes and id do not rule it
    out (attribute tests and pseudo-classes are taken as matching)."""
    name, classes, ident = element
    plain = compound.split(":", 1)[0]
    kind = re.match(r"[a-zA-Z][\w-]*", plain)
    if kind and kind.group(0).lower() != name:
        return False
    if not set(re.findall(r"\.([\w-]+)", plain)) <= classes:
        return False
    ids = re.findall(r"#([\w-]+)", plain)
    return not ids or ids == [ident]


def _picture_tag(all_styles: str, pictures: dict[str, Picture]) -> Callable[[str], str]:
    """The replacement of one ``<svg>``: a board's picture tag (its picture added to ``pictures``),
    or nothing for an icon."""

    def replace(svg: str) -> str:
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

    return replace


def _div_close(html: str, start: int) -> int | None:
    """Where the end tag of the ``<div>`` whose content begins at ``start`` is."""
    depth = 1
    opening, close = html.find("<div", start), html.find("</div>", start)
    while close >= 0:
        if 0 <= opening < close:
            follows = html[opening + 4 : opening + 5]
            depth += 0 if follows.isalnum() or follows in "_-" else 1  # not <divider>
            opening = html.find("<div", opening + 4)
        else:
            depth -= 1
            if depth == 0:
                return close
            close = html.find("</div>", close + len("</div>"))
    return None


@lru_cache(maxsize=1)
def _inliner() -> css_inline.CSSInliner:
    """The mail's CSS inliner: the page's own ``<style>`` only (nothing fetched), none left."""
    return css_inline.CSSInliner(keep_style_tags=False, load_remote_stylesheets=False)


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
        png = _encode(*_layered(layers, attrs, style_sheet, shown_w * DENSITY, cjk))
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


def _layered(
    layers: Layers, attrs: dict[str, str], style_sheet: str, width: int, cjk: bool
) -> tuple[Image.Image, list[tuple[int, int, int]] | None, list[tuple[int, int, int, int]]]:
    """The picture as the static layer's pixels (drawn once, cached) with every piece's pixels
    (each drawn once, cached) laid over them, the static layer's colours (:func:`_static_image`) and
    the boxes (pixels) the pieces were laid in. Each
    piece is drawn on the picture's own pixel grid (its box widened to whole pixels), so it is the same
    pixels the whole drawing would have there."""
    static, colours = _static_image(layers.static, style_sheet, width, cjk)
    image = static.copy()
    laid: list[tuple[int, int, int, int]] = []
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
            laid.append((left + crop[0], top + crop[1], left + crop[2], top + crop[3]))
    return image, colours, laid


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
def _static_image(
    svg: str, style_sheet: str, width: int, cjk: bool
) -> tuple[Image.Image, list[tuple[int, int, int]] | None]:
    """A drawing's static layer as pixels (the same for every turn and game on that board set), and
    its colours when they are at most half of :data:`COLOURS` (a board's flat fills and their edges:
    41 on a Reef Encounter board; :func:`_encode` keeps them as they are)."""
    with Image.open(io.BytesIO(_draw(svg, style_sheet, width, cjk, background="#ffffff"))) as image:
        rgb = image.convert("RGB")
    found = rgb.getcolors(COLOURS // 2)  # half the palette at most: the pieces have the rest
    return rgb, None if found is None else sorted(colour for _count, colour in found)


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


def _encode(
    image: Image.Image, static: list[tuple[int, int, int]] | None, laid: list[tuple[int, int, int, int]]
) -> bytes:
    """A layered picture as PNG, reduced to a palette, undithered. Outside the pieces' boxes ``laid``
    it is its static layer, whose few colours (``static``) are in the palette as they are; the rest of
    the palette (up to :data:`COLOURS`) is the fast octree's of the pixels in those boxes (a quarter of
    the picture's on a Reef Encounter board: the octree's cost is per pixel), each pixel then taking
    the nearest colour: 2.1 ms a new board where the octree over every pixel took 3.3, and closer to
    the drawing (7 shades off at most on a Reef Encounter board where 17). A static layer of too many
    colours to keep (``None``) is reduced as a whole
    drawing is (:func:`_reduced`)."""
    if static is None or not laid:
        return _png(_reduced(image))
    pixels = b"".join(image.crop(box).tobytes() for box in laid)
    pieces = Image.frombytes("RGB", (len(pixels) // 3, 1), pixels)
    room = COLOURS - len(static)
    octree = pieces.quantize(room, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    colours = [c for rgb in static for c in rgb] + (octree.getpalette() or [])[: 3 * room]
    palette = Image.new("P", (1, 1))
    palette.putpalette(colours)
    return _png(image.quantize(palette=palette, dither=Image.Dither.NONE))


def _reduced(image: Image.Image) -> Image.Image:
    """``image`` with at most :data:`COLOURS` colours, undithered: a board's flat fills and their
    anti-aliased edges. The palette is the fast octree's of the picture at half its size, each 2 × 2
    pixels averaged (a quarter of the pixels, and the octree's cost is per pixel; the averages stand
    for the edges' blends), and each pixel takes the nearest of its colours."""
    sample = image.reduce(2) if min(image.size) >= 2 else image
    palette = sample.quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    return image.quantize(palette=palette, dither=Image.Dither.NONE)


def _png(image: Image.Image) -> bytes:
    """``image`` as PNG. zlib level 3 (the last of its fast levels) for a picture of up to
    :data:`FAST_PNG_PIXELS`: a Reef Encounter board in 1.1 ms where level 6 took 1.7, at 10.5 KB where
    8.5. A larger one (a map) at level 6: there the fifth more bytes would be 10 KB a picture, carried
    in every seat's mail, toward the limit of what a mail may weigh."""
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=3 if image.width * image.height <= FAST_PNG_PIXELS else 6)
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


def clear_caches() -> None:
    """Forget every drawn picture and layer (tests: a fresh process's first drawing)."""
    for cached in (mail_page, _mail_segment, _render, _static_image, _sprite_image):
        cached.cache_clear()


def viewable(page: MailPage) -> str:
    """``page``'s HTML with each ``cid:`` picture written in as a data: URI: the mail as a mail client
    shows it, as one file a browser opens (``make demo``'s looks at the mail)."""
    html = page.html
    for picture in page.pictures:
        data = "data:image/png;base64," + base64.b64encode(picture.png).decode("ascii")
        html = html.replace(f"cid:{picture.cid}", data)
    return html
