"""The turn driver: a turn resolves when every pending seat's orders are in, whole or not at all, once."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from host.conftest import SEATS, T0, Table, race_two_drivers
from pbem.core.codec import unpack_json
from pbem.play import turns
from pbem.play.create import create_game
from pbem.play.orders import submit
from pbem.play.status import status
from pbem.play.turns import process
from pbem.render import reports
from pbem.storage.history import TurnRecord, game_of, record_turn
from pbem.storage.models import GameRow, ReportRow, SubmissionRow, TurnRow


def turn_rows(table: Table) -> list[TurnRow]:
    with Session(table.engine) as session:
        return list(
            session.exec(select(TurnRow).where(TurnRow.game_id == table.game_id).order_by(TurnRow.number))
        )


def game_row(table: Table) -> GameRow:
    with Session(table.engine) as session:
        row = session.get(GameRow, table.game_id)
        assert row is not None
        return row


def submit_all(table: Table, seats: tuple[str, ...] = ("red", "blue", "green")) -> None:
    for seat in seats:
        assert submit(table.engine, table.orders(seat)).accepted


def test_a_turn_waits_for_every_pending_seat(table: Table) -> None:
    submit_all(table, ("red", "blue"))
    assert process(table.engine, table.game_id) == []
    assert game_row(table).turn == 0
    submit_all(table, ("green",))
    assert process(table.engine, table.game_id) == [1]
    assert game_row(table).turn == 1


def test_a_resolved_turn_records_state_hash_orders_events_draws_and_reports(table: Table) -> None:
    submit_all(table)
    process(table.engine, table.game_id, now=T0 + timedelta(hours=1))
    turn = turn_rows(table)[1]
    row = game_row(table)
    assert (turn.number, turn.state_sha256) == (1, row.state_sha256)
    assert sorted(unpack_json(turn.orders_z)) == ["blue", "green", "red"]
    assert json.loads(turn.chance_json) and all(
        label == "bag" for label, _n, _o in json.loads(turn.chance_json)
    )
    assert any(e["to"] is None for e in unpack_json(turn.events_z))
    with Session(table.engine) as session:
        seats = sorted(r.seat for r in session.exec(select(ReportRow).where(ReportRow.turn == 1)))
        statuses = {s.status for s in session.exec(select(SubmissionRow))}
    assert seats == ["", "blue", "green", "red"]
    assert statuses == {"consumed"}


def test_missing_orders_are_filled_by_the_bot_only_when_asked(table: Table) -> None:
    submit_all(table, ("red",))
    assert process(table.engine, table.game_id) == []
    assert process(table.engine, table.game_id, fill_missing=True) == [1]
    turn = turn_rows(table)[1]
    assert json.loads(turn.by_bot_json) == ["blue=easy", "green=easy"]  # the policy wait's fill: easy
    with Session(table.engine) as session:
        sources = sorted((s.seat, s.source, s.status) for s in session.exec(select(SubmissionRow)))
    assert sources == [("blue", "bot", "consumed"), ("green", "bot", "consumed"), ("red", "file", "consumed")]


def test_a_turn_the_bot_played_says_so_in_every_report_and_in_replay(table: Table) -> None:
    from pbem.archive.replay import from_database, report_at, verify

    submit_all(table, ("red",))
    assert process(table.engine, table.game_id, fill_missing=True) == [1]
    line = "The stand-in played for blue this turn, at the easy level."
    for seat in ("red", "blue", None):
        text = reports.report(table.engine, table.game_id, seat, turn=1, fmt="txt")
        assert line in text
        assert "The stand-in played for green this turn" in text
        assert line in reports.report(table.engine, table.game_id, seat, turn=1, fmt="html")
    assert "played for red" not in reports.report(table.engine, table.game_id, "red", turn=1)
    record = from_database(table.engine, table.game_id)
    assert verify(record)["ok"]
    assert report_at(record, 1, "red", "txt") == reports.report(table.engine, table.game_id, "red", turn=1)


def test_a_failure_while_recording_loses_nothing(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    submit_all(table)
    real = reports.render_located

    def broken(game, ctx, **kwargs):  # type: ignore[no-untyped-def]
        if ctx["seat"] is None:
            raise RuntimeError("disk full")
        return real(game, ctx, **kwargs)

    monkeypatch.setattr(reports, "render_located", broken)
    with pytest.raises(RuntimeError):
        process(table.engine, table.game_id)
    assert [t.number for t in turn_rows(table)] == [0]
    assert game_row(table).turn == 0
    with Session(table.engine) as session:
        assert {s.status for s in session.exec(select(SubmissionRow))} == {"accepted"}
        assert not session.exec(select(ReportRow).where(ReportRow.turn == 1)).all()
    monkeypatch.setattr(reports, "render_located", real)
    assert process(table.engine, table.game_id) == [1]


def test_the_same_turn_cannot_be_recorded_twice(table: Table) -> None:
    submit_all(table)
    process(table.engine, table.game_id)
    with Session(table.engine) as session:
        row = session.get(GameRow, table.game_id)
        assert row is not None
        game = game_of(row)
        stale = TurnRecord(1, None, {}, "0" * 64, {}, [], [], [])
        with pytest.raises(IntegrityError):
            record_turn(session, game, row, stale, T0)


def test_deadline_moves_with_each_turn(engine) -> None:  # type: ignore[no-untyped-def]
    issued = create_game(engine, "pearl-dive", "timed", SEATS[:2], seed=2, turn_seconds=3600, now=T0)
    table = Table(engine, "", "timed", issued)
    assert game_row(table).deadline_at == T0 + timedelta(hours=1)
    submit_all(table, ("red", "blue"))
    process(engine, "timed", now=T0 + timedelta(minutes=30))
    assert game_row(table).deadline_at == T0 + timedelta(minutes=90)


def test_a_game_plays_to_its_end_and_is_marked_finished(table: Table) -> None:
    for _ in range(20):
        process(table.engine, table.game_id, fill_missing=True)
        if game_row(table).status == "finished":
            break
    row = game_row(table)
    assert row.status == "finished" and row.finished_at is not None and row.deadline_at is None
    assert process(table.engine, table.game_id, fill_missing=True) == []


def test_two_drivers_at_the_same_moment_resolve_each_turn_once(engine, db_url: str) -> None:  # type: ignore[no-untyped-def]
    race_two_drivers(engine, db_url)


def test_a_turn_is_resolved_from_the_cached_state_not_the_history(table: Table) -> None:
    submit_all(table)
    process(table.engine, table.game_id)
    with Session(table.engine) as session:
        for turn in session.exec(select(TurnRow)):
            turn.state_z = b"unreadable"  # were the history read, this would break the next turn
            session.add(turn)
        session.commit()
    [diver] = status(table.engine, table.game_id)[0]["awaited"]
    assert submit(table.engine, table.orders(diver)).accepted
    assert process(table.engine, table.game_id) == [2]


def test_orders_sent_while_a_turn_resolves_are_the_ones_it_resolves_with(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    submit_all(table)
    real, writes = turns._write, []

    def meanwhile(*args):  # type: ignore[no-untyped-def]
        if not writes:  # red sends new orders between the driver's snapshot and its write
            assert submit(table.engine, table.orders("red")).accepted
        writes.append(1)
        return real(*args)

    monkeypatch.setattr(turns, "_write", meanwhile)
    assert process(table.engine, table.game_id) == [1]
    assert len(writes) == 2  # the first write saw the orders move and wrote nothing
    with Session(table.engine) as session:
        reds = session.exec(
            select(SubmissionRow).where(SubmissionRow.seat == "red").order_by(SubmissionRow.id)
        )
        assert [s.status for s in reds] == ["superseded", "consumed"]
    assert [t.number for t in turn_rows(table)] == [0, 1]


def test_a_game_paused_while_its_turn_resolves_is_not_resolved(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    submit_all(table)
    real = turns._write

    def paused(*args):  # type: ignore[no-untyped-def]
        with Session(table.engine) as session:
            row = session.get(GameRow, table.game_id)
            assert row is not None
            row.status = "paused"
            session.add(row)
            session.commit()
        return real(*args)

    monkeypatch.setattr(turns, "_write", paused)
    assert process(table.engine, table.game_id) == []
    assert game_row(table).turn == 0 and [t.number for t in turn_rows(table)] == [0]
    with Session(table.engine) as session:
        assert {s.status for s in session.exec(select(SubmissionRow))} == {"accepted"}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_stored_state_is_the_canonical_json_its_hash_is_of(
    backend: str, db_url: str, request: pytest.FixtureRequest
) -> None:
    # the turn writes the canonical JSON it hashed (pbem.storage.history.settle_json) as the packed state: the
    # same text packing the state's data anew gives, which a rollback and pbem replay --verify read
    from pbem.core.codec import canonical_json, sha256_hex, unpack
    from pbem.storage.db import connect

    url = db_url if backend == "sqlite" else request.getfixturevalue("pg_database")
    engine = connect(url)
    table = Table(engine, url, "pd-1", create_game(engine, "pearl-dive", "pd-1", SEATS, seed=11, now=T0))
    submit_all(table)
    assert process(table.engine, table.game_id) == [1]
    turn, row = turn_rows(table)[1], game_row(table)
    for packed in (turn.state_z, row.state_z):
        text = unpack(packed)
        assert text == canonical_json(json.loads(text))
        assert sha256_hex(text) == turn.state_sha256 == row.state_sha256
    engine.dispose()


@pytest.mark.parametrize("game_type", ["reef-encounter", "mare-balticum", "coral-divers"])
def test_each_games_state_json_is_its_own_canonical_form(game_type: str) -> None:
    # what lets the turn pack the JSON it hashed: read back and written again, it is the same text
    from pbem.core import registry
    from pbem.core.chance import Recorder
    from pbem.core.codec import canonical_json
    from pbem.storage.history import settle_json

    game = registry.require(game_type)
    seats = ["ann", "bob", "cy"]
    state = game.setup(seats, game.options_model(), Recorder.for_turn(7, 0, 0, "setup"))
    for number in range(1, 4):  # the setup and the turns a bot plays on from it
        _settled, data, _digest, text = settle_json(game, state)
        assert text == canonical_json(data) == canonical_json(json.loads(text))
        pending = game.pending(state)
        if not pending:
            break
        orders = {
            seat: game.order_model(decision).model_validate(
                game.bot(state, seat, Recorder.for_turn(7, 0, number, f"bot:{seat}"))
            )
            for seat, decision in pending.items()
        }
        state = game.resolve(state, orders, Recorder.for_turn(7, 0, number, "turn")).state
