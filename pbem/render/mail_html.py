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

The boards' pictures are drawn by :mod:`pbem.render.pictures`.
"""

from __future__ import annotations

import base64
import html as htmllib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import css_inline

from pbem.core import caches
from pbem.render.pictures import Picture, picture_of

_WEB_ATTR = re.compile(r"\sdata-web\b")
_ATTR = re.compile(r'\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)="([^"]*)"')


@dataclass(frozen=True)
class MailPage:
    html: str
    pictures: tuple[Picture, ...]
    #: ``html`` in pieces (their join is ``html``; empty: one piece): the middle one, the table, is the
    #: same string object in the mail page of every seat of a turn, so what is made of it alone (its
    #: quoted-printable, :mod:`pbem.outbox.compose`) can be made once for all of them
    parts: tuple[str, ...] = ()


#: a tag: (the whole, "/" of an end tag, its name, the rest: ends in "/" when self-closed); greedy (a lazy
#: ``[^>]*?(/?)>`` finds the same tags at twice the cost)
_TAG = re.compile(r"(<(/?)([a-zA-Z][a-zA-Z0-9-]*)\b([^>]*)>)")
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


def mail_page(page: str, table: slice | None = None) -> MailPage:
    """The mail rendering of the web report ``page`` (see the module's docstring). Cached: the public
    report goes to every observer (:func:`_mail_split`, :func:`_mail_whole`).

    ``table``: where the page holds its table (``page[table]``), as the renderer wrote it and the
    report row keeps it (:func:`pbem.render.tables.render_located`, ``ReportRow.table_at``). The table
    is most of the page, and the same in every seat's page of a turn while each page is another (its
    own block), so the table is made mail once (:func:`_mail_segment`, cached by what it depends on)
    and the rest of each page around it. The table is inlined inside the elements that enclose it in
    the page (the frame, the wrapper), so a selector that reaches into it from them (``td.frame p``)
    styles it as in the whole page; a selector that depends on siblings or positions (``+``, ``~``,
    ``:first-child``) could not be told apart that way, and a page whose CSS has one is made mail
    whole, as is a page whose table is not known (``None``: a report stored before it was kept). The
    two ways make the same bytes: ``tests/mail/test_report_mail.py`` checks it for every game.

    The table is handed on as the same string object as the one seen before with the same text
    (:func:`_shared_table`), so that the caches after it, keyed by it, find it by identity, with its
    hash kept, rather than hashing and comparing a 60,000-character table again at each step."""
    if table is None or table.step is not None or not 0 <= table.start <= table.stop <= len(page):
        return _mail_whole(page)  # no table known
    segment = _shared_table(page, table)
    if segment is None:
        return _mail_whole(page)  # a table with CSS of its own
    before, after = page[: table.start], page[table.stop :]
    if _MARK in before or _MARK in after:  # (the mark has no "<" or ">": it cannot straddle them)
        return _mail_whole(page)
    return _mail_split(before, segment, after)


#: the tables (:func:`mail_page`'s segments) seen last, each kept as itself (``None``: one that cannot
#: be made mail on its own): a seat's table equal to one of them is handed that one
_TABLES_KEPT = 8
_TABLES = caches.named("mail-tables-seen", _TABLES_KEPT)


def _shared_table(page: str, table: slice) -> str | None:
    """``page[table]``, as the equal table seen before if there is one; ``None`` for a table that cannot
    be made mail on its own: one with a ``<style>`` of its own, or with the mark that stands for it
    (:data:`_MARK`). A table seen before is compared where the page holds it, not cut out and hashed
    (a 60,000-character table, two bytes a character, took 27 µs to cut and hash, 2 µs to compare), and
    each table is looked into for those once."""
    size = table.stop - table.start
    with caches.lock("mail-tables-seen"):
        for kept in list(_TABLES):  # (a copy: a table found is read again, which makes it the newest)
            if len(kept) == size and page.startswith(kept, table.start):
                return _TABLES.get(kept)  # type: ignore[no-any-return]
        segment = page[table]
        usable = None if "<style" in segment or _MARK in segment else segment
        _TABLES[segment] = usable
        return usable


@caches.memo("mail-pages-split", 64)
def _mail_split(before: str, segment: str, after: str) -> MailPage:
    """The mail page of ``before + segment + after`` (:func:`mail_page`), its table ``segment`` made
    mail on its own (:func:`_mail_segment`) and the rest around it."""
    before_styles, before_css, before = _style_blocks(before)
    after_styles, after_css, after = _style_blocks(after)
    all_styles = "\n".join([*before_styles, *after_styles])
    css = "\n".join([*before_css, *after_css])  # what the inliner takes from the page
    pictures: dict[str, Picture] = {}
    before = _replace_svgs(before, _picture_tag(all_styles, pictures))
    enclosing = _open_elements(before)
    if enclosing is None or not _context_free(css, enclosing):
        return _mail_whole(before + segment + after)
    table = _mail_segment(segment, enclosing, all_styles, css)
    for picture in table.pictures:
        pictures.setdefault(picture.cid, picture)
    after = _replace_svgs(after, _picture_tag(all_styles, pictures))
    inlined = _inliner().inline(before + _HOLE + after)
    # the inliner's page around the table, then the table, then the rest, its line breaks at the end
    # made one (as ``inlined.rstrip("\n").replace(_HOLE, table.html) + "\n"`` would: the hole stops
    # the stripping either way)
    hole = inlined.index(_HOLE)
    parts = (inlined[:hole], table.html, inlined[hole + len(_HOLE) :].rstrip("\n") + "\n")
    return MailPage("".join(parts), tuple(pictures.values()), parts)


@caches.memo("mail-pages-whole", 16)
def _mail_whole(page: str) -> MailPage:
    """The mail rendering of ``page`` in one piece: its boards drawn, its icons dropped, its CSS
    inlined over the whole page."""
    styles, _css, mail = _style_blocks(page)
    all_styles = "\n".join(styles)
    pictures: dict[str, Picture] = {}
    body = _replace_svgs(mail, _picture_tag(all_styles, pictures))
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


def _style_blocks(html: str) -> tuple[list[str], list[str], str]:
    """(the content of every ``<style>`` of ``html``, of each but the ``<style data-web>`` ones (the
    web page's flex and media queries), ``html`` without those blocks and the white space after each),
    in one look at the page."""
    styles, kept, pieces, at = [], [], [], 0
    for start, tag_end, end in _elements(html, "style"):
        styles.append(html[tag_end : end - len("</style>")])
        if _WEB_ATTR.search(html, start, tag_end):
            pieces.append(html[at:start])
            at = len(html) - len(html[end:].lstrip())
        else:
            kept.append(styles[-1])
    return styles, kept, "".join(pieces) + html[at:] if pieces else html


def _replace_svgs(html: str, replace: Callable[[str], str]) -> str:
    """``html`` with each ``<svg>…</svg>`` replaced by ``replace(it)``, each without
    ``data-picture="`` in its tag (an icon: :func:`_picture_tag` drops it) by nothing at once. An
    icon dropped (replaced by nothing) takes a ``<br>`` right after it along: it stood on a line of its
    own, which would be left empty (the open sea's spaces: a heading, a blank line, then their words)."""
    pieces, at = [], 0
    for start, tag_end, end in _elements(html, "svg"):
        shown = replace(html[start:end]) if html.find('data-picture="', start, tag_end) >= 0 else ""
        pieces += [html[at:start], shown]
        at = end + 4 if not shown and html.startswith("<br>", end) else end
    return "".join(pieces) + html[at:] if pieces else html


@caches.memo("mail-page-segments", 16)
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
    for text, closing, name, rest in _TAG.findall(html, body + len("</head>")):
        name = name.lower()
        if closing:
            if not stack or stack[-1][0] != name:
                return None  # an element closed by another's end: the parser's rules, not ours
            stack.pop()
        elif not rest.endswith("/") and name not in _VOID:
            stack.append((name, text))
    return root.group(0) + "".join(text for _name, text in stack)


@caches.memo("mail-css-context-free", 64)
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
    name = _TAG.match(tag).group(3).lower()  # type: ignore[union-attr]
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
        tag = svg[: svg.index(">") + 1]
        if 'data-picture="' not in tag:  # (what the pattern below needs to find one: seen at once)
            return ""  # an icon: the words beside it say the same
        attrs = dict(_ATTR.findall(tag))
        name = attrs.get("data-picture")
        if not name:
            return ""
        picture = picture_of(svg, all_styles, name)
        pictures.setdefault(picture.cid, picture)
        alt = htmllib.unescape(attrs.get("aria-label", name))
        return (
            f'<img src="cid:{picture.cid}" alt="{htmllib.escape(alt)}" width="{picture.width}" '
            f'height="{picture.height}" style="display:block;width:100%;max-width:{picture.width}px;'
            f'height:auto;border:0;margin:0 auto">'
        )

    return replace


@lru_cache(maxsize=1)
def _inliner() -> css_inline.CSSInliner:
    """The mail's CSS inliner: the page's own ``<style>`` only (nothing fetched), none left."""
    return css_inline.CSSInliner(keep_style_tags=False, load_remote_stylesheets=False)


def viewable(page: MailPage) -> str:
    """``page``'s HTML with each ``cid:`` picture written in as a data: URI: the mail as a mail client
    shows it, as one file a browser opens (``make demo``'s looks at the mail)."""
    html = page.html
    for picture in page.pictures:
        data = "data:image/png;base64," + base64.b64encode(picture.png).decode("ascii")
        html = html.replace(f"cid:{picture.cid}", data)
    return html
