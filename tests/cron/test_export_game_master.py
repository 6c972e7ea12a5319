"""The game master moves with the game (issue 14): ``export --include-secrets`` keeps the game master's
address (never the password's hash, as for seats); ``import`` stores it with a new password shown once,
the old one no longer opening anything; ``status`` says a game has a game master, never whose or the
hash. From SQLite to PostgreSQL and back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine
from sqlmodel import Session

from pbem.archive import files
from pbem.cli.demo import play_bots
from pbem.core.errors import UserError
from pbem.intake import passwords
from pbem.mail.gm import set_game_master
from pbem.storage.db import connect
from pbem.storage.migrations import upgrade
from pbem.storage.models import GameMasterRow
from tests.cron.conftest import _register_pearl_dive, new_game
from tests.cron.test_export_roundtrip import other_url, pbem  # noqa: F401  (the fixture)


def test_the_game_master_moves_with_the_game(
    engine: Engine,
    db_url: str,
    other_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    new_game(engine, "g", seats=("red", "blue"), rounds=3)
    old_password = set_game_master(engine, "g", "GM@Example.org")
    with Session(engine) as session:
        old_hash = session.get(GameMasterRow, "g").password_hash  # type: ignore[union-attr]

    here = json.loads(pbem("status", "g", "--json", "--db", db_url)[1])
    assert here["game_master"] is True
    text_status = pbem("status", "g", "--db", db_url)[1]
    assert "game master by mail: yes" in text_status
    assert "gm@example.org" not in text_status.lower() and old_hash not in text_status

    code, _out, err = pbem("export", "g", "-o", str(tmp_path / "refused.yaml"), "--db", db_url)
    assert code == 1 and not (tmp_path / "refused.yaml").exists()

    first = tmp_path / "first.yaml"
    code, _out, err = pbem("export", "g", "-o", str(first), "--include-secrets", "--db", db_url)
    assert code == 0, err
    text = first.read_text(encoding="utf-8")
    assert yaml.safe_load(text)["game_master"] == "gm@example.org"
    assert old_hash not in text and "password_hash" not in text and old_password not in text

    upgrade(connect(other_url))
    code, out, err = pbem("import", str(first), "--no-welcome", "--db", other_url)
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith("game master gm@example.org"))
    new_password = line.rsplit(" ", 1)[1]
    with Session(connect(other_url)) as session:
        moved = session.get(GameMasterRow, "g")
    assert moved is not None and moved.email == "gm@example.org"
    assert passwords.verify(new_password, moved.password_hash)
    assert not passwords.verify(old_password, moved.password_hash) and moved.password_hash != old_hash

    there = json.loads(pbem("status", "g", "--json", "--db", other_url)[1])
    assert here == there
    second = tmp_path / "second.yaml"
    assert pbem("export", "g", "-o", str(second), "--include-secrets", "--db", other_url)[0] == 0
    assert second.read_text(encoding="utf-8") == text


def test_without_a_game_master_nothing_is_added(
    engine: Engine,
    db_url: str,
    other_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    new_game(engine, "h", seats=("red", "blue"), rounds=3)
    assert json.loads(pbem("status", "h", "--json", "--db", db_url)[1])["game_master"] is False
    path = tmp_path / "h.json"
    assert pbem("export", "h", "-o", str(path), "--include-secrets", "--db", db_url)[0] == 0
    assert "game_master" not in json.loads(path.read_text(encoding="utf-8"))
    upgrade(connect(other_url))
    code, out, err = pbem("import", str(path), "--json", "--no-welcome", "--db", other_url)
    assert code == 0, err and "gm" not in json.loads(out)
    with Session(connect(other_url)) as session:
        assert session.get(GameMasterRow, "h") is None


def test_a_bad_game_master_address_is_refused_by_name(engine: Engine, db_url: str, tmp_path: Path) -> None:
    new_game(engine, "k", seats=("red", "blue"), rounds=3)
    set_game_master(engine, "k", "gm@example.org")
    path = tmp_path / "k.yaml"
    assert pbem("export", "k", "-o", str(path), "--include-secrets", "--db", db_url)[0] == 0
    path.write_text(path.read_text(encoding="utf-8").replace("gm@example.org", "not an address"), "utf-8")
    code, out, err = pbem("import", str(path), "--id", "k2", "--db", db_url)
    assert code == 1 and "Traceback" not in out + err
    with pytest.raises(UserError, match="the game master address 'not an address'"):
        files.import_game(engine, str(path), game_id="k2")
    assert json.loads(pbem("status", "--json", "--db", db_url)[1])[0]["id"] == "k"
    assert len(json.loads(pbem("status", "--json", "--db", db_url)[1])) == 1


@pytest.fixture(autouse=True)
def _no_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBEM_CONFIG", "")


def test_a_finished_games_public_archive_names_no_game_master(engine: Engine) -> None:
    _register_pearl_dive()
    play_bots(engine, "pearl-dive", "f", 2, 5)
    set_game_master(engine, "f", "gm@example.org")
    assert yaml.safe_load(files.export(engine, "f", None))["game_master"] == "gm@example.org"
    public = files.public_archive(engine, "f")
    assert "gm@example.org" not in public and "game_master" not in yaml.safe_load(public)
