"""A player's record (issue 32): every miss the tick counts leaves its receipt in the same transaction,
the figure counts turns on time out of turns owed, a game master excuses a miss, on SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive import reliability
from pbem.cli.app import main
from pbem.core.i18n import language
from pbem.host.tick import Summary, TickSettings, tick
from pbem.outbox.settings import MailSettings
from pbem.storage.cron_models import NoticeRow
from pbem.storage.models import MissRow, SeatRow
from tests.cron.conftest import START, new_game, send_orders
from tests.players.databases import on_both_databases  # noqa: F401  (the fixture db)

H = timedelta(hours=1)
DAY = timedelta(days=1)
MAIL = MailSettings(from_addr="host@example.org")
SETTINGS = TickSettings(host="test", remind_before=12 * 3600, outage_after=30 * 86400)


def run(engine: Engine, at: datetime) -> Summary:
    return tick(engine, at, settings=SETTINGS, mail=MAIL)


def misses_of(engine: Engine, game_id: str) -> list[MissRow]:
    with Session(engine) as session:
        return list(session.exec(select(MissRow).where(MissRow.game_id == game_id).order_by(MissRow.id)))


def test_a_stand_in_turn_leaves_a_receipt_and_the_figure_counts_it(db: Engine) -> None:
    passwords = new_game(db, "rec-bot", nmr="bot")
    send_orders(db, "rec-bot", "red", passwords["red"], START + H)  # blue sends nothing
    run(db, START + DAY + H)  # the deadline passed: blue's miss, the stand-in plays
    rows = misses_of(db, "rec-bot")
    assert [(r.seat, r.turn, r.period, r.outcome, r.email) for r in rows] == [
        ("blue", 1, 1, "bot", "blue@example.org")
    ]
    assert rows[0].deadline_at.replace(tzinfo=None) == (START + DAY).replace(tzinfo=None)
    with Session(db) as session:  # the count and its receipt, both or neither
        counted = session.exec(select(SeatRow.misses).where(SeatRow.name == "blue")).one()
        notices = session.exec(select(NoticeRow).where(NoticeRow.kind == "miss")).all()
    assert counted == len(notices) == 1
    blue = reliability.record_of(db, "Blue@Example.org")
    assert (blue.owed, blue.on_time, blue.percent) == (1, 0, 0)
    with language("en"):
        text = reliability.text(blue)
    assert "game rec-bot, seat blue, turn 1: no orders by Mar 3, 2026 09:00 UTC; the stand-in played" in text
    assert "0 of 1 turn on time (0 %)" in text
    red = reliability.record_of(db, "red@example.org")
    assert (red.owed, red.on_time, red.misses) == (1, 1, [])


def test_a_game_that_waited_counts_each_period_once(db: Engine) -> None:
    passwords = new_game(db, "rec-wait")
    send_orders(db, "rec-wait", "red", passwords["red"], START + H)
    for hours in (25, 26, 49, 49):  # two deadlines passed, each tick more than once
        run(db, START + hours * H)
    rows = misses_of(db, "rec-wait")
    assert [(r.seat, r.period, r.outcome) for r in rows] == [("blue", 1, "wait"), ("blue", 2, "wait")]
    assert rows[1].deadline_at.replace(tzinfo=None) == (START + 2 * DAY).replace(tzinfo=None)
    send_orders(db, "rec-wait", "blue", passwords["blue"], START + 50 * H)
    run(db, START + 50 * H)  # the turn resolves with blue's late orders
    blue = reliability.record_of(db, "blue@example.org")
    assert (blue.owed, blue.on_time) == (1, 0)  # one turn owed, late: two misses in it
    with language("en"):
        assert reliability.text(blue).count("the game waited") == 2


def test_a_game_master_excuses_a_miss_which_stays_marked_and_leaves_the_figure(db: Engine) -> None:
    passwords = new_game(db, "rec-ex", nmr="bot", abandon_after=2)
    send_orders(db, "rec-ex", "red", passwords["red"], START + H)
    run(db, START + DAY + H)
    assert reliability.excuse(db, "rec-ex", "blue", 1, "gm@example.org", START + DAY + 2 * H) == 1
    blue = reliability.record_of(db, "blue@example.org")
    assert (blue.owed, blue.on_time, blue.percent) == (1, 1, 100)
    with language("en"):
        text = reliability.text(blue)
    assert "the stand-in played (excused by the game master)" in text
    with Session(db) as session:
        row = session.exec(select(SeatRow).where(SeatRow.game_id == "rec-ex", SeatRow.name == "blue")).one()
    assert row.misses == 0  # towards abandon_after too
    try:
        reliability.excuse(db, "rec-ex", "blue", 1, "gm@example.org", START + DAY + 3 * H)
    except Exception as exc:  # nothing left to excuse: said, not done twice
        assert "no miss in turn 1 to excuse" in str(exc)
    else:
        raise AssertionError("a second excuse of the same miss was taken")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_operator_reads_a_record_and_excuses_a_miss_on_the_command_line(
    db: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    passwords = new_game(db, "rec-cli", nmr="bot")
    send_orders(db, "rec-cli", "red", passwords["red"], START + H)
    run(db, START + DAY + H)
    url = db.url.render_as_string(hide_password=False)
    code, out, err = cli(capsys, "record", "blue@example.org", "--db", url)
    assert code == 0, err
    assert "game rec-cli, seat blue, turn 1: no orders by Mar 3, 2026 09:00 UTC; the stand-in played" in out
    code, out, _ = cli(capsys, "record", "blue@example.org", "--db", url, "--json")
    shown = json.loads(out)
    assert (shown["owed"], shown["on_time"], shown["misses"][0]["outcome"]) == (1, 0, "bot")
    code, out, _ = cli(capsys, "record", "blue@example.org", "--db", url, "--lang", "hu")
    assert "megbízhatóság: 1 lépésből 0 időben (0 %)" in out
    code, out, err = cli(capsys, "excuse", "rec-cli", "blue", "1", "--db", url)
    assert code == 0 and out.strip() == "game rec-cli: 1 miss(es) of seat blue in turn 1 excused"
    code, out, err = cli(capsys, "excuse", "rec-cli", "blue", "1", "--db", url)
    assert code == 1 and err.strip() == "error: game rec-cli: seat blue has no miss in turn 1 to excuse"
    _code, out, _ = cli(capsys, "record", "blue@example.org", "--db", url)
    assert "(excused by the game master)" in out and "1 of 1 turn on time (100 %)" in out
