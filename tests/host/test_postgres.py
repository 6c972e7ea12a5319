"""The host on PostgreSQL, unchanged: a whole game, its replay and archive, and two racing turn drivers.

``$PBEM_TEST_PG`` names an admin connection (default: the local server's socket as ``postgres``;
``bash scripts/postgres.sh`` starts it). Each test gets a database of its own. A server that cannot be
reached fails the test with the way to start one: it never skips.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from host.conftest import SEATS, Table, race_two_drivers
from pbem.archive.files import export, import_archive
from pbem.archive.replay import from_database, verify
from pbem.archive.verifying import verify_in_new_process
from pbem.play import turns as driver
from pbem.play.create import create_game
from pbem.play.orders import submit
from pbem.play.turns import process
from pbem.storage.db import connect
from pbem.storage.models import GameRow, SubmissionRow, TurnRow

pytestmark = pytest.mark.postgres

DEFAULT_PG = "postgresql+psycopg://postgres@/postgres?host=/var/run/postgresql"


@pytest.fixture
def pg_url() -> Iterator[str]:
    admin_url = os.environ.get("PBEM_TEST_PG") or DEFAULT_PG
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text("select 1"))
    except OperationalError as exc:
        pytest.fail(
            f"PostgreSQL is not reachable ({exc.orig}); start it with `bash scripts/postgres.sh`",
            pytrace=False,
        )
    name = f"pbem_host_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_a_whole_game_replays_and_moves_to_sqlite(pg_url: str, tmp_path: Path) -> None:
    engine = connect(pg_url)
    issued = create_game(engine, "pearl-dive", "pg-1", SEATS, seed=3)
    table = Table(engine, pg_url, "pg-1", issued)
    assert submit(engine, table.orders("red")).accepted
    assert not submit(engine, table.orders("blue", password="wrong-word-00")).accepted
    for _ in range(20):
        process(engine, "pg-1", fill_missing=True)
    assert verify_in_new_process("pg-1", pg_url)["ok"]
    path = tmp_path / "pg-1.json"
    export(engine, "pg-1", str(path))
    sqlite = connect(f"sqlite:///{tmp_path / 'moved.sqlite'}")
    import_archive(sqlite, str(path))
    assert verify(from_database(sqlite, "pg-1"))["ok"]
    engine.dispose()


def test_two_drivers_on_postgresql_resolve_each_turn_once(pg_url: str) -> None:
    engine = connect(pg_url)
    race_two_drivers(engine, pg_url)
    engine.dispose()


def test_a_driver_that_loses_the_race_rolls_back_and_says_so(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Without the game lock (taken away here), two drivers can both resolve turn 1; the unique
    (game, epoch, number) lets one win and the other roll back whole. (On SQLite the loser's stale
    snapshot cannot write at all, which is why the driver takes the lock first.)"""
    engine = connect(pg_url)
    table = Table(engine, pg_url, "pg-race", create_game(engine, "pearl-dive", "pg-race", SEATS, seed=4))
    for seat, _email in SEATS:
        assert submit(engine, table.orders(seat)).accepted
    real = driver.record_turn

    rivals = []

    def beaten(session, game, row, turn, now, **kwargs):  # type: ignore[no-untyped-def]
        if rivals:  # the rival's turn is there already: this driver, looking again, meets it
            return real(session, game, row, turn, now, **kwargs)
        rivals.append(turn.number)
        with Session(engine) as rival:  # another driver records this very turn just before this one
            rival.add(
                TurnRow(
                    game_id=row.id,
                    epoch=row.epoch,
                    number=turn.number,
                    state_z=b"",
                    state_sha256="0" * 64,
                    orders_z=b"",
                    events_z=b"",
                    resolved_at=now,
                )
            )
            rival.commit()
        return real(session, game, row, turn, now, **kwargs)

    # the game read as the driver reads it, but without the lock that comes with it
    monkeypatch.setattr(driver, "locked_game", lambda session, game_id: session.get(GameRow, game_id))
    monkeypatch.setattr(driver, "record_turn", beaten)
    with caplog.at_level("INFO", logger="pbem.play.turns"):
        assert process(engine, "pg-race") == []
    assert "game pg-race: turn 1 already resolved by another process" in caplog.text
    with Session(engine) as session:
        assert session.get(GameRow, "pg-race").turn == 0  # type: ignore[union-attr]
        assert {s.status for s in session.exec(select(SubmissionRow))} == {"accepted"}
    engine.dispose()
