"""A player's record by mail, end to end (issue 32): deadlines pass and misses are counted by the tick,
the player mails ``record`` and reads every miss with its receipt, a stranger reads nobody's, the game
master reads the players' figures and excuses a miss, and a seat's ``notify:`` URL is told of its next
turn once. Through the aiosmtpd sink delivering into Dovecot, the tick reading the host's mailbox over
IMAP and sending through SMTP; on SQLite and on PostgreSQL."""

from __future__ import annotations

import email
import email.policy
import logging
import smtplib
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.core.registry import register
from pbem.host import mailsteps
from pbem.host.tick import TickSettings, tick
from pbem.mail import reading, sources
from pbem.mail.gm import set_game_master
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.models import InboundRow, MissRow
from tests.cron.conftest import fresh_pg_database, owes, send_orders
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, Dovecot, Received, Recorder, _start_smtp, certificate, dovecot, mail  # noqa: F401
from tests.players.webhook import webhook

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
H = timedelta(hours=1)
DAY = 86400
GM = "dee@example.org"
SEATS = {"red": "ann@example.org", "blue": "bob@example.org"}
STRANGER = "cy@example.org"
TICK = TickSettings(host="test", remind_before=3600, outage_after=30 * DAY)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    register(PEARL_DIVE)
    monkeypatch.setenv("PBEM_MAIL_FROM", HOST)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    if request.param == "sqlite":
        engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
        yield engine
        engine.dispose()
        return
    with fresh_pg_database() as url:
        engine = connect(url)
        yield engine
        engine.dispose()


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return reading.unflow(str(part.get_content()).replace("\r\n", "\n"))


def test_a_record_by_mail_shows_every_miss_with_its_receipt(
    db: Engine, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="pbem")
    servers: Dovecot = request.getfixturevalue("dovecot")
    for user in [HOST, GM, STRANGER, *SEATS.values()]:
        servers.clear(user)

    def deliver(got: Received) -> None:  # the mail server's local delivery, into each mailbox
        for rcpt in got.recipients:
            servers.append(rcpt.lower(), got.data)

    controller, smtp = _start_smtp(Recorder(deliver=deliver))
    settings = MailSettings(from_addr=HOST, from_name="pbem", imap_password=servers.passwords[HOST])
    try:
        issued = create_game(
            db,
            PEARL_DIVE.name,
            "rec-1",
            list(SEATS.items()),
            seed=3,
            options={"rounds": "3"},
            turn_seconds=DAY,
            nmr="bot",
            now=START,
        )
        gm_password = set_game_master(db, "rec-1", GM)

        def cron(at: datetime) -> None:
            source = sources.read_imap(servers.url(HOST), servers.passwords[HOST])
            summary = tick(
                db,
                at,
                settings=TICK,
                mail=settings,
                fetch=lambda: mailsteps.fetch(db, source, settings, at),
                enqueue=lambda game_id: outbox.enqueue_reports(db, at, settings=settings, game_id=game_id),
                deliver=lambda: mailsteps.deliver(db, SmtpTransport(smtp.url), at, settings),
            )
            assert summary.errors == 0, summary.line()

        def sends(frm: str, body: str, subject: str = "record") -> None:
            with smtplib.SMTP("127.0.0.1", smtp.port) as client:
                client.send_message(mail(body, frm=frm, subject=subject))

        def last(address: str) -> EmailMessage:
            return parse(servers.messages(address)[-1])

        send_orders(db, "rec-1", "red", issued["red"], START + H)  # blue sends nothing
        cron(START + H)
        cron(START + timedelta(days=1, hours=1))  # the deadline passed: the stand-in plays for blue
        with Session(db) as session:
            [miss] = session.exec(select(MissRow)).all()
        assert (miss.seat, miss.turn, miss.outcome, miss.email) == ("blue", 1, "bot", SEATS["blue"])

        sends(f"Bob <{SEATS['blue']}>", "record\n")
        sends(f"Cy <{STRANGER}>", "record\n")
        sends(f"Dee <{GM}>", f"record\ngame: rec-1\ngm: {GM}\npassword: {gm_password}\n")
        cron(START + timedelta(days=1, hours=2))
        own = text_of(last(SEATS["blue"]))
        assert "Your record on this host (bob@example.org):" in own
        assert "reliability: 0 of 1 turn on time (0 %)" in own
        assert "game rec-1, seat blue, turn 1: no orders by Dec 2, 2026 09:00 UTC; the stand-in played" in own
        stranger = text_of(last(STRANGER))
        assert "bob@example.org" not in stranger and "rec-1" not in stranger and "record" not in stranger
        figures = text_of(last(GM))
        assert "  red: 1 of 1 turn on time (100 %); 0 misses; 1 game" in figures
        assert "  blue: 0 of 1 turn on time (0 %); 1 miss; 1 game" in figures
        assert "game rec-1, seat blue, turn 1: no orders by Dec 2, 2026 09:00 UTC" in figures

        sends(f"Dee <{GM}>", f"excuse\ngame: rec-1\ngm: {GM}\npassword: {gm_password}\nseat: blue\nturn: 1\n")
        [diver] = owes(db, "rec-1")
        with webhook() as hook:
            sends(
                f"{diver} <{SEATS[diver]}>",
                f"game: rec-1\nplayer: {diver}\npassword: {issued[diver]}\nnotify: {hook.url()}\n",
                subject="notify",
            )
            cron(START + timedelta(days=1, hours=3))
            assert "is excused" in text_of(last(GM))
            assert "is told at that notice URL" in text_of(last(SEATS[diver]))
            assert hook.got == []  # nothing happened yet to tell
            send_orders(db, "rec-1", diver, issued[diver], START + timedelta(days=1, hours=4))
            cron(START + timedelta(days=1, hours=4))
            cron(START + timedelta(days=1, hours=5))
            assert diver in owes(db, "rec-1")  # turn 3 waits for it (a new bid): told once
            assert [body["title"] for body in hook.got] == ["[pbem rec-1] turn 3: your move"]
        sends(f"Bob <{SEATS['blue']}>", "record\n")
        cron(START + timedelta(days=1, hours=6))
        again = text_of(last(SEATS["blue"]))
        assert "the stand-in played (excused by the game master)" in again
        owed = 2 if diver == "blue" else 1  # the dive of turn 2 was blue's to make, on time, or not
        assert f"reliability: {owed} of {owed} turn{'s' if owed > 1 else ''} on time (100 %)" in again
    finally:
        controller.stop()
    # the notice URL's token: not in the log, and redacted from the archived mail
    assert "s3cr3t-token-0042" not in caplog.text
    with Session(db) as session:
        kept = b"\n".join(zlib.decompress(row.raw_z) for row in session.exec(select(InboundRow)))
    assert b"s3cr3t-token-0042" not in kept
    assert gm_password.encode() not in kept
