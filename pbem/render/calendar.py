"""Deadlines in the players' calendars (RFC 5545, built with :mod:`icalendar`).

Each seat's deadline of a turn is one event: its UID names the game, epoch, turn and seat, so a
deadline that moves updates the same event (a higher SEQUENCE), and once the turn is resolved the
event is cancelled (METHOD:CANCEL, STATUS:CANCELLED). Each event carries a reminder (VALARM) some
hours before the deadline. Every mail that sets or moves a seat's deadline carries such a part
(:func:`report_parts`); ``pbem calendar ID --player P`` prints a seat's feed (:func:`feed`).

The SEQUENCE is the number of seconds from the game's creation to the moment the part is made: it
rises with every update and cancellation without a counter to keep, and the same moment gives the
same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import Engine
from sqlmodel import Session

from pbem.core import clock, zones
from pbem.core.errors import UserError
from pbem.core.i18n import _, language
from pbem.core.registry import games
from pbem.storage.history import game_row, seat_rows
from pbem.storage.models import GameRow, SeatRow

if TYPE_CHECKING:
    import icalendar

# icalendar (with dateutil) takes a tenth of a second to import: it is imported where a part is made, so
# that every pbem command does not pay for it, only the ones that write a calendar

PRODID = "-//pbem//deadlines//EN"
#: the reminder before a deadline, in real time (so it keeps its lead across a daylight-saving change)
REMIND_BEFORE = timedelta(hours=12)
#: the organizer iTIP asks for, when the mail layer names no sender
ORGANIZER = "pbem@localhost"


def uid(game_id: str, epoch: int, turn: int, seat: str) -> str:
    """The event of ``seat``'s deadline for ``turn``: the same whenever that deadline moves."""
    return f"deadline-{game_id}-{epoch}-{turn}-{seat}@pbem"


def sequence(game: GameRow, now: datetime) -> int:
    """Seconds from the game's creation to ``now`` (see the module's docstring)."""
    return max(0, int((clock.utc(now) - clock.utc(game.created_at)).total_seconds()))


def _calendar(method: str) -> icalendar.Calendar:
    import icalendar

    cal = icalendar.Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("method", method)
    return cal


def _event(
    game: GameRow, seat: SeatRow, turn: int, now: datetime, organizer: str, epoch: int | None = None
) -> icalendar.Event:
    import icalendar

    event = icalendar.Event()
    event.add("uid", uid(game.id, game.epoch if epoch is None else epoch, turn, seat.name))
    event.add("dtstamp", clock.utc(now))
    event.add("sequence", sequence(game, now))
    event.add("organizer", f"mailto:{organizer}")
    rules = games().get(game.game_type)  # a game this host cannot load still has its mail sent
    title = rules.title if rules is not None else game.game_type
    event.add(
        "summary", _("{title} {game}: orders for turn {turn} due", title=title, game=game.id, turn=turn)
    )
    return event


def deadline_part(
    game: GameRow, seat: SeatRow, turn: int, deadline: datetime, now: datetime, organizer: str = ORGANIZER
) -> str:
    """The event of ``seat``'s deadline for ``turn``, set or moved, with its reminder."""
    import icalendar

    tz = zones.seat_zone(game.timezone, seat.timezone)
    cal = _calendar("PUBLISH")
    event = _event(game, seat, turn, now, organizer)
    event.add("dtstart", clock.utc(deadline))
    event.add("dtend", clock.utc(deadline))
    event.add("status", "CONFIRMED")
    event.add(
        "description",
        _(
            "Seat {seat} of game {game}: your orders for turn {turn} are due by {deadline}.",
            seat=seat.name,
            game=game.id,
            turn=turn,
            deadline=zones.show(deadline, tz),
        ),
    )
    alarm = icalendar.Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("trigger", -REMIND_BEFORE)
    alarm.add("description", _("Orders for turn {turn} of {game} are due soon", turn=turn, game=game.id))
    event.add_component(alarm)
    cal.add_component(event)
    return cal.to_ical().decode("utf-8")


def cancel_part(
    game: GameRow,
    seat: SeatRow,
    turn: int,
    now: datetime,
    organizer: str = ORGANIZER,
    *,
    epoch: int | None = None,
) -> str:
    """The event of ``seat``'s deadline for ``turn`` cancelled: the turn is resolved, the game paused,
    or (``epoch``, an earlier one than the game's) the turn undone by a rollback."""
    cal = _calendar("CANCEL")
    event = _event(game, seat, turn, now, organizer, epoch)
    event.add("status", "CANCELLED")
    cal.add_component(event)
    return cal.to_ical().decode("utf-8")


def report_parts(
    game: GameRow, seat: SeatRow, turn: int, now: datetime, organizer: str = ORGANIZER
) -> list[str]:
    """The calendar parts of ``seat``'s report after ``turn``: the resolved turn's event cancelled,
    and the next turn's deadline when the game stands at that turn with one (an older report, mailed
    late, sets nothing). A game without deadlines has none."""
    parts = []
    # the events' words are the seat's, as its report's are: the mail is composed outside any language
    with language(seat.language or game.language):
        if turn >= 1 and game.turn_seconds:  # a game with deadlines: the resolved turn had one
            parts.append(cancel_part(game, seat, turn, now, organizer))
        if game.status == "active" and game.turn == turn and game.deadline_at is not None:
            parts.append(deadline_part(game, seat, turn + 1, game.deadline_at, now, organizer))
    return parts


def parts_for_reports(
    session: Session,
    game_id: str,
    reports: Sequence[tuple[int, str, int]],
    now: datetime,
    organizer: str,
    *,
    game: GameRow | None = None,
    seats: Sequence[SeatRow] | None = None,
) -> dict[int, list[str]]:
    """The calendar parts of one game's reports ``(report id, seat, turn)``, by report id; the public
    report (seat ``""``) has none. ``game`` and ``seats``: the game's rows when the caller has read
    them already (else they are read here)."""
    wanted = [r for r in reports if r[1]]
    if not wanted:
        return {}
    game = game if game is not None else game_row(session, game_id)
    seats = {s.name: s for s in (seats if seats is not None else seat_rows(session, game_id))}
    return {
        report_id: report_parts(game, seats[name], turn, now, organizer)
        for report_id, name, turn in wanted
        if name in seats
    }


def feed(engine: Engine, game_id: str, seat_name: str, now: datetime | None = None) -> str:
    """``seat_name``'s feed: the deadline of the turn due, as an event with its reminder (a calendar
    without events when there is none)."""
    moment = clock.utc(now)
    with Session(engine) as session:
        game = game_row(session, game_id)
        seats = seat_rows(session, game_id)
    found = [s for s in seats if s.name == seat_name]
    if not found:
        names = ", ".join(s.name for s in seats)
        raise UserError(
            _(
                "game {game} has no seat {seat}; its seats are {seats}",
                game=game_id,
                seat=repr(seat_name),
                seats=names,
            )
        )
    if game.status == "active" and game.deadline_at is not None:
        return deadline_part(game, found[0], game.turn + 1, game.deadline_at, moment)
    return _calendar("PUBLISH").to_ical().decode("utf-8")
