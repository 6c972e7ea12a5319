"""The mail pass's and the sender's database work, on SQLite and on PostgreSQL: the dedupe key decides
at the moment of writing, the claim takes the oldest due mails, marking sent forgets secrets."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session, select

from pbem import outbox
from pbem.core.codec import unpack
from pbem.core.i18n import language
from pbem.core.registry import register
from pbem.outbox import queueing
from pbem.outbox.compose import report_mail
from pbem.outbox.message import header_fields, new_message
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import MaildirTransport, SmtpTransport
from pbem.play.create import create_game
from pbem.render.calendar import parts_for_reports
from pbem.render.reports import languages_of
from pbem.storage.db import connect
from pbem.storage.history import game_row, seat_rows
from pbem.storage.migrations import upgrade
from pbem.storage.models import ObserverRow, OutboxRow, ReportRow
from tests.cron.conftest import fresh_pg_database
from tests.mail.conftest import PEARL_DIVE, PLAYERS, START, Recorder, SmtpServer, _start_smtp, new_game


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        eng = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
        upgrade(eng)
        yield eng
        eng.dispose()
        return
    with fresh_pg_database() as url:
        eng = connect(url)
        upgrade(eng)
        yield eng
        eng.dispose()


def keys(engine: Engine) -> list[str]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxRow.dedupe_key).order_by(OutboxRow.dedupe_key)))  # type: ignore[arg-type]


def test_a_report_whose_mail_is_in_the_outbox_gets_no_second_one(
    engine: Engine, settings: MailSettings
) -> None:
    game = new_game(engine)
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    queued = keys(engine)
    assert queued == [f"report:{game.id}:0:0:blue", f"report:{game.id}:0:0:red"]
    with Session(engine) as session:  # as rows from before reports were marked: mail there, report not
        session.exec(update(ReportRow).values(mail_queued=False))  # type: ignore[call-overload]
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 0
    assert keys(engine) == queued
    with Session(engine) as session:
        assert all(session.exec(select(ReportRow.mail_queued)))
    # one of the two mails gone (say, deleted by hand): the pass queues that one only, once
    with Session(engine) as session:
        session.delete(session.exec(select(OutboxRow).where(OutboxRow.dedupe_key == queued[1])).one())
        session.exec(update(ReportRow).values(mail_queued=False))  # type: ignore[call-overload]
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 1
    assert outbox.enqueue_reports(engine, START, settings=settings) == 0
    assert keys(engine) == queued


def test_a_pass_for_one_game_queues_its_mail_and_leaves_the_others(
    engine: Engine, settings: MailSettings
) -> None:
    first, second = new_game(engine, "pd-1"), new_game(engine, "pd-2")
    assert outbox.enqueue_reports(engine, START, settings=settings, game_id=second.id) == 2
    assert keys(engine) == [f"report:{second.id}:0:0:blue", f"report:{second.id}:0:0:red"]
    assert outbox.enqueue_reports(engine, START, settings=settings) == 2
    assert [k for k in keys(engine) if k.startswith(f"report:{first.id}:")] == [
        f"report:{first.id}:0:0:blue",
        f"report:{first.id}:0:0:red",
    ]


@pytest.mark.parametrize("count", [1, 5, queueing._MARK_FIXED_UP_TO, queueing._MARK_FIXED_UP_TO + 3])
def test_marking_reports_queued_marks_exactly_those_still_unqueued(engine: Engine, count: int) -> None:
    """Up to :data:`queueing._MARK_FIXED_UP_TO` reports are marked by a statement of one parameter a
    report (one for each count), more by the expanding one: the same rows either way."""
    for at in range(10):  # three reports a game
        new_game(engine, f"pm-{at}")
    with Session(engine) as session:
        ids = sorted(session.exec(select(ReportRow.id)))
        session.exec(update(ReportRow).where(ReportRow.id == ids[1]).values(mail_queued=True))  # type: ignore[call-overload]
        session.commit()
    asked = [*ids[: count - 1], max(ids) + 100]  # and one that is no report
    with engine.connect() as conn:
        marked = queueing._mark(conn, asked)
        conn.commit()
    assert marked == set(ids[: count - 1]) - {ids[1]}
    with Session(engine) as session:
        queued = set(session.exec(select(ReportRow.id).where(ReportRow.mail_queued)))
    assert queued == set(ids[: count - 1]) | {ids[1]}


def test_a_pass_queues_every_game_with_each_seat_s_language_zone_and_calendar(
    engine: Engine, settings: MailSettings
) -> None:
    """The pass reads the game's and seats' columns itself (not their ORM rows): its mails are the ones
    composed from those rows, seat language and zone, calendar part and all; and one pass queues the
    reports of every game (it asks for more in the transaction that queues a game's), the public one
    to the observers of the game that has them (it asks for their addresses only then)."""
    register(PEARL_DIVE)
    for game_id, zone in (("pz-1", "Europe/Budapest"), ("pz-2", "America/New_York"), ("pz-3", "UTC")):
        create_game(
            engine,
            PEARL_DIVE.name,
            game_id,
            PLAYERS,
            seed=3,
            options={"rounds": "2"},
            turn_seconds=86400,
            now=START,
            language="cs",
            seat_languages={"red": "hu"},
            timezone=zone,
            seat_zones={"blue": "Asia/Tokyo"},
        )
    with Session(engine) as session:  # one game watched: its public report goes to its observer
        session.add(ObserverRow(game_id="pz-2", email=" Kibitz@Example.org"))
        session.commit()
    assert outbox.enqueue_reports(engine, START, settings=settings) == 7
    assert [k for k in keys(engine) if "observer=" in k] == [
        outbox.report_key("pz-2", 0, 0, "", "kibitz@example.org")
    ]
    with Session(engine) as session:
        assert all(session.exec(select(ReportRow.mail_queued)))  # the unwatched games' public ones too
        reports = list(session.exec(select(ReportRow).where(ReportRow.seat != "")))
        assert len(reports) == 6
        for report in reports:
            game, seats = game_row(session, report.game_id), seat_rows(session, report.game_id)
            email = next(seat.email for seat in seats if seat.name == report.seat)
            key = outbox.report_key(report.game_id, report.epoch, report.turn, report.seat)
            parts = parts_for_reports(
                session, game.id, [(report.id, report.seat, report.turn)], START, settings.from_addr
            )
            assert parts[report.id]  # the deadline set: a calendar part to compare
            with language(languages_of(game, seats)[report.seat]):
                expected = report_mail(
                    settings,
                    to=email,
                    key=key,
                    game_id=report.game_id,
                    turn=report.turn,
                    seat=report.seat,
                    text=unpack(report.text_z),
                    html=unpack(report.html_z),
                    now=START,
                    calendars=parts[report.id],
                )
            row = session.exec(select(OutboxRow).where(OutboxRow.dedupe_key == key)).one()
            assert outbox.unpack_message(row.message_z) == expected
            assert row.to_addr == email


def put(engine: Engine, settings: MailSettings, key: str, body: str = "", due: datetime = START) -> None:
    msg = new_message(
        header_fields(settings, to="ann@example.org", subject=f"about {key}", key=key, now=START)
    )
    msg.set_content(body or f"mail {key}\n")
    with Session(engine) as session:
        assert outbox.queue(session, key=key, to="ann@example.org", message=msg, now=START)
        session.commit()
    if due != START:
        with Session(engine) as session:
            session.exec(  # type: ignore[call-overload]
                update(OutboxRow).where(OutboxRow.dedupe_key == key).values(next_attempt_at=due)
            )
            session.commit()


def stored(engine: Engine) -> dict[str, tuple[str, int, bytes]]:
    with Session(engine) as session:
        found = session.exec(
            select(OutboxRow.dedupe_key, OutboxRow.status, OutboxRow.attempts, OutboxRow.message_z)
        )
        return {key: (status, attempts, outbox.unpack_message(blob)) for key, status, attempts, blob in found}


def subjects(server: SmtpServer) -> list[str]:
    return [
        str(message_from_bytes(r.data, policy=policy.default)["Subject"]) for r in server.handler.received
    ]


def test_send_claims_the_oldest_due_and_marks_each_sent_forgetting_secrets(
    engine: Engine, settings: MailSettings, smtp: SmtpServer, tmp_path: Path
) -> None:
    put(engine, settings, "reply:1")
    put(engine, settings, "reply:later", due=START + timedelta(hours=1))
    put(engine, settings, "welcome:pd-1:red", body="your password: tulip-frog-42\n")
    put(engine, settings, "reply:3")
    # SMTP: each mail marked sent before the next is handed over (with the next one's claim renewed)
    first = outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings, limit=2)
    assert len(first.sent) == 2 and not first.delayed
    assert subjects(smtp) == ["about reply:1", "about welcome:pd-1:red"]
    rows = stored(engine)
    assert [rows[k][:2] for k in ("reply:1", "welcome:pd-1:red", "reply:3", "reply:later")] == [
        ("sent", 1),
        ("sent", 1),
        ("pending", 0),
        ("pending", 0),
    ]
    assert b"tulip-frog-42" not in rows["welcome:pd-1:red"][2]
    assert b"the body held a password and is not kept" in rows["welcome:pd-1:red"][2]
    assert b"mail reply:1" in rows["reply:1"][2]  # only a secret's body is forgotten
    # the Maildir: the rest marked a batch at once; the later one only once it is due
    box = MaildirTransport(tmp_path / "box")
    assert len(outbox.send(engine, box, START, settings=settings).sent) == 1
    assert len(outbox.send(engine, box, START + timedelta(hours=1), settings=settings).sent) == 1
    assert {status for status, _, _ in stored(engine).values()} == {"sent"}
    assert outbox.send(engine, box, START + timedelta(hours=2), settings=settings).sent == []
    assert len(smtp.handler.received) == 2 and len(list((tmp_path / "box" / "new").iterdir())) == 2


def test_a_sender_whose_claim_ran_out_leaves_the_mails_another_took_over(
    engine: Engine, settings: MailSettings, smtp: SmtpServer
) -> None:
    for n in range(3):
        put(engine, settings, f"reply:{n}")
    controller, other = _start_smtp(Recorder())
    later = START + timedelta(seconds=outbox.CLAIM_SECONDS + 60)
    taken: list[int] = []

    def slow_relay(_received: object) -> None:  # the first run stalls on its first mail: another runs
        if not taken:
            taken.extend(outbox.send(engine, SmtpTransport(other.url), later, settings=settings).sent)

    smtp.handler.deliver = slow_relay
    try:
        slow = outbox.send(engine, SmtpTransport(smtp.url), START, settings=settings)
    finally:
        controller.stop()
    assert subjects(smtp) == ["about reply:0"]  # its claim on the others was taken: not sent again
    # the one in flight when the lease ran out went twice (as after a crash); the others once each
    assert sorted(subjects(other)) == ["about reply:0", "about reply:1", "about reply:2"]
    assert len(slow.sent) == 1 and len(taken) == 3
    assert {status for status, _, _ in stored(engine).values()} == {"sent"}
