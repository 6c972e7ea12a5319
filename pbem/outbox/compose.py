"""Building the mail the host sends: reports (plain text + HTML) and replies to players.

Every message carries ``Auto-Submitted`` (so well-behaved auto-responders stay quiet), our ``X-Loop`` and
``X-PBEM-Host`` headers (so our own mail, looped back, is never read as orders) and a Message-ID derived
from its dedupe key, so a message sent twice after a crash is recognisably the same message.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from functools import lru_cache

from pbem.core import markers
from pbem.core.codec import sha256_hex
from pbem.core.i18n import N_, _, current_language, format_number
from pbem.outbox.calendar_part import calendar_parts, mixed_boundary
from pbem.outbox.flowed_text import flowed
from pbem.outbox.folding import alternative_header, folded
from pbem.outbox.settings import MailSettings
from pbem.render.mail_html import MailPage, mail_page
from pbem.render.pictures import Picture


def _domain(addr: str) -> str:
    return addr.rsplit("@", 1)[-1] if "@" in addr else "localhost"


_BREAKS = re.compile(r"[\r\n\t]+")


def _one_line(text: str, limit: int = 200) -> str:
    """Header-safe: no line breaks (header injection), bounded length."""
    # (printable text has none of the three: the pattern is not run on it)
    return (text if text.isprintable() else _BREAKS.sub(" ", text)).strip()[:limit]


def thread_root(settings: MailSettings, game_id: str, seat: str) -> str:
    """The Message-ID at the root of one seat's thread in one game: the welcome carries it, every
    later mail to the seat (reports, notices, replies) refers to it, so a mail program shows the
    whole game as one conversation. Stable: derived from the game, the seat and the host's domain."""
    return f"<thread.{sha256_hex(game_id + '/' + seat)[:24]}@{_domain(settings.from_addr)}>"


def header_fields(
    settings: MailSettings,
    *,
    to: str,
    subject: str,
    key: str,
    now: datetime,
    auto: str = "auto-generated",
    in_reply_to: str | None = None,
    references: str | None = None,
    thread: str | None = None,
    message_id: str | None = None,
    language: str | None = None,
) -> list[tuple[str, str]]:
    """The headers every outgoing message shares, in order, as (name, value).

    ``thread`` (:func:`thread_root`) threads the mail under the seat's root: ``In-Reply-To`` is the
    message answered (``in_reply_to``) or the root, ``References`` starts with the root (RFC 5322
    §3.6.4). ``message_id`` replaces the one derived from ``key`` (the welcome is the root itself).
    ``Content-Language`` is ``language``, by default the current one (:func:`pbem.core.i18n.language`),
    which the text is in.
    """
    moment = now.replace(tzinfo=UTC) if now.tzinfo is None else now
    own_id = (
        message_id or f"<{sha256_hex(key + '|' + moment.isoformat())[:40]}@{_domain(settings.from_addr)}>"
    )
    fields = [
        ("From", _from_field(settings.from_name, settings.from_addr)),
        ("To", to),
        ("Subject", _one_line(subject, 250)),
        ("Date", _date_field(moment, moment.utcoffset())),
        ("Message-ID", own_id),
    ]
    parent = in_reply_to or (thread if thread != own_id else None)
    if parent:
        chain = [thread] if thread and thread != own_id else []
        chain += [ref for ref in (references or "").split() if ref not in chain]
        chain += [parent] if parent not in chain else []
        fields.append(("In-Reply-To", _one_line(parent, 900)))
        fields.append(("References", _references(chain)))
    fields += [("Auto-Submitted", auto), ("X-Loop", settings.loop_tag), ("X-PBEM-Host", settings.from_addr)]
    fields.append(("Content-Language", language or current_language()))
    return fields


@lru_cache(maxsize=8)
def _from_field(name: str, address: str) -> str:
    """The From header's value: the host's, the same in every mail (a function of these two alone)."""
    return formataddr((name, address))


@lru_cache(maxsize=8)
def _date_field(moment: datetime, offset: timedelta | None) -> str:
    """The Date header's value: a pass composes all its mails at one moment. A function of the moment
    and its offset from UTC (in the key: one instant in two zones is one datetime key, two Dates)."""
    return format_datetime(moment)


def with_language(msg: EmailMessage, language: str | None = None) -> EmailMessage:
    """``msg`` saying which language it is in (default: the current one). Called once its content is
    set: ``set_content`` drops every ``Content-*`` header, this one too."""
    del msg["Content-Language"]
    msg["Content-Language"] = language or current_language()
    return msg


def _references(chain: list[str], limit: int = 900) -> str:
    """``References`` within ``limit`` characters: the root and the latest ids kept, middle ones
    dropped first (as RFC 5322 §3.6.4 allows), so a long conversation cannot grow the header."""
    kept = [_one_line(ref, 300) for ref in chain if ref.startswith("<") and ref.endswith(">")]
    while len(" ".join(kept)) > limit and len(kept) > 2:
        del kept[1]
    return " ".join(kept)[:limit]


def new_message(fields: list[tuple[str, str]]) -> EmailMessage:
    """A message with ``fields`` (:func:`header_fields`) as its headers; the caller sets the content."""
    msg = EmailMessage()
    for name, value in fields:
        msg[name] = Address(addr_spec=value) if name == "To" else value
    return msg


def _cte(text: str) -> str:
    """7bit when the text allows it, else quoted-printable: 8-bit bodies need an SMTP extension that
    not every relay offers, and QP keeps the text readable in the raw message."""
    plain = text.isascii() and max(map(len, text.split("\n"))) <= 900
    return "7bit" if plain else "quoted-printable"


def _add_html(msg: EmailMessage, html: str) -> None:
    """``html`` as the preferred alternative. Quoted-printable is encoded by C-coded ``binascii``
    and set as the part's payload already encoded: the email package's own encoder is pure Python and
    took most of a report mail's composing (a report page is some 60 KB). The part has the headers
    ``add_alternative`` writes and decodes to the same text; only its soft line breaks may fall a few
    characters apart."""
    cte = _cte(html)
    if cte != "quoted-printable":
        msg.add_alternative(html, subtype="html", cte=cte)
        return
    msg.make_alternative()
    part = EmailMessage(policy=msg.policy)
    part.set_content("", subtype="html", cte="7bit")  # the headers add_alternative writes
    part.replace_header("Content-Transfer-Encoding", cte)
    part.set_payload(binascii.b2a_qp(html.encode("utf-8"), istext=True).decode("ascii"))
    msg.attach(part)


def subject_line(game_id: str, *parts: str) -> str:
    """A subject that stays readable in a list of mails: ``[pbem] reef-7 · turn 12 · your move``."""
    return " · ".join([f"[pbem] {game_id}", *[p for p in parts if p]])


def report_subject(game_id: str, turn: int, seat: str, *, your_move: bool = False) -> str:
    """``[pbem] reef-7 · turn 12 · your move`` (``report`` when nothing is asked of the seat,
    ``public report`` for observers)."""
    what = _("public report") if not seat else _("your move") if your_move else _("report")
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
    calendars: Sequence[str] = (),
    shared: list[bytes] | None = None,
) -> bytes:
    """A report as the bytes of a multipart/alternative message: the plain text first, then the mail
    rendering of the web page ``html`` (:func:`pbem.render.mail_html.mail_page`: CSS inlined, boards as PNG
    pictures in a multipart/related beside it), preferred; CRLF line breaks, ready for SMTP.
    ``calendars``: the seat's deadline events (:mod:`pbem.render.calendar`), as ``text/calendar`` parts
    beside it, in a ``multipart/mixed`` whose first part is the alternative.

    Written out here rather than built as an :class:`EmailMessage`: a host sends one per seat per turn,
    and the email package's header objects and generator took 1.5 ms a mail, four fifths of it
    overhead around the one costly step, the quoted-printable encoding (C-coded ``binascii`` here, as
    in :func:`_add_html`). The structure is the one ``set_content`` and ``add_alternative`` write, and
    the tests parse it back with the email package. The boundary comes from the Message-ID, so the same
    report mails the same bytes. ``shared``: given a list, the large pieces of the message other seats'
    mails of the turn hold too (the table's quoted-printable, each picture's base64) are put in it, in
    the order they come in the message, for the outbox's packing (:func:`pbem.core.codec.pack_bytes_sharing`).
    """
    fields = header_fields(
        settings,
        to=to,
        subject=report_subject(game_id, turn, seat, your_move=markers.BEGIN in text),
        key=key,
        now=now,
        thread=thread_root(settings, game_id, seat) if seat else None,
    )
    page = mail_page(html)
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


def set_text(msg: EmailMessage, text: str) -> None:
    """``text`` as the message's plain-text body, format=flowed. The ``Content-Language`` written with
    the headers (:func:`header_fields`) is kept: ``set_content`` drops every ``Content-*`` header."""
    language = msg["Content-Language"]
    body = flowed(text)
    msg.set_content(body, cte=_cte(body), params={"format": "flowed"})
    if language is not None:
        with_language(msg, str(language))


def reply_message(
    settings: MailSettings,
    original_subject: str,
    original_id: str,
    original_refs: str,
    *,
    to: str,
    key: str,
    subject: str | None,
    body: str,
    now: datetime,
    html: str | None = None,
    attachment: tuple[str, str] | None = None,
    thread: str | None = None,
) -> EmailMessage:
    """An answer to one inbound message, to its sender only: under the player's own subject with
    ``Re:`` (``subject`` only when theirs is empty), threaded under their message and, when the game
    and seat are known, under the seat's thread (``thread``)."""
    base = _one_line(original_subject)
    if base:
        subject = base if re.match(r"(?i)re\s*:", base) else f"Re: {base}"
    elif subject is None:
        subject = _("Re: your message")
    msg = new_message(
        header_fields(
            settings,
            to=to,
            subject=subject,
            key=key,
            now=now,
            auto="auto-replied",
            in_reply_to=original_id or None,
            references=original_refs or None,
            thread=thread,
        )
    )
    set_text(msg, body)
    if html is not None:
        _add_html(msg, html)
    if attachment is not None:
        name, content = attachment
        msg.add_attachment(content, subtype="plain", filename=name, cte=_cte(content))
    return with_language(msg)


# ------------------------------------------------------------------------------------ reply bodies

#: the English original (a gettext message): answers show it through :func:`how_to`
HOW_TO = N_("""\
How to send orders: write them in the body of a plain-text mail (or attach them as a .yaml file):

    game: GAME-ID
    player: YOUR-SEAT
    turn: N
    password: YOUR-PASSWORD
    orders:
      - ...

Other things you can ask for: put one word on the first line (or in the subject), then the game, player
and password lines:
    report     your latest report again (add "turn: N" for an older one)
    template   the order template of your next decision
""")


def how_to() -> str:
    """:data:`HOW_TO` in the current language."""
    return _(HOW_TO)


def accepted_body(
    game_id: str, seat: str, turn: int | None, receipt: str, orders_yaml: str, canonical: str
) -> str:
    if turn is not None:
        head = _(
            "Your orders for {game}, turn {turn}, seat {seat}, are accepted.",
            game=game_id,
            turn=turn,
            seat=seat,
        )
    else:
        head = _("Your orders for {game}, seat {seat}, are accepted.", game=game_id, seat=seat)
    return (
        f"{head}\n\n"
        + _("Receipt: {receipt}", receipt=receipt)
        + "\n"
        + _("(the SHA-256 of the canonical form of your orders below: keep it to prove later what you sent)")
        + "\n\n"
        + _("Your orders, as the host read them:")
        + f"\n\n{_indent(orders_yaml)}\n\n"
        + _("Canonical form (the receipt is its SHA-256):")
        + f"\n\n{_indent(canonical)}\n\n"
        + _("A later message for the same turn replaces these orders until the turn is resolved.")
        + "\n"
    )


def rejected_body(errors: list[str], origin: str) -> str:
    if origin == "body":
        head = _("Your orders (read from the body) were NOT accepted:")
    elif origin.startswith("attachment "):
        head = _(
            "Your orders (read from the attachment {name}) were NOT accepted:",
            name=origin.removeprefix("attachment "),
        )
    elif origin == "forwarded message":
        head = _("Your orders (read from the forwarded message) were NOT accepted:")
    elif origin:
        head = _("Your orders (read from the {origin}) were NOT accepted:", origin=origin)
    else:
        head = _("Your orders were NOT accepted:")
    return (
        f"{head}\n\n{_bullets(errors)}\n\n"
        + _(
            "Nothing changed: orders accepted earlier for this turn, if any, still stand. "
            "Please correct the orders and send them again."
        )
        + "\n"
    )


def refused_body(errors: list[str]) -> str:
    return _("Your request was not carried out:") + f"\n\n{_bullets(errors)}\n\n" + how_to()


def _bullets(errors: list[str]) -> str:
    return "\n".join(f"  - {e}" for e in errors) or "  - " + _("(no reason given)")


def html_only_body() -> str:
    return (
        _("Your message held only HTML, and orders are read from plain text.")
        + "\n\n"
        + _(
            "Please send your orders again as plain text: switch your mail program to plain text for this "
            "message, or attach the orders as a .yaml or .txt file. Nothing was stored."
        )
        + "\n\n"
        + how_to()
    )


def empty_body() -> str:
    return (
        _("Your message held no orders and no command that the host could read. Nothing was stored.")
        + "\n\n"
        + how_to()
    )


def too_large_body(size: int, limit: int) -> str:
    return (
        _(
            "Your message is {size} bytes; the host reads messages of up to {limit} bytes. "
            "Nothing was stored. Please send the orders alone, as plain text.",
            size=format_number(size),
            limit=format_number(limit),
        )
        + "\n"
    )


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else "" for line in text.rstrip("\n").split("\n"))
