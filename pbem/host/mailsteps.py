"""The tick's two mail steps, made to fail visibly: a message or a mail that failed is an error of the
tick (exit code 1) with its reason in the log, never a silent count.

- mail in: a message that raised (tried again next fetch) or was quarantined is a failure;
- mail out: a mail given up on is a failure; mail that keeps being refused is a WARNING each tick, and
  a failure once the oldest of it has waited :data:`STUCK_AFTER` (an SMTP server refusing every
  recipient for days is then in cron's mail, not only in the outbox table).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem import outbox
from pbem.core.clock import utc
from pbem.host.tick import PartFailed
from pbem.mail import inbound, poison
from pbem.mail.sources import Incoming
from pbem.outbox import notices as pushes
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import Transport
from pbem.storage.models import OutboxRow

log = logging.getLogger("pbem.cron")

#: a mail refused again and again for this long makes every tick fail until it goes or is given up
STUCK_AFTER = timedelta(hours=12)


def fetch(engine: Engine, source: Iterable[Incoming], settings: MailSettings, now: datetime) -> int:
    handled = inbound.fetch(engine, source, settings, now)
    failed = [h for h in handled if h.outcome in ("error", poison.QUARANTINED)]
    if failed:
        held = sum(h.outcome == poison.QUARANTINED for h in failed)
        raise PartFailed(
            len(handled),
            len(failed),
            f"{len(failed)} of {len(handled)} messages failed ({held} quarantined, see pbem mail held; "
            "the others are tried again next tick)",
        )
    return len(handled)


def deliver(engine: Engine, way: Transport, now: datetime, settings: MailSettings) -> int:
    result = outbox.send(engine, way, now, settings=settings)
    # the notices at the players' notice URLs (issue 32) go with the mail: after it, so the report
    # they point to is on its way first
    told = pushes.send(engine, now)
    if told.sent:
        log.info("notices: %d sent", len(told.sent))
    problems = []
    if result.delayed:
        log.warning(
            "mail out: %d mails refused or not delivered, retried later: %s",
            len(result.delayed),
            _last_error(engine, result.delayed),
        )
    if result.failed:
        why = _last_error(engine, result.failed)
        problems.append(f"{len(result.failed)} mails given up after repeated refusals: {why}")
    stuck, oldest = _stuck(engine, utc(now))
    if stuck:
        problems.append(f"{stuck} mails have waited since {oldest:%Y-%m-%d %H:%M} UTC without being accepted")
    if problems:
        raise PartFailed(len(result.sent), len(result.failed) + stuck, "; ".join(problems))
    return len(result.sent)


def _last_error(engine: Engine, ids: list[int]) -> str:
    with Session(engine) as session:
        row = session.exec(select(OutboxRow.last_error).where(OutboxRow.id.in_(ids[-1:]))).first()  # type: ignore[union-attr]
    return row or "no reason recorded"


def _stuck(engine: Engine, now: datetime) -> tuple[int, datetime | None]:
    with Session(engine) as session:
        count, oldest = session.exec(
            select(func.count(), func.min(OutboxRow.created_at)).where(
                OutboxRow.status == "pending",
                OutboxRow.attempts > 0,
                OutboxRow.created_at <= now - STUCK_AFTER,
            )
        ).one()
    return int(count or 0), oldest
