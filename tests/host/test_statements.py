"""The statements an order intake and a turn send to the database: each one a round trip on PostgreSQL,
SQLAlchemy's own work on both. These pin the cuts made for speed (no row read again after its
commit, no row read twice in one transaction), on SQLite and on PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Engine, event

from host.conftest import SEATS, T0, Table
from pbem.create import create_game
from pbem.db import connect
from pbem.orders import submit
from pbem.turns import process


@contextmanager
def recorded(engine: Engine) -> Iterator[list[str]]:
    """Every statement ``engine`` sends meanwhile, its words squeezed to one line."""
    sent: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(re.sub(r"\s+", " ", statement).strip())

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", note)


def _reads_of(sent: list[str], table: str) -> list[str]:
    return [s for s in sent if s.startswith("SELECT") and re.search(rf"\bFROM {table}\b", s)]


@pytest.fixture(params=["sqlite", "postgresql"])
def any_table(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Table]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'pbem.sqlite'}"
        engine = connect(url)
        yield Table(engine, url, "pd-1", create_game(engine, "pearl-dive", "pd-1", SEATS, seed=11, now=T0))
        engine.dispose()
        return
    pg = request.getfixturevalue("pg_database")
    engine = connect(pg)
    yield Table(engine, pg, "pd-1", create_game(engine, "pearl-dive", "pd-1", SEATS, seed=11, now=T0))
    engine.dispose()


def _locks(sent: list[str]) -> list[str]:
    return [s for s in sent if s.startswith("UPDATE game SET turn=game.turn") and "RETURNING" in s]


def test_an_accepted_order_file_reads_the_game_with_its_lock_and_nothing_after_writing(
    any_table: Table,
) -> None:
    text = any_table.orders("red")
    with recorded(any_table.engine) as sent:
        receipt = submit(any_table.engine, text)
    assert receipt.accepted and receipt.submission_id is not None
    first = next(s for s in sent if s != "BEGIN")
    assert _locks(sent) == [first]  # the write lock first, and the game row comes back with it
    assert _reads_of(sent, "game") == []
    assert len(_reads_of(sent, "seat")) == 1  # the seat whose absence ends is the one checked
    last_write = max(i for i, s in enumerate(sent) if s.startswith(("INSERT", "UPDATE")))
    assert not [s for s in sent[last_write:] if s.startswith("SELECT")]  # no row read again for the receipt


def test_a_turn_reads_the_game_once_for_its_snapshot_and_once_with_its_lock(any_table: Table) -> None:
    for seat, _email in SEATS:
        assert submit(any_table.engine, any_table.orders(seat)).accepted
    with recorded(any_table.engine) as sent:
        assert process(any_table.engine, any_table.game_id) == [1]
    [lock] = _locks(sent)
    assert len(_reads_of(sent, "game")) == 1  # the snapshot, before the lock
    assert sent.index(_reads_of(sent, "game")[0]) < sent.index(lock)
    assert len(_reads_of(sent, "seat")) == 1
    written = [s for s in sent if s.startswith("UPDATE game SET") and s is not lock]
    assert len(written) == 1  # the turn's compare-and-set, and the row is not read back after it
