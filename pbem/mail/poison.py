"""Mail that trips the host: tried a bounded number of times, then quarantined, with the operator told.

One inbound message must never stop everyone's mail. Each claim of a message counts one try
(``InboundRow.attempts``, which is also the claim's generation: a run finishes a message only while the
row still carries the generation it claimed, so a run that outlived its claim cannot record, or answer,
a message a later run took over). A try that raises records its error on the row, which makes the
message due again at the next fetch instead of after the stale-claim wait; after :data:`MAX_TRIES`
tries the message is *quarantined*: outcome ``quarantined``, archived (redacted, or withheld when even
that fails), marked read, listed by ``pbem mail held``, and logged at ERROR.

The parts that come after the orders are stored (composing the receipt, archiving) have fallbacks of
their own here, so a message whose orders were taken always gets its receipt: a reply whose threading
headers cannot be written is sent without them.
"""

from __future__ import annotations

import logging
import zlib
from datetime import datetime

from sqlalchemy import Engine, update
from sqlmodel import Session, select

from pbem.core.codec import sha256_hex
from pbem.mail import reading, redaction
from pbem.outbox import begin_write
from pbem.storage.models import InboundRow

log = logging.getLogger("pbem.mail")

#: tries before a message that keeps failing is quarantined
MAX_TRIES = 3
QUARANTINED = "quarantined"
WITHHELD = b"[message withheld: it could not be archived safely, so nothing of it is kept]\r\n"


def fallback_key(raw: bytes) -> str:
    """A key for a message too broken to read its Message-ID: the digest of its bytes."""
    return "<unreadable> " + sha256_hex(raw)


def header_safe(text: str, limit: int = 900) -> str:
    """``text`` fit to be copied into a header of our own: every kind of line break and control
    character (VT, FF, U+2028, NEL…) gone, since the email package refuses them, and bounded."""
    return "".join(c for c in " ".join(text.split()) if c.isprintable())[:limit]


def archive(raw: bytes, msg: reading.EmailMessage, secrets: list[str], limit: int) -> bytes:
    """The compressed archive copy: redacted, or withheld when redacting it fails."""
    try:
        kept = redaction.redact_message(raw, msg, secrets)
    except Exception as exc:  # a MIME structure the email package cannot write back
        log.warning("an inbound message could not be redacted (%s); it is archived withheld", _why(exc))
        kept = WITHHELD
    return zlib.compress(kept[:limit], 6)


def failed(engine: Engine, key: str, generation: int, exc: BaseException, label: str, now: datetime) -> bool:
    """Record that this try of the message failed; quarantine it once it has had :data:`MAX_TRIES`
    tries. Returns whether it is quarantined now (the caller then marks it read)."""
    why = _why(exc)
    with Session(engine) as session:
        begin_write(session)
        row = session.exec(select(InboundRow).where(InboundRow.key == key)).first()
        if row is None or row.outcome != "processing" or row.attempts != generation:
            session.rollback()
            return False  # finished, or taken over by another run meanwhile
        quarantine = row.attempts >= MAX_TRIES
        values: dict[str, object] = {"error": why[:300]}
        if quarantine:
            values.update(outcome=QUARANTINED, raw_z=zlib.compress(WITHHELD, 6))
        session.exec(  # type: ignore[call-overload]
            update(InboundRow)
            .where(InboundRow.id == row.id, InboundRow.attempts == generation)
            .values(**values)
        )
        session.commit()
    if quarantine:
        log.error("mail %s quarantined after %d tries (pbem mail held lists it): %s", label, generation, why)
    else:
        log.warning(
            "mail %s failed (try %d of %d), tried again next fetch: %s", label, generation, MAX_TRIES, why
        )
    return quarantine


def quarantine_unreadable(engine: Engine, raw: bytes, exc: BaseException, label: str, now: datetime) -> None:
    """A message that cannot even be parsed into a key and a sender: kept once, by its digest, so the
    next fetch passes it by as a duplicate."""
    with Session(engine) as session:
        begin_write(session)
        key = fallback_key(raw)
        if session.exec(select(InboundRow.id).where(InboundRow.key == key)).first() is None:
            session.add(
                InboundRow(
                    key=key,
                    received_at=now,
                    raw_z=zlib.compress(WITHHELD, 6),
                    outcome=QUARANTINED,
                    attempts=1,
                    error=_why(exc)[:300],
                )
            )
        session.commit()
    log.error("mail %s quarantined, it cannot be read at all: %s", label, _why(exc))


def held(engine: Engine) -> list[InboundRow]:
    """The quarantined messages, newest first."""
    with Session(engine) as session:
        return list(
            session.exec(
                select(InboundRow).where(InboundRow.outcome == QUARANTINED).order_by(InboundRow.id.desc())  # type: ignore[union-attr]
            )
        )


def _why(exc: BaseException) -> str:
    text = "".join(c for c in " ".join(str(exc).split()) if c.isprintable())  # stored: no NUL for PostgreSQL
    return f"{type(exc).__name__}: {text[:240]}"
