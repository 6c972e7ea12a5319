"""The outage guard: a host that was down must not punish players for deadlines that ran out while
nobody could process their orders.

Every tick writes ``last_tick_at`` (a :class:`~pbem.storage.models.HostRow`) by compare-and-set on the value
it read, so exactly one of several ticks starting together sees each gap. When the gap since the previous
tick is longer than the setting, every active game whose deadline fell after that previous tick gets
the whole gap added to its deadline: the time the host was away is given back.

Clocks lie, so the gap is bounded both ways. A previous tick far *in the future* (more than the
plausible gap ahead: it ran with a clock that was ahead) is not an order to wait: it is overwritten with
this tick's moment and logged, so the host neither freezes nor misses a real outage later; one a little
ahead is kept (this tick's clock may be the one behind) and logged. A gap longer than
:data:`MAX_PLAUSIBLE_GAP` is taken for a clock that jumped ahead, not for an outage: the tick is refused
(:class:`ClockJump`) before it changes anything, since such a tick would also find every deadline
passed; an operator whose host really was down that long says so with ``pbem tick --trust-clock``.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import Engine, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.storage.models import GameRow, HostRow
from pbem.storage.sqlite import immediate_engine

KEY = "last_tick_at"
DEFAULT_OUTAGE_SECONDS = 3 * 3600
#: a gap since the last tick longer than this is a clock error until an operator says otherwise
MAX_PLAUSIBLE_GAP = timedelta(days=30)
#: a last tick this far in the future was written by a clock that was ahead
FUTURE_TOLERANCE = timedelta(minutes=10)

log = logging.getLogger("pbem.cron")


class ClockJump(Exception):
    """This tick's clock is implausibly far ahead of the last tick's: nothing was done."""


def last_tick(engine: Engine) -> datetime | None:
    with Session(engine) as session:
        row = session.get(HostRow, KEY)
        return datetime.fromisoformat(row.value) if row is not None and row.value else None


def guard(
    engine: Engine,
    now: datetime,
    outage_seconds: int = DEFAULT_OUTAGE_SECONDS,
    *,
    trust_clock: bool = False,
) -> int:
    """Record this tick; if the host was away longer than ``outage_seconds``, extend the deadlines that
    fell in the gap by the gap. Returns the seconds given back (0 when there was no outage, or when
    another tick claimed this gap first). Raises :class:`ClockJump` (having written nothing) for a gap
    beyond :data:`MAX_PLAUSIBLE_GAP` unless ``trust_clock``."""
    stamp = utc(now).isoformat()  # type: ignore[union-attr]
    # read, then write: on SQLite only a transaction that holds the write lock from its start may do
    # that while others write (a deferred one would fail on its first write instead of waiting)
    with Session(immediate_engine(engine)) as session:
        row = session.get(HostRow, KEY)
        if row is None:
            session.add(HostRow(key=KEY, value=stamp))
            try:
                session.commit()
            except IntegrityError:  # the first tick ever, twice at once: the other one wrote it
                session.rollback()
            return 0
        previous = datetime.fromisoformat(row.value)
        if utc(now) + FUTURE_TOLERANCE < previous:  # type: ignore[operator]
            if previous - utc(now) <= MAX_PLAUSIBLE_GAP:  # type: ignore[operator]
                # this clock may be the one that is behind: keep the record (no outage is counted from
                # a time a slow clock wrote), and the guard works again once real time passes it
                log.warning(
                    "the last tick was recorded at %s, after this tick's clock (%s)", row.value, stamp
                )
                return 0
            # written by a clock that was far ahead: waiting for it would freeze the outage guard
            swapped = session.exec(  # type: ignore[call-overload]
                update(HostRow).where(HostRow.key == KEY, HostRow.value == row.value).values(value=stamp)
            )
            session.commit()
            if swapped.rowcount == 1:
                log.warning(
                    "the last tick was recorded at %s, in the future: its clock was ahead; now %s counts",
                    previous.isoformat(),
                    stamp,
                )
            return 0
        if utc(now) <= previous:  # a tick that started after us already moved it on
            return 0
        if utc(now) - previous > MAX_PLAUSIBLE_GAP and not trust_clock:  # type: ignore[operator]
            session.rollback()
            raise ClockJump(
                f"the clock says {stamp}, {(utc(now) - previous).days} days after the last tick "  # type: ignore[operator]
                f"({row.value}): a clock error is likelier than an outage that long, so nothing was done. "
                "Fix the clock; if the host really was down that long, run pbem tick --trust-clock once"
            )
        swapped = session.exec(  # type: ignore[call-overload]
            update(HostRow).where(HostRow.key == KEY, HostRow.value == row.value).values(value=stamp)
        )
        if swapped.rowcount != 1:
            session.rollback()
            return 0
        gap = utc(now) - previous  # type: ignore[operator]
        if gap.total_seconds() <= outage_seconds:
            session.commit()
            return 0
        games = session.exec(
            select(GameRow).where(
                GameRow.status == "active",
                GameRow.deadline_at.is_not(None),  # type: ignore[union-attr]
                GameRow.deadline_at > previous,  # type: ignore[operator]
            )
        ).all()
        for game in games:
            # conditional on the deadline we read: a turn resolved meanwhile set a fresh one, keep it
            session.exec(  # type: ignore[call-overload]
                update(GameRow)
                .where(GameRow.id == game.id, GameRow.deadline_at == game.deadline_at)
                .values(deadline_at=game.deadline_at + gap)  # type: ignore[operator]
                .execution_options(synchronize_session=False)
            )
        session.commit()
        return int(gap / timedelta(seconds=1))
