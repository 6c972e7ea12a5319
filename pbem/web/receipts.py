"""The mail that confirms orders sent on the web or through the API: the body a mail's accepted orders
are answered with (:func:`pbem.outbox.replies.accepted_body`), sent to the seat's address in the
seat's language and threaded under the seat's thread, queued in the outbox like every other mail.

So a player who plays in a browser keeps the same record by mail of what was sent, with its receipt,
and a stolen session that sends orders is seen by the seat's owner."""

from __future__ import annotations

import json
from datetime import datetime

import yaml
from sqlalchemy import Engine
from sqlmodel import Session

from pbem.core import clock
from pbem.core.i18n import _
from pbem.outbox import queueing
from pbem.outbox.message import header_fields, new_message, set_text, thread_root, with_language
from pbem.outbox.readers import reader_of
from pbem.outbox.replies import accepted_body
from pbem.outbox.settings import MailSettings
from pbem.play.orders import Receipt, receipt_text
from pbem.storage.history import seat_facts
from pbem.storage.models import SubmissionRow


def confirm(engine: Engine, settings: MailSettings, receipt: Receipt, now: datetime | None = None) -> bool:
    """Queue the confirmation of accepted orders ``receipt`` to its seat's address; whether one was
    queued (not for rejected orders, nor for a seat without an address)."""
    if (
        not receipt.accepted
        or receipt.game_id is None
        or receipt.seat is None
        or receipt.submission_id is None
    ):
        return False
    when = clock.utc(now)
    reader = reader_of(engine, receipt.game_id, receipt.seat)
    with Session(engine) as session:
        row = session.get(SubmissionRow, receipt.submission_id)
        seat = next((s for s in seat_facts(session, receipt.game_id) if s.name == receipt.seat), None)
        if row is None or seat is None or not seat.email or not row.orders_json:
            return False
        canonical = row.orders_json
        shown = yaml.safe_dump(json.loads(canonical), sort_keys=False, allow_unicode=True)
        key = f"web-orders:{receipt.submission_id}"
        with reader.speaking():
            subject = _(
                "[pbem {game}] turn {turn}: orders accepted for {seat}",
                game=receipt.game_id,
                turn=receipt.turn,
                seat=receipt.seat,
            )
            body = accepted_body(
                receipt.game_id,
                receipt.seat,
                receipt.turn,
                receipt.receipt or "",
                shown,
                receipt_text(receipt.game_id, receipt.seat, receipt.turn or 0, canonical),
            )
        message = new_message(
            header_fields(
                settings,
                to=seat.email,
                subject=subject,
                key=key,
                now=when,
                thread=thread_root(settings, receipt.game_id, receipt.seat),
                language=reader.language,
            )
        )
        set_text(message, body)
        added = queueing.queue(
            session,
            key=key,
            to=seat.email,
            message=with_language(message, reader.language),
            now=when,
            game_id=receipt.game_id,
        )
        session.commit()
    return added
