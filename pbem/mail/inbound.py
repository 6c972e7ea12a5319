"""Handling one inbound message, exactly once: read it, submit or answer it, queue the reply, archive it.

Exactly once rests on the unique ``InboundRow.key`` (Message-ID plus a digest of the content): the row is
claimed (written with outcome ``processing``) before anything else happens, so a second fetcher of the
same message, from the same or another mailbox, loses on the constraint and skips it. The submission
the message produced, the reply and the archived raw message (compressed, password redacted) are then
recorded together. A run that died between the claim and that record is finished by a later run: the
host's submission row is found by its sender, moment (both given to ``submit``) and text, or the orders
are submitted then.

Automated mail (bounces, auto-replies, bulk mail, our own mail looping back) is archived and never
answered; nor is mail without one valid From address (:mod:`pbem.intake.addresses`). Replies go to the From
address only, and to an address that is no player's at most once a day (:mod:`.backscatter`).

The claim carries a generation (``InboundRow.attempts``) that fences it: taking over a stale claim is a
compare-and-set on it, and a run submits and records only while its generation is the row's. A message
that raises is tried again at the next fetch and quarantined after a few tries (:mod:`.poison`); the
parser only ever sees the message cut to bounded headers (:mod:`.limits`); a resent copy of replaced
orders and password guessing are held off by :mod:`.guards`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import yaml
from sqlalchemy import Engine, update
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlmodel import Session, select

import pbem.storage.fencing as fencing
from pbem.core.clock import utc
from pbem.core.codec import unpack
from pbem.core.i18n import _, format_deadline
from pbem.intake import guessing
from pbem.mail import (
    answers,
    backscatter,
    bounces,
    commands,
    extract,
    guards,
    limits,
    poison,
    press,
    reading,
    redaction,
)
from pbem.mail.sources import Incoming
from pbem.outbox import begin_write, queue, readers, replies
from pbem.outbox.readers import Reader
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from pbem.storage.models import InboundRow, SubmissionRow

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


def handle(
    engine: Engine, raw: bytes, settings: MailSettings, now: datetime | None = None, *, label: str = ""
) -> Handled:
    """Handle one raw message; safe to call again with the same message (it is then a duplicate).

    A message that raises while it is handled is tried again at the next fetch and quarantined after
    :data:`~pbem.mail.poison.MAX_TRIES` tries (:mod:`pbem.mail.poison`); outcome ``error`` or
    ``quarantined``. So does one the database refuses (a value too long for a column, a constraint):
    that is this message's fault, and the mail behind it must still be read. Only a fault of the
    database itself (:func:`database_down`) is raised: every message would fail the same way."""
    now = utc(now)
    readable = limits.bounded(raw, settings.max_message_bytes)
    try:
        msg = reading.parse(readable)
        key = reading.message_key(readable, msg)
        frm = reading.sender(msg)
    except Exception as exc:  # not even a key to hold it by: kept by its digest, never tried again
        poison.quarantine_unreadable(engine, raw, exc, label or "(unreadable)", now)
        return Handled(poison.fallback_key(raw), poison.QUARANTINED, None, "unreadable")
    claim, claimed_at, generation = _claim(engine, key, frm, now)
    if claim in ("duplicate", "busy"):
        return Handled(key, claim, frm)
    try:
        return _finish(engine, raw, msg, key, frm, settings, now, claimed_at, claim == "recover", generation)
    except Exception as exc:
        if isinstance(exc, DBAPIError) and database_down(exc):
            raise
        log.debug("mail %s raised", label or key, exc_info=exc)
        quarantined = poison.failed(engine, key, generation, exc, label or key, now)
        return Handled(key, poison.QUARANTINED if quarantined else "error", frm, type(exc).__name__)


def database_down(exc: DBAPIError) -> bool:
    """Whether a database error is the database's own (the connection lost, the server gone, SQLite
    locked: every message would fail alike, so the run stops) rather than a refusal of what one message
    made the host write (a value too long, a constraint broken: that message is held as poison)."""
    return bool(exc.connection_invalidated) or isinstance(exc, (OperationalError, InterfaceError))


def _finish(
    engine: Engine,
    raw: bytes,
    msg: reading.EmailMessage,
    key: str,
    frm: str | None,
    settings: MailSettings,
    now: datetime,
    claimed_at: datetime,
    recovering: bool,
    generation: int,
) -> Handled:
    if not _holds(engine, key, generation):  # taken over while this run was on its way here
        return Handled(key, "busy", frm)
    try:  # the submission is stored only while this run's claim holds (pbem.storage.fencing)
        with fencing.handling(key, generation):
            plan = _decide(engine, raw, msg, frm, settings, claimed_at, recovering=recovering)
    except fencing.MessageTakenOver:  # the run that took it over submits it (or finds this run's)
        log.warning("mail %s was taken over by another run; this run submitted nothing of it", key)
        return Handled(key, "busy", frm)
    reply, reply_key = None, answers.reply_key(key)
    if plan.reply_body is not None and frm is not None:
        stranger = backscatter.is_stranger(engine, frm, plan.proven)
        if not backscatter.suppressed(engine, frm, plan, now, stranger=stranger):
            reply_key = answers.reply_key(key, backscatter.key_prefix(plan, stranger))
            reply = answers.reply(
                settings, msg, frm, reply_key, answers.for_stranger(plan) if stranger else plan, now
            )
    archived = poison.archive(raw, msg, redaction.secrets_in_message(msg), settings.max_message_bytes * 2)
    with Session(engine) as session:
        begin_write(session)
        # the claim's generation fences the record: a run that outlived its claim records nothing
        owned = session.exec(  # type: ignore[call-overload]
            update(InboundRow)
            .where(
                InboundRow.key == key,
                InboundRow.outcome == "processing",
                InboundRow.attempts == generation,  # type: ignore[arg-type]
            )
            .values(outcome=plan.outcome, submission_id=plan.submission_id, raw_z=archived, error=None)
        )
        if owned.rowcount != 1:
            session.rollback()
            log.warning("mail %s was taken over by another run; this run records nothing of it", key)
            return Handled(key, "busy", frm)
        if plan.write is not None:  # what a command writes is recorded with the mail, or not at all
            plan.write(session, key)
        if reply is not None:
            queue(session, key=reply_key, to=frm or "", message=reply, now=now, game_id=plan.game_id)
        session.commit()
    return Handled(key, plan.outcome, frm, plan.reason, plan.submission_id, reply is not None)


Claim = Literal["new", "recover", "duplicate", "busy"]


def _claim(engine: Engine, key: str, frm: str | None, now: datetime) -> tuple[Claim, datetime, int]:
    """Whether this run owns the message (``new``, or ``recover`` a dead or failed run's claim), the
    moment of the first claim, and this claim's generation; ``duplicate`` if it was handled already,
    ``busy`` if another run is handling it now.

    Taking over is a compare-and-set on the generation (``attempts``), not a comparison of two hosts'
    clocks alone: of two runs that both find a claim stale, one wins."""
    with Session(engine) as session:
        begin_write(session)
        row = session.exec(select(InboundRow).where(InboundRow.key == key)).first()
        if row is not None:
            claimed_at = row.received_at
            if row.outcome != "processing":
                return "duplicate", claimed_at, row.attempts
            if row.error is None and abs(now - claimed_at) < STALE_CLAIM:
                return "busy", claimed_at, row.attempts
            seen = row.attempts
            took = session.exec(  # type: ignore[call-overload]
                update(InboundRow)
                .where(InboundRow.id == row.id, InboundRow.attempts == seen)  # type: ignore[arg-type]
                .values(attempts=seen + 1, error=None)
            )
            session.commit()
            return ("recover" if took.rowcount == 1 else "busy"), claimed_at, seen + 1
        session.add(
            InboundRow(
                key=key, received_at=now, from_address=frm, raw_z=b"", outcome="processing", attempts=1
            )
        )
        try:
            session.commit()
        except IntegrityError:  # another run claimed it a moment ago
            return "busy", now, 0
    return "new", now, 1


def _holds(engine: Engine, key: str, generation: int) -> bool:
    """Whether this run's claim is still the message's latest: checked before the message is read, so
    a run that outlived its claim stops early. The check that counts is the one in the submission's own
    transaction (:func:`pbem.storage.fencing.check_message`): between this one and the submission
    another run may still take the message over."""
    with Session(engine) as session:
        found = session.exec(
            select(InboundRow.attempts).where(InboundRow.key == key, InboundRow.outcome == "processing")
        ).first()
    return found == generation


def _decide(
    engine: Engine,
    raw: bytes,
    msg: reading.EmailMessage,
    frm: str | None,
    settings: MailSettings,
    at: datetime,
    *,
    recovering: bool,
) -> answers.Plan:
    automated = reading.automated_reason(msg, (settings.from_addr,), settings.loop_tag)
    if automated:
        if not automated.startswith(("our own", "mail from a pbem host", "mailing-list")):
            # a bounce may also say Auto-Submitted or Precedence: what it reports is read either way
            found = bounces.record(engine, msg, at)
            automated += f": {found}" if found else ""
        return answers.Plan("ignored", automated)
    if frm is None:
        return answers.Plan("ignored", "no single valid From address to answer")
    bounces.heard_from(engine, frm)
    found: reading.Extracted | None = None
    if len(raw) <= settings.max_message_bytes:
        try:
            found = reading.extract(msg)
        except Exception:  # malformed beyond what the email package copes with: answered below, no crash
            found = None
    # the one decision of the reply's language: every word below is written in it
    reader = (
        readers.reader_of_text(engine, found.text, frm)
        if found is not None
        else readers.reader_of(engine, None, from_address=frm)
    )
    with reader.speaking():
        if len(raw) > settings.max_message_bytes:
            too_large = replies.too_large_body(len(raw), settings.max_message_bytes)
            subject = _("[pbem] your message is too large")
            plan = answers.Plan("rejected", "too large", subject, too_large, echo_free=True)
        elif found is None:
            plan = answers.Plan("rejected", "unreadable", None, replies.empty_body(), echo_free=True)
        else:
            plan = _answer(engine, msg, found, frm, settings, at, reader, recovering=recovering)
    plan.reader = plan.reader or reader
    return plan


def _answer(
    engine: Engine,
    msg: reading.EmailMessage,
    found: reading.Extracted,
    frm: str,
    settings: MailSettings,
    at: datetime,
    reader: Reader,
    *,
    recovering: bool,
) -> answers.Plan:
    """The plan for a readable mail from ``frm``, written in ``reader``'s language (the current one)."""
    # a reply left empty may still carry its command in the Subject (a code's mail: pbem.mail.lobby)
    command = commands.detect(reading.header(msg, "Subject"), found.text)
    if found.problem == "empty" and command is None:
        subject = _("[pbem] no orders found in your message")
        return answers.Plan("rejected", "empty", subject, replies.empty_body(), echo_free=True)
    if command is not None and command.name == "press":
        command = press.command_of(msg)  # the whole text: a press message is prose
    if command is not None:
        answer = commands.run(engine, command, frm, settings=settings, now=at)
        if answer.silent or not answer.ok:
            _tell_if_held(engine, settings, command.envelope_text, at)
        if answer.silent:  # password guessing (a held seat, a sender past its limit): nothing is said
            return answers.Plan(
                "command",
                f"{command.name}: password guessing (seat held or sender past its limit), not answered",
            )
        answered = reader.now_reading(answer.language)  # ``language:`` answers in the new language
        with answered.speaking():
            # a refusal with a text of its own (a game master's) keeps it
            body = answer.text if answer.ok or answer.text else replies.refused_body(answer.errors)
        if answer.ok and not answer.text:  # its own mail is the answer (a code's: pbem.mail.lobby)
            body = None
        return answers.Plan(
            "command",
            command.name,
            reader=answered,
            reply_subject=answer.subject,
            reply_body=body,
            reply_html=answer.html,
            reply_pictures=answer.pictures,
            attachment=answer.attachment,
            game_id=answer.game_id,
            seat=answer.seat,
            write=getattr(answer, "write", None),
            # a command names its game once its password matched; a code sent back from the address it
            # was mailed to proves that address (pbem.mail.lobby_confirm)
            proven=answer.game_id is not None or getattr(answer, "proven", False),
            # the help texts, and answers that say only what the host holds (the open games)
            echo_free=answer.ok and (command.name in ("help", "gm") or getattr(answer, "echo_free", False)),
        )
    earlier = _submitted(engine, frm, at, found.as_shown()) if recovering else None
    first_seen = guards.replayed(engine, frm, found.text) if earlier is None else None
    if first_seen is not None:
        return answers.Plan(
            "rejected",
            "replayed",
            _("[pbem] these orders were not taken again"),
            _(
                "These orders are a copy of orders you sent on {when}, which your later orders replaced, "
                "so they were not taken: your later orders stand. To go back to these orders, change "
                "anything in them (a comment will do) and send them again.",
                when=format_deadline(utc(first_seen)),
            )
            + "\n",
            echo_free=True,
        )
    try:
        receipt = earlier or orders.submit(engine, found.as_shown(), source="mail", from_address=frm, now=at)
    except yaml.YAMLError as exc:  # the host's reader lets some of these through (control characters)
        why = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        errors = [_("orders: the text could not be read as YAML: {why}", why=why)]
        return answers.Plan(
            "rejected",
            found.origin,
            _("[pbem] your orders were not accepted"),
            replies.rejected_body(errors, found.origin),
        )
    if _guessed(receipt.errors):
        _tell_if_held(engine, settings, found.text, at)
    return _receipt_plan(engine, receipt, found, reader, frm, at)


def _tell_if_held(engine: Engine, settings: MailSettings, text: str, at: datetime) -> None:
    """After a wrong or unchecked password: the seat's player told if their seat is now held."""
    named = readers.named_in(text)
    if named.get("game") and named.get("player"):
        guards.tell_held_seat(engine, settings, named["game"], named["player"], at)


def _guessed(errors: list[str]) -> bool:
    """Whether a submission's errors are a wrong guess at a seat: a wrong password, or a game that does
    not exist (counted as a guess too, so that nobody learns which games exist)."""
    return any(guards.AUTH_FAILED in e or "[game.unknown]" in e for e in errors)


def _held_against(engine: Engine, text: str, frm: str, at: datetime) -> bool:
    """Whether the seat an order file names is held against guessing for ``frm``: its wrong password
    then goes unanswered (:func:`pbem.intake.guessing.silenced`)."""
    named = readers.named_in(text)
    if not (named.get("game") and named.get("player")):
        return False
    with Session(engine) as session:
        return guessing.silenced(session, named["game"], named["player"], frm, at)


def _receipt_plan(
    engine: Engine, receipt: orders.Receipt, found: reading.Extracted, reader: Reader, frm: str, at: datetime
) -> answers.Plan:
    origin = found.origin
    outcome = "accepted" if receipt.accepted else "rejected"
    plan = answers.Plan(outcome, origin, game_id=receipt.game_id, reader=reader, seat=receipt.seat)
    # the seat is named once its password matched: the sender proved it, whatever else was wrong
    plan.proven = receipt.seat is not None
    plan.submission_id = receipt.submission_id
    if receipt.accepted:
        canonical = _canonical(engine, receipt.submission_id)
        plan.reply_subject = _(
            "[pbem {game}] turn {turn}: orders accepted for {seat}",
            game=receipt.game_id,
            turn=receipt.turn,
            seat=receipt.seat,
        )
        plan.reply_body = replies.accepted_body(
            receipt.game_id or "",
            receipt.seat or "",
            receipt.turn,
            receipt.receipt or "",
            _as_yaml(canonical),
            orders.receipt_text(receipt.game_id or "", receipt.seat or "", receipt.turn or 0, canonical),
        )
    elif _guessed(receipt.errors) and _held_against(engine, found.text, frm, at):
        plan.reason = "wrong password for a seat held against guessing: not answered"
    elif guards.wrong_password(engine, frm, receipt.errors, at):
        plan.reason = "password guessing: not answered"
    else:
        plan.reply_subject = (
            _("[pbem {game}] your orders were not accepted", game=receipt.game_id)
            if receipt.game_id
            else _("[pbem] your orders were not accepted")
        )
        plan.reply_body = replies.rejected_body(receipt.errors, origin) + extract.explain(
            receipt.errors, found.as_shown(), found.how
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


def fetch(
    engine: Engine, incoming: Iterable[Incoming], settings: MailSettings, now: datetime | None = None
) -> list[Handled]:
    """Handle every message a source yields, marking each read once it is recorded."""
    results = []
    for item in incoming:
        try:
            handled = handle(engine, item.raw, settings, now, label=item.label)
        except DBAPIError:
            raise  # the database is unwell (handle raises nothing else of it): every message would fail
        except Exception as exc:
            # a bug outside the guarded part must not hold up everyone's orders behind it; logged in
            # one line (the traceback at DEBUG), the message stays unread
            log.error(
                "mail %s could not be handled; it is left unread: %s: %s", item.label, type(exc).__name__, exc
            )
            log.debug("mail %s", item.label, exc_info=exc)
            results.append(Handled("", "error", None, item.label))
            continue
        # a message another run holds stays unread, so it is not lost if that run dies; one that failed
        # stays unread to be tried again
        if handled.outcome not in ("busy", "error"):
            item.mark_read()
        results.append(handled)
    return results
