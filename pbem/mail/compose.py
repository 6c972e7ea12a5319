"""Building the mail the host sends: reports (plain text + HTML) and replies to players.

Every message carries ``Auto-Submitted`` (so well-behaved auto-responders stay quiet), our ``X-Loop`` and
``X-PBEM-Host`` headers (so our own mail, looped back, is never read as orders) and a Message-ID derived
from its dedupe key, so a message sent twice after a crash is recognisably the same message.
"""

from __future__ import annotations

import binascii
import re
from datetime import UTC, datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from pbem.codec import sha256_hex
from pbem.mail.settings import MailSettings


def _domain(addr: str) -> str:
    return addr.rsplit("@", 1)[-1] if "@" in addr else "localhost"


def _one_line(text: str, limit: int = 200) -> str:
    """Header-safe: no line breaks (header injection), bounded length."""
    return re.sub(r"[\r\n\t]+", " ", text).strip()[:limit]


def new_message(
    settings: MailSettings,
    *,
    to: str,
    subject: str,
    key: str,
    now: datetime,
    auto: str = "auto-generated",
    in_reply_to: str | None = None,
    references: str | None = None,
) -> EmailMessage:
    """The headers every outgoing message shares; the caller sets the content."""
    msg = EmailMessage()
    msg["From"] = formataddr((settings.from_name, settings.from_addr))
    msg["To"] = Address(addr_spec=to)
    msg["Subject"] = _one_line(subject, 250)
    moment = now.replace(tzinfo=UTC) if now.tzinfo is None else now
    msg["Date"] = format_datetime(moment)
    msg["Message-ID"] = f"<{sha256_hex(key + '|' + moment.isoformat())[:40]}@{_domain(settings.from_addr)}>"
    if in_reply_to:
        msg["In-Reply-To"] = _one_line(in_reply_to, 900)
        msg["References"] = _one_line(f"{references or ''} {in_reply_to}", 900)
    msg["Auto-Submitted"] = auto
    msg["X-Loop"] = settings.loop_tag
    msg["X-PBEM-Host"] = settings.from_addr
    return msg


def _cte(text: str) -> str:
    """7bit when the text allows it, else quoted-printable: 8-bit bodies need an SMTP extension that
    not every relay offers, and QP keeps the text readable in the raw message."""
    plain = text.isascii() and all(len(line) <= 900 for line in text.split("\n"))
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


def report_subject(game_id: str, turn: int, seat: str) -> str:
    """``[pbem reef-7] turn 12: report for red`` (``public report`` for observers)."""
    whom = f"report for {seat}" if seat else "public report"
    return f"[pbem {game_id}] turn {turn}: {whom}"


def report_message(
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
) -> EmailMessage:
    """A report as multipart/alternative: the plain text first, the self-contained HTML preferred."""
    msg = new_message(settings, to=to, subject=report_subject(game_id, turn, seat), key=key, now=now)
    msg.set_content(text, cte=_cte(text))
    _add_html(msg, html)
    return msg


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
) -> EmailMessage:
    """An answer to one inbound message, threaded under it, to its sender only."""
    if subject is None:
        base = _one_line(original_subject) or "your message"
        subject = base if base.lower().startswith("re:") else f"Re: {base}"
    msg = new_message(
        settings,
        to=to,
        subject=subject,
        key=key,
        now=now,
        auto="auto-replied",
        in_reply_to=original_id or None,
        references=original_refs or None,
    )
    msg.set_content(body, cte=_cte(body))
    if html is not None:
        _add_html(msg, html)
    if attachment is not None:
        name, content = attachment
        msg.add_attachment(content, subtype="plain", filename=name, cte=_cte(content))
    return msg


# ------------------------------------------------------------------------------------ reply bodies

HOW_TO = """\
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
"""


def accepted_body(
    game_id: str, seat: str, turn: int | None, receipt: str, orders_yaml: str, canonical: str
) -> str:
    turn_part = f", turn {turn}" if turn is not None else ""
    return (
        f"Your orders for {game_id}{turn_part}, seat {seat}, are accepted.\n\n"
        f"Receipt: {receipt}\n"
        "(the SHA-256 of the canonical form of your orders below: keep it to prove later what you sent)\n\n"
        f"Your orders, as the host read them:\n\n{_indent(orders_yaml)}\n\n"
        f"Canonical form (the receipt is its SHA-256):\n\n{_indent(canonical)}\n\n"
        "A later message for the same turn replaces these orders until the turn is resolved.\n"
    )


def rejected_body(errors: list[str], origin: str) -> str:
    where = f" (read from the {origin})" if origin else ""
    return (
        f"Your orders{where} were NOT accepted:\n\n{_bullets(errors)}\n\n"
        "Nothing changed: orders accepted earlier for this turn, if any, still stand. "
        "Please correct the orders and send them again.\n"
    )


def refused_body(errors: list[str]) -> str:
    return f"Your request was not carried out:\n\n{_bullets(errors)}\n\n" + HOW_TO


def _bullets(errors: list[str]) -> str:
    return "\n".join(f"  - {e}" for e in errors) or "  - (no reason given)"


HTML_ONLY_BODY = (
    "Your message held only HTML, and orders are read from plain text.\n\n"
    "Please send your orders again as plain text: switch your mail program to plain text for this "
    "message, or attach the orders as a .yaml or .txt file. Nothing was stored.\n\n" + HOW_TO
)

EMPTY_BODY = (
    "Your message held no orders and no command that the host could read. Nothing was stored.\n\n" + HOW_TO
)


def too_large_body(size: int, limit: int) -> str:
    return (
        f"Your message is {size:,} bytes; the host reads messages of up to {limit:,} bytes. "
        "Nothing was stored. Please send the orders alone, as plain text.\n"
    )


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else "" for line in text.rstrip("\n").split("\n"))
