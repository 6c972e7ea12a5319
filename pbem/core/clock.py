"""Time as the host keeps it: timezone-aware UTC (SQLModel's datetime columns refuse naive values and
hand back aware UTC, on SQLite as on PostgreSQL, since SQLModel 0.0.45: pyproject.toml's floor).

:func:`utc` is the host's one "make it aware UTC": a moment read from the database needs none."""

from __future__ import annotations

from datetime import UTC, datetime


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
