"""``make bench`` at tiny sizes: every figure the issue names is produced, once, well-formed; and the
builders behind them make the databases they claim to. No timing is asserted: speed is measured by
``make bench``, not by tests."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import Session, select

from bench import fleet
from bench.__main__ import line, resized
from bench.flat import lengthen
from bench.play import PLAYERS, cheap_passwords, engine_game, new_game, play_to_end
from bench.sizes import FULL, QUICK
from pbem.archive.replay import from_database
from pbem.core import registry
from pbem.play.status import status
from pbem.storage.db import connect
from pbem.storage.models import GameRow, ReportRow, TurnRow

ROOT = Path(__file__).resolve().parents[2]
#: the figures the issue names, with their units; the bench may print more
NAMED = {
    "engine.reef_encounter.game_s": "s",
    "engine.mare_balticum.game_s": "s",
    "engine.coral_divers.game_s": "s",
    "pipeline.turn_ms_p50": "ms",
    "pipeline.floor_ratio": "x",
    "flat.turn2000_over_turn20": "x",
    "tick.sqlite_1000_games_s": "s",
    "tick.postgres_2proc_speedup": "x",
    "replay.reef_encounter_s": "s",
    "storage.bytes_per_turn": "B",
    "tick.10000_games_peak_mb": "MB",
    "report.png_ms_p50": "ms",
    "report.png_layered_ms_p50": "ms",
    "mail.report_bytes_p50": "B",
    "pipeline.turn_with_mail_ms_p50": "ms",
}


@pytest.mark.slow  # a minute or more: complete games, three tick processes, PostgreSQL databases
def test_quick_bench_prints_every_named_figure_once_as_name_value_unit(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--keep", str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    notes = [row for row in lines if row.startswith("#")]
    assert any("cores" in n and "memory" in n for n in notes), "the machine is printed at the top"
    assert any("sqlite" in n and "postgresql" in n and "python" in n for n in notes)
    assert lines[0].startswith("#")
    # the machine's speed of the moment, at the start and after every part, beside what was measured
    assert sum("reference task" in n and "ms of cpu" in n for n in notes) == 1 + len(
        [n for n in notes if n.startswith("# part ")]
    )
    figures = [row.split(" ") for row in lines if not row.startswith("#")]
    assert all(len(parts) == 3 for parts in figures), figures
    names = [name for name, _value, _unit in figures]
    assert len(names) == len(set(names)), "one line per figure"
    found = {name: (float(value), unit) for name, value, unit in figures}
    for name, unit in NAMED.items():
        assert name in found, f"{name} missing from:\n{done.stdout}"
        value, printed_unit = found[name]
        assert printed_unit == unit
        assert math.isfinite(value) and value > 0, (name, value)


def test_a_figure_prints_as_name_value_unit() -> None:
    assert line(("engine.reef_encounter.game_s", 0.08412, "s")) == "engine.reef_encounter.game_s 0.084 s"
    assert line(("storage.bytes_per_turn", 1168.4, "B")) == "storage.bytes_per_turn 1168 B"


def test_an_unknown_part_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--only", "engine,nonsense"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown part nonsense" in done.stderr


def test_a_size_can_be_changed_by_name() -> None:
    changed = resized(FULL, ["tick_games=200", "pg_games=300"])
    assert (changed.tick_games, changed.pg_games) == (200, 300)
    assert changed.memory_games == FULL.memory_games == 10_000
    assert resized(QUICK, []) == QUICK


@pytest.mark.parametrize("change", ["tick_games=0", "tick_games=x", "ticks=5", "tick_games"])
def test_a_size_must_be_a_known_name_and_a_positive_number(change: str) -> None:
    with pytest.raises(ValueError, match="write NAME=N"):
        resized(FULL, [change])


@pytest.mark.parametrize("game_type", sorted(PLAYERS))
def test_an_engine_game_plays_to_the_end(game_type: str) -> None:
    turns = engine_game(game_type, PLAYERS[game_type], seed=1)
    assert 0 < turns < 5000


def test_a_fleet_has_the_games_asked_for_with_only_the_due_ones_orders_in(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fleet.sqlite'}"
    fleet.build(url, count=7, templates=2, due=4)
    engine = connect(url)
    entries = {entry["id"]: entry for entry in status(engine)}
    assert sorted(entries) == fleet.game_ids(7)
    assert all(entry["turns_resolved"] == 0 and entry["status"] == "active" for entry in entries.values())
    ready = [game_id for game_id, entry in entries.items() if not entry["awaited"]]
    waiting = [game_id for game_id, entry in entries.items() if entry["awaited"]]
    assert len(ready) == 4 and len(waiting) == 3
    assert {"g00000", "g00001"} <= set(ready), "the games the others are cloned from have their orders in"
    engine.dispose()


def test_a_fleet_clone_is_the_game_it_was_cloned_from(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fleet.sqlite'}"
    fleet.build(url, count=3, templates=2)
    engine = connect(url)
    with Session(engine) as session:
        rows = {row.id: row for row in session.exec(select(GameRow))}
        reports = session.exec(select(ReportRow.game_id, ReportRow.seat).order_by(ReportRow.seat)).all()
    assert rows["g00002"].state_sha256 == rows["g00000"].state_sha256 != rows["g00001"].state_sha256
    assert sorted(seat for game_id, seat in reports if game_id == "g00002") == sorted(
        seat for game_id, seat in reports if game_id == "g00000"
    )
    engine.dispose()


def test_a_lengthened_game_holds_the_long_history_and_goes_on_from_it(tmp_path: Path) -> None:
    path = tmp_path / "long.sqlite"
    engine = connect(f"sqlite:///{path}")
    with cheap_passwords():
        issued = new_game(engine, "reef-encounter", "long", seed=1, players=4)
        play_to_end(engine, "long", issued, until=3)
    engine.dispose()
    lengthen(path, "long", 50)
    engine = connect(f"sqlite:///{path}")
    with Session(engine) as session:
        numbers = session.exec(select(TurnRow.number).where(TurnRow.game_id == "long")).all()
    assert sorted(numbers) == list(range(54))
    assert status(engine, "long")[0]["turns_resolved"] == 53
    with cheap_passwords():
        play_to_end(engine, "long", issued, until=54)
    record = from_database(engine, "long")
    assert [t.number for t in record.turns] == list(range(55))
    assert registry.get_game("reef-encounter").name == record.game_type
    engine.dispose()


def test_a_twin_game_has_the_long_games_turn_numbers_but_only_its_own_history(tmp_path: Path) -> None:
    path = tmp_path / "twin.sqlite"
    engine = connect(f"sqlite:///{path}")
    with cheap_passwords():
        issued = new_game(engine, "reef-encounter", "twin", seed=1, players=4)
        play_to_end(engine, "twin", issued, until=3)
    engine.dispose()
    lengthen(path, "twin", 50, fill=False)
    engine = connect(f"sqlite:///{path}")
    with Session(engine) as session:
        numbers = session.exec(select(TurnRow.number).where(TurnRow.game_id == "twin")).all()
    assert sorted(numbers) == [0, 51, 52, 53]
    assert status(engine, "twin")[0]["turns_resolved"] == 53
    with cheap_passwords():
        play_to_end(engine, "twin", issued, until=54)
    assert status(engine, "twin")[0]["turns_resolved"] == 54
    engine.dispose()
