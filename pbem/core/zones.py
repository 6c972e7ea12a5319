"""Time zones: a zone per game and per seat (IANA names through :mod:`zoneinfo`), deadlines counted on
the game's wall clock, and every deadline a player reads shown in that player's zone with UTC beside it.

A turn of whole days (``2d``) ends at the same wall-clock time in the game's zone however many
daylight-saving changes it crosses (18:00 stays 18:00); any other duration is counted in real time.
Reminders count back from the deadline in real time, so a reminder 12 hours ahead stays 12 hours
ahead across a change. :func:`show` is the one place a moment is formatted for a player.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from babel.dates import format_date

from pbem.core.clock import utc
from pbem.core.errors import UserError
from pbem.core.i18n import _, babel_locale, format_deadline

DAY = 86400
#: the longest zone name taken (the zone columns hold 64 characters; the longest IANA name has 32)
MAX_NAME = 64


def zone(name: str) -> ZoneInfo:
    """The zone of an IANA name, or a :class:`UserError` saying what to write instead."""
    cleaned = (name or "").strip()
    try:
        # no zone's name is longer than a column holds; a longer one is no file name either (OSError)
        if not cleaned or len(cleaned) > MAX_NAME or cleaned.startswith(("/", ".")) or ".." in cleaned:
            raise ValueError(cleaned)
        return ZoneInfo(cleaned)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        near = sorted(z for z in available_timezones() if cleaned and cleaned.lower() in z.lower())[:3]
        shown = cleaned if len(cleaned) <= MAX_NAME else cleaned[:MAX_NAME] + "…"
        if near:
            raise UserError(
                _(
                    "unknown time zone {name!r} (did you mean {near}?): write a zone name such as "
                    "Europe/Budapest, Asia/Shanghai or UTC",
                    name=shown,
                    near=", ".join(near),
                )
            ) from None
        raise UserError(
            _(
                "unknown time zone {name!r}: write a zone name such as Europe/Budapest, Asia/Shanghai or UTC",
                name=shown,
            )
        ) from None


def check(name: str) -> str:
    """``name`` if it is a known zone (its canonical spelling), else a :class:`UserError`."""
    return str(zone(name).key)


def show(moment: datetime | None, tz: str | None = "UTC") -> str | None:
    """A moment as a player reads it, in the current language's words: ``Mar 30, 2026 18:00 CEST
    (16:00 UTC)`` in their zone, or ``Mar 30, 2026 16:00 UTC``. The one function that formats a
    deadline for a player (the words are :func:`pbem.core.i18n.format_deadline`'s)."""
    if moment is None:
        return None
    return format_deadline(utc(moment), zone(tz) if tz and tz.upper() != "UTC" else None)


def show_day(day: date) -> str:
    """A day as a player reads it, in the current language: ``20 December`` (a game runs for weeks,
    so the year is not needed)."""
    return format_date(day, "d MMMM", locale=babel_locale())


def deadline_after(start: datetime, seconds: int, tz: str | None = "UTC") -> datetime:
    """The deadline ``seconds`` after ``start``: whole days on the wall clock of ``tz``, the rest in
    real time (see the module's docstring)."""
    start = utc(start)
    days, rest = divmod(int(seconds), DAY)
    if not days or not tz or tz.upper() == "UTC":
        return start + timedelta(seconds=seconds)
    here = zone(tz)
    local = start.astimezone(here).replace(tzinfo=None) + timedelta(days=days)
    # a wall time that does not exist (the spring gap) or exists twice (autumn) is read as the
    # earlier offset's (fold 0), as zoneinfo does: one answer, the same on every host
    return local.replace(tzinfo=here).astimezone(UTC) + timedelta(seconds=rest)


def seat_zone(game_zone: str | None, seat_zone_name: str | None) -> str:
    """The zone a seat reads its deadlines in: its own, else the game's."""
    return seat_zone_name or game_zone or "UTC"
