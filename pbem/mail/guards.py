"""Two guards on mailed orders: a captured order mail sent again, and passwords guessed by mail.

**Replays.** Anyone who saw an order mail on its way can send it again with a new Message-ID (the key
of exactly-once changes with it). Orders identical to ones this sender sent before and that later
orders replaced (their submission is ``superseded``) are such a copy: they are not taken, so a replay
cannot put old orders back over newer ones. (Orders identical to the ones standing change nothing;
they are taken as usual.) A player who really wants the old orders back changes anything in them, a
comment will do.

**Guessing.** A wrong password is logged at WARNING with the sender and how many this sender got
wrong in the last hour. Past :data:`GUESSES_PER_HOUR`, the answers stop: the guesses are still checked
and recorded, but no reply tells the guesser anything, and nothing waits (the tick is never slowed for
everyone else).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem import orders
from pbem.codec import unpack
from pbem.mail import reading
from pbem.models import SubmissionRow

log = logging.getLogger("pbem.mail")

GUESSES_PER_HOUR = 5
AUTH_FAILED = "[auth.failed]"


def replayed(engine: Engine, frm: str, text: str) -> datetime | None:
    """When the orders in ``text`` were first received from ``frm``, if they are a copy of orders
    that later orders replaced; ``None`` otherwise."""
    stored_text = orders.redact(text, reading.password_in(text)).strip()
    with Session(engine) as session:
        earlier = session.exec(
            select(SubmissionRow).where(
                SubmissionRow.source == "mail",
                SubmissionRow.from_address == frm,
                SubmissionRow.status == "superseded",
            )
        ).all()
        copy = next((row for row in earlier if unpack(row.raw_z).strip() == stored_text), None)
        if copy is None:
            return None
        standing = session.exec(
            select(SubmissionRow).where(
                SubmissionRow.game_id == copy.game_id,
                SubmissionRow.seat == copy.seat,
                SubmissionRow.epoch == copy.epoch,
                SubmissionRow.turn == copy.turn,
                SubmissionRow.status == "accepted",
            )
        ).first()
    if standing is not None and unpack(standing.raw_z).strip() == stored_text:
        return None  # the same orders stand: taking them again changes nothing
    return copy.received_at


def wrong_password(engine: Engine, frm: str, errors: list[str], now: datetime) -> bool:
    """Log a wrong password; ``True`` when this sender is past the limit and must get no answer."""
    if not any(AUTH_FAILED in e for e in errors):
        return False
    with Session(engine) as session:
        recent = session.exec(
            select(func.count()).where(
                SubmissionRow.from_address == frm,
                SubmissionRow.status == "rejected",
                SubmissionRow.errors.contains(AUTH_FAILED),  # type: ignore[union-attr]
                SubmissionRow.received_at > now - timedelta(hours=1),
            )
        ).one()
    silenced = recent > GUESSES_PER_HOUR
    log.warning(
        "wrong password in mail from %s (%d in the last hour%s)",
        frm,
        recent,
        "; not answered any more" if silenced else "",
    )
    return silenced
