"""Handling one inbound message, exactly once: read it, submit or answer it, queue the reply, archive it.

Exactly once rests on the unique ``InboundRow.key`` (Message-ID plus a digest of the content): the row is
claimed (written with outcome ``processing``) before anything else happens, so a second fetcher of the
same message, from the same or another mailbox, loses on the constraint and skips it. The submission
the message produced, the reply and the archived raw message (compressed, password redacted) are then
recorded together. A run that died between the claim and that record is finished by a later run: the
host's submission row is found by its sender, moment (both given to ``submit``) and text, or the orders
are submitted then.

Automated mail (bounces, auto-replies, bulk mail, our own mail looping back) is archived and never
answered; nor is mail without one valid From address. Replies go to the From address only.
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import yaml
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session, select

from pbem import orders
from pbem.codec import sha256_hex, unpack
from pbem.mail import bounces, commands, compose, extract, reading
from pbem.mail.outbox import begin_write, queue, same_zone, utcnow
from pbem.mail.settings import MailSettings
from pbem.mail.sources import Incoming
from pbem.models import InboundRow, SubmissionRow

log = logging.getLogger("pbem.mail")

#: a claim older than this belongs to a run that died: the next run finishes the message
STALE_CLAIM = timedelta(minutes=10)


@dataclass(frozen=True)
class Handled:
    """What became of one message. ``outcome``: accepted · rejected · command · ignored · duplicate ·
    busy (another run holds it right now) · error (a fault of ours, logged; the message stays unread)."""

    key: str
    outcome: str
    sender: str | None = None
    reason: str = ""
    submission_id: int | None = None
    replied: bool = False


def handle(engine: Engine, raw: bytes, settings: MailSettings, now: datetime | None = None) -> Handled:
    """Handle one raw message; safe to call again with the same message (it is then a duplicate)."""
    now = utcnow(now)
    msg = reading.parse(raw)
    key = reading.message_key(raw, msg)
    frm = reading.sender(msg)
    claim, claimed_at = _claim(engine, key, frm, now)
    if claim in ("duplicate", "busy"):
        return Handled(key, claim, frm)
    plan = _decide(engine, raw, msg, frm, settings, claimed_at, recovering=claim == "recover")
    reply = None
    if plan.reply_body is not None and frm is not None:
        reply = _reply(settings, msg, frm, key, plan, now)
    with Session(engine) as session:
        begin_write(session)
        row = session.exec(select(InboundRow).where(InboundRow.key == key)).one()
        row.outcome = plan.outcome
        row.submission_id = plan.submission_id
        archived = reading.redact(raw, msg, reading.passwords_in_message(msg))
        row.raw_z = zlib.compress(archived[: settings.max_message_bytes * 2], 6)
        session.add(row)
        if reply is not None:
            queue(session, key=_reply_key(key), to=frm or "", message=reply, now=now, game_id=plan.game_id)
        session.commit()
    return Handled(key, plan.outcome, frm, plan.reason, plan.submission_id, reply is not None)


def _reply_key(inbound_key: str) -> str:
    return "reply:" + sha256_hex(inbound_key)


Claim = Literal["new", "recover", "duplicate", "busy"]


def _claim(engine: Engine, key: str, frm: str | None, now: datetime) -> tuple[Claim, datetime]:
    """Whether this run owns the message (``new``, or ``recover`` a dead run's claim), and the moment of
    the claim; ``duplicate`` if it was handled already, ``busy`` if another run is handling it now."""
    with Session(engine) as session:
        begin_write(session)
        row = session.exec(select(InboundRow).where(InboundRow.key == key)).first()
        if row is not None:
            claimed_at = same_zone(row.received_at)
            if row.outcome != "processing":
                return "duplicate", claimed_at
            return ("busy" if now - claimed_at < STALE_CLAIM else "recover"), claimed_at
        session.add(InboundRow(key=key, received_at=now, from_address=frm, raw_z=b"", outcome="processing"))
        try:
            session.commit()
        except IntegrityError:  # another run claimed it a moment ago
            return "busy", now
    return "new", now


@dataclass
class _Plan:
    outcome: str
    reason: str = ""
    reply_subject: str | None = None
    reply_body: str | None = None
    reply_html: str | None = None
    attachment: tuple[str, str] | None = None
    submission_id: int | None = None
    game_id: str | None = None
    seat: str | None = None  # the seat the message was for, when known: the reply joins its thread


def _decide(
    engine: Engine,
    raw: bytes,
    msg: reading.EmailMessage,
    frm: str | None,
    settings: MailSettings,
    at: datetime,
    *,
    recovering: bool,
) -> _Plan:
    automated = reading.automated_reason(msg, (settings.from_addr,), settings.loop_tag)
    if automated:
        if not automated.startswith(("our own", "mail from a pbem host", "mailing-list")):
            # a bounce may also say Auto-Submitted or Precedence: what it reports is read either way
            found = bounces.record(engine, msg, at)
            automated += f": {found}" if found else ""
        return _Plan("ignored", automated)
    if frm is None:
        return _Plan("ignored", "no single valid From address to answer")
    bounces.heard_from(engine, frm)
    if len(raw) > settings.max_message_bytes:
        too_large = compose.too_large_body(len(raw), settings.max_message_bytes)
        return _Plan("rejected", "too large", "[pbem] your message is too large", too_large)
    try:
        found = reading.extract(msg)
    except Exception:  # a message malformed beyond what the email package copes with: answer, don't crash
        return _Plan("rejected", "unreadable", None, compose.EMPTY_BODY)
    if found.problem == "empty":
        return _Plan("rejected", "empty", "[pbem] no orders found in your message", compose.EMPTY_BODY)
    command = commands.detect(reading.header(msg, "Subject"), found.text)
    if command is not None:
        answer = commands.run(engine, command, frm, settings=settings, now=at)
        body = answer.text if answer.ok else compose.refused_body(answer.errors)
        return _Plan(
            "command",
            command.name,
            reply_subject=answer.subject,
            reply_body=body,
            reply_html=answer.html,
            attachment=answer.attachment,
            game_id=answer.game_id,
            seat=answer.seat,
        )
    earlier = _submitted(engine, frm, at, found.text) if recovering else None
    try:
        receipt = earlier or orders.submit(engine, found.text, source="mail", from_address=frm, now=at)
    except yaml.YAMLError as exc:  # the host's reader lets some of these through (control characters)
        why = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        errors = [f"orders: the text could not be read as YAML: {why}"]
        return _Plan(
            "rejected",
            found.origin,
            "[pbem] your orders were not accepted",
            compose.rejected_body(errors, found.origin),
        )
    plan = _Plan(
        "accepted" if receipt.accepted else "rejected",
        found.origin,
        game_id=receipt.game_id,
        seat=receipt.seat,
    )
    plan.submission_id = receipt.submission_id
    if receipt.accepted:
        canonical = _canonical(engine, receipt.submission_id)
        plan.reply_subject = (
            f"[pbem {receipt.game_id}] turn {receipt.turn}: orders accepted for {receipt.seat}"
        )
        plan.reply_body = compose.accepted_body(
            receipt.game_id or "",
            receipt.seat or "",
            receipt.turn,
            receipt.receipt or "",
            _as_yaml(canonical),
            canonical,
        )
    else:
        tag = f"[pbem {receipt.game_id}]" if receipt.game_id else "[pbem]"
        plan.reply_subject = f"{tag} your orders were not accepted"
        plan.reply_body = compose.rejected_body(receipt.errors, found.origin) + extract.explain(
            receipt.errors, found.text, found.how
        )
    return plan


def _submitted(engine: Engine, frm: str, at: datetime, text: str) -> orders.Receipt | None:
    """The receipt of a submission a dead run already made for this message, rebuilt from its row;
    ``None`` when there is none, so the orders are submitted now.

    The dead run's submission has this sender, the moment of its claim and, as its stored text, this
    message's orders redacted the way the host redacts them (one fetch hands every message the same
    moment, so the text tells two messages of one sender apart).
    """
    stored_text = orders.redact(text, reading.password_in(text))
    with Session(engine) as session:
        candidates = session.exec(
            select(SubmissionRow).where(
                SubmissionRow.source == "mail",
                SubmissionRow.from_address == frm,
                SubmissionRow.received_at == at,
            )
        ).all()
    row = next((c for c in candidates if unpack(c.raw_z).strip() == stored_text.strip()), None)
    if row is None:
        return None
    return orders.Receipt(
        accepted=row.status != "rejected",
        game_id=row.game_id,
        seat=row.seat,
        turn=row.turn,
        receipt=row.receipt,
        errors=json.loads(row.errors) if row.errors and row.errors.startswith("[") else [row.errors or ""],
        submission_id=row.id,
    )


def _canonical(engine: Engine, submission_id: int | None) -> str:
    with Session(engine) as session:
        row = session.get(SubmissionRow, submission_id) if submission_id is not None else None
    return row.orders_json if row is not None and row.orders_json else ""


def _as_yaml(canonical: str) -> str:
    if not canonical:
        return ""
    return yaml.safe_dump(
        json.loads(canonical), sort_keys=False, allow_unicode=True, default_flow_style=False
    )


def _reply(
    settings: MailSettings, msg: reading.EmailMessage, to: str, key: str, plan: _Plan, now: datetime
) -> reading.EmailMessage:
    subject = reading.header(msg, "Subject")
    for secret in reading.passwords_in_message(msg):  # the reply keeps the subject, never a password
        subject = subject.replace(secret, "[password redacted]") if len(secret) >= 3 else subject
    reply = compose.reply_message(
        settings,
        subject,
        reading.header(msg, "Message-ID"),
        reading.header(msg, "References"),
        to=to,
        key=_reply_key(key),
        subject=plan.reply_subject,
        body=plan.reply_body or "",
        now=now,
        html=plan.reply_html,
        attachment=plan.attachment,
        thread=compose.thread_root(settings, plan.game_id, plan.seat) if plan.game_id and plan.seat else None,
    )
    return reply


def fetch(
    engine: Engine, incoming: Iterable[Incoming], settings: MailSettings, now: datetime | None = None
) -> list[Handled]:
    """Handle every message a source yields, marking each read once it is recorded."""
    results = []
    for item in incoming:
        try:
            handled = handle(engine, item.raw, settings, now)
        except DBAPIError:
            raise  # the database is unwell: every message would fail, so stop the run
        except Exception:
            # a message that trips a bug must not hold up everyone's orders behind it; it stays unread and
            # claimed, so a later run tries it again once the claim is stale
            log.exception("mail %s could not be handled; it is left unread", item.label)
            results.append(Handled("", "error", None, item.label))
            continue
        # a message another run holds stays unread, so it is not lost if that run dies
        if handled.outcome != "busy":
            item.mark_read()
        results.append(handled)
    return results
