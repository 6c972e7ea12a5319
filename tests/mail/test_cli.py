"""``pbem mail fetch`` / ``pbem mail send`` through typer's test runner."""

from __future__ import annotations

import mailbox
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from pbem.cli.cron import app as cron_app
from pbem.cli.mail import app
from tests.mail.conftest import HOST, Dovecot, Game, SmtpServer, bot_orders, mail, stored_bytes

runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, db_path: Path) -> dict[str, str]:
    config = tmp_path / "pbem.toml"
    config.write_text(f'[mail]\nfrom = "{HOST}"\n')
    return {"PBEM_DB": f"sqlite:///{db_path}", "PBEM_CONFIG": str(config)}


@pytest.mark.parametrize("command", ["fetch", "send", "test"])
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output and f"pbem mail {command}" in result.output


def test_fetch_from_a_maildir_answers_into_the_outbox_maildir(
    engine: Engine, game: Game, env: dict[str, str], tmp_path: Path
) -> None:
    inbox = mailbox.Maildir(tmp_path / "in", create=True)
    inbox.add(mail(bot_orders(engine, game, "red")).as_bytes(policy=policy.SMTP))
    inbox.add(mail("out of office", headers={"Auto-Submitted": "auto-replied"}).as_bytes(policy=policy.SMTP))
    args = ["fetch", "--maildir", str(tmp_path / "in"), "--outbox", str(tmp_path / "out")]
    result = runner.invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert sorted(line.split()[0] for line in lines[:2]) == ["accepted", "ignored"]
    assert lines[2] == "sent 1, delayed 0, failed 0"
    out = mailbox.Maildir(tmp_path / "out", create=False)
    assert [str(m["To"]) for m in out] == ["ann@example.org"]
    again = runner.invoke(app, args, env=env)
    assert again.exit_code == 0 and again.output == "sent 0, delayed 0, failed 0\n"


def test_fetch_needs_exactly_one_source(env: dict[str, str], tmp_path: Path) -> None:
    result = runner.invoke(app, ["fetch", "--maildir", str(tmp_path), "--mbox", str(tmp_path / "x")], env=env)
    assert result.exit_code == 1
    assert "exactly one of" in result.output and "Traceback" not in result.output


def test_fetch_from_a_missing_maildir_is_one_line_and_exit_1(env: dict[str, str], tmp_path: Path) -> None:
    result = runner.invoke(app, ["fetch", "--maildir", str(tmp_path / "nowhere")], env=env)
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "not a Maildir" in result.output


def test_send_queues_the_reports_and_delivers_them_once_through_smtp(
    game: Game, env: dict[str, str], smtp: SmtpServer
) -> None:
    result = runner.invoke(app, ["send", "--smtp", smtp.url], env=env)
    assert result.exit_code == 0, result.output
    assert result.output == "queued 2 reports; sent 2, delayed 0, failed 0\n"
    assert sorted(r.recipients[0] for r in smtp.handler.received) == ["ann@example.org", "bob@example.org"]
    again = runner.invoke(app, ["send", "--smtp", smtp.url], env=env)
    assert again.output == "queued 0 reports; sent 0, delayed 0, failed 0\n"
    assert len(smtp.handler.received) == 2


def test_send_without_a_way_to_send_says_how_to_give_one(env: dict[str, str]) -> None:
    result = runner.invoke(app, ["send"], env=env)
    assert result.exit_code == 1 and "--smtp URL or --outbox DIR" in result.output


def test_send_refuses_a_password_in_the_url(env: dict[str, str]) -> None:
    result = runner.invoke(app, ["send", "--smtp", "smtp://u:hunter2@127.0.0.1:1"], env=env)
    assert result.exit_code == 1 and "PBEM_SMTP_PASSWORD" in result.output
    assert "hunter2" not in result.output


def test_fetch_over_imap_with_secrets_from_the_environment_never_shows_or_stores_them(
    engine: Engine, game: Game, env: dict[str, str], dovecot: Dovecot, smtp: SmtpServer, db_path: Path
) -> None:
    dovecot.clear(HOST)
    dovecot.append(
        HOST, mail(bot_orders(engine, game, "blue"), frm="bob@example.org").as_bytes(policy=policy.SMTP)
    )
    secrets = {"PBEM_IMAP_PASSWORD": dovecot.passwords[HOST], "PBEM_SMTP_PASSWORD": "smtp-secret-9"}
    smtp_url = f"smtp://pbem-user@127.0.0.1:{smtp.port}"
    result = runner.invoke(
        app, ["fetch", "--imap", dovecot.url(HOST), "--smtp", smtp_url], env={**env, **secrets}
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["accepted  bob@example.org (body)", "sent 1, delayed 0, failed 0"]
    assert smtp.logins == [("pbem-user", "smtp-secret-9")]
    engine.dispose()
    stored = stored_bytes(db_path)
    for secret in [*secrets.values(), game.passwords["blue"]]:
        assert secret not in result.output
        assert secret.encode() not in stored


def test_fetch_reads_the_imap_mailbox_named_in_the_config_file(
    engine: Engine, game: Game, dovecot: Dovecot, tmp_path: Path, db_path: Path
) -> None:
    dovecot.clear(HOST)
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP))
    config = tmp_path / "imap.toml"
    config.write_text(f'[mail]\nfrom = "{HOST}"\nimap = "{dovecot.url(HOST)}"\n')
    env = {"PBEM_DB": f"sqlite:///{db_path}", "PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    result = runner.invoke(app, ["fetch", "--config", str(config), "--no-send"], env=env)
    assert result.exit_code == 0, result.output
    assert result.output == "command   ann@example.org (help)\n"


def test_fetch_reads_a_mailbox_with_a_non_ascii_name(
    engine: Engine, game: Game, dovecot: Dovecot, tmp_path: Path, db_path: Path
) -> None:
    wire = "INBOX/&BBIERQQ+BDQETwRJBDgENQ-"  # INBOX/Входящие in IMAP's modified UTF-7 (RFC 3501 5.1.3)
    dovecot.clear(HOST, wire)
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP), wire)
    config = tmp_path / "imap.toml"
    config.write_text(f'[mail]\nfrom = "{HOST}"\nimap = "{dovecot.url(HOST, "INBOX/Входящие")}"\n')
    env = {"PBEM_DB": f"sqlite:///{db_path}", "PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    result = runner.invoke(app, ["fetch", "--config", str(config), "--no-send"], env=env)
    assert result.exit_code == 0, result.output
    assert result.output == "command   ann@example.org (help)\n"
    assert dovecot.unseen(HOST, wire) == 0


def test_fetch_moves_what_it_read_out_of_the_inbox_when_asked(
    engine: Engine, game: Game, env: dict[str, str], dovecot: Dovecot
) -> None:
    dovecot.clear(HOST)
    dovecot.clear(HOST, "pbem-read-cli")
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP))
    env = {**env, "PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    args = ["fetch", "--imap", dovecot.url(HOST), "--after-read", "move", "--move-to", "pbem-read-cli"]
    result = runner.invoke(app, [*args, "--no-send"], env=env)
    assert result.exit_code == 0, result.output
    assert dovecot.messages(HOST) == [] and len(dovecot.messages(HOST, "pbem-read-cli")) == 1


def test_tick_moves_what_it_read_as_the_settings_say(
    engine: Engine, game: Game, dovecot: Dovecot, tmp_path: Path, db_path: Path
) -> None:
    dovecot.clear(HOST)
    dovecot.clear(HOST, "pbem-read-tick")
    dovecot.append(HOST, mail("help").as_bytes(policy=policy.SMTP))
    config = tmp_path / "tick.toml"
    config.write_text(
        f'[mail]\nfrom = "{HOST}"\nimap = "{dovecot.url(HOST)}"\nimap_after = "move"\n'
        f'imap_move_to = "pbem-read-tick"\noutbox = "{tmp_path / "out"}"\n'
    )
    env = {"PBEM_CONFIG": str(config), "PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    result = runner.invoke(cron_app, ["tick", "--db", f"sqlite:///{db_path}", "--jobs", "1"], env=env)
    assert result.exit_code == 0, result.output
    assert dovecot.messages(HOST) == [] and len(dovecot.messages(HOST, "pbem-read-tick")) == 1
