"""The report mail: a report's plain text and the mail rendering of its page, written out as the bytes
of a multipart/alternative message (:func:`report_mail`). Its headers are every mail's
(:mod:`pbem.outbox.message`).

A report mail alone is written out by hand as bytes, by one function, :func:`report_mail` (which says
what that buys, measured, and the plain alternative); every other mail is an :class:`EmailMessage`
(:mod:`pbem.outbox.message`, :mod:`pbem.outbox.replies`).
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache

from pbem.core import markers
from pbem.core.codec import sha256_hex
from pbem.core.i18n import _
from pbem.outbox.calendar_part import calendar_parts, mixed_boundary
from pbem.outbox.flowed_text import flowed
from pbem.outbox.folding import alternative_header, folded
from pbem.outbox.message import _cte, header_fields, subject_line, thread_root
from pbem.outbox.settings import MailSettings
from pbem.render.mail_html import MailPage, mail_page
from pbem.render.pictures import Picture

#: the ``turn:`` line of an order template (the first one after its BEGIN marker)
_TEMPLATE_TURN = re.compile(r"^turn:[ \t]*(\d+)", re.MULTILINE)


def template_turn(text: str) -> int | None:
    """The turn the order template in a report's ``text`` is for (its ``turn:`` line); ``None`` when the
    report carries no template."""
    at = text.find(markers.BEGIN)
    found = _TEMPLATE_TURN.search(text, at) if at >= 0 else None
    return int(found.group(1)) if found else None


def report_subject(game_id: str, turn: int, seat: str, *, text: str = "") -> str:
    """``[pbem] reef-7 · turn 12 · report`` (``public report`` for observers). A report whose ``text``
    carries the seat's order template is named by the turn that template is for, the one the orders
    must name (``[pbem] reef-7 · turn 13 · your move`` after turn 12): a subject never invites orders
    for the turn just resolved."""
    due = template_turn(text) if seat else None
    if due is not None:
        return subject_line(game_id, _("turn {turn}", turn=due), _("your move"))
    what = _("public report") if not seat else _("report")
    return subject_line(game_id, _("turn {turn}", turn=turn), what)


def report_mail(
    settings: MailSettings,
    *,
    to: str,
    key: str,
    game_id: str,
    turn: int,
    seat: str,
    text: str,
    html: str,
    now: datetime,
    table: slice | None = None,
    calendars: Sequence[str] = (),
    shared: list[bytes] | None = None,
) -> bytes:
    """A report as the bytes of a multipart/alternative message: the plain text first, then the mail
    rendering of the web page ``html`` (:func:`pbem.render.mail_html.mail_page`: CSS inlined, boards as PNG
    pictures in a multipart/related beside it), preferred; CRLF line breaks, ready for SMTP. ``table``:
    where ``html`` holds the turn's shared table (its report row's ``table_at``), ``None`` if not known.
    ``calendars``: the seat's deadline events (:mod:`pbem.render.calendar`), as ``text/calendar`` parts
    beside it, in a ``multipart/mixed`` whose first part is the alternative.

    Written out here (headers folded by :mod:`pbem.outbox.folding`, calendars added by
    :mod:`pbem.outbox.calendar_part`) rather than built as an :class:`EmailMessage`, the plain
    alternative (``set_content``, ``add_alternative``, ``add_related`` a picture, ``as_bytes`` with the
    SMTP policy): a host sends one per seat per turn, and over 162 seats' mails of the bot games that
    took 6.9 ms a mail, this 0.55 ms (the package's quoted-printable is pure Python; C-coded
    ``binascii`` here). The structure is the one the package writes, and the tests parse it back with
    the email package and hold it to the package's build of the same report. The boundary comes from
    the Message-ID, so the same
    report mails the same bytes. ``shared``: given a list, the large pieces of the message other seats'
    mails of the turn hold too (the table's quoted-printable, each picture's base64) are put in it, in
    the order they come in the message, for the outbox's packing (:func:`pbem.core.codec.pack_bytes_sharing`).
    """
    fields = header_fields(
        settings,
        to=to,
        subject=report_subject(game_id, turn, seat, text=text),
        key=key,
        now=now,
        thread=thread_root(settings, game_id, seat) if seat else None,
    )
    page = mail_page(html, table)
    boundary = "=_pbem_" + sha256_hex(dict(fields)["Message-ID"])[:32]
    texts = [_encoded_part("plain", flowed(text), flowed=True), _html_text_part(page)]
    related = _related_boundary(boundary)
    mixed = mixed_boundary(dict(fields)["Message-ID"]) if calendars else related
    # only a 7bit part can hold a boundary (quoted-printable writes every "=" as "=3D" and breaks
    # lines by "=" and a line break, so no "=_" is in it; base64 has neither): the others are not
    # searched (an HTML part is some 80 KB, searched twice)
    unsafe = [body for headers, body in texts if not headers.endswith(_QP_HEADER)]
    if any(b.encode() in body for body in unsafe for b in (boundary, related, mixed)):
        # encode that part too
        texts = [
            _encoded_part("plain", flowed(text), force_qp=True, flowed=True),
            _encoded_part("html", page.html, force_qp=True),
        ]
    parts = [texts[0], _html_part(texts[1], page.pictures, boundary)]
    if shared is not None:
        lined = _qp_lines(page.parts[1]) if len(page.parts) == 3 else None
        shared += [lined[1]] if lined is not None else []
        shared += [_picture_part(picture)[1] for picture in page.pictures]
    out = [folded(name, value) for name, value in fields]
    out.append(b"MIME-Version: 1.0\r\n")
    if not calendars:
        out += [alternative_header(boundary), b"\r\n", *_multipart(boundary, parts), b"\r\n"]
        return b"".join(out)
    # the report's alternative first, then each calendar: a multipart/mixed around them
    alternative = (alternative_header(boundary), _multipart(boundary, parts))
    # folded as alternative_header is: on one line it would be 79 characters, past RFC 5322's 78
    out += [f'Content-Type: multipart/mixed;\r\n boundary="{mixed}"\r\n\r\n'.encode("ascii")]
    out += [*_multipart(mixed, [alternative, *calendar_parts(calendars)]), b"\r\n"]
    return b"".join(out)


def _related_boundary(boundary: str) -> str:
    """The boundary of the HTML's multipart/related: neither it nor the outer one starts the other
    (a reader that matches delimiters by prefix would split at the wrong one)."""
    return boundary.replace("=_pbem_", "=_pbem_related_", 1)


def _multipart(boundary: str, parts: list[tuple[bytes, bytes | list[bytes]]]) -> list[bytes]:
    """The body of a multipart entity: each part after its delimiter, then the closing one. A part's
    body may be in pieces (a multipart inside: joined once, with the whole message)."""
    out: list[bytes] = []
    for headers, body in parts:
        # the line break before a delimiter belongs to the delimiter (RFC 2046), not to the part
        out += [b"--", boundary.encode(), b"\r\n", headers, b"\r\n"]
        out += body if isinstance(body, list) else [body]
        out.append(b"\r\n")
    out += [b"--", boundary.encode(), b"--"]
    return out


def _html_part(
    html: tuple[bytes, bytes], pictures: tuple[Picture, ...], boundary: str
) -> tuple[bytes, bytes | list[bytes]]:
    """The HTML alternative: the page alone, or (with board pictures) a multipart/related of the page
    and each picture, inline, named by its Content-ID (RFC 2387)."""
    if not pictures:
        return html
    inner = _related_boundary(boundary)
    parts: list[tuple[bytes, bytes | list[bytes]]] = [html]
    parts += [_picture_part(picture) for picture in pictures]
    headers = f'Content-Type: multipart/related; boundary="{inner}"; type="text/html"\r\n'
    return headers.encode("ascii"), _multipart(inner, parts)


@lru_cache(maxsize=256)
def _picture_part(picture: Picture) -> tuple[bytes, bytes]:
    """(headers, body) of one board picture's part. Cached by the picture (its PNG, name and size):
    the seats of a turn mostly carry the same pictures."""
    headers = (
        "Content-Type: image/png\r\n"
        "Content-Transfer-Encoding: base64\r\n"
        f"Content-ID: <{picture.cid}>\r\n"
        f'Content-Disposition: inline; filename="{picture.filename}"\r\n'
    )
    return headers.encode("ascii"), _base64_lines(picture.png)


def _base64_lines(data: bytes) -> bytes:
    """``data`` in base64 lines of 76 characters, CRLF-separated (RFC 2045)."""
    encoded = binascii.b2a_base64(data, newline=False)
    return b"\r\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))


def _html_text_part(page: MailPage) -> tuple[bytes, bytes]:
    """(headers, body) of the mail page's HTML, as ``_encoded_part("html", page.html)`` writes it, the
    quoted-printable of its table's whole lines made once for every seat (:func:`_qp_lines`).

    Quoted-printable encodes line by line (a line's soft breaks and its escapes depend on that line
    alone, ``binascii.b2a_qp`` resets at every line break), so the encoding of pieces that each end at
    a line break, joined, is the encoding of the whole; the table's lines are the same characters in
    every seat's page, so their encoding is too (``tests/mail/test_report_mail.py`` checks the two)."""
    lined = _qp_lines(page.parts[1]) if len(page.parts) == 3 else None
    if lined is None or _cte(page.html) != "quoted-printable":
        return _encoded_part("html", page.html)
    before, _table, after = page.parts
    first, lines, last = lined
    rest = last + after  # (nothing: the page ends with the table's last line break)
    end = b"" if not rest else _qp_by_line(rest if rest.endswith(("\n", "\r")) else rest + "\n")
    body = _qp_by_line(before + first) + lines + end
    return _text_headers("html", "quoted-printable"), body


@lru_cache(maxsize=16)
def _qp_lines(table: str) -> tuple[str, bytes, str] | None:
    """(``table`` up to its first line break, the quoted-printable of its whole lines after it, what
    follows its last line break); ``None`` for a table of fewer than two line breaks. Cached by the
    table, which is the same for every seat of a turn (a seat whose table differs has another key);
    nothing of a seat's page outside its table is in it."""
    first, last = table.find("\n") + 1, table.rfind("\n") + 1
    if first >= last:
        return None
    return table[:first], _qp(table[first:last]), table[last:]


def _qp(text: str) -> bytes:
    """The quoted-printable of ``text`` as :func:`_encoded_part` writes it, every line break a CRLF;
    ``text`` ends at a line break (the last piece of a part: given one if it has none)."""
    text = _line_feeds(text)
    return binascii.b2a_qp(text.encode("utf-8"), istext=True).replace(b"\n", b"\r\n")


def _qp_by_line(text: str) -> bytes:
    """:func:`_qp` of ``text`` (which ends at a line break), a line at a time, each line's encoding
    cached by the line: the seats of a turn share most lines of their pages outside the table too
    (the head, the frame, the outcome, the events), and a line's encoding is a function of it alone."""
    return b"".join([_qp_line(line) for line in _line_feeds(text).split("\n")[:-1]])


def _line_feeds(text: str) -> str:
    """``text`` with every line break (CRLF, CR) a LF, as the quoted-printable of a part is written."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@lru_cache(maxsize=4096)
def _qp_line(line: str) -> bytes:
    return _qp(line + "\n")


#: how the headers of a quoted-printable text part end (:func:`_text_headers`)
_QP_HEADER = b"Content-Transfer-Encoding: quoted-printable\r\n"


def _text_headers(subtype: str, cte: str, form: str = "") -> bytes:
    """The two headers of a text part (``form``: its Content-Type's parameter after the charset)."""
    headers = f'Content-Type: text/{subtype}; charset="utf-8"{form}\r\nContent-Transfer-Encoding: {cte}\r\n'
    return headers.encode("ascii")


def _encoded_part(
    subtype: str, content: str, *, force_qp: bool = False, flowed: bool = False
) -> tuple[bytes, bytes]:
    """(headers, body) of one text part, as ``set_content`` writes it: every line break a CRLF and one
    at the end; 7bit when the text allows it, else quoted-printable. ``flowed``: the content is
    format=flowed already (:func:`flowed`), and the Content-Type says so."""
    data = content.encode("utf-8")
    if b"\r" in data:  # (bytes break lines at these three alone, as splitlines does)
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    data = data if data.endswith(b"\n") else data + b"\n"
    cte = "quoted-printable" if force_qp else _cte(content)
    if cte == "quoted-printable":
        data = binascii.b2a_qp(data, istext=True)
    return _text_headers(subtype, cte, "; format=flowed" if flowed else ""), data.replace(b"\n", b"\r\n")
