"""What one inbound mail comes to (:class:`Plan`: its outcome and the answer it is owed) and that answer
composed: under the mail's Subject and threaded under it, or, for a stranger (:mod:`.backscatter`),
in the host's words only. :mod:`.inbound` decides the plan and records it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from sqlmodel import Session

from pbem.core.codec import sha256_hex
from pbem.mail import backscatter, poison, reading, redaction
from pbem.outbox import replies
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings

log = logging.getLogger("pbem.mail")


def reply_key(inbound_key: str, prefix: str = "reply:") -> str:
    """The answer's dedupe key; ``prefix`` marks the answers :mod:`.backscatter` counts."""
    return prefix + sha256_hex(inbound_key)


def for_stranger(plan: Plan) -> Plan:
    """The answer to a stranger (:mod:`.backscatter`): the host's fixed texts as they are, anything
    else (which may repeat the mail's words: a refusal, a password request's game and seat) replaced
    by :func:`~pbem.mail.backscatter.stranger_body`. Never their Subject or their Message-ID."""
    if plan.echo_free:
        return replace(
            plan, reply_subject=plan.reply_subject or backscatter.stranger_subject(), threaded=False
        )
    return replace(
        plan,
        reply_subject=backscatter.stranger_subject(),
        reply_body=backscatter.stranger_body(),
        reply_html=None,
        attachment=None,
        threaded=False,
    )


@dataclass
class Plan:
    """What became of a mail (``outcome``, ``reason``: as :class:`pbem.mail.inbound.Handled` says) and
    the answer it is owed (none when ``reply_body`` is ``None``)."""

    outcome: str
    reason: str = ""
    reply_subject: str | None = None
    reply_body: str | None = None
    reply_html: str | None = None
    attachment: tuple[str, str] | None = None
    submission_id: int | None = None
    game_id: str | None = None
    language: str | None = None  # the reply's (its reader's); None: English
    seat: str | None = None  # the seat the message was for, when known: the reply joins its thread
    #: the mail gave a seat's (or the game master's) right password: its sender is no stranger
    proven: bool = False
    #: the answer is one of the host's fixed texts, repeating nothing of the mail (help, "too large")
    echo_free: bool = False
    #: the answer quotes the mail's Subject and threads under its Message-ID (not a stranger's)
    threaded: bool = True
    #: rows a command writes in the transaction that records the message (press: pbem.mail.press)
    write: Callable[[Session, str], None] | None = None


def reply(
    settings: MailSettings, msg: reading.EmailMessage, to: str, key: str, plan: Plan, now: datetime
) -> reading.EmailMessage:
    """The answer, under ``key``; threaded under the mail and its Subject quoted unless the plan says
    not (a stranger's)."""
    if not plan.threaded:
        return _composereply(settings, ["", "", ""], to, key, plan, now)
    subject = reading.header(msg, "Subject")
    for secret in redaction.secrets_in_message(msg):  # the reply keeps the subject, never a password
        subject = subject.replace(secret, "[password redacted]") if len(secret) >= 3 else subject
    threading = [
        poison.header_safe(h)
        for h in (subject, *(reading.header(msg, n) for n in ("Message-ID", "References")))
    ]
    try:
        return _composereply(settings, threading, to, key, plan, now)
    except Exception as exc:  # the original's headers are beyond repair: answer without threading
        log.warning("reply to %s sent unthreaded: %s: %s", to, type(exc).__name__, exc)
        return _composereply(settings, ["", "", ""], to, key, plan, now)


def _composereply(
    settings: MailSettings, threading: list[str], to: str, key: str, plan: Plan, now: datetime
) -> reading.EmailMessage:
    subject, message_id, references = threading
    return replies.reply_message(
        settings,
        subject,
        message_id,
        references,
        to=to,
        key=key,
        subject=plan.reply_subject,
        body=plan.reply_body or "",
        now=now,
        html=plan.reply_html,
        attachment=plan.attachment,
        thread=thread_root(settings, plan.game_id, plan.seat) if plan.game_id and plan.seat else None,
    )
