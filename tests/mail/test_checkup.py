"""``pbem mail test``: a mail setup checked end to end against a real SMTP server (aiosmtpd) delivering
into a real IMAP server (Dovecot), and every way it can be wrong said with what to mend."""

from __future__ import annotations

import mailbox
from email import message_from_bytes
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.cli.mail import app
from tests.mail.conftest import HOST, Dovecot, Received, SmtpServer

runner = CliRunner()
SMTP_PASSWORD = "smtp-secret-9"  # the one the tests' SMTP server takes


@pytest.fixture
def delivering(smtp: SmtpServer, dovecot: Dovecot) -> SmtpServer:
    """The SMTP server hands mail for the host's address on to its IMAP mailbox, as a real one would."""

    def deliver(got: Received) -> None:
        if HOST in got.recipients:
            dovecot.append(HOST, got.data)

    smtp.handler.deliver = deliver
    dovecot.clear(HOST)
    return smtp


def _config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "pbem.toml"
    path.write_text(f"[mail]\n{text}\n")
    return {"PBEM_CONFIG": str(path)}


def _run(args: list[str], env: dict[str, str]) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["test", *args], env=env)
    assert "Traceback" not in result.output
    return result.exit_code, result.output.splitlines()


def test_a_working_setup_sends_finds_and_removes_the_test_mail(
    delivering: SmtpServer, dovecot: Dovecot, tmp_path: Path
) -> None:
    smtp_url = f"smtp://pbem-user@127.0.0.1:{delivering.port}"
    env = _config(tmp_path, f'from = "{HOST}"\nsmtp = "{smtp_url}"\nimap = "{dovecot.url(HOST)}"')
    env |= {"PBEM_SMTP_PASSWORD": SMTP_PASSWORD, "PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    code, lines = _run(["--to", "ann@example.org", "--wait", "10"], env)
    assert code == 0, lines
    assert [line.split()[0] for line in lines] == ["ok", "ok", "ok"]
    assert lines[1].endswith(f"took the test mail to {HOST}, ann@example.org")
    assert "arrived in IMAP INBOX" in lines[2]
    assert delivering.logins == [("pbem-user", SMTP_PASSWORD)]
    assert sorted(r for got in delivering.handler.received for r in got.recipients) == [
        "ann@example.org",
        HOST,
    ]
    mail = message_from_bytes(delivering.handler.received[0].data)
    assert mail["X-Loop"] == HOST and mail["Auto-Submitted"] == "auto-generated"
    assert dovecot.messages(HOST) == []  # never left for a fetch to find


def test_a_refused_smtp_login_is_said_with_what_to_check_and_read_access_is_still_checked(
    delivering: SmtpServer, dovecot: Dovecot, tmp_path: Path
) -> None:
    smtp_url = f"smtp://pbem-user@127.0.0.1:{delivering.port}"
    env = _config(tmp_path, f'from = "{HOST}"\nsmtp = "{smtp_url}"\nimap = "{dovecot.url(HOST)}"')
    env |= {"PBEM_SMTP_PASSWORD": "wrong-password-3", "PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    code, lines = _run([], env)
    assert code == 1
    assert lines[1].startswith("FAILED   sending: SMTP 127.0.0.1:")
    assert "login refused" in lines[1] and "check the user in [mail] smtp and $PBEM_SMTP_PASSWORD" in lines[1]
    assert lines[2].startswith("ok       reading: IMAP INBOX can be read")
    assert "wrong-password-3" not in "".join(lines)


def test_a_mail_that_never_arrives_says_where_it_was_looked_for(
    smtp: SmtpServer, dovecot: Dovecot, tmp_path: Path
) -> None:
    dovecot.clear(HOST)  # this server accepts the mail and delivers it nowhere
    env = _config(tmp_path, f'from = "{HOST}"\nsmtp = "{smtp.url}"\nimap = "{dovecot.url(HOST)}"')
    env |= {"PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    code, lines = _run(["--wait", "1"], env)
    assert code == 1
    assert lines[1].startswith("ok       sending")
    assert lines[2].startswith(
        f"FAILED   reading: the test mail to {HOST} did not arrive in IMAP INBOX within 1 s"
    )
    assert "longer --wait" in lines[2]


def test_a_refused_imap_login_says_which_setting_to_check(
    delivering: SmtpServer, dovecot: Dovecot, tmp_path: Path
) -> None:
    env = _config(tmp_path, f'from = "{HOST}"\nsmtp = "{delivering.url}"\nimap = "{dovecot.url(HOST)}"')
    env |= {"PBEM_IMAP_PASSWORD": "not-it-4"}
    code, lines = _run(["--wait", "1"], env)
    assert code == 1
    assert lines[2].startswith("FAILED   reading: cannot log in to IMAP 127.0.0.1")
    assert lines[2].endswith("check the user in [mail] imap and $PBEM_IMAP_PASSWORD")


def test_the_default_from_address_is_refused_before_anything_is_sent(
    smtp: SmtpServer, tmp_path: Path
) -> None:
    code, lines = _run([], _config(tmp_path, f'smtp = "{smtp.url}"'))
    assert code == 1
    assert lines[:-1] == [
        "FAILED   settings: [mail] from = 'pbem@localhost': 'pbem@localhost' is not a mail address: the "
        "domain needs a dot, as in example.org (a bare host name is local); set it to the address players "
        "write to"
    ]
    assert smtp.handler.received == []


def test_no_way_to_send_is_said(tmp_path: Path) -> None:
    code, lines = _run([], _config(tmp_path, f'from = "{HOST}"'))
    assert code == 1
    assert lines[1].startswith("FAILED   sending: no way to send mail: give --smtp URL or --outbox DIR")
    assert lines[2].startswith("skipped  reading: no [mail] imap and no --maildir")


def test_an_outbox_maildir_read_back_as_the_inbox_closes_the_loop(tmp_path: Path) -> None:
    box = tmp_path / "box"
    env = _config(tmp_path, f'from = "{HOST}"\noutbox = "{box}"')
    code, lines = _run(["--maildir", str(box), "--wait", "5"], env)
    assert code == 0, lines
    assert "arrived in the Maildir" in lines[2]
    assert len(mailbox.Maildir(box, create=False)) == 0


def test_an_untrusted_imap_certificate_says_to_name_the_ca(
    delivering: SmtpServer, dovecot: Dovecot, tmp_path: Path
) -> None:
    imap_url = f"imaps://{HOST}@127.0.0.1:{dovecot.tls_port}/INBOX"  # a self-signed certificate
    env = _config(tmp_path, f'from = "{HOST}"\nsmtp = "{delivering.url}"\nimap = "{imap_url}"')
    env |= {"PBEM_IMAP_PASSWORD": dovecot.passwords[HOST]}
    code, lines = _run(["--wait", "1"], env)
    assert code == 1
    assert "CERTIFICATE_VERIFY_FAILED" in lines[2]
    assert lines[2].endswith(
        "the server's certificate is not trusted: add &cafile=/path/ca.pem to the IMAP URL"
    )
