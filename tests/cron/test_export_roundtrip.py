"""Export keeps what a game is: ``export`` -> ``import`` on another database gives back the same game,
settings included (deadline, grace, missed-order policy, abandon-after, observers, the seats' misses,
the turns a rollback undid, marked), so ``status --json`` and a second ``export`` are equal. From
SQLite to PostgreSQL and back."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Engine
from typer.testing import CliRunner

from pbem.archive.replay import from_database, verify
from pbem.cli.app import app
from pbem.cron import admin
from pbem.play.turns import process
from pbem.storage.db import connect
from pbem.storage.migrations import upgrade
from tests.cron.conftest import START, new_game, owes, send_orders

H = timedelta(hours=1)


def pbem(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env={"PBEM_CONFIG": ""})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def other_url(db_url: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of the other kind: PostgreSQL for a game on SQLite, SQLite for one on PostgreSQL."""
    if db_url.startswith("sqlite"):
        return request.getfixturevalue("pg_url")
    return f"sqlite:///{tmp_path / 'other.sqlite'}"


def play_turn(engine: Engine, game_id: str, passwords: dict[str, str], when: object) -> None:
    for seat in owes(engine, game_id):
        password = passwords[seat]
        send_orders(engine, game_id, seat, password, when)  # type: ignore[arg-type]
    assert process(engine, game_id, now=when)  # type: ignore[arg-type]


def test_export_import_gives_back_the_same_game(
    engine: Engine, db_url: str, other_url: str, tmp_path: Path
) -> None:
    passwords = new_game(
        engine, "g", seats=("red", "blue", "green"), rounds=4, grace_seconds=3600, nmr="bot", abandon_after=2
    )
    admin.observe(engine, "g", "kibitz@example.org", START)
    for n in range(3):
        play_turn(engine, "g", passwords, START + n * H)
    admin.rollback(engine, "g", 1, START + 4 * H)  # turns 2 and 3 stay in the archive, undone
    play_turn(engine, "g", passwords, START + 5 * H)
    first = tmp_path / "first.yaml"
    code, _out, err = pbem("export", "g", "-o", str(first), "--include-secrets", "--db", db_url)
    assert code == 0, err
    data = yaml.safe_load(first.read_text(encoding="utf-8"))
    assert data["game"]["settings"] == {
        "turn_seconds": 86400,
        "grace_seconds": 3600,
        "nmr": "bot",
        "abandon_after": 2,
        "require_from_match": False,
    }
    assert data["game"]["epoch"] == 1 and data["observers"] == ["kibitz@example.org"]
    assert [(t["number"], t["epoch"], t["undone"]) for t in data["undone_turns"]] == [
        (2, 0, True),
        (3, 0, True),
    ]
    assert [(t["number"], t["epoch"]) for t in data["turns"]] == [(0, 0), (1, 0), (2, 1)]

    upgrade(connect(other_url))
    code, _out, err = pbem("import", str(first), "--db", other_url)
    assert code == 0, err
    assert verify(from_database(connect(other_url), "g"))["ok"]
    code, _out, err = pbem("replay", "g", "--verify", "--db", other_url)
    assert code == 0, err
    here = pbem("status", "g", "--json", "--db", db_url)[1]
    there = pbem("status", "g", "--json", "--db", other_url)[1]
    assert json.loads(here) == json.loads(there)
    second = tmp_path / "second.yaml"
    assert pbem("export", "g", "-o", str(second), "--include-secrets", "--db", other_url)[0] == 0
    assert second.read_text(encoding="utf-8") == first.read_text(encoding="utf-8")
