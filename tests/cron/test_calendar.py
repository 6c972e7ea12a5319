"""Deadlines in the players' calendars (issue 17): every mail that sets or moves a seat's deadline carries
a text/calendar part, parsed back here with icalendar: the deadline as an event with a reminder, the
same UID when it moves (a higher SEQUENCE), cancelled once the turn is resolved; ``pbem calendar``
prints a seat's feed."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta

import icalendar
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import away
from pbem.calendar import feed, uid
from pbem.cli import main
from pbem.mail.outbox import unpack_message
from pbem.models import GameRow, OutboxRow, SeatRow
from tests.cron.conftest import new_game as make_game
from tests.cron.conftest import send_orders
from tests.cron.test_tick import game
from tests.cron.test_tick import run as tick_at

H = timedelta(hours=1)
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def mail(engine: Engine, key: str) -> email.message.EmailMessage:
    with Session(engine) as session:
        row = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key == key)).one()
    return email.message_from_bytes(unpack_message(row.message_z), policy=email.policy.default)  # type: ignore[return-value]


def events(message: email.message.EmailMessage) -> list[tuple[str, icalendar.Event]]:
    """(METHOD, VEVENT) of every text/calendar part, parsed back with icalendar."""
    found = []
    for part in message.walk():
        if part.get_content_type() == "text/calendar":
            cal = icalendar.Calendar.from_ical(part.get_content())
            assert part.get_param("method") == str(cal["METHOD"])
            for event in cal.walk("VEVENT"):
                found.append((str(cal["METHOD"]), event))
    return found


def test_a_deadline_set_moved_and_cancelled_is_one_event_in_the_calendar(engine: Engine) -> None:
    pw = make_game(engine, "g", START, absence="extend", seat_zones={"blue": "Asia/Shanghai"})
    tick_at(engine, START + H)  # the setup's reports go out
    first = mail(engine, "report:g:0:0:blue")
    body = first.get_body(("plain",))
    assert body is not None and "Report for blue" in body.get_content()  # the report itself is intact
    [(method, set_event)] = events(first)
    assert method == "PUBLISH" and str(set_event["UID"]) == uid("g", 0, 1, "blue")
    assert set_event.decoded("DTSTART") == START + timedelta(days=1) == game(engine, "g").deadline_at
    [alarm] = set_event.walk("VALARM")
    assert alarm.decoded("TRIGGER") == -timedelta(hours=12) and str(alarm["ACTION"]) == "DISPLAY"
    assert "CST" in str(set_event["DESCRIPTION"])  # blue reads it in its own zone
    assert events(mail(engine, "report:g:0:0:red"))[0][1]["UID"] != set_event["UID"]

    # blue goes away; red's orders are in; at the deadline it moves: the same event, a higher SEQUENCE
    with Session(engine) as session:
        row = session.get(GameRow, "g")
        blue = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
        away.set_away(session, row, blue, "2026-12-03", START + 2 * H)  # type: ignore[arg-type]
        session.commit()
    send_orders(engine, "g", "red", pw["red"], START + 3 * H)
    tick_at(engine, START + 25 * H)
    moved_at = game(engine, "g").deadline_at
    # blue is back at the end of 3 December in Shanghai (16:00 UTC), and has a turn's length from then
    assert moved_at == datetime(2026, 12, 3, 16, 0, tzinfo=UTC) + timedelta(days=1)
    [(method, moved)] = events(mail(engine, f"moved-{int(moved_at.timestamp())}:g:0:1:blue"))  # type: ignore[union-attr]
    assert method == "PUBLISH" and moved["UID"] == set_event["UID"]
    assert moved["SEQUENCE"] > set_event["SEQUENCE"]
    assert moved.decoded("DTSTART") == moved_at

    # blue is back and plays: the turn resolves; its event is cancelled, the next turn's is set
    send_orders(engine, "g", "blue", pw["blue"], START + 26 * H)
    tick_at(engine, START + 26 * H)
    found = events(mail(engine, "report:g:0:1:blue"))
    methods = {m: e for m, e in found}
    assert set(methods) == {"CANCEL", "PUBLISH"}
    cancelled = methods["CANCEL"]
    assert cancelled["UID"] == set_event["UID"] and str(cancelled["STATUS"]) == "CANCELLED"
    assert cancelled["SEQUENCE"] > moved["SEQUENCE"]
    assert str(methods["PUBLISH"]["UID"]) == uid("g", 0, 2, "blue")
    assert methods["PUBLISH"].decoded("DTSTART") == game(engine, "g").deadline_at


def test_the_calendar_command_prints_a_seats_feed(engine: Engine, db_url: str, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    make_game(engine, "g", START)
    cal = icalendar.Calendar.from_ical(feed(engine, "g", "red", START))
    [event] = cal.walk("VEVENT")
    assert str(event["UID"]) == uid("g", 0, 1, "red") and event.decoded("DTSTART") == START + timedelta(
        days=1
    )
    monkeypatch.setenv("PBEM_DB", db_url)
    try:
        main(["calendar", "g", "--player", "red"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    printed = capsys.readouterr().out
    assert icalendar.Calendar.from_ical(printed).walk("VEVENT")[0]["UID"] == event["UID"]
    try:
        main(["calendar", "g", "--player", "nobody"])
    except SystemExit as exc:
        assert exc.code == 1
    assert "has no seat 'nobody'" in capsys.readouterr().err
