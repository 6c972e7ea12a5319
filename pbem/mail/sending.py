"""The outbox's sending side: :func:`send` claims each due row before delivering it (a short lease in
``next_attempt_at``, so a second sender running at the same time skips it), marks it sent only after the
server accepted it, and otherwise records the error and pushes the next try back exponentially. A
refusal never loses a mail: only a permanent refusal (5xx), repeated ``max_attempts`` times, gives up,
and leaves the row with its error for a person to look at.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, and_, or_, update
from sqlmodel import Session, select

from pbem.mail.queueing import begin_write, pack_message, unpack_message, utcnow
from pbem.mail.settings import MailSettings, load_settings
from pbem.mail.transport import DeliveryError, Transport
from pbem.models import OutboxRow

#: how long a sender owns a row it is delivering; after a crash the row is due again then
CLAIM_SECONDS = 600


@dataclass
class SendResult:
    sent: list[int] = field(default_factory=list)
    delayed: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def backoff(settings: MailSettings, attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failed try: doubling from ``retry_seconds``, capped."""
    seconds = settings.retry_seconds * 2 ** min(max(attempts - 1, 0), 30)
    return timedelta(seconds=min(seconds, settings.retry_max_seconds))


def _scrub(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[secret]")
    return text[:1000]


def send(
    engine: Engine,
    transport: Transport,
    now: datetime | None = None,
    *,
    settings: MailSettings | None = None,
    limit: int | None = None,
    batch: int = 50,
) -> SendResult:
    """Deliver every pending mail that is due; idempotent, and safe to run twice at once.

    Mails are claimed ``batch`` at a time in one transaction (a lease in ``next_attempt_at``), then
    delivered one by one, each marked sent as soon as the server took it: a crash re-sends at most the
    one mail in flight, and a concurrent sender never sees a claimed row as due. A transport whose
    delivery is idempotent (``idempotent = True``: the outbox Maildir, which takes a message once
    by its Message-ID) has its mails marked sent a batch at a time, in one write instead of fifty.
    """
    settings = settings or load_settings()
    now = utcnow(now)
    result = SendResult()
    left = limit
    at_once = bool(getattr(transport, "idempotent", False))
    started = time.monotonic()
    with transport:
        while left is None or left > 0:
            claimed = _claim(engine, now, batch if left is None else min(batch, left))
            lease = now + timedelta(seconds=CLAIM_SECONDS)  # what _claim wrote: our claim's token
            if not claimed:
                break
            if left is not None:
                left -= len(claimed)
            delivered: list[int] = []
            try:
                for index, (outbox_id, to_addr, raw) in enumerate(claimed):
                    if not at_once and not _still_ours(engine, outbox_id, now, lease, started):
                        continue  # another sender took it over (our claim ran out): it is theirs
                    try:
                        transport.deliver(settings.from_addr, to_addr, raw)
                    except DeliveryError as exc:
                        gave_up = _record_failure(engine, outbox_id, exc, now, settings)
                        (result.failed if gave_up else result.delayed).append(outbox_id)
                        if exc.server_down:
                            # the rest would fail the same way, each after a timeout: leave them due for
                            # the next run, without counting an attempt
                            _release(engine, [row[0] for row in claimed[index + 1 :]], now)
                            return result
                    else:
                        delivered.append(outbox_id)
                        if not at_once:
                            _mark_sent(engine, delivered, now)
                            result.sent += delivered
                            delivered = []
            finally:
                if delivered:
                    _mark_sent(engine, delivered, now)
                    result.sent += delivered
    return result


def _still_ours(engine: Engine, outbox_id: int, now: datetime, lease: datetime, started: float) -> bool:
    """Renew this run's claim on one mail just before delivering it, by compare-and-set on the lease it
    wrote (the claim's token): ``False`` when another sender has claimed the mail since (this run was
    slow, say behind a slow relay, and its lease ran out), which must then not deliver it again. The
    renewed lease runs from now as the run's own clock has moved on, so no batch outlives its claim."""
    moving = now + timedelta(seconds=time.monotonic() - started + CLAIM_SECONDS)
    with engine.begin() as conn:
        renewed = conn.execute(
            update(OutboxRow)
            .where(
                OutboxRow.id == outbox_id,
                OutboxRow.status == "pending",
                OutboxRow.next_attempt_at == lease,  # type: ignore[arg-type]
            )
            .values(next_attempt_at=moving)
        )
    return renewed.rowcount == 1


def _mark_sent(engine: Engine, ids: list[int], now: datetime) -> None:
    with engine.begin() as conn:
        conn.execute(
            update(OutboxRow)
            .where(OutboxRow.id.in_(ids))  # type: ignore[union-attr]
            .values(
                status="sent",
                attempts=OutboxRow.attempts + 1,
                sent_at=now,
                next_attempt_at=None,
                last_error=None,
            )
        )
        forget_secrets(conn, ids)


#: dedupe keys of mails that carry a seat's secret (:mod:`pbem.mail.welcome`, a password reset)
SECRET_PREFIXES = ("welcome:", "password:")


def forget_secrets(conn: Any, ids: list[int]) -> None:
    """Of the delivered mails ``ids``, keep only the headers of those that carried a password: the
    outbox needs the body only until the server took it."""
    rows = conn.execute(
        select(OutboxRow.id, OutboxRow.message_z).where(
            OutboxRow.id.in_(ids),  # type: ignore[union-attr]
            or_(*[OutboxRow.dedupe_key.startswith(prefix) for prefix in SECRET_PREFIXES]),  # type: ignore[attr-defined]
        )
    ).all()
    for outbox_id, blob in rows:
        raw = unpack_message(blob)
        head = raw.split(b"\r\n\r\n", 1)[0]
        kept = head + b"\r\n\r\n[delivered; the body held a password and is not kept]\r\n"
        conn.execute(update(OutboxRow).where(OutboxRow.id == outbox_id).values(message_z=pack_message(kept)))


def _due(now: datetime) -> object:
    return and_(
        OutboxRow.status == "pending",
        or_(OutboxRow.next_attempt_at.is_(None), OutboxRow.next_attempt_at <= now),  # type: ignore[union-attr]
    )


def _claim(engine: Engine, now: datetime, size: int) -> list[tuple[int, str, bytes]]:
    """Take up to ``size`` due mails for this run, oldest due first: each is due again only once the
    lease has run out (after a crash). On PostgreSQL rows another sender holds are skipped; on SQLite
    the write lock, taken first, makes the second sender wait and then find them leased."""
    with Session(engine) as session:
        begin_write(session)
        pick = (
            select(OutboxRow.id)
            .where(_due(now))
            .order_by(OutboxRow.next_attempt_at, OutboxRow.id)
            .limit(size)
        )  # type: ignore[arg-type]
        if session.get_bind().dialect.name == "postgresql":
            pick = pick.with_for_update(skip_locked=True)
        ids = list(session.exec(pick))
        if not ids:
            return []
        session.exec(  # type: ignore[call-overload]
            update(OutboxRow)
            .where(OutboxRow.id.in_(ids))  # type: ignore[union-attr]
            .values(next_attempt_at=now + timedelta(seconds=CLAIM_SECONDS))
        )
        rows = session.exec(
            select(OutboxRow.id, OutboxRow.to_addr, OutboxRow.message_z).where(OutboxRow.id.in_(ids))  # type: ignore[union-attr]
        ).all()
        session.commit()
    found = {outbox_id: (outbox_id, to_addr, unpack_message(blob)) for outbox_id, to_addr, blob in rows}
    return [found[outbox_id] for outbox_id in ids]


def _release(engine: Engine, ids: list[int], now: datetime) -> None:
    """Hand claimed mails back, due at once, as if this run had not claimed them."""
    if ids:
        with engine.begin() as conn:
            conn.execute(update(OutboxRow).where(OutboxRow.id.in_(ids)).values(next_attempt_at=now))  # type: ignore[union-attr]


def _record_failure(
    engine: Engine, outbox_id: int, exc: DeliveryError, now: datetime, settings: MailSettings
) -> bool:
    with Session(engine) as session:
        begin_write(session)
        row = session.get(OutboxRow, outbox_id)
        assert row is not None
        row.attempts += 1
        row.last_error = _scrub(str(exc), settings.secrets())
        gave_up = exc.permanent and row.attempts >= settings.max_attempts
        if gave_up:
            row.status, row.next_attempt_at = "failed", None
        else:
            row.next_attempt_at = now + backoff(settings, row.attempts)
        session.add(row)
        session.commit()
        return gave_up
