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
from sqlmodel import Session, select

from host.conftest import SEATS, T0, Table
from pbem.intake.passwords import hash_password
from pbem.play import turns
from pbem.play.create import create_game
from pbem.play.orders import submit
from pbem.play.turns import process
from pbem.storage.db import connect, locked_game
from pbem.storage.history import game_facts, game_row, seat_facts, seat_rows
from pbem.storage.models import GameRow, SeatRow, SubmissionRow


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


def _columns(entity: Any) -> dict[str, Any]:
    return {column.key: getattr(entity, column.key) for column in entity.__table__.columns}


def test_game_and_seat_facts_are_the_rows_the_orm_reads_and_no_objects_of_the_session(
    any_table: Table,
) -> None:
    with Session(any_table.engine) as session:
        game, seats = game_row(session, "pd-1"), seat_rows(session, "pd-1")
        facts, seat_list = game_facts(session, "pd-1"), seat_facts(session, "pd-1")
        assert facts is not None and dict(facts._mapping) == _columns(game)
        assert [dict(s._mapping) for s in seat_list] == [_columns(s) for s in seats]
        assert [s.name for s in seat_list] == [name for name, _email in SEATS]  # in the seats' order
        assert game_facts(session, "no-such-game") is None and seat_facts(session, "no-such-game") == []
        assert not any(isinstance(x, (GameRow, SeatRow)) for x in (facts, *seat_list))
    with any_table.engine.connect() as conn:  # on a connection too, as the turn's snapshot reads them
        again = game_facts(conn, "pd-1")
        assert again is not None and dict(again._mapping) == _columns(game)
        assert [s.name for s in seat_facts(conn, "pd-1")] == [name for name, _email in SEATS]


def test_locked_game_is_the_first_statement_and_gives_the_row_as_it_stands_under_the_lock(
    any_table: Table,
) -> None:
    with Session(any_table.engine) as session:
        before = _columns(game_row(session, "pd-1"))
    with Session(any_table.engine) as session, recorded(any_table.engine) as sent:
        row = locked_game(session, "pd-1")
        assert row is not None and dict(row._mapping) == before
        assert [s for s in sent if s != "BEGIN"] == _locks(sent)  # nothing else sent
        session.rollback()
    with Session(any_table.engine) as session:
        assert locked_game(session, "no-such-game") is None


def test_the_after_turn_hook_reads_the_game_row_as_the_turn_wrote_it(any_table: Table) -> None:
    for seat, _email in SEATS:
        assert submit(any_table.engine, any_table.orders(seat)).accepted
    seen: list[dict[str, Any]] = []

    def after_turn(session: Session, row: Any, number: int, waiting: tuple[str, ...]) -> None:
        seen.append(dict(row._mapping))

    assert process(any_table.engine, any_table.game_id, after_turn=after_turn) == [1]
    with Session(any_table.engine) as session:
        stored = _columns(game_row(session, "pd-1"))
    assert seen == [stored] and stored["turn"] == 1  # the new turn, hash and state, not the row before


def test_a_requested_password_first_used_in_an_order_file_becomes_the_seats_own(any_table: Table) -> None:
    fresh = "coral reef lagoon tide"
    with Session(any_table.engine) as session:
        red = session.exec(select(SeatRow).where(SeatRow.game_id == "pd-1", SeatRow.name == "red")).one()
        red.pending_password_hash = hash_password(fresh)
        pending = red.pending_password_hash
        session.add(red)
        session.commit()
    assert submit(any_table.engine, any_table.orders("red", password=fresh)).accepted
    with Session(any_table.engine) as session:
        red = session.exec(select(SeatRow).where(SeatRow.game_id == "pd-1", SeatRow.name == "red")).one()
        assert (red.password_hash, red.pending_password_hash) == (pending, None)
    old = any_table.orders("red")  # the password the game began with: refused from now on
    assert not submit(any_table.engine, old).accepted
    assert submit(any_table.engine, any_table.orders("red", password=fresh)).accepted


def test_a_turns_orders_are_checked_and_marked_by_one_update_under_the_lock(
    any_table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    for seat, _email in SEATS:
        assert submit(any_table.engine, any_table.orders(seat)).accepted
    with Session(any_table.engine) as session:  # orders standing for no seat the turn waits for
        session.add(
            SubmissionRow(
                game_id="pd-1", seat="nobody", epoch=0, turn=1, received_at=T0, raw_z=b"", status="accepted"
            )
        )
        session.commit()
    real, writes = turns._write, []

    def meanwhile(*args: Any) -> Any:
        if not writes:  # red sends new orders between the snapshot and the write: the first write
            assert submit(any_table.engine, any_table.orders("red")).accepted  # finds them and rolls back
        writes.append(1)
        return real(*args)

    monkeypatch.setattr(turns, "_write", meanwhile)
    with recorded(any_table.engine) as sent:
        assert process(any_table.engine, any_table.game_id) == [1]
    assert len(writes) == 2
    marks = [s for s in sent if s.startswith("UPDATE submission SET status=CASE")]
    assert len(marks) == 2 and all("RETURNING" in s for s in marks)
    assert not [s for s in _reads_of(sent, "submission") if s.startswith("SELECT submission.id FROM")]
    with Session(any_table.engine) as session:
        rows = session.exec(select(SubmissionRow).order_by(SubmissionRow.id)).all()  # type: ignore[arg-type]
        got = [(s.seat, s.status) for s in rows]
    assert got == [
        ("red", "superseded"),
        ("blue", "consumed"),
        ("green", "consumed"),
        ("nobody", "superseded"),
        ("red", "consumed"),
    ]


def test_a_turn_whose_orders_are_all_consumed_marks_them_without_a_list_of_ids(any_table: Table) -> None:
    for seat, _email in SEATS:
        assert submit(any_table.engine, any_table.orders(seat)).accepted
    with recorded(any_table.engine) as sent:
        assert process(any_table.engine, any_table.game_id) == [1]
    [mark] = [s for s in sent if s.startswith("UPDATE submission SET status=")]
    assert "CASE" not in mark and " IN " not in mark and "RETURNING" in mark
    with Session(any_table.engine) as session:
        assert {s.status for s in session.exec(select(SubmissionRow))} == {"consumed"}
