"""A report mail as Gmail shows it: parsed back with ``email``, sanitised the way Gmail and Outlook treat
HTML, its ``cid:`` pictures resolved as data: URIs, ready for a browser (tests and ``make demo``)."""

from __future__ import annotations

import base64
import re
from email import message_from_bytes, policy
from email.message import EmailMessage

#: CSS properties Gmail and Outlook keep in a style attribute (what either drops is dropped here)
KEPT = {
    "background", "background-color", "border", "border-bottom", "border-collapse", "border-color",
    "border-left", "border-radius", "border-right", "border-style", "border-top", "border-width", "color",
    "display", "font", "font-family", "font-size", "font-style", "font-weight", "height", "line-height",
    "margin", "margin-bottom", "margin-left", "margin-right", "margin-top", "max-width", "min-width",
    "padding", "padding-bottom", "padding-left", "padding-right", "padding-top", "text-align",
    "text-decoration", "vertical-align", "white-space", "width", "word-break", "word-wrap",
}  # fmt: skip
#: values neither keeps: CSS variables, flex and grid layout
DROPPED_VALUES = re.compile(r"var\(|flex|grid", re.I)
_STRIPPED = re.compile(r"<(svg|style|script)\b.*?</\1\s*>", re.S | re.I)
_STYLE_ATTR = re.compile(r'\sstyle="([^"]*)"')


def parse(raw: bytes) -> tuple[EmailMessage, str, dict[str, bytes]]:
    """(message, its HTML, {Content-ID: picture bytes}) of a report mail."""
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    html_part = msg.get_body(("html",))
    assert html_part is not None
    pictures = {
        str(part["Content-ID"]).strip("<>"): part.get_content()
        for part in msg.walk()
        if part.get_content_maintype() == "image"
    }
    return msg, str(html_part.get_content()), pictures


def unsupported(html: str) -> list[str]:
    """What a mail client would drop from ``html``: elements and style declarations."""
    found = [m.group(0)[:60] for m in _STRIPPED.finditer(html)]
    for attr in _STYLE_ATTR.finditer(html):
        for declaration in filter(None, (d.strip() for d in attr.group(1).split(";"))):
            name, _, value = declaration.partition(":")
            if name.strip().lower() not in KEPT or DROPPED_VALUES.search(value):
                found.append(declaration)
    return found


def sanitise(html: str) -> str:
    """``html`` as Gmail keeps it: no svg, style or script; only the CSS declarations it supports."""

    def keep(attr: re.Match[str]) -> str:
        kept = []
        for declaration in filter(None, (d.strip() for d in attr.group(1).split(";"))):
            name, _, value = declaration.partition(":")
            if name.strip().lower() in KEPT and not DROPPED_VALUES.search(value):
                kept.append(declaration)
        return f' style="{";".join(kept)}"'

    return _STYLE_ATTR.sub(keep, _STRIPPED.sub("", html))


def with_pictures(html: str, pictures: dict[str, bytes]) -> str:
    """``html`` with each ``cid:`` picture as a data: URI, as a mail client shows it from the mail."""
    for cid, png in pictures.items():
        html = html.replace(f"cid:{cid}", "data:image/png;base64," + base64.b64encode(png).decode("ascii"))
    return html


def as_gmail_shows(raw: bytes) -> str:
    """The page a browser shows for report mail ``raw`` as Gmail would show it."""
    _msg, html, pictures = parse(raw)
    return with_pictures(sanitise(html), pictures)
