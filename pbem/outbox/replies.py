"""The answers to one inbound message: :func:`reply_message`, to its sender only, and the bodies it
carries (orders accepted, rejected, refused; an empty, HTML-only or too large message; how to play)."""

from __future__ import annotations

import re
from datetime import datetime
from email.message import EmailMessage

from pbem.core.i18n import N_, _, format_number, ngettext
from pbem.outbox.message import (
    _add_html,
    _cte,
    _one_line,
    header_fields,
    new_message,
    set_text,
    with_language,
)
from pbem.outbox.settings import MailSettings


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
        ngettext(
            "Your message has {size} byte; the host reads messages of at most {limit}. "
            "Nothing was stored. Please send the orders alone, as plain text.",
            "Your message has {size} bytes; the host reads messages of at most {limit}. "
            "Nothing was stored. Please send the orders alone, as plain text.",
            size,
            size=format_number(size),
            limit=format_number(limit),
        )
        + "\n"
    )


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else "" for line in text.rstrip("\n").split("\n"))
