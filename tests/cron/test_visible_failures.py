"""Failures cron can see: a tick whose mail failed exits 1 and says why in its log, at WARNING or above."""

from __future__ import annotations

import mailbox
from collections.abc import Iterator
from datetime import timedelta
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from pbem.cli.cron import app
from pbem.mail import inbound
from tests.cron.conftest import START, new_game
from tests.mail.conftest import Recorder, SmtpServer, _start_smtp, mail

H = timedelta(hours=1)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'pbem.sqlite'}"


@pytest.fixture
def db(sqlite_url: str) -> Engine:
    from pbem.storage.db import connect

    return connect(sqlite_url)


@pytest.fixture
def refusing() -> Iterator[SmtpServer]:
    """An SMTP server that refuses every recipient of the game."""
    controller, server = _start_smtp(Recorder(refuse_rcpt={"red@example.org", "blue@example.org"}))
    yield server
    controller.stop()


def tick(sqlite_url: str, log: Path, at: object, env: dict[str, str], *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        ["tick", "--db", sqlite_url, "--now", at.isoformat(), "--log", str(log), "--quiet", *more],  # type: ignore[attr-defined]
        env={"PBEM_CONFIG": "", "PBEM_MAIL_FROM": "host@example.org", **env},
    )
    return result.exit_code, result.stdout + result.stderr


def test_a_server_refusing_every_recipient_for_days_is_a_warning_then_a_failed_tick(
    db: Engine, sqlite_url: str, tmp_path: Path, refusing: SmtpServer
) -> None:
    new_game(db, "g")
    log = tmp_path / "tick.log"
    env = {"PBEM_SMTP_URL": refusing.url}
    first, _ = tick(sqlite_url, log, START + H, env)
    assert first == 0  # one refusal is not yet a failure: the mail waits and is retried
    assert "WARNING mail out: 2 mails refused" in log.read_text()
    codes = [tick(sqlite_url, log, START + hours * H, env)[0] for hours in (6, 13, 30, 50, 98)]
    assert codes[0] == 0 and set(codes[1:]) == {1}
    text = log.read_text()
    assert "ERROR mail out: " in text and "without being accepted" in text
    assert "550 5.1.1 no such user here" in text  # the server's reason, for the person reading it
    assert refusing.handler.received == []


def test_a_tick_whose_mail_in_failed_exits_1_and_the_mail_layer_logs_into_the_tick_log(
    db: Engine, sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_game(db, "g")
    inbox = mailbox.Maildir(tmp_path / "in", create=True)
    inbox.add(mail("game: g\n", frm="red@example.org", subject="POISON").as_bytes(policy=policy.SMTP))

    def decide(*args: object, **kwargs: object) -> object:  # a fault of ours this message trips
        raise RuntimeError("reply composition failed")

    monkeypatch.setattr(inbound, "_decide", decide)
    log = tmp_path / "tick.log"
    env = {"PBEM_OUTBOX": str(tmp_path / "out")}
    code, output = tick(sqlite_url, log, START + H, env, "--maildir", str(tmp_path / "in"))
    assert code == 1
    assert "Traceback" not in output
    text = log.read_text()
    assert "WARNING mail maildir:new/" in text and "reply composition failed" in text  # pbem.mail's own line
    assert "ERROR mail in: 1 of 1 messages failed" in text
    assert "errors 1" in text


def test_a_broken_address_stored_by_older_code_does_not_fail_the_reminders(
    db: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    from sqlmodel import Session, select

    from pbem.host.tick import TickSettings
    from pbem.host.tick import tick as run_tick
    from pbem.storage.models import SeatRow

    new_game(db, "g")
    with Session(db) as session:  # as a pbem that did not check addresses stored it
        seat = session.exec(select(SeatRow).where(SeatRow.name == "blue")).one()
        seat.email = "<blue@example.org>"
        session.add(seat)
        session.commit()
    with caplog.at_level("WARNING", logger="pbem.cron"):
        summary = run_tick(db, START + 13 * H, settings=TickSettings(host="h"))
    assert summary.errors == 0 and summary.reminders == 2
    assert any("is not a mail address" in r.getMessage() for r in caplog.records)
