"""Time as the host keeps it: timezone-aware UTC (SQLModel's datetime columns refuse naive values and
hand back aware UTC, on SQLite as on PostgreSQL, since SQLModel 0.0.45: pyproject.toml's floor).

:func:`utc` is the host's one "make it aware UTC": a moment read from the database needs none."""

from __future__ import annotations

from datetime import UTC, datetime

from pbem.core.errors import UserError


def utc(moment: datetime | None = None) -> datetime:
    """``moment`` (now when ``None``) as aware UTC; a naive moment is taken to be UTC already."""
    if moment is None:
        return datetime.now(UTC)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def show(moment: datetime | None) -> str | None:
    """``2026-11-30 18:00 UTC``: how a stored moment is shown to people."""
    return None if moment is None else f"{utc(moment):%Y-%m-%d %H:%M} UTC"


#: the moments a host takes from a file (an archive's times): a deadline lies at most twenty years (a
#: turn and its grace) after one, and every date the host computes must still fit in a year 1-9999
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def checked(moment: datetime | str, where: str) -> datetime:
    """``moment`` (an ISO time, or a moment read from a file) as aware UTC, or a :class:`UserError` naming
    ``where`` it stands when it is no time or lies outside the years the host keeps."""
    found: datetime | None = None
    try:
        found = utc(datetime.fromisoformat(moment) if isinstance(moment, str) else moment)
    except (ValueError, TypeError):
        raise UserError(
            f"{where} {str(moment)[:60]!r} is not an ISO time like 2026-03-02T09:00:00+00:00"
        ) from None
    except OverflowError:  # year 1 or 9999 moved to UTC: out of range below, as it is
        pass
    if found is None or not EARLIEST <= found < LATEST:
        raise UserError(
            f"{where} {str(moment)[:60]!r}: write a time from {EARLIEST.year} to {LATEST.year - 1}, "
            "like 2026-03-02T09:00:00+00:00"
        )
    return found
