"""Bounces: RFC 3464 reports and the common non-standard shapes mark the returned mail bounced; two in
a row mark the seat unreachable, tell the game master's record, and let the missed-orders policy act."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.core.registry import register
from pbem.cron.notices import send_notice
from pbem.mail import bounces, inbound, reading, sources
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play import status
from pbem.play.create import create_game
from pbem.storage.cron_models import GmActionRow
from pbem.storage.models import OutboxRow, SeatRow
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, Dovecot, SmtpServer, bot_orders, mail, new_game


def postfix_dsn(recipient: str, message_id: str, n: int = 1) -> bytes:
    """Postfix's RFC 3464 report: multipart/report with a message/delivery-status part and the
    returned message's headers."""
    return (
        "Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.example.org (Mail Delivery System)\r\n"
        f"To: {HOST}\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        f"Message-Id: <bounce-{n}@mx.example.org>\r\nDate: Mon, 2 Mar 2026 10:00:0{n} +0000\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B1"\r\n\r\n'
        "--B1\r\nContent-Description: Notification\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
        "This is the mail system at host mx.example.org.\r\n\r\nI'm sorry to have to inform you that your "
        "message could not\r\nbe delivered to one or more recipients.\r\n\r\n"
        f"<{recipient}>: host mx.example.org said: 550 5.1.1 user unknown\r\n\r\n"
        "--B1\r\nContent-Description: Delivery report\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\nArrival-Date: Mon,  2 Mar 2026 09:59:58 +0000\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nOriginal-Recipient: rfc822;{recipient}\r\n"
        "Action: failed\r\nStatus: 5.1.1\r\nRemote-MTA: dns; mx.example.org\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 user unknown\r\n\r\n"
        "--B1\r\nContent-Description: Undelivered Message Headers\r\n"
        "Content-Type: text/rfc822-headers\r\n\r\n"
        f"From: pbem <{HOST}>\r\nTo: {recipient}\r\nSubject: [pbem] pd-1\r\nMessage-ID: {message_id}\r\n\r\n"
        "--B1--\r\n"
    ).encode()


def qmail_bounce(recipient: str, n: int = 2) -> bytes:
    """qmail's plain-text bounce: no report part, the failure in its own words."""
    return (
        "Return-Path: <>\r\nFrom: MAILER-DAEMON@mail.example.net\r\n"
        f"To: {HOST}\r\nSubject: failure notice\r\nMessage-ID: <qmail-{n}@mail.example.net>\r\n"
        f"Date: Mon, 2 Mar 2026 11:00:0{n} +0000\r\n\r\n"
        "Hi. This is the qmail-send program at mail.example.net.\r\n"
        "I'm afraid I wasn't able to deliver your message to the following addresses.\r\n"
        "This is a permanent error; I've given up. Sorry it didn't work out.\r\n\r\n"
        f"<{recipient}>:\r\nSorry, no mailbox here by that name. (#5.1.1)\r\n\r\n"
        "--- Below this line is a copy of the message.\r\n\r\n"
        f"From: pbem <{HOST}>\r\nSubject: x\r\n\r\nbody\r\n"
    ).encode()


def sent_ids(engine: Engine, address: str) -> list[tuple[int, str]]:
    with Session(engine) as session:
        rows = session.exec(
            select(OutboxRow).where(OutboxRow.to_addr == address).order_by(OutboxRow.id)
        ).all()  # type: ignore[arg-type]
    return [
        (r.id or 0, reading.header(reading.parse(outbox.unpack_message(r.message_z)), "Message-ID"))
        for r in rows
    ]


def seat(engine: Engine, game_id: str, name: str) -> SeatRow:
    with Session(engine) as session:
        return session.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == name)).one()


def outbox_status(engine: Engine, outbox_id: int) -> str:
    with Session(engine) as session:
        row = session.get(OutboxRow, outbox_id)
        assert row is not None
        return row.status


def test_two_bounces_in_a_row_make_the_seat_unreachable_and_the_bot_plays_for_it(
    engine: Engine, settings: MailSettings, smtp: SmtpServer, dovecot: Dovecot
) -> None:
    register(PEARL_DIVE)
    create_game(
        engine,
        PEARL_DIVE.name,
        "pd-b",
        [("red", "ann@example.org"), ("blue", "bob@example.org")],
        seed=3,
        nmr="bot",
        now=START,
    )
    outbox.enqueue_reports(engine, START, settings=settings)
    send_notice(engine, settings, "reminder", "pd-b", "red", epoch=0, turn=1, now=START + timedelta(hours=1))
    outbox.send(engine, SmtpTransport(smtp.url), START + timedelta(hours=1), settings=settings)
    (report_id, report_mid), (reminder_id, _mid) = sent_ids(engine, "ann@example.org")
    dovecot.clear(HOST)
    # the first bounce, read from the host's real IMAP mailbox, quotes the report's Message-ID
    dovecot.append(HOST, postfix_dsn("ann@example.org", report_mid))
    settings_imap = MailSettings(from_addr=HOST, imap_password=dovecot.passwords[HOST])
    (handled,) = inbound.fetch(
        engine, sources.read_imap(dovecot.url(HOST), dovecot.passwords[HOST]), settings_imap
    )
    assert handled.outcome == "ignored" and not handled.replied  # never answered
    assert "bounced" in handled.reason
    assert outbox_status(engine, report_id) == "bounced" and outbox_status(engine, reminder_id) == "sent"
    assert seat(engine, "pd-b", "red").bounces == 1
    assert status.status(engine, "pd-b")[0]["unreachable"] == []
    # the second, qmail's plain text: the latest mail to the address is the one returned
    assert inbound.handle(engine, qmail_bounce("ann@example.org"), settings, START).outcome == "ignored"
    assert outbox_status(engine, reminder_id) == "bounced"
    red = seat(engine, "pd-b", "red")
    assert red.bounces == 2 and red.abandoned  # the missed-orders policy (bot) applies at once
    entry = status.status(engine, "pd-b")[0]
    assert entry["unreachable"] == ["red"] and "unreachable (mail bounces): red" in status.describe(entry)
    with Session(engine) as session:
        (note,) = session.exec(select(GmActionRow).where(GmActionRow.action == "unreachable")).all()
    assert "seat red is unreachable" in note.detail and "ann@" not in note.detail
    # the same bounce again changes nothing
    assert inbound.handle(engine, qmail_bounce("ann@example.org", 3), settings, START).outcome == "ignored"
    assert seat(engine, "pd-b", "red").bounces == 2
    with Session(engine) as session:
        assert [
            r.dedupe_key for r in session.exec(select(OutboxRow)) if r.dedupe_key.startswith("reply:")
        ] == []


def test_a_mail_from_the_seat_counts_it_reachable_again(engine: Engine, settings: MailSettings) -> None:
    game = new_game(engine)
    outbox.enqueue_reports(engine, START, settings=settings)
    with Session(engine) as session:
        for row in session.exec(select(OutboxRow)):
            row.status = "sent"
            session.add(row)
        session.commit()
    ((_id, mid),) = sent_ids(engine, "ann@example.org")
    inbound.handle(engine, postfix_dsn("ann@example.org", mid), settings, START)
    assert seat(engine, "pd-1", "red").bounces == 1
    inbound.handle(engine, mail(bot_orders(engine, game, "red")).as_bytes(), settings, START)
    assert seat(engine, "pd-1", "red").bounces == 0 and not seat(engine, "pd-1", "red").abandoned


def test_a_temporary_failure_counts_nothing(engine: Engine, settings: MailSettings) -> None:
    new_game(engine)
    delayed = postfix_dsn("ann@example.org", "<x@pbem.test>").replace(b"Action: failed", b"Action: delayed")
    delayed = delayed.replace(b"Status: 5.1.1", b"Status: 4.4.1").replace(b"550 5.1.1", b"451 4.4.1")
    assert inbound.handle(engine, delayed, settings, START).outcome == "ignored"
    assert seat(engine, "pd-1", "red").bounces == 0


def test_a_bounce_detector_tripping_on_an_odd_message_prints_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # found by the MIME fuzzer of the proof campaign: flufl.bounce's qmail detector raises on it, and
    # flufl.bounce logged that with its traceback, which reached the operator's terminal
    raw = (
        b'Subject: \x0c@\xc3\xa9";\xc3\xa9.@\tc_\x00\x7f\x7f\r\x0b :\xe2\x80\xa8\x00\r\nFrom: _. '
        b"<ann@example.org>>\r\nMessage-ID: <f4_@example.org>\r\nReferences: <::.\xc2\x85\r@x>\r\n"
        b'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b153088\r"\r\n\r\n--b153088\r--\r\n'
    )
    # the host's own logger at DEBUG too: a tick run earlier in the same process may have set it higher
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="pbem.mail"):
        assert bounces.failed_addresses(reading.parse(raw)) == []
    assert not [r for r in caplog.records if r.name.startswith("flufl")]
    assert not [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]
    assert any("bounce detector could not read" in r.getMessage() for r in caplog.records)
