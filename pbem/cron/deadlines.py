"""Deadlines: durations as people write them, a game's deadline, and how it is shown.

``GameRow.deadline_at`` is the deadline of the turn that is due (``turn + 1``); ``grace_seconds`` more
pass before a missed deadline counts. A game without ``turn_seconds`` has no deadline at all.

>>> parse_duration("1d12h")
129600
>>> show_duration(129600)
'1d 12h'
>>> say_duration(129600)
'1 day 12 hours'

``show_duration`` is the operator's short form (``pbem pause``'s answer, logs); a player reads
:func:`say_duration`, the units as words of the reader's language with their plural forms.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pbem.core.clock import utc
from pbem.core.errors import UserError
from pbem.core.i18n import _, ngettext
from pbem.core.zones import deadline_after
from pbem.core.zones import show as show_in_zone
from pbem.storage.models import GameRow

_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+)\s*([wdhms])")


def parse_duration(text: str) -> int:
    """Seconds in ``48h``, ``2d``, ``1d12h``, ``90m``, ``1w`` (a bare number is hours).

    Raises :class:`UserError` for anything else, or for zero.
    """
    raw = text.strip().lower().replace(" ", "")
    if raw.isdigit():
        seconds = int(raw) * 3600
    else:
        parts = _PART.findall(raw)
        if not parts or "".join(n + u for n, u in parts) != raw:
            raise UserError(_("not a duration: {text} (write e.g. 48h, 2d, 1d12h, 90m)", text=repr(text)))
        seconds = sum(int(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise UserError(_("a duration must be more than zero: {text}", text=repr(text)))
    if seconds > MAX_DURATION:  # no date could hold the deadline; no game waits that long
        raise UserError(_("a duration of at most 10 years (520w), not {text}", text=repr(text)))
    return seconds


MAX_DURATION = 10 * 365 * 86400


def _counts(seconds: int) -> list[tuple[str, int]]:
    """The two largest units of ``seconds`` that are not zero, with their counts (weeks said as days)."""
    left = max(int(seconds), 0)
    counts = []
    for unit, size in _UNITS.items():
        if unit == "w":
            continue
        count, left = divmod(left, size)
        if count:
            counts.append((unit, count))
    return counts[:2]


def show_duration(seconds: int) -> str:
    """``1d 12h``, ``45m``, ``30s``: the two largest units that are not zero."""
    return " ".join(f"{count}{unit}" for unit, count in _counts(seconds)) or "0s"


def _unit(unit: str, count: int) -> str:
    if unit == "d":
        return ngettext("{n} day", "{n} days", count)
    if unit == "h":
        return ngettext("{n} hour", "{n} hours", count)
    if unit == "m":
        return ngettext("{n} minute", "{n} minutes", count)
    return ngettext("{n} second", "{n} seconds", count)


def say_duration(seconds: int) -> str:
    """``1 day 12 hours``, ``45 minutes``: :func:`show_duration`'s two largest units in the reader's
    words, each with the form its number takes."""
    parts = [_unit(unit, count) for unit, count in _counts(seconds)]
    if not parts:
        return _unit("s", 0)
    if len(parts) == 1:
        return parts[0]
    # Translators: two parts of a duration, the larger first: "1 day" and "12 hours"
    return _("{larger} {smaller}", larger=parts[0], smaller=parts[1])


def next_deadline(game: GameRow, start: datetime) -> datetime | None:
    """The deadline of a turn that becomes due at ``start``."""
    if not game.turn_seconds:
        return None
    return deadline_after(utc(start), game.turn_seconds, game.timezone)  # type: ignore[arg-type]


def passed_at(game: GameRow) -> datetime | None:
    """When a missed deadline counts: the deadline plus the grace."""
    deadline = game.deadline_at  # aware UTC, as SQLModel's columns give it
    if deadline is None:
        return None
    return deadline + timedelta(seconds=game.grace_seconds or 0)


def has_passed(game: GameRow, now: datetime) -> bool:
    moment = passed_at(game)
    return moment is not None and utc(now) >= moment  # type: ignore[operator]


def periods_missed(game: GameRow, now: datetime) -> int:
    """How many deadlines a missing seat has missed in the due turn: 0 before the deadline plus grace,
    1 from then, and one more each further ``turn_seconds`` the game waits (the ``wait`` policy)."""
    moment = passed_at(game)
    if moment is None or utc(now) < moment:  # type: ignore[operator]
        return 0
    if not game.turn_seconds:
        return 1
    return 1 + int((utc(now) - moment).total_seconds() // game.turn_seconds)  # type: ignore[operator]


def show_deadline(moment: datetime | None, tz: str = "UTC") -> str | None:
    """``Nov 30, 2026 18:00 UTC`` (in the reader's language), or in another zone with UTC beside it:
    ``Nov 30, 2026 19:00 CET (18:00 UTC)``. ``None`` when there is no deadline.

    >>> from datetime import UTC
    >>> show_deadline(datetime(2026, 11, 30, 18, 0, tzinfo=UTC), "Europe/Berlin")
    'Nov 30, 2026 19:00 CET (18:00 UTC)'
    """
    return show_in_zone(moment, tz)


def describe(game: GameRow, now: datetime, tz: str = "UTC") -> str | None:
    """The deadline line of a report: when, how long from ``now``, the grace, or that it is paused.

    ``None`` for a game without deadlines.
    """
    if game.status == "paused":
        return _("paused by the game master: no deadline runs")
    shown = show_deadline(game.deadline_at, tz)
    if shown is None:
        return None
    left = int((game.deadline_at - utc(now)).total_seconds())  # type: ignore[operator]
    grace = say_duration(game.grace_seconds) if game.grace_seconds else None
    if left > 0 and grace:
        return _(
            "{deadline} (in {left}; a grace of {grace} follows)",
            deadline=shown,
            left=say_duration(left),
            grace=grace,
        )
    if left > 0:
        return _("{deadline} (in {left})", deadline=shown, left=say_duration(left))
    if grace:
        return _("{deadline} (passed; a grace of {grace} follows)", deadline=shown, grace=grace)
    return _("{deadline} (passed)", deadline=shown)
