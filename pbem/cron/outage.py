"""The outage guard: a host that was down must not punish players for deadlines that ran out while
nobody could process their orders.

Every tick writes ``last_tick_at`` (a :class:`~pbem.models.HostRow`) by compare-and-set on the value it
read, so exactly one of several ticks starting together sees each gap. When the gap since the previous
tick is longer than the setting, every active game whose deadline fell after that previous tick gets
the whole gap added to its deadline: the time the host was away is given back.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.cron.claims import immediate_engine
from pbem.cron.deadlines import aware
from pbem.models import GameRow, HostRow

KEY = "last_tick_at"
DEFAULT_OUTAGE_SECONDS = 3 * 3600


def last_tick(engine: Engine) -> datetime | None:
    with Session(engine) as session:
        row = session.get(HostRow, KEY)
        return datetime.fromisoformat(row.value) if row is not None and row.value else None


def guard(engine: Engine, now: datetime, outage_seconds: int = DEFAULT_OUTAGE_SECONDS) -> int:
    """Record this tick; if the host was away longer than ``outage_seconds``, extend the deadlines that
    fell in the gap by the gap. Returns the seconds given back (0 when there was no outage, or when
    another tick claimed this gap first)."""
    stamp = aware(now).isoformat()  # type: ignore[union-attr]
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
        if aware(now) <= previous:  # a tick that started after us already moved it on
            return 0
        swapped = session.exec(  # type: ignore[call-overload]
            update(HostRow).where(HostRow.key == KEY, HostRow.value == row.value).values(value=stamp)
        )
        if swapped.rowcount != 1:
            session.rollback()
            return 0
        gap = aware(now) - previous  # type: ignore[operator]
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
                .values(deadline_at=aware(game.deadline_at) + gap)  # type: ignore[operator]
                .execution_options(synchronize_session=False)
            )
        session.commit()
        return int(gap / timedelta(seconds=1))
