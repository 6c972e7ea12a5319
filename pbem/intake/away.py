"""Time away: a seat says it is away until a day (``away: {until: 2026-12-20}`` by mail, or the game
master's ``pbem away``), and while it is, the game's absence policy applies at a deadline its orders
miss: ``bot`` (the bot plays for it, no miss counted) or ``extend`` (the deadline waits for its
return). The days away are capped per seat and game (``GameRow.absence_days``); the days not used
are given back when the player ends the absence early, which any mail or orders from it does.

The away seat is back at the end of the day it named, in its own zone. The other seats read
"ann is away until 20 December." in their reports.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlmodel import Session, select

from pbem.core import clock, zones
from pbem.core.errors import UserError
from pbem.core.i18n import _
from pbem.storage.models import GameRow, SeatRow

DAY = 86400


def parse_day(value: Any) -> date:
    """``2026-12-20`` (as YAML gives it, a date, or text) as a date; a :class:`UserError` otherwise."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise UserError(
            _(
                "until: {value!r} is not a day: write it as year-month-day, e.g. until: 2026-12-20",
                value=value,
            )
        ) from None


def back_at(day: date, tz: str) -> datetime:
    """When a seat away until ``day`` is back: the end of that day in its zone, in UTC."""
    local = datetime.combine(day + timedelta(days=1), time(0), tzinfo=zones.zone(tz))
    return clock.utc(local)


def is_away(seat: SeatRow, now: datetime) -> bool:
    return seat.away_until is not None and clock.utc(seat.away_until) > clock.utc(now)


def set_away(session: Session, game: GameRow, seat: SeatRow, until: Any, now: datetime) -> str:
    """Mark ``seat`` away until the day ``until`` (in the caller's transaction); the sentence to tell
    the player. A :class:`UserError` for a past day or one beyond the days left to the seat."""
    day = parse_day(until)
    tz = zones.seat_zone(game.timezone, seat.timezone)
    try:
        ends = back_at(day, tz)
    except OverflowError:  # the last day of year 9999 has no day after it: beyond any time away anyway
        ends = datetime.max.replace(tzinfo=UTC)
    now = clock.utc(now)
    if ends <= now:
        raise UserError(_("until: {day} has passed already: name a day from today on", day=day.isoformat()))
    end_absence(seat, now)  # a new absence replaces the one running: its unused days come back first
    days = math.ceil((ends - now).total_seconds() / DAY)
    left = game.absence_days - seat.away_days_used
    if days > left:
        raise UserError(
            _(
                "until: {day} is too far away (days until then: {days}; days of time away this seat has "
                "left in game {game}: {left}, of {cap} in all): name a day up to {last}",
                day=day.isoformat(),
                days=days,
                left=max(left, 0),
                cap=game.absence_days,
                game=game.id,
                last=(now + timedelta(days=max(left, 1) - 1)).astimezone(zones.zone(tz)).date().isoformat(),
            )
        )
    seat.away_until, seat.away_days_used = ends, seat.away_days_used + days
    session.add(seat)
    policy = (
        _("the bot plays your turns at their deadlines")
        if game.absence == "bot"
        else _("deadlines your orders miss wait for your return")
    )
    return _(
        "You are away until {until} in game {game}: {policy}. Any mail or orders from you end the "
        "absence early.",
        until=zones.show_day(day),
        game=game.id,
        policy=policy,
    )


def end_absence(seat: SeatRow, now: datetime) -> bool:
    """The seat is back (early or not); its unused whole days are given back. Whether it was away."""
    if seat.away_until is None:
        return False
    unused = (clock.utc(seat.away_until) - clock.utc(now)).total_seconds()
    if unused > 0:
        seat.away_days_used = max(0, seat.away_days_used - int(unused // DAY))
    seat.away_until = None
    return unused > 0


def back(
    session: Session, game_id: str, seat_name: str, now: datetime, *, seat: SeatRow | None = None
) -> bool:
    """A mail or orders from the seat: its absence ends, in the caller's transaction. ``seat``: the
    seat's row as this transaction read it already (spares reading it again)."""
    if seat is None or (seat.game_id, seat.name) != (game_id, seat_name):
        seat = session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
        ).first()
    if seat is None or seat.away_until is None:
        return False
    ended = end_absence(seat, now)
    session.add(seat)
    return ended


def away_notes(game: GameRow, seats: Sequence[SeatRow], now: datetime | None = None) -> list[dict[str, Any]]:
    """``{seat, day}`` of every seat away at ``now`` (``day``: the last day away, in its zone), for
    the other seats' reports, which put the day in their reader's words."""
    moment = clock.utc(now)
    notes = []
    for seat in seats:
        if is_away(seat, moment):
            tz = zones.seat_zone(game.timezone, seat.timezone)
            last_day = (clock.utc(seat.away_until) - timedelta(seconds=1)).astimezone(zones.zone(tz)).date()  # type: ignore[arg-type]
            notes.append({"seat": seat.name, "day": last_day})
    return notes
