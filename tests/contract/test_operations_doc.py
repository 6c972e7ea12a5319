"""docs/operations.md, the operator's guide, documents every key the settings file accepts and every
``PBEM_*`` variable anything in the tree reads: a key or a variable added without a word for the
operator fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.cli.cron import archive_dir, tick_config
from pbem.core.errors import UserError
from pbem.outbox.errors import MailError
from pbem.outbox.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
#: where a variable may be read: the host, the games, and the tools around them
READERS = ("pbem", "games", "bench", "proof", "tests", "scripts")


def _listed(message: str, after: str) -> list[str]:
    """The key names an error message lists after ``after`` (``known: from, name, …``)."""
    return re.findall(r"[a-z_]+", message.split(after, 1)[1].split("(", 1)[0])


def _refused(tmp_path: Path, table: str) -> str:
    path = tmp_path / "pbem.toml"
    path.write_text(f"[{table}]\nno_such_key_at_all = 1\n")
    read = {"mail": lambda: load_settings(path, env={}), "tick": lambda: tick_config(path)}
    with pytest.raises((MailError, UserError)) as caught:
        read.get(table, lambda: archive_dir(path))()
    return str(caught.value)


def test_every_mail_key_the_settings_accept_is_in_the_guides_table(tmp_path: Path) -> None:
    keys = _listed(_refused(tmp_path, "mail"), "known:")
    assert {"from", "name", "retry_seconds", "max_attempts", "max_message_bytes", "imap_after"} <= set(keys)
    missing = [key for key in keys if f"| `{key}` |" not in GUIDE]
    assert not missing, f"docs/operations.md has no row for [mail] {missing}"


@pytest.mark.parametrize("table", ["tick", "archive"])
def test_every_key_of_the_other_tables_is_named_in_the_guide(tmp_path: Path, table: str) -> None:
    keys = _listed(_refused(tmp_path, table), "knows only")
    assert keys
    assert f"`[{table}]`" in GUIDE
    missing = [key for key in keys if f"`{key}`" not in GUIDE]
    assert not missing, f"docs/operations.md does not name [{table}] {missing}"


def test_every_pbem_variable_read_anywhere_is_in_the_guides_tables() -> None:
    read: set[str] = set()
    for folder in READERS:
        for file in (ROOT / folder).rglob("*"):
            if file.suffix in (".py", ".sh") and file.is_file():
                read |= set(re.findall(r"\bPBEM_[A-Z0-9_]*[A-Z0-9]\b", file.read_text(encoding="utf-8")))
    assert {"PBEM_DB", "PBEM_CONFIG", "PBEM_SMTP_PASSWORD", "PBEM_HOST_ID", "PBEM_DEBUG"} <= read
    missing = sorted(name for name in read if f"| `{name}` |" not in GUIDE)
    assert not missing, f"docs/operations.md has no row for {missing}"


def test_the_readme_and_the_cron_page_point_to_the_guide() -> None:
    assert "(docs/operations.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(operations.md)" in (ROOT / "docs" / "cron.md").read_text(encoding="utf-8")


def test_the_guides_settings_file_is_one_the_parsers_take(tmp_path: Path) -> None:
    (example,) = re.findall(r"```toml\n(.*?)```", GUIDE, re.S)
    path = tmp_path / "pbem.toml"
    path.write_text(example)
    settings = load_settings(path, env={})
    assert (settings.imap_after, settings.imap_move_to) == ("move", "pbem-read")
    assert tick_config(path)["remind"] == "12h"
    assert archive_dir(path) == Path("/srv/www/pbem")
