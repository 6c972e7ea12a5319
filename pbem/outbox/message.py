"""The skeleton every mail the host sends shares: its headers, its thread, its plain-text (and HTML)
content. The report mail is :mod:`pbem.outbox.compose`, the answers to players :mod:`pbem.outbox.replies`.

Every message carries ``Auto-Submitted`` (so well-behaved auto-responders stay quiet), our ``X-Loop`` and
``X-PBEM-Host`` headers (so our own mail, looped back, is never read as orders) and a Message-ID derived
from its dedupe key, so a message sent twice after a crash is recognisably the same message.
"""

from __future__ import annotations

import binascii
import re
from datetime import UTC, datetime, timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from functools import lru_cache

from pbem.core.codec import sha256_hex
from pbem.core.i18n import current_language
from pbem.outbox.flowed_text import flowed
from pbem.outbox.settings import MailSettings


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


def set_text(msg: EmailMessage, text: str) -> None:
    """``text`` as the message's plain-text body, format=flowed. The ``Content-Language`` written with
    the headers (:func:`header_fields`) is kept: ``set_content`` drops every ``Content-*`` header."""
    language = msg["Content-Language"]
    body = flowed(text)
    msg.set_content(body, cte=_cte(body), params={"format": "flowed"})
    if language is not None:
        with_language(msg, str(language))
