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

from pbem.cli.app import main
from pbem.intake import away
from pbem.outbox import unpack_message
from pbem.render.calendar import feed, uid
from pbem.storage.models import GameRow, OutboxRow, SeatRow
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


def test_the_game_masters_pause_resume_extend_and_rollback_on_the_cli_reach_every_calendar(
    engine: Engine,
    db_url: str,
    capsys,
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    pw = make_game(engine, "g", START)
    tick_at(engine, START + H)  # the setup's reports carry the first event
    monkeypatch.setenv("PBEM_DB", db_url)
    monkeypatch.setenv("PBEM_MAIL_FROM", "host@example.org")
    monkeypatch.delenv("PBEM_CONFIG", raising=False)

    def cli(*args: str, at: datetime) -> str:
        capsys.readouterr()
        try:
            main([*args, "--now", at.isoformat()])
        except SystemExit as exc:
            assert exc.code in (0, None), capsys.readouterr().err
        return capsys.readouterr().out

    def seat_events(seat: str) -> list[tuple[str, icalendar.Event]]:
        """Every calendar part mailed to ``seat``, in the order queued."""
        with Session(engine) as session:
            rows = session.exec(select(OutboxRow).order_by(OutboxRow.id)).all()  # type: ignore[arg-type]
        found = []
        for row in rows:
            if row.to_addr == f"{seat}@example.org":
                found += events(
                    email.message_from_bytes(unpack_message(row.message_z), policy=email.policy.default)
                )  # type: ignore[arg-type]
        return found

    assert cli("pause", "g", at=START + 2 * H).endswith("\ncalendar update queued for red, blue\n")
    assert "calendar" not in cli("extend", "g", "1d", at=START + 3 * H)  # paused: no deadline moves
    cli("resume", "g", at=START + 4 * H)
    cli("extend", "g", "12h", at=START + 5 * H)
    deadline = game(engine, "g").deadline_at
    assert deadline == START + 4 * H + timedelta(hours=22 + 24 + 12)
    for seat in ("red", "blue"):
        found = seat_events(seat)
        assert [m for m, _ in found] == ["PUBLISH", "CANCEL", "PUBLISH", "PUBLISH"]
        assert {str(e["UID"]) for _, e in found} == {uid("g", 0, 1, seat)}
        sequences = [int(e["SEQUENCE"]) for _, e in found]
        assert sequences == sorted(set(sequences))  # strictly rising
        assert found[-1][1].decoded("DTSTART") == deadline

    # the turn resolves; a rollback cancels the next turn's event and sets the replayed turn's
    for seat in ("red", "blue"):
        send_orders(engine, "g", seat, pw[seat], START + 6 * H)
    tick_at(engine, START + 6 * H)
    said = cli("rollback", "g", "--to-turn", "0", at=START + 7 * H)
    assert said.startswith("game g rolled back to turn 0 (epoch 1)") and "calendar update queued" in said
    for seat in ("red", "blue"):
        last = seat_events(seat)[-2:]
        assert [(m, str(e["UID"])) for m, e in last] == [
            ("CANCEL", uid("g", 0, 2, seat)),
            ("PUBLISH", uid("g", 1, 1, seat)),
        ]
        assert last[1][1].decoded("DTSTART") == game(engine, "g").deadline_at == START + 31 * H


def test_a_reports_calendar_events_are_in_the_seats_language() -> None:
    from pbem.render.calendar import report_parts

    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    row = GameRow(
        id="g", game_type="coral-divers", seed="s", turn=1, turn_seconds=86400, language="en", status="active"
    )
    row.deadline_at = now + timedelta(days=1)
    seat = SeatRow(game_id="g", name="red", position=0, password_hash="x", language="ru")
    cancelled, due = (icalendar.Calendar.from_ical(part) for part in report_parts(row, seat, 1, now))
    [event] = due.walk("VEVENT")
    assert "ход" in str(event["summary"]) and "ход" in str(event["description"])
    assert "orders" not in str(event["summary"]) + str(event["description"])
    [alarm] = due.walk("VALARM")
    assert "orders" not in str(alarm["description"]).lower()
    assert "orders" not in str(cancelled.walk("VEVENT")[0]["summary"])
