"""One turn through the whole pipeline, its floor, and the flat cost of a turn deep in a long game."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import yaml
from sqlalchemy import update
from sqlmodel import Session, select

from bench.play import median, new_game, order_files, play_to_end, play_turn
from pbem import passwords
from pbem.db import connect
from pbem.models import GameRow, ReportRow, SubmissionRow, TurnRow

GAME = "reef-encounter"


def pipeline(folder: Path, games: int) -> tuple[float, float, float]:
    """(median ms of one turn through the pipeline, its ratio to the floor, median ms of the password
    check within it) over ``games`` complete 4-player Reef Encounter games, at the real password cost."""
    engine = connect(f"sqlite:///{folder / 'pipeline.sqlite'}")
    turn_s: list[float] = []
    floor_s: list[float] = []
    floor_db = _floor_db(folder / "floor.sqlite")
    for seed in range(1, games + 1):
        game_id = f"pipe-{seed}"
        issued = new_game(engine, GAME, game_id, seed)
        for _ in range(10_000):
            files = order_files(engine, game_id, issued)
            if not files:
                break
            start = time.perf_counter()
            play_turn(engine, game_id, files)
            turn_s.append(time.perf_counter() - start)
            with Session(engine) as session:
                row = session.get(GameRow, game_id)
                assert row is not None
                state_z = row.state_z
            floor_s.append(_floor(floor_db, files, state_z))
    engine.dispose()
    floor_db.close()
    p50 = median(turn_s)
    return p50 * 1000, p50 / median(floor_s), _password_ms()


def _password_ms() -> float:
    """What one password check costs: the scrypt every order file pays (and must, see pbem.passwords)."""
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


def flat(folder: Path, short: int, long: int, window: int, repeats: int) -> float:
    """How much more turns ``long`` … ``long + window - 1`` of a game cost than turns ``short`` … of the
    same game, each run ``repeats`` times from a copy of the database (the fastest run of each turn
    counts). The long history is the game's own: its real first turns, then rows copied from them
    (turn, reports, submissions) until turn ``long - 1``, so every table holds ``long`` turns of it."""
    from bench.play import long_enough_seed

    seed = long_enough_seed(GAME, short + window)
    engine = connect(f"sqlite:///{folder / 'flat-build.sqlite'}")
    issued = new_game(engine, GAME, "flat", seed)
    play_to_end(engine, "flat", issued, until=short - 1)
    engine.dispose()
    near = folder / "flat-near.sqlite"
    deep = folder / "flat-deep.sqlite"
    _copy(folder / "flat-build.sqlite", near)
    _copy(folder / "flat-build.sqlite", deep)
    _lengthen(deep, "flat", long - short)
    timings: dict[Path, list[list[float]]] = {near: [], deep: []}
    for _ in range(repeats):
        for snapshot in (near, deep):  # interleaved: a slow moment of the machine hits both
            work = folder / "flat-run.sqlite"
            _copy(snapshot, work)
            run = connect(f"sqlite:///{work}")
            per_turn = []
            for _turn in range(window):
                files = order_files(run, "flat", issued)
                start = time.perf_counter()
                play_turn(run, "flat", files)
                per_turn.append(time.perf_counter() - start)
            timings[snapshot].append(per_turn)
            run.dispose()
    # the best of the repeats: on a shared machine, other work only ever adds time to a run
    cost = {snap: sum(min(rep[i] for rep in reps) for i in range(window)) for snap, reps in timings.items()}
    return cost[deep] / cost[near]


def _copy(source: Path, target: Path) -> None:
    """A consistent copy of an SQLite database (its WAL included)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def _lengthen(path: Path, game_id: str, extra: int) -> None:
    """Give ``game_id`` ``extra`` more turns of history before its current one: its turns from 1 on move
    up by ``extra``, and copies of them (turn rows, reports, submissions) fill turns 1 to ``extra``."""
    engine = connect(f"sqlite:///{path}")
    tables = [(TurnRow, TurnRow.number), (ReportRow, ReportRow.turn), (SubmissionRow, SubmissionRow.turn)]
    with Session(engine) as session:
        for model, column in tables:
            session.execute(
                update(model).where(model.game_id == game_id, column >= 1).values({column: column + extra})
            )
        for model, column in tables:
            real = list(session.exec(select(model).where(model.game_id == game_id, column > extra)))
            by_turn: dict[int, list[dict]] = {}
            for row in real:
                by_turn.setdefault(getattr(row, column.key) - extra, []).append(
                    row.model_dump(exclude={"id"})
                )
            cycle = sorted(by_turn)
            table = model.__table__  # type: ignore[attr-defined]
            rows = []
            for number in range(1, extra + 1):
                for data in by_turn[cycle[(number - 1) % len(cycle)]]:
                    rows.append({**data, column.key: number})
            for start in range(0, len(rows), 5000):
                session.execute(table.insert(), rows[start : start + 5000])
        session.execute(update(GameRow).where(GameRow.id == game_id).values(turn=GameRow.turn + extra))
        session.commit()
    engine.dispose()
