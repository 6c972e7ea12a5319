"""The welcome mail: queued by ``pbem new``, ``pbem import`` and ``pbem replace``, delivered first,
the root of the seat's thread, and carrying its password to that seat's address only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.cli.app import main
from pbem.core import i18n, markers
from pbem.core.dice import commitment
from pbem.core.registry import register
from pbem.cron.notices import send_notice
from pbem.mail import inbound, reading
from pbem.outbox.message import thread_root
from pbem.outbox.settings import MailSettings
from pbem.outbox.transport import SmtpTransport
from pbem.play import orders
from pbem.storage.db import connect
from pbem.storage.models import OutboxRow, ReportRow
from tests.cron.conftest import pg_url  # noqa: F401  (a fixture)
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import HOST, START, SmtpServer

SEATS = {"red": "ann@example.org", "blue": "bob@example.org"}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pbem.sqlite'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def db(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    register(PEARL_DIVE)
    monkeypatch.setenv("PBEM_DB", url)
    monkeypatch.setenv("PBEM_MAIL_FROM", HOST)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    engine = connect(url)
    yield engine
    engine.dispose()


def run(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return code, capsys.readouterr().out


def new(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, str]:
    args = ["new", "pearl-dive", "--id", "w-1", "--seed", "5", "--now", START.isoformat()]
    for seat, address in SEATS.items():
        args += ["--player", f"{seat}={address}"]
    code, out = run(*args, *extra, capsys=capsys)
    assert code == 0, out
    issued = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] in SEATS:
            issued[parts[0]] = parts[-1]
    return issued


def rows(engine: Engine) -> list[OutboxRow]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxRow).order_by(OutboxRow.id)))  # type: ignore[arg-type]


def parsed(row: OutboxRow) -> EmailMessage:
    msg = message_from_bytes(outbox.unpack_message(row.message_z), policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def text(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None and part.get_param("format") == "flowed"
    return reading.unflow(str(part.get_content()).replace("\r\n", "\n"))


def test_each_welcome_is_written_in_its_seats_language(
    db: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    issued = new(capsys, "--lang", "hu", "--lang", "blue=zh")
    by_seat = {row.to_addr: parsed(row) for row in rows(db)}
    for seat, lang in (("red", "hu"), ("blue", "zh")):
        msg = by_seat[SEATS[seat]]
        with i18n.language(lang):
            subject = i18n._("welcome, {seat}", seat=seat)
        assert subject != f"welcome, {seat}"  # the catalogs have it
        assert msg["Content-Language"] == lang
        assert msg["Subject"] == f"[pbem] w-1 · {subject}"
        assert issued[seat] in text(msg)


def test_new_queues_each_seat_a_welcome_with_its_password_and_a_filled_template(
    db: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    issued = new(capsys)
    welcomes = rows(db)
    assert [r.to_addr for r in welcomes] == list(SEATS.values())
    settings = MailSettings(from_addr=HOST)
    for row, (seat, address) in zip(welcomes, SEATS.items(), strict=True):
        msg = parsed(row)
        assert msg["To"] == address and msg["Subject"] == f"[pbem] w-1 · welcome, {seat}"
        assert msg["Message-ID"] == thread_root(settings, "w-1", seat)  # the root of the seat's thread
        assert "In-Reply-To" not in msg
        body = text(msg)
        assert f"Your password: {issued[seat]}" in body
        assert "The seats, in playing order: red, blue." in body
        for other, pw in issued.items():
            if other != seat:
                assert pw not in body
        assert all(a not in body for a in SEATS.values())  # nobody's address
        assert body.count("\n") > 10 and "How to play by mail:" in body
        # the template, framed and filled in: sent back as it is, it is accepted
        document = markers.inside(body[body.index(markers.BEGIN) :])
        receipt = orders.submit(db, document, source="mail", from_address=address, now=START)
        assert receipt.accepted, receipt.errors
        raw = outbox.unpack_message(row.message_z).decode()
        assert all(len(line) <= 78 for line in raw.split("\r\n") if markers.BEGIN not in line)
    # the welcome holds the setup report: no second mail of it
    with Session(db) as session:
        assert all(r.mail_queued for r in session.exec(select(ReportRow).where(ReportRow.seat != "")))
    assert outbox.enqueue_reports(db, START, settings=settings) == 0


def test_no_welcome_queues_nothing(db: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    new(capsys, "--no-welcome")
    assert rows(db) == []


def test_the_welcome_is_the_first_mail_even_before_a_reminder_and_its_body_is_then_forgotten(
    db: Engine, capsys: pytest.CaptureFixture[str], smtp: SmtpServer, url: str
) -> None:
    issued = new(capsys, "--deadline", "2h")
    settings = MailSettings(from_addr=HOST)
    later = START + timedelta(hours=1)
    for seat in SEATS:
        assert send_notice(db, settings, "reminder", "w-1", seat, epoch=0, turn=1, now=later)
    result = outbox.send(db, SmtpTransport(smtp.url), START + timedelta(hours=1), settings=settings)
    assert result.failed == [] and result.delayed == []
    for seat, address in SEATS.items():
        got = [
            message_from_bytes(m.data, policy=policy.default)
            for m in smtp.handler.received
            if address in m.recipients
        ]
        assert [str(m["Subject"]) for m in got] == [
            f"[pbem] w-1 · welcome, {seat}",
            "[pbem] w-1 · turn 1 · your orders are due soon",
        ]
        # one thread: the reminder refers to the welcome
        assert got[1]["In-Reply-To"] == got[0]["Message-ID"] == thread_root(settings, "w-1", seat)
    # delivered: the outbox keeps the welcome's headers, not the password
    for row in rows(db):
        assert all(pw.encode() not in outbox.unpack_message(row.message_z) for pw in issued.values())


def test_replace_welcomes_the_new_player_in_the_seat_thread(
    db: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    new(capsys)
    code, out = run("replace", "w-1", "blue", "cy@example.org", "--now", START.isoformat(), capsys=capsys)
    assert code == 0, out
    password = out.split("password (shown once): ")[1].split()[0]
    last = parsed(rows(db)[-1])
    assert last["To"] == "cy@example.org" and f"Your password: {password}" in text(last)
    root = thread_root(MailSettings(from_addr=HOST), "w-1", "blue")
    assert last["In-Reply-To"] == root and last["Message-ID"] != root
    assert "welcome mail queued for blue" in out


def test_the_reply_to_a_welcome_is_threaded_under_it(db: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    issued = new(capsys)
    welcome = parsed(rows(db)[0])
    body = text(welcome)
    template = body[body.index(markers.BEGIN) : body.index(markers.END) + len(markers.END)]
    reply = EmailMessage()
    reply["From"] = "Ann <ann@example.org>"
    reply["To"] = HOST
    reply["Subject"] = f"Re: {welcome['Subject']}"
    reply["Message-ID"] = "<r1@example.org>"
    reply["In-Reply-To"] = welcome["Message-ID"]
    reply["References"] = welcome["Message-ID"]
    reply.set_content(f"Here we go!\n\n{template}\n\nAnn\n\n> {welcome['Subject']}\n")
    handled = inbound.handle(db, reply.as_bytes(), MailSettings(from_addr=HOST), START)
    assert handled.outcome == "accepted"
    answer = parsed(rows(db)[-1])
    assert answer["Subject"] == "Re: [pbem] w-1 · welcome, red"
    assert answer["References"].split() == [welcome["Message-ID"], "<r1@example.org>"]
    assert issued["red"] not in outbox.unpack_message(rows(db)[-1].message_z).decode()


def test_a_welcome_over_smtp_parses_back(
    db: Engine, capsys: pytest.CaptureFixture[str], smtp: SmtpServer
) -> None:
    new(capsys)
    outbox.send(db, SmtpTransport(smtp.url), START, settings=MailSettings(from_addr=HOST))
    assert len(smtp.handler.received) == 2
    for got in smtp.handler.received:
        msg = message_from_bytes(got.data, policy=policy.default)
        assert msg["Auto-Submitted"] == "auto-generated" and msg["X-Loop"] == HOST
        assert msg.get_content_type() == "text/plain" and msg.get_param("format") == "flowed"


def test_the_welcome_states_the_dice_commitment_and_how_to_check_it(
    db: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    new(capsys)
    for row in rows(db):
        body = text(parsed(row))
        head = body[: body.index("How to play by mail:")]
        said = body[: body.index(markers.BEGIN)] if markers.BEGIN in body else body
        committed = "Commitment to the draws (SHA-256 of the game's secret seed):\n  " + commitment(5)
        assert committed + "\n" in said
        assert "pbem verify" in said and "seed is revealed in the final report" in said
        assert commitment(5) not in head  # after the how-to, not mixed into the greeting
