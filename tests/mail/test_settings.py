"""Mail settings: shared things from the config file, secrets only from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.outbox.errors import MailError
from pbem.outbox.settings import MailSettings, load_settings

CONFIG = """\
[tick]
remind = "12h"

[mail]
from = "pbem@example.org"
name = "Reef host"
smtp = "smtp://pbem@mail.example.org:587?starttls=1"
imap = "imaps://pbem@mail.example.org/INBOX"
retry_seconds = 30
max_attempts = 4
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text(text)
    return path


def test_settings_come_from_the_config_file(tmp_path: Path) -> None:
    s = load_settings(write(tmp_path, CONFIG), env={})
    assert (s.from_addr, s.from_name, s.retry_seconds, s.max_attempts) == (
        "pbem@example.org",
        "Reef host",
        30,
        4,
    )
    assert s.smtp_url == "smtp://pbem@mail.example.org:587?starttls=1"
    assert s.retry_max_seconds == MailSettings().retry_max_seconds


def test_the_environment_overrides_the_file_and_the_options_override_both(tmp_path: Path) -> None:
    env = {"PBEM_MAIL_FROM": "other@example.org", "PBEM_SMTP_URL": "smtp://localhost:2525"}
    s = load_settings(write(tmp_path, CONFIG), env=env)
    assert (s.from_addr, s.smtp_url) == ("other@example.org", "smtp://localhost:2525")
    assert load_settings(write(tmp_path, CONFIG), env=env, smtp_url="smtp://x:1").smtp_url == "smtp://x:1"


def test_the_config_file_is_found_by_pbem_config_or_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, CONFIG)
    assert load_settings(env={"PBEM_CONFIG": str(path)}).from_addr == "pbem@example.org"
    monkeypatch.chdir(tmp_path)
    assert load_settings(env={}).from_addr == "pbem@example.org"


def test_passwords_come_only_from_the_environment_and_repr_hides_them(tmp_path: Path) -> None:
    env = {"PBEM_SMTP_PASSWORD": "smtp-pw-1", "PBEM_IMAP_PASSWORD": "imap-pw-2"}
    s = load_settings(write(tmp_path, CONFIG), env=env)
    assert (s.smtp_password, s.imap_password) == ("smtp-pw-1", "imap-pw-2")
    assert sorted(s.secrets()) == ["imap-pw-2", "smtp-pw-1"]
    assert "pw-1" not in repr(s) and "pw-2" not in repr(s)


def test_a_password_in_the_config_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MailError, match="only from the environment"):
        load_settings(write(tmp_path, CONFIG + 'smtp_password = "oops"\n'), env={})


def test_a_password_in_a_url_is_refused(tmp_path: Path) -> None:
    with pytest.raises(MailError, match="PBEM_SMTP_PASSWORD"):
        load_settings(write(tmp_path, CONFIG.replace("pbem@mail", "pbem:oops@mail", 1)), env={})
    with pytest.raises(MailError, match="PBEM_IMAP_PASSWORD"):
        load_settings(None, env={"PBEM_IMAP_URL": "imap://u:oops@h/INBOX"})


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[mail]\nfrom = ", "not valid TOML"),
        ("[mail]\nretries = 3\n", "not understood"),
        ("[mail]\nmax_attempts = 0\n", "not understood"),
        ("[mail]\nmax_attempts = true\n", "not understood"),
        ("mail = 3\n", "must be a table"),
    ],
)
def test_a_bad_config_file_is_a_clear_error(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(MailError, match=problem):
        load_settings(write(tmp_path, text), env={})


def test_a_missing_config_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MailError, match="cannot read"):
        load_settings(tmp_path / "none.toml", env={})


def test_what_becomes_of_read_imap_mail_is_a_setting_the_options_override(tmp_path: Path) -> None:
    path = write(tmp_path, '[mail]\nimap_after = "move"\nimap_move_to = "Feldolgozott"\n')
    settings = load_settings(path, env={})
    assert (settings.imap_after, settings.imap_move_to) == ("move", "Feldolgozott")
    assert load_settings(path, env={}, imap_after="delete").imap_after == "delete"
    assert load_settings(write(tmp_path, "[mail]\n"), env={}).imap_after == "seen"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('imap_after = "archive"', "imap_after = .archive. is not understood: write seen, move or delete"),
        ('imap_after = "move"', 'needs the folder to move to: imap_move_to = "pbem-read"'),
    ],
)
def test_a_wrong_imap_after_says_what_to_write(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(MailError, match=problem):
        load_settings(write(tmp_path, f"[mail]\n{text}\n"), env={})
