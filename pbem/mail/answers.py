"""What one inbound mail comes to (:class:`Plan`: its outcome and the answer it is owed) and that answer
composed: under the mail's Subject and threaded under it, or, for a stranger (:mod:`.backscatter`),
in the host's words only. :mod:`.inbound` decides the plan and records it.

Every answer is written for the plan's :class:`~pbem.outbox.readers.Reader` (decided once for the mail
in :mod:`.inbound`), and :func:`pbem.outbox.replies.reply_message` labels it with that reader's
language. A stranger's answer is in English: the rule of :mod:`pbem.outbox.readers` gives a sender the
language of the seat its address is registered for, and a stranger's address is registered for none;
the seat its mail names is not taken (unproven, and its language would say something of the mail)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from sqlmodel import Session

from pbem.core.codec import sha256_hex
from pbem.core.i18n import _
from pbem.mail import backscatter, poison, reading, redaction
from pbem.outbox import readers, replies
from pbem.outbox.message import thread_root
from pbem.outbox.readers import Reader
from pbem.outbox.settings import MailSettings
from pbem.render.pictures import Picture

log = logging.getLogger("pbem.mail")


def reply_key(inbound_key: str, prefix: str = "reply:") -> str:
    """The answer's dedupe key; ``prefix`` marks the answers :mod:`.backscatter` counts."""
    return prefix + sha256_hex(inbound_key)


def for_stranger(plan: Plan) -> Plan:
    """The answer to a stranger (:mod:`.backscatter`), in English (see the module): the host's fixed
    texts as they are when they were written in English, anything else (which may repeat the mail's
    words: a refusal, a password request's game and seat; or a fixed text in the language of a seat the
    mail named) replaced by :func:`~pbem.mail.backscatter.stranger_body`. Never their Subject or their
    Message-ID."""
    stranger = readers.STRANGER
    with stranger.speaking():
        if plan.echo_free and (plan.reader or stranger).language == stranger.language:
            subject = plan.reply_subject or backscatter.stranger_subject()
            return replace(plan, reader=stranger, reply_subject=subject, threaded=False)
        return replace(
            plan,
            reader=stranger,
            reply_subject=backscatter.stranger_subject(),
            reply_body=backscatter.stranger_body(),
            reply_html=None,
            reply_pictures=(),
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
    reply_pictures: tuple[Picture, ...] = ()  # the boards reply_html shows, by Content-ID
    attachment: tuple[str, str] | None = None
    submission_id: int | None = None
    game_id: str | None = None
    #: who reads the reply (:mod:`pbem.outbox.readers`), the one decided for the mail (after a
    #: ``language:`` command: the same seat in its new language); ``None``: a stranger's (English)
    reader: Reader | None = None
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
    """The answer, under ``key``, for the plan's reader; threaded under the mail and its Subject quoted
    unless the plan says not (a stranger's)."""
    if not plan.threaded:
        return _composereply(settings, ["", "", ""], to, key, plan, now)
    subject = reading.header(msg, "Subject")
    with (plan.reader or readers.STRANGER).speaking():
        mark = _("[password redacted]")
    for secret in redaction.secrets_in_message(msg):  # the reply keeps the subject, never a password
        subject = subject.replace(secret, mark) if len(secret) >= 3 else subject
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
        reader=plan.reader or readers.STRANGER,
        to=to,
        key=key,
        subject=plan.reply_subject,
        body=plan.reply_body or "",
        now=now,
        html=plan.reply_html,
        pictures=plan.reply_pictures,
        attachment=plan.attachment,
        thread=thread_root(settings, plan.game_id, plan.seat) if plan.game_id and plan.seat else None,
    )
