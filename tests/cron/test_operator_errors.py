"""Careless operators get a clear answer: a mistyped --db, a damaged or newer database, a read-only one,
passwords in URLs, absurd durations, files readable by others, AUTH in clear."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError
from typer.testing import CliRunner

from pbem.cli.app import main
from pbem.cli.common import known_failure
from pbem.cli.cron import app
from pbem.core.errors import UserError
from pbem.cron.deadlines import parse_duration
from pbem.mail.sources import parse_imap_url
from pbem.outbox.errors import MailError
from pbem.outbox.transport import SmtpTransport
from pbem.storage.db import connect
from tests.cron.conftest import START, new_game


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        main(args)
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out + captured.err


def test_a_mistyped_db_is_said_and_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "pbem.sqlit"
    result = CliRunner().invoke(app, ["tick", "--db", str(wrong), "--quiet"], env={"PBEM_CONFIG": ""})
    assert result.exit_code == 1 and "there is no database at" in result.output
    code, out = run_main(["status", "--db", str(wrong)], capsys)
    assert code == 1 and "there is no database at" in out and "internal error" not in out
    assert not wrong.exists()


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.sqlite"
    bogus.write_text("shopping: eggs, milk\n" * 100)
    with pytest.raises(UserError, match="is not a pbem database"):
        connect(f"sqlite:///{bogus}", create=False)


def test_old_code_on_a_database_a_newer_pbem_upgraded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    engine = connect(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    engine.dispose()
    with pytest.raises(UserError, match="upgraded by a newer pbem"):
        connect(url)


def test_a_read_only_database_can_be_inspected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "db.sqlite"
    engine = connect(f"sqlite:///{path}")
    new_game(engine, "g")
    engine.dispose()
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    code, out = run_main(["status", "--db", read_only], capsys)
    assert code == 0 and "g" in out, out
    code, out = run_main(["replay", "g", "--verify", "--db", read_only], capsys)
    assert code == 0, out


def test_passwords_in_urls_are_never_echoed() -> None:
    with pytest.raises(UserError) as caught:
        connect("mysql://bob:SECRET@db.example.org/pbem")
    assert "SECRET" not in str(caught.value) and "bob" in str(caught.value)
    for url in ("imaps://u:SECRET@mail.example.org", "imap://u:SECRET@", "imap://u:SECRET@h:99999"):
        with pytest.raises(MailError) as mail_caught:
            parse_imap_url(url)
        assert "SECRET" not in str(mail_caught.value)
    for url in ("smtpx://u:SECRET@mail.example.org", "smtp://u:SECRET@h:99999"):
        with pytest.raises(MailError) as smtp_caught:
            SmtpTransport(url)
        assert "SECRET" not in str(smtp_caught.value)


def test_an_absurd_duration_is_refused_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UserError, match="at most 10 years"):
        parse_duration("99999999999w")
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    args = ["new", "coral-divers", "--id", "g1", "--db", db, "--player", "a=a@example.org"]
    code, out = run_main([*args, "--player", "b=b@example.org", "--deadline", "99999999999w"], capsys)
    assert code == 2 and "at most 10 years" in out and "internal error" not in out  # a usage error


def test_the_database_and_the_log_are_not_world_readable(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / "db.sqlite"
    new_game(connect(f"sqlite:///{path}"), "g")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    log = tmp_path / "tick.log"
    result = CliRunner().invoke(
        app,
        ["tick", "--db", str(path), "--log", str(log), "--quiet", "--now", START.isoformat(), "--no-mail"],
        env={"PBEM_CONFIG": ""},
    )
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(log.stat().st_mode) == 0o640


def test_smtp_auth_without_tls_is_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pbem.mail"):
        SmtpTransport("smtp://pbem@mail.example.org:25", "pw")
        SmtpTransport("smtp://pbem@mail.example.org:587?starttls=1", "pw")
    warned = [r.getMessage() for r in caplog.records if "without TLS" in r.getMessage()]
    assert len(warned) == 1 and "pw" not in warned[0].replace("pbem", "")


def test_a_full_disk_is_said_in_words(tmp_path: Path) -> None:
    """SQLite's own "database or disk is full" (a page limit stands in for the disk), and the OS's."""
    engine = connect(f"sqlite:///{tmp_path / 'db.sqlite'}")

    @event.listens_for(engine, "connect")
    def _small(dbapi_connection: object, _record: object) -> None:
        dbapi_connection.execute("PRAGMA max_page_count = 40")  # type: ignore[attr-defined]

    engine.dispose()
    with pytest.raises(DBAPIError) as caught, engine.begin() as conn:
        for n in range(10_000):
            conn.execute(
                text("INSERT INTO host (key, value) VALUES (:k, :v)"), {"k": f"k{n}", "v": "x" * 500}
            )
    said = known_failure(caught.value)
    assert said is not None and said.startswith("the disk is full")
    with pytest.raises(OSError) as os_caught:
        Path("/dev/full").write_bytes(b"x" * 100_000)
    assert (known_failure(os_caught.value) or "").startswith("the disk is full")
