"""Fixtures for the host's tests: a database file per test, a game of Pearl Dive, helpers to fill in
order files and to run the ``pbem`` command in this process or in a new one."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from cron.conftest import fresh_pg_database
from sqlalchemy import Engine

from pbem.cli.app import main
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.create import create_game
from pbem.play.orders import template
from pbem.storage.db import connect

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SEATS = [("red", "red@example.org"), ("blue", "blue@example.org"), ("green", "green@example.org")]


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'pbem.sqlite'}"


@pytest.fixture
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database, dropped afterwards (the server unreachable fails the test)."""
    with fresh_pg_database("pbem_b") as url:
        yield url


@pytest.fixture
def engine(db_url: str) -> Engine:
    return connect(db_url)


@dataclass
class Table:
    """A game of Pearl Dive in a fresh database, with its passwords."""

    engine: Engine
    db_url: str
    game_id: str
    passwords: dict[str, str]

    def orders(
        self, seat: str, orders: Any = None, *, turn: int | None = None, password: str | None = None
    ) -> str:
        """An order file for ``seat``: the bot's choice unless ``orders`` is given."""
        data = yaml.safe_load(
            template(self.engine, self.game_id, seat, suggest=True).replace(
                PASSWORD_PLACEHOLDER, self.passwords[seat]
            )
        )
        if orders is not None:
            data["orders"] = orders
        if turn is not None:
            data["turn"] = turn
        if password is not None:
            data["password"] = password
        return yaml.safe_dump(data, sort_keys=False)


@pytest.fixture
def table(engine: Engine, db_url: str) -> Table:
    issued = create_game(engine, "pearl-dive", "pd-1", SEATS, seed=11, now=T0)
    return Table(engine, db_url, "pd-1", issued)


@dataclass
class Ran:
    code: int
    out: str
    err: str


@pytest.fixture
def pbem(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db_url: str
) -> Callable[..., Ran]:
    """Run ``pbem ARGS`` in this process against the test's database (``$PBEM_DB``)."""
    monkeypatch.setenv("PBEM_DB", db_url)

    def run(*args: str) -> Ran:
        capsys.readouterr()
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return Ran(code, captured.out, captured.err)

    return run


def run_pbem(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``pbem ARGS`` in a new process."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from pbem.cli.app import main; sys.exit(main())", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
        timeout=300,
    )


def race_two_drivers(engine: Engine, db_url: str, games: int = 4) -> None:
    """``games`` games with every order of turn 1 in, then two ``pbem process`` processes started at the
    same moment over all of them: each turn must be resolved by exactly one of the two."""
    from sqlmodel import Session, select

    from pbem.play.orders import submit
    from pbem.storage.models import TurnRow

    ids = [f"race-{i}" for i in range(games)]
    for number, game_id in enumerate(ids):
        table = Table(engine, db_url, game_id, create_game(engine, "pearl-dive", game_id, SEATS, seed=number))
        for seat, _email in SEATS:
            assert submit(engine, table.orders(seat)).accepted
    script = "import sys; from pbem.cli.app import main; sys.exit(main())"
    command = [sys.executable, "-c", script, "process", *ids, "--db", db_url]
    racers = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    results = [r.communicate(timeout=120) for r in racers]
    assert [r.returncode for r in racers] == [0, 0], results
    said = "".join(out for out, _err in results)
    for game_id in ids:
        assert said.count(f"{game_id}: resolved turn 1") == 1
        assert said.count(f"{game_id}: nothing to resolve") == 1
    with Session(engine) as session:
        assert len(session.exec(select(TurnRow).where(TurnRow.number == 1)).all()) == games
