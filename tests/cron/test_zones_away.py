"""Time zones and time away (issue 17), under ``pbem tick`` with a fake clock, on SQLite and PostgreSQL:
deadlines of whole days keep their wall-clock time across a daylight-saving change in the game's zone,
reminders keep their lead time, every seat reads deadlines in its own zone with UTC beside them; a seat
away is covered by the game's absence policy, and its own orders end the absence early."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import zones
from pbem.core.errors import UserError
from pbem.intake import away
from pbem.mail.commands import detect, run
from pbem.outbox import unpack_message
from pbem.render.reports import report
from pbem.storage.models import GameRow, OutboxRow, SeatRow
from tests.cron.conftest import DAY, new_game, read_mail_text, send_orders
from tests.cron.test_tick import game, keys, seat, turn_rows
from tests.cron.test_tick import run as tick_at

H = timedelta(hours=1)
M = timedelta(minutes=1)


def mail_text(engine: Engine, key: str) -> str:
    with Session(engine) as session:
        row = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key == key)).one()
    return read_mail_text(unpack_message(row.message_z))


@pytest.mark.parametrize(
    ("tz", "created", "deadline", "shown"),
    [
        # Budapest moves to summer time on 29 March 2026 at 01:00 UTC: 18:00 stays 18:00
        (
            "Europe/Budapest",
            datetime(2026, 3, 28, 17, 0, tzinfo=UTC),
            datetime(2026, 3, 30, 16, 0, tzinfo=UTC),
            "Mar 30, 2026 18:00 CEST (16:00 UTC)",
        ),
        # New York on 8 March 2026 at 07:00 UTC
        (
            "America/New_York",
            datetime(2026, 3, 7, 23, 0, tzinfo=UTC),
            datetime(2026, 3, 9, 22, 0, tzinfo=UTC),
            "Mar 9, 2026 18:00 EDT (22:00 UTC)",
        ),
    ],
)
def test_a_deadline_across_a_daylight_saving_change_keeps_its_wall_clock_and_its_reminder_lead(
    engine: Engine, tz: str, created: datetime, deadline: datetime, shown: str
) -> None:
    pw = new_game(
        engine, "g", created, turn_seconds=2 * DAY, timezone=tz, seat_zones={"blue": "Asia/Shanghai"}
    )
    assert game(engine, "g").timezone == tz
    # 48 real hours would have ended an hour off the wall clock: the turn of two days ends at 18:00
    assert tick_at(engine, created + H).reminders == 0
    assert game(engine, "g").deadline_at == deadline
    assert (deadline - created) == timedelta(hours=47)
    assert f"Next deadline: {shown}" in report(engine, "g", "red")
    assert "Next deadline: " + zones.show(deadline, "Asia/Shanghai") in report(engine, "g", "blue")
    send_orders(engine, "g", "red", pw["red"], created + 2 * H)
    # the reminder 12 hours ahead is 12 real hours ahead, however the wall clock moved between
    assert tick_at(engine, deadline - 12 * H - M).reminders == 0
    assert tick_at(engine, deadline - 12 * H).reminders == 1
    text = mail_text(engine, "reminder:g:0:1:blue")
    local = deadline.astimezone(zones.zone("Asia/Shanghai"))
    in_shanghai = f"{local:%b} {local.day}, {local:%Y %H:%M} CST"  # Babel's English medium date
    assert f"due by {in_shanghai} (" in text and f"{deadline:%H:%M} UTC" in text and "(in 12 hours)" in text


def test_shown_in_a_zone_names_the_utc_day_when_it_differs() -> None:
    moment = datetime(2026, 3, 30, 16, 0, tzinfo=UTC)
    assert zones.show(moment, "Asia/Shanghai") == "Mar 31, 2026 00:00 CST (Mar 30, 2026 16:00 UTC)"
    assert zones.show(moment, "UTC") == "Mar 30, 2026 16:00 UTC"


def test_a_zone_that_does_not_exist_is_refused_with_what_to_write(engine: Engine) -> None:
    with pytest.raises(UserError, match=r"unknown time zone 'Europe/Budapes'.*Europe/Budapest"):
        new_game(engine, "g", timezone="Europe/Budapes")
    with pytest.raises(UserError, match="there is no seat 'ann'"):
        new_game(engine, "g", seat_zones={"ann": "Asia/Shanghai"})
    with Session(engine) as session:
        assert session.exec(select(GameRow)).all() == []


def _away(engine: Engine, game_id: str, name: str, until: str, now: datetime) -> str:
    with Session(engine) as session:
        row = session.get(GameRow, game_id)
        found = session.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == name)).one()
        assert row is not None
        said = away.set_away(session, row, found, until, now)
        session.commit()
    return said


START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_an_absence_over_a_deadline_is_played_by_the_bot_then_ended_early_by_an_order(engine: Engine) -> None:
    pw = new_game(engine, "g", START, absence="bot", nmr="wait", absence_days=10)
    said = _away(engine, "g", "blue", "2026-12-05", START + H)
    assert "away until 5 December" in said
    assert seat(engine, "g", "blue").away_days_used == 5  # 1 to 5 December
    send_orders(engine, "g", "red", pw["red"], START + 2 * H)
    assert tick_at(engine, START + 13 * H).reminders == 0  # nobody reminds a seat that is away
    done = tick_at(engine, START + 25 * H)
    assert done.turns_resolved == 1 and done.late_notices == 0
    assert json.loads(turn_rows(engine, "g")[1].by_bot_json) == ["blue=easy"]
    assert seat(engine, "g", "blue").misses == 0  # time away is not a missed deadline
    assert "blue is away until 5 December." in report(engine, "g", "red")
    assert "is away until" not in report(engine, "g", "blue")
    assert keys(engine, "late") == [] and keys(engine, "reminder") == []
    # blue is home early: its orders end the absence and give back the days not used
    send_orders(engine, "g", "blue", pw["blue"], START + 26 * H)
    blue = seat(engine, "g", "blue")
    assert blue.away_until is None and blue.away_days_used == 2  # 3 whole days unused
    with Session(engine) as session:
        owed = set(session.exec(select(SeatRow.name).where(SeatRow.game_id == "g")).all())
    for name in sorted(owed - {"blue"}):
        with contextlib.suppress(UserError):  # nothing asked of that seat this turn
            send_orders(engine, "g", name, pw[name], START + 27 * H)
    assert tick_at(engine, START + 27 * H).turns_resolved == 1
    assert "is away until" not in report(engine, "g", "red")


def test_an_absence_under_extend_moves_the_deadline_to_a_turn_after_the_return(engine: Engine) -> None:
    pw = new_game(engine, "g", START, absence="extend", nmr="wait")
    _away(engine, "g", "blue", "2026-12-03", START)
    send_orders(engine, "g", "red", pw["red"], START + H)
    done = tick_at(engine, START + 25 * H)
    assert (done.turns_resolved, done.late_notices) == (0, 0)
    assert seat(engine, "g", "blue").misses == 0
    back = datetime(2026, 12, 4, 0, 0, tzinfo=UTC)  # the end of 3 December in blue's zone (the game's, UTC)
    assert game(engine, "g").deadline_at == back + timedelta(days=1)
    assert tick_at(engine, back + 2 * H).late_notices == 0


def test_time_away_is_capped_and_a_past_day_refused(engine: Engine) -> None:
    new_game(engine, "g", START, absence_days=3)
    with pytest.raises(
        UserError,
        match=r"is too far away \(days until then: 5; days of time away this seat has left in game \S+: 3,",
    ):
        _away(engine, "g", "blue", "2026-12-05", START)
    with pytest.raises(UserError, match="has passed already"):
        _away(engine, "g", "blue", "2026-11-30", START)
    with pytest.raises(UserError, match="is not a day"):
        _away(engine, "g", "blue", "soon", START)
    assert seat(engine, "g", "blue").away_until is None and seat(engine, "g", "blue").away_days_used == 0


def _command(engine: Engine, pw: dict[str, str], lines: str) -> tuple[bool, str]:
    text = f"game: g\nplayer: blue\npassword: {pw['blue']}\n{lines}\n"
    command = detect("", text)
    assert command is not None
    answer = run(engine, command, "blue@example.org")
    return answer.ok, answer.text or "; ".join(answer.errors)


def test_the_timezone_and_away_mail_commands(engine: Engine) -> None:
    pw = new_game(engine, "g")
    ok, said = _command(engine, pw, "timezone: Asia/Shanghai")
    assert ok and "shown in Asia/Shanghai" in said and "CST" in said
    assert seat(engine, "g", "blue").timezone == "Asia/Shanghai"
    ok, said = _command(engine, pw, "timezone: Mars/Olympus")
    assert not ok and "unknown time zone 'Mars/Olympus'" in said
    assert seat(engine, "g", "blue").timezone == "Asia/Shanghai"
    today = datetime.now(UTC).date()
    until = today + timedelta(days=3)
    ok, said = _command(engine, pw, f"away: {{until: {until.isoformat()}}}")
    assert ok and f"away until {zones.show_day(until)}" in said, said
    assert seat(engine, "g", "blue").away_until is not None
    # any other request from the seat ends the absence
    ok, _said = _command(engine, pw, "command: template")
    assert ok and seat(engine, "g", "blue").away_until is None
    ok, said = _command(engine, pw, "away: {when: tomorrow}")
    assert not ok and "give the last day you are away" in said
    assert zones.show_day(date(2026, 12, 20)) == "20 December"
