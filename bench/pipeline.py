"""One turn through the whole pipeline, and its floor."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import yaml
from sqlmodel import Session

from bench.play import median, new_game, order_files, play_turn
from pbem.intake import passwords
from pbem.storage.db import connect
from pbem.storage.models import GameRow

GAME = "reef-encounter"


def pipeline(folder: Path, games: int) -> tuple[float, float, float, float]:
    """(median ms of one turn through the pipeline, its ratio to the floor, median ms of the password
    check within it, median CPU ms of a turn) over ``games`` complete 4-player Reef Encounter games, at
    the real password cost. The CPU time is what a turn costs whatever else runs on the machine."""
    engine = connect(f"sqlite:///{folder / 'pipeline.sqlite'}")
    turn_s: list[float] = []
    cpu_s: list[float] = []
    floor_s: list[float] = []
    floor_db = _floor_db(folder / "floor.sqlite")
    for seed in range(1, games + 1):
        game_id = f"pipe-{seed}"
        issued = new_game(engine, GAME, game_id, seed)
        for _ in range(10_000):
            files = order_files(engine, game_id, issued)
            if not files:
                break
            start, cpu = time.perf_counter(), time.process_time()
            play_turn(engine, game_id, files)
            turn_s.append(time.perf_counter() - start)
            cpu_s.append(time.process_time() - cpu)
            with Session(engine) as session:
                row = session.get(GameRow, game_id)
                assert row is not None
                state_z = row.state_z
            floor_s.append(_floor(floor_db, files, state_z))
    engine.dispose()
    floor_db.close()
    p50 = median(turn_s)
    return p50 * 1000, p50 / median(floor_s), _password_ms(), median(cpu_s) * 1000


def _password_ms() -> float:
    """What one password check costs: the scrypt every order file pays (and must, see
    pbem.intake.passwords)."""
    stored = passwords.hash_password("tulip-frog-42")
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        passwords.verify("tulip-frog-42", stored)
        timings.append(time.perf_counter() - start)
    return median(timings) * 1000


def _floor_db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")  # as the host's own connections
    conn.execute("CREATE TABLE turn (id INTEGER PRIMARY KEY, state_z BLOB NOT NULL)")
    return conn


def _floor(conn: sqlite3.Connection, files: list[str], state_z: bytes) -> float:
    """The least a turn can cost: read the same YAML, write the same state in one transaction."""
    start = time.perf_counter()
    for text in files:
        yaml.safe_load(text)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO turn (state_z) VALUES (?)", (state_z,))
    conn.execute("COMMIT")
    return time.perf_counter() - start
