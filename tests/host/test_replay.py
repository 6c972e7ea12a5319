"""Replays and archives: a game re-run from setup and its orders checks every stored hash, in a new
process; an exported archive imports elsewhere and replays to the same hashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from sqlmodel import Session, select

from host.conftest import Table
from pbem.archive.files import export, import_archive
from pbem.archive.replay import from_database, verify
from pbem.archive.verifying import verify_in_new_process
from pbem.core.codec import pack_json
from pbem.core.errors import UserError
from pbem.play.turns import process
from pbem.storage.db import connect
from pbem.storage.models import GameRow, TurnRow


@pytest.fixture
def finished(table: Table) -> Table:
    for _ in range(20):
        process(table.engine, table.game_id, fill_missing=True)
    return table


def tamper(table: Table, number: int, **values: object) -> None:
    with Session(table.engine) as session:
        turn = session.exec(select(TurnRow).where(TurnRow.number == number)).one()
        for key, value in values.items():
            setattr(turn, key, value)
        session.add(turn)
        session.commit()


def test_replay_reproduces_every_hash_in_a_new_process(finished: Table) -> None:
    result = verify_in_new_process(finished.game_id, finished.db_url)
    assert result == {"ok": True, "turns": 7, "problems": []}


def test_replay_finds_a_changed_state_hash(finished: Table) -> None:
    tamper(finished, 3, state_sha256="f" * 64)
    result = verify(from_database(finished.engine, finished.game_id))
    assert not result["ok"]
    assert result["problems"] == [
        f"turn 3: state hash {result['problems'][0].split()[4]} differs from the recorded ffffffffffff"
    ]


def test_replay_finds_draws_the_seed_does_not_give(finished: Table) -> None:
    turn = from_database(finished.engine, finished.game_id).turns[1]
    label, n, outcome = turn.chance[0]
    tamper(finished, 1, chance_json=json.dumps([[label, n, (outcome + 1) % n], *map(list, turn.chance[1:])]))
    problems = verify(from_database(finished.engine, finished.game_id))["problems"]
    assert "turn 1: the recorded draws are not those the game's seed gives" in problems


def test_replay_finds_orders_that_do_not_fit(finished: Table) -> None:
    tamper(finished, 2, orders_z=pack_json({"nobody": []}))
    problems = verify(from_database(finished.engine, finished.game_id))["problems"]
    assert problems[0].startswith("turn 2: the game waits for")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_export_then_import_elsewhere_replays_to_the_same_hashes(
    finished: Table, tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"game{suffix}"
    export(finished.engine, finished.game_id, str(path))
    data = json.loads(path.read_text()) if suffix == ".json" else yaml.safe_load(path.read_text())
    assert data["game"]["type"] == "pearl-dive" and data["game"]["seed"] == 11
    assert [p["seat"] for p in data["players"]] == ["red", "blue", "green"]
    elsewhere = connect(f"sqlite:///{tmp_path / 'elsewhere.sqlite'}")
    new_id, issued = import_archive(elsewhere, str(path))
    assert new_id == "pd-1" and sorted(issued) == ["blue", "green", "red"]
    assert verify_in_new_process(new_id, f"sqlite:///{tmp_path / 'elsewhere.sqlite'}")["ok"]
    with Session(finished.engine) as a, Session(elsewhere) as b:
        here = [(t.number, t.state_sha256) for t in a.exec(select(TurnRow).order_by(TurnRow.number))]
        there = [(t.number, t.state_sha256) for t in b.exec(select(TurnRow).order_by(TurnRow.number))]
        assert here == there
        row = b.get(GameRow, "pd-1")
        assert row is not None and row.status == "finished"


def test_an_archive_holds_no_password_or_hash(finished: Table, tmp_path: Path) -> None:
    text = export(finished.engine, finished.game_id, str(tmp_path / "a.yaml"))
    assert "scrypt" not in text and "password" not in text
    for password in finished.passwords.values():
        assert password not in text


def test_a_tampered_archive_is_not_imported(finished: Table, tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    export(finished.engine, finished.game_id, str(path))
    data = json.loads(path.read_text())
    data["turns"][2]["state_sha256"] = "0" * 64
    path.write_text(json.dumps(data))
    elsewhere = connect(f"sqlite:///{tmp_path / 'elsewhere.sqlite'}")
    with pytest.raises(UserError, match="does not replay: turn 2: state hash"):
        import_archive(elsewhere, str(path))
    with Session(elsewhere) as session:
        assert session.exec(select(GameRow)).all() == []


def test_an_archive_verifies_without_a_database(finished: Table, tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    export(finished.engine, finished.game_id, str(path))
    assert verify_in_new_process(str(path), None)["ok"]


def test_import_refuses_an_id_in_use_and_takes_another(finished: Table, tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    export(finished.engine, finished.game_id, str(path))
    with pytest.raises(UserError, match="already a game 'pd-1'"):
        import_archive(finished.engine, str(path))
    new_id, _ = import_archive(finished.engine, str(path), game_id="pd-copy")
    assert verify(from_database(finished.engine, new_id))["ok"]


def test_an_archive_with_an_alias_bomb_is_refused(tmp_path: Path, engine) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bomb.yaml"
    path.write_text("a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n")
    with pytest.raises(UserError, match=r"not a readable archive: yaml: .*anchors and aliases"):
        import_archive(engine, str(path))


def test_replay_of_a_turn_prints_each_seats_report_as_it_was(finished: Table, pbem) -> None:  # type: ignore[no-untyped-def]
    turns = from_database(finished.engine, finished.game_id).turns
    for number in range(len(turns)):
        for seat in ("red", "blue"):
            ran = pbem("replay", finished.game_id, "--turn", str(number), "--player", seat)
            assert ran.code == 0, ran.err
            stored = pbem("report", finished.game_id, "--turn", str(number), "--player", seat).out
            assert ran.out == stored, (number, seat)


def test_replay_public_prints_only_the_observers_report(finished: Table, pbem) -> None:  # type: ignore[no-untyped-def]
    from pbem.core.codec import unpack
    from pbem.storage.models import ReportRow

    with Session(finished.engine) as session:
        public = session.exec(select(ReportRow).where(ReportRow.turn == 3, ReportRow.seat == "")).one()
        stored = unpack(public.text_z)
    ran = pbem("replay", finished.game_id, "--turn", "3", "--public")
    assert ran.code == 0, ran.err
    assert ran.out == stored
    everyone = pbem("replay", finished.game_id, "--turn", "3").out  # once over: every seat's, one by one
    assert everyone.startswith(stored) and len(everyone) > len(stored)
    refused = pbem("replay", finished.game_id, "--turn", "3", "--public", "--player", "red")
    assert refused.code == 1
    assert "--public shows the observers' report" in refused.err
