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
from functools import cache
from typing import Any, NamedTuple

from sqlalchemy import Engine, and_, bindparam, or_, update
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.outbox.queueing import begin_write, pack_message, unpack_message
from pbem.outbox.settings import MailSettings, load_settings
from pbem.outbox.transport import DeliveryError, Transport
from pbem.storage.models import OutboxRow

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


class _Claimed(NamedTuple):
    id: int
    dedupe_key: str
    to_addr: str
    raw: bytes


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

    Mails are claimed ``batch`` at a time in one statement (a lease in ``next_attempt_at``), then
    delivered one by one, each marked sent as soon as the server took it: a crash re-sends at most the
    one mail in flight, and a concurrent sender never sees a claimed row as due. Before each delivery
    the run renews its claim on that mail, in the transaction that marks the mail before it sent. A
    transport whose delivery is idempotent (``idempotent = True``: the outbox Maildir, which takes a
    message once by its Message-ID) has its mails marked sent a batch at a time, in one write instead
    of fifty.
    """
    settings = settings or load_settings()
    now = utc(now)
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
            delivered: list[_Claimed] = []  # taken by the server, not marked sent yet
            try:
                for index, mail in enumerate(claimed):
                    if not at_once:
                        ours = _settle(engine, delivered, now, mail.id, lease, started)
                        result.sent += [sent.id for sent in delivered]
                        delivered = []
                        if not ours:
                            continue  # another sender took it over (our claim ran out): it is theirs
                    try:
                        transport.deliver(settings.from_addr, mail.to_addr, mail.raw)
                    except DeliveryError as exc:
                        gave_up = _record_failure(engine, mail.id, exc, now, settings)
                        (result.failed if gave_up else result.delayed).append(mail.id)
                        if exc.server_down:
                            # the rest would fail the same way, each after a timeout: leave them due for
                            # the next run, without counting an attempt
                            _release(engine, [row.id for row in claimed[index + 1 :]], now)
                            return result
                    else:
                        delivered.append(mail)
            finally:
                if delivered:
                    _settle(engine, delivered, now)
                    result.sent += [sent.id for sent in delivered]
    return result


def _settle(
    engine: Engine,
    delivered: list[_Claimed],
    now: datetime,
    renew: int | None = None,
    lease: datetime | None = None,
    started: float = 0.0,
) -> bool:
    """In one transaction: mark ``delivered`` sent (forgetting the bodies that held a secret), and
    renew this run's claim on the mail ``renew`` about to be delivered, by compare-and-set on the lease
    it wrote (the claim's token). ``False`` when another sender has claimed that mail since (this run
    was slow, say behind a slow relay, and its lease ran out), which must then not deliver it again.
    The renewed lease runs from now as the run's own clock has moved on, so no batch outlives its
    claim. Marking the previous mail with the next one's renewal spares a transaction a mail: the
    previous mail is marked before the next one is handed over, as when each had its own."""
    with engine.begin() as conn:
        if delivered:
            conn.execute(_MARK_SENT, {"ids": [mail.id for mail in delivered], "now": now})
            secret = [mail.id for mail in delivered if mail.dedupe_key.startswith(SECRET_PREFIXES)]
            if secret:
                forget_secrets(conn, secret)
        if renew is None:
            return True
        moving = now + timedelta(seconds=time.monotonic() - started + CLAIM_SECONDS)
        renewed = conn.execute(_RENEW, {"of_mail": renew, "lease": lease, "moving": moving})
    return renewed.rowcount == 1


_O = OutboxRow.__table__  # type: ignore[attr-defined]
# built once, run with each batch's values (building and keying a statement cost SQLAlchemy more than
# running it)
_MARK_SENT = (
    update(_O)
    .where(_O.c.id.in_(bindparam("ids", expanding=True)))
    .values(
        status="sent",
        attempts=_O.c.attempts + 1,
        sent_at=bindparam("now"),
        next_attempt_at=None,
        last_error=None,
    )
)
_RENEW = (
    update(_O)
    .where(
        _O.c.id == bindparam("of_mail"), _O.c.status == "pending", _O.c.next_attempt_at == bindparam("lease")
    )
    .values(next_attempt_at=bindparam("moving"))
)


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


_DUE = and_(
    _O.c.status == "pending", or_(_O.c.next_attempt_at.is_(None), _O.c.next_attempt_at <= bindparam("now"))
)
_PICK = select(_O.c.id).where(_DUE).order_by(_O.c.next_attempt_at, _O.c.id).limit(bindparam("size"))


@cache
def _claim_statement(locking: bool) -> Any:
    """``UPDATE`` of up to ``size`` due mails, oldest due first, to this run's lease, returning their
    ids: one statement (on SQLite a write from the start, so it takes the write lock before it reads;
    on PostgreSQL the rows another sender holds skipped)."""
    pick = _PICK.with_for_update(skip_locked=True) if locking else _PICK
    return (
        update(_O)
        .where(_O.c.id.in_(pick.scalar_subquery()))
        .values(next_attempt_at=bindparam("lease"))
        .returning(_O.c.id)
    )


# what delivering the claimed mails needs, read apart: SQLite's RETURNING of the messages themselves
# cost twice the UPDATE and a SELECT (139 against 70 us a 50 KB row: it copies them through a table)
_CLAIMED = (
    select(_O.c.id, _O.c.dedupe_key, _O.c.to_addr, _O.c.message_z)
    .where(_O.c.id.in_(bindparam("ids", expanding=True)))
    .order_by(_O.c.id)
)


def _claim(engine: Engine, now: datetime, size: int) -> list[_Claimed]:
    """Take up to ``size`` due mails for this run, oldest due first: each is due again only once the
    lease has run out (after a crash). On PostgreSQL rows another sender holds are skipped; on SQLite
    the write lock, taken first, makes the second sender wait and then find them leased. The batch is
    delivered in the order the mails were queued."""
    lease = now + timedelta(seconds=CLAIM_SECONDS)
    with engine.begin() as conn:
        statement = _claim_statement(conn.dialect.name == "postgresql")
        ids = list(conn.execute(statement, {"now": now, "size": size, "lease": lease}).scalars())
        rows = conn.execute(_CLAIMED, {"ids": ids}).all() if ids else []
    return [_Claimed(row[0], row[1], row[2], unpack_message(row[3])) for row in rows]


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
