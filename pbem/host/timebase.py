"""The moment a tick works at: the database's clock where the database has one.

Leases, claims and ``last_tick_at`` are compared between hosts; measured on each host's own clock,
two hosts whose clocks disagree by more than a lease would both own a game or a mail. PostgreSQL has one
clock for all its clients, so a tick on PostgreSQL takes ``now()`` from it (and logs when this host's
clock is off by more than :data:`SKEW_WARNING`). An SQLite file lives on one machine, whose clock every
tick shares; there the tick's own clock is used, within the outage guard's sanity bounds
(:mod:`pbem.host.outage`). A moment given with ``--now`` is taken as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, text

from pbem.core.clock import utc

log = logging.getLogger("pbem.cron")

SKEW_WARNING = timedelta(seconds=60)


def _wall() -> datetime:
    return datetime.now(UTC)


def database_now(engine: Engine) -> datetime | None:
    """The database's own time, or ``None`` when it has none of its own (SQLite)."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        moment = conn.execute(text("SELECT now()")).scalar_one()
    return utc(moment)


def tick_moment(engine: Engine, given: datetime | None, wall: Callable[[], datetime] = _wall) -> datetime:
    """``given`` if any, else the database's time, else this host's clock."""
    if given is not None:
        return given
    mine = wall()
    theirs = database_now(engine)
    if theirs is None:
        return mine
    if abs(mine - theirs) > SKEW_WARNING:
        log.warning(
            "this host's clock (%s) is %ds off the database's (%s): the database's time is used, fix the "
            "clock",
            f"{mine:%Y-%m-%d %H:%M:%S}",
            int((mine - theirs).total_seconds()),
            f"{theirs:%Y-%m-%d %H:%M:%S}",
        )
    return theirs
