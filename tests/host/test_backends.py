"""The whole command line on SQLite and on PostgreSQL alike, from ``pbem new`` without a seed on.

The tests used to give every game a seed, so a 32-bit column that any drawn seed overflows on PostgreSQL
(and only there) passed them. Each scenario here runs once per backend: new (a drawn seed, and the
largest one), template, check, submit, process, tick past a deadline, status, report, export, import into
the other backend, replay --verify.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlmodel import Session

from host.conftest import T0, Ran, run_pbem
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.storage import migrations
from pbem.storage.models import GameRow

Pbem = Callable[..., Ran]
MAX_SEED = 2**63 - 1
# the longest values the host takes (issue 33): PostgreSQL refuses a value longer than its column, SQLite
# stores it, so only a test at the limits on PostgreSQL sees a column or a key too short for them
GAME = "cd" + "-1" * 31  # 64 characters, the most a game id may have
COPY = "cd-copy" + "_" * 57
SEATS = ("ann" + "-" * 28 + "x", "bo" + "0" * 30)  # 32 characters each
EMAILS = {seat: f"{seat[0]}{'x' * 63}@{'a' * 63}.{'b' * 63}.{'c' * 57}.org" for seat in SEATS}  # 254 each


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Overrides the host's SQLite-only ``db_url``: the ``pbem`` fixture runs on this one."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pbem.sqlite'}"
    return request.getfixturevalue("pg_database")


@pytest.fixture
def other_url(db_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """The other backend, for the import: an archive made on one must load on the other."""
    if db_url.startswith("sqlite"):
        return request.getfixturevalue("pg_database")
    return f"sqlite:///{tmp_path / 'other.sqlite'}"


def _seed(url: str, game_id: str) -> int:
    engine = create_engine(url)
    with Session(engine) as session:
        row = session.get(GameRow, game_id)
        assert row is not None
        seed = row.seed
    engine.dispose()
    return seed


def _orders(pbem: Pbem, tmp_path: Path, game_id: str, seat: str, password: str) -> Path:
    ran = pbem("template", game_id, "--player", seat, "--suggest")
    assert ran.code == 0, ran.err
    path = tmp_path / f"{game_id}-{seat}-{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(ran.out.replace(PASSWORD_PLACEHOLDER, password))
    return path


def test_the_command_line_from_new_to_replay(
    pbem: Pbem, db_url: str, other_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no pbem.toml: the tick's defaults
    assert len(GAME) == len(COPY) == 64 and {len(s) for s in SEATS} == {32}
    assert {len(e) for e in EMAILS.values()} == {254}
    args = ["new", "coral-divers", "--id", GAME, *(f"--player={s}={e}" for s, e in EMAILS.items())]
    args += ["--deadline", "1h", "--nmr", "bot", "--json"]
    args += ["--now", T0.isoformat()]
    ran = pbem(*args)  # no --seed: a drawn one, almost surely beyond 32 bits
    assert ran.code == 0, ran.err
    passwords = {s["seat"]: s["password"] for s in json.loads(ran.out)["seats"]}
    stored = _seed(db_url, GAME)
    assert 0 <= stored <= MAX_SEED

    first = json.loads(pbem("status", GAME, "--json").out)
    ann = _orders(pbem, tmp_path, GAME, first["awaited"][0], passwords[first["awaited"][0]])
    assert pbem("check", str(ann)).code == 0
    submitted = pbem("submit", str(ann))
    assert submitted.code == 0 and "accepted" in submitted.out, submitted.err

    # the other seat misses the deadline: the tick lets its bot play and resolves the turn
    later = (T0 + timedelta(hours=2)).isoformat()
    ticked = pbem("tick", "--no-mail", "-q", "-j", "1", "--now", later)
    assert ticked.code == 0, ticked.err + ticked.out
    after = json.loads(pbem("status", GAME, "--json").out)
    assert after["turn"] > first["turn"]

    # then two more turns where every seat submits and `process` resolves
    for _ in range(2):
        entry = json.loads(pbem("status", GAME, "--json").out)
        for seat in entry["awaited"]:
            assert pbem("submit", str(_orders(pbem, tmp_path, GAME, seat, passwords[seat]))).code == 0
        resolved = pbem("process", GAME)
        assert resolved.code == 0 and "resolved turn" in resolved.out
    assert f"Report for {SEATS[0]}" in pbem("report", GAME, "--player", SEATS[0]).out

    archive = tmp_path / "cd.yaml"
    assert pbem("export", GAME, "-o", str(archive), "--include-secrets").code == 0
    imported = run_pbem("import", str(archive), "--id", COPY, "--json", "--db", other_url)
    assert imported.returncode == 0, imported.stderr
    assert _seed(other_url, COPY) == stored
    for url, game_id in ((db_url, GAME), (other_url, COPY)):
        verified = run_pbem("replay", game_id, "--verify", "--db", url)
        assert verified.returncode == 0 and "every state hash matches" in verified.stdout, verified.stderr


def test_the_largest_seed_is_stored_and_plays(pbem: Pbem, db_url: str, tmp_path: Path) -> None:
    args = ["new", "coral-divers", "--id", "big", "--player", "a=a@x.org", "--player", "b=b@x.org"]
    ran = pbem(*args, "--seed", str(MAX_SEED), "--json")
    assert ran.code == 0, ran.err
    assert _seed(db_url, "big") == MAX_SEED
    passwords = {s["seat"]: s["password"] for s in json.loads(ran.out)["seats"]}
    for seat in json.loads(pbem("status", "big", "--json").out)["awaited"]:
        assert pbem("submit", str(_orders(pbem, tmp_path, "big", seat, passwords[seat]))).code == 0


def test_a_seed_beyond_64_bits_is_refused_in_words(pbem: Pbem) -> None:
    ran = pbem("new", "coral-divers", "--id", "x", "--player", "a=a@x.org", "--seed", str(2**64))
    assert ran.code != 0 and "--seed" in ran.err and "Traceback" not in ran.err
    assert "out of range" not in ran.err  # the database's words, never the user's


def test_revision_0005_widens_a_database_made_by_the_old_schema(db_url: str) -> None:
    engine = create_engine(db_url)
    migrations.upgrade(engine, "0004")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO game (id, game_type, engine_version, seed, options_json, created_at, status,"
                " turn, epoch, state_z, state_sha256, grace_seconds, nmr, require_from_match)"
                " VALUES ('old', 'pearl-dive', '1', 7, '{}', :t, 'active', 2, 0, :z, 'x', 60, 'wait', false)"
            ),
            {"t": T0, "z": b"z"},
        )
    assert migrations.upgrade(engine) == migrations.head()
    with engine.begin() as conn:
        assert conn.execute(text("SELECT seed, turn, grace_seconds FROM game")).one() == (7, 2, 60)
        conn.execute(text("UPDATE game SET seed = :s, turn_seconds = :d"), {"s": MAX_SEED, "d": 2**40})
        assert conn.execute(text("SELECT seed, turn_seconds FROM game")).one() == (MAX_SEED, 2**40)
        if conn.dialect.name == "postgresql":
            columns = {c["name"]: c["type"] for c in inspect(conn).get_columns("submission")}
            assert columns["id"].python_type is int and "BIGINT" in str(columns["id"])
            conn.execute(text("SELECT setval(pg_get_serial_sequence('submission', 'id'), :n)"), {"n": 2**40})
    # and back: 0004 again, the game kept
    migrations_cfg = migrations.config()
    from alembic import command

    with engine.begin() as conn:
        conn.execute(text("UPDATE game SET seed = 7, turn_seconds = NULL"))
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT setval(pg_get_serial_sequence('submission', 'id'), 1, false)"))
        migrations_cfg.attributes["connection"] = conn
        command.downgrade(migrations_cfg, "0004")
    assert migrations.current(engine) == "0004"
    engine.dispose()


def test_postgresql_without_its_driver_names_the_extra(pbem: Pbem, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the postgres extra were not installed
    ran = pbem("status", "--db", "postgresql://ann:s3cret@db.example.org/pbem")
    assert ran.code == 1
    assert "pip install 'pbem[postgres]'" in ran.err and "psycopg" in ran.err
    assert "s3cret" not in ran.err and "Traceback" not in ran.err


def test_a_plain_postgresql_url_uses_the_driver_of_the_extra() -> None:
    from pbem.storage.db import database_url

    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
