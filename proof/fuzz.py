"""Hostile input: every answer of the order reader is a message, never a traceback, and changes nothing.

Targets, each fed hypothesis-generated input and the fixed nasty cases of :mod:`proof.hostile`:

- ``reader``: :func:`pbem.intake.orderfile.load` then :func:`pbem.intake.envelope.read_envelope` (pure);
- ``submit`` / ``check``: :func:`pbem.play.orders.submit` and :func:`pbem.play.orders.check` on a scratch
database
  with one game of each kind (the database is dumped before and after: a rejected file may add its own
  rejected submission and nothing else; ``check`` changes nothing at all);
- ``orders``: each game's order model and rules behind a valid envelope (the seat's real password), with
  orders made of the game's own words, wrong types, unknown steps and off-board coordinates;
- ``coordinates``: every coordinate of a box well past each board in every coordinate-bearing step;
- ``cli``: the fixed cases through ``pbem submit FILE``: exit 1, a message, no traceback.

Each answer's CPU time is measured (``fuzz.max_ms``; the goal is 100 ms) and a sample's memory peak
(``fuzz.peak_mb``, tracemalloc; the sample's times are not counted, tracemalloc slows every allocation
several times over). Atheris (coverage-guided) runs over the reader and ``submit`` in
processes of their own when it is installed (:mod:`proof.fuzz_atheris`).
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from sqlmodel import Session

from pbem.core.game import Game, GameError
from pbem.intake.envelope import read_envelope
from pbem.intake.orderfile import OrderFileError, load
from pbem.play import orders
from pbem.play.create import create_game
from pbem.storage.history import current_state, game_row
from proof.common import Figures, RandomChance, cheap_passwords, scratch_engine, shipped_games
from proof.hostile import (
    coordinate_leaves,
    envelope_text,
    fixed_cases,
    raw_inputs,
    same_shape_coordinates,
    structured_orders,
)
from proof.orders_variants import schema_words

#: the goal for one answer, in milliseconds of CPU time
GOAL_MS = 100.0
#: the bound on one answer's memory (tracemalloc peak), in MB
MEMORY_MB = 64.0
#: one answer in this many has its memory measured (tracemalloc slows everything down)
MEMORY_SAMPLE = 5


@dataclass
class Seat:
    game: Game
    game_id: str
    seat: str
    password: str
    state: Any


class CollectorClock:
    """The CPU time the garbage collector takes (a ``gc.callbacks`` entry). A full collection scans every
    object of this process, most of them hypothesis's, and lands on whichever answer is running: it is
    taken out of that answer's time and shown as ``fuzz.max_gc_ms``."""

    def __init__(self) -> None:
        self.ms = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.ms += (time.process_time() - self._started) * 1000


@dataclass
class Bench:
    """The scratch database, its games and what was measured so far."""

    folder: Path
    figures: Figures
    seats: list[Seat] = field(default_factory=list)
    count: int = 0
    collector: CollectorClock = field(default_factory=CollectorClock)

    def __post_init__(self) -> None:
        self.engine = scratch_engine(self.folder, "fuzz")
        self.db_path = self.folder / "fuzz.sqlite"
        for game in shipped_games():
            names = ["ann", "bob", "cy"][: max(game.min_players, 3)]
            game_id = f"fuzz-{game.name}"
            issued = create_game(
                self.engine, game.name, game_id, [(n, f"{n}@example.org") for n in names], seed=3
            )
            with Session(self.engine) as session:
                state = current_state(game, game_row(session, game_id))
            for seat in sorted(game.pending(state)):
                self.seats.append(Seat(game, game_id, seat, issued[seat], state))
        side = [[s.game_id, s.seat, s.password] for s in self.seats]
        self.db_path.with_suffix(".seats.json").write_text(json.dumps(side))  # for proof.fuzz_atheris

    def measure(self, target: str, case: str, call: Callable[[], None]) -> None:
        """Run one answer; count a traceback, its time and (for a sample) its memory."""
        self.count += 1
        self.figures.add("fuzz.cases")
        self.figures.add(f"fuzz.cases.{target}")
        traced = self.count % MEMORY_SAMPLE == 0
        if traced:
            tracemalloc.start()
        collected = self.collector.ms
        started, wall = time.process_time(), time.perf_counter()
        try:
            call()
        except Exception as exc:  # the finding itself: anything but a message is a traceback
            self.figures.add("fuzz.tracebacks")
            self.figures.find(f"fuzz {target}: {case}: {type(exc).__name__}: {str(exc)[:300]}")
        finally:
            paused = self.collector.ms - collected
            spent = (time.process_time() - started) * 1000 - paused
            wall_ms = (time.perf_counter() - wall) * 1000 - paused
            if traced:
                _now, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                self._peak(peak / 2**20, target, case)
        if not traced:  # under tracemalloc an answer takes several times as long: its time says nothing
            self._time(spent, wall_ms, target, case)
        values = self.figures.values
        values["fuzz.max_gc_ms"] = max(float(values.get("fuzz.max_gc_ms", 0)), round(paused, 1))

    def _time(self, ms: float, wall_ms: float, target: str, case: str) -> None:
        values = self.figures.values
        if ms > float(values.get("fuzz.max_ms", 0)):
            values["fuzz.max_ms"] = round(ms, 1)
            values["fuzz.max_ms_case"] = f"{target}: {case}"[:80]
        values["fuzz.max_wall_ms"] = max(float(values.get("fuzz.max_wall_ms", 0)), round(wall_ms, 1))
        if ms > GOAL_MS:
            self.figures.add("fuzz.over_100ms")
            self.figures.find(f"fuzz {target}: {case}: {ms:.0f} ms of CPU")

    def _peak(self, mb: float, target: str, case: str) -> None:
        values = self.figures.values
        values["fuzz.peak_mb"] = max(float(values.get("fuzz.peak_mb", 0)), round(mb, 2))
        if mb > MEMORY_MB:
            self.figures.add("fuzz.over_memory")
            self.figures.find(f"fuzz {target}: {case}: {mb:.0f} MB at its peak")

    def dump(self) -> dict[str, str]:
        """A digest of every table, and the submissions' rows themselves."""
        db = sqlite3.connect(self.db_path)
        try:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            out = {}
            for table in sorted(tables):
                rows = db.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall()
                out[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
            out["submission.count"] = str(db.execute("SELECT count(*) FROM submission").fetchone()[0])
            last = db.execute("SELECT status, errors FROM submission ORDER BY id DESC LIMIT 1").fetchone()
            out["submission.last"] = json.dumps(last)
        finally:
            db.close()
        return out


def reader(raw: bytes) -> None:
    """The pure reader: a value or an :class:`OrderFileError`, and then an envelope or its errors."""
    try:
        data = load(raw)
    except OrderFileError as exc:
        assert str(exc), "an error without a message"
        return
    envelope, errors = read_envelope(data)
    assert envelope is not None or errors, "no envelope and no error"


def submitted(bench: Bench, raw: bytes, *, may_accept: bool = False) -> None:
    """``submit``: a receipt, never an exception; a rejection says why and adds only its own row."""
    before = bench.dump()
    receipt = orders.submit(bench.engine, raw)
    after = bench.dump()
    if receipt.accepted:
        assert may_accept, f"accepted: {raw[:80]!r}"
        return
    assert receipt.errors and all(isinstance(e, str) and e for e in receipt.errors), (
        "rejected without a reason"
    )
    assert int(after["submission.count"]) == int(before["submission.count"]) + 1, (
        "the rejection was not recorded"
    )
    assert json.loads(after["submission.last"])[0] == "rejected"
    changed = [
        t
        for t in before
        if t not in ("submission", "submission.count", "submission.last") and before[t] != after[t]
    ]
    assert not changed, f"a rejected file changed {changed}"


def checked(bench: Bench, raw: bytes) -> None:
    """``check``: errors or a preview, and nothing in the database changes."""
    before = bench.dump()
    result = orders.check(bench.engine, raw)
    assert result.errors or result.preview, "neither errors nor a preview"
    assert bench.dump() == before, "check changed the database"


def model_and_rules(game: Game, state: Any, seat: str, data: Any) -> None:
    """A game's order model and rules, straight: a model, a :class:`ValidationError` or a
    :class:`GameError`, nothing else."""
    decision = game.pending(state)[seat]
    try:
        parsed = game.order_model(decision).model_validate(data)
    except ValidationError:
        return
    try:
        game.check(state, seat, parsed)
    except GameError:
        return


def run(folder: Path, examples: int, atheris_seconds: int = 0, cli_cases: int | None = None) -> Figures:
    """The fuzzing campaign: ``examples`` hypothesis examples per target, the fixed cases, every
    off-board coordinate, ``cli_cases`` of the fixed cases through the CLI (``None``: all), and atheris
    for ``atheris_seconds`` per target (0: not at all)."""
    figures = Figures()
    for name in ("fuzz.tracebacks", "fuzz.over_memory", "fuzz.over_100ms"):
        figures.set(name, 0, goal_zero=True)
    figures.set("fuzz.cases", 0)
    with cheap_passwords():
        bench = Bench(folder, figures)
        gc.callbacks.append(bench.collector)
        try:
            _fixed(bench)
            _hypothesis(bench, examples)
            _coordinates(bench)
        finally:
            gc.callbacks.remove(bench.collector)
    _cli(bench, cli_cases)
    if atheris_seconds:
        from proof import fuzz_atheris

        figures.combine(fuzz_atheris.run(folder, atheris_seconds))
    bench.engine.dispose()
    return figures


def _fixed(bench: Bench) -> None:
    for seat in bench.seats[:: max(1, len(bench.seats) // 3)]:
        for name, raw in fixed_cases(seat.game_id, seat.seat, 1, seat.password).items():
            case = f"{seat.game_id}/{seat.seat}: {name}"
            bench.measure("reader", case, lambda raw=raw: reader(raw))
            bench.measure("submit", case, lambda raw=raw: submitted(bench, raw))
            bench.measure("check", case, lambda raw=raw: checked(bench, raw))


def _hypothesis(bench: Bench, examples: int) -> None:
    options = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )

    @options
    @given(raw_inputs())
    def any_bytes(raw: bytes) -> None:
        bench.measure("reader", f"bytes {raw[:60]!r}", lambda: reader(raw))
        bench.measure("submit", f"bytes {raw[:60]!r}", lambda: submitted(bench, raw))

    @options
    @given(st.data())
    def orders_of_a_seat(data: st.DataObject) -> None:
        seat = data.draw(st.sampled_from(bench.seats))
        words = schema_words(seat.game, seat.game.pending(seat.state)[seat.seat])
        value = data.draw(structured_orders(seat.game, words))
        turn = data.draw(st.sampled_from([1, 1, 1, 0, 2]))
        raw = envelope_text(seat.game_id, seat.seat, turn, seat.password, value).encode()
        case = f"{seat.game_id}/{seat.seat}: {json.dumps(value, default=repr)[:120]}"
        bench.measure("orders", case, lambda: model_and_rules(seat.game, seat.state, seat.seat, value))
        bench.measure("submit", case, lambda: submitted(bench, raw, may_accept=True))
        if data.draw(st.booleans()):
            bench.measure("check", case, lambda: checked(bench, raw))

    any_bytes()
    orders_of_a_seat()


def _coordinates(bench: Bench) -> None:
    """Every coordinate of a box past the board, in every coordinate-bearing step of the bot's orders."""
    for seat in bench.seats:
        game, state = seat.game, seat.state
        base = game.bot(state, seat.seat, RandomChance(seat.seat))
        steps = base if isinstance(base, list) else [base]
        for i, step in enumerate(steps):
            for example in sorted(set(coordinate_leaves(step))):
                for other in same_shape_coordinates(example):
                    text = json.dumps(step).replace(json.dumps(example), json.dumps(other))
                    changed = [*steps[:i], json.loads(text), *steps[i + 1 :]]
                    case = f"{seat.game_id}/{seat.seat}: step {i} at {other}"
                    probe = functools.partial(model_and_rules, game, state, seat.seat, changed)
                    bench.measure("coordinates", case, probe)
        raw = envelope_text(seat.game_id, seat.seat, 1, seat.password, [{"place": "Zz99"}]).encode()
        bench.measure("submit", f"{seat.game_id}: off-board step", lambda raw=raw: submitted(bench, raw))


def _cli(bench: Bench, limit: int | None) -> None:
    """The fixed cases through ``pbem submit``: exit 1, a message on stderr, no traceback."""
    pbem = str(Path(sys.executable).with_name("pbem"))
    seat = bench.seats[0]
    url = f"sqlite:///{bench.db_path}"
    cases = list(fixed_cases(seat.game_id, "nobody", 1, "wrong-password").items())
    for name, raw in cases[:limit]:
        path = bench.folder / "case.yaml"
        path.write_bytes(raw)
        done = subprocess.run([pbem, "submit", str(path), "--db", url], capture_output=True, check=False)
        bench.figures.add("fuzz.cli_cases")
        err = done.stderr.decode("utf-8", "replace")
        ok = (
            done.returncode == 1
            and "rejected" in err
            and "Traceback" not in err
            and "internal error" not in err
        )
        if not ok:
            bench.figures.add("fuzz.tracebacks")
            bench.figures.find(f"fuzz cli: {name}: exit {done.returncode}: {err.strip()[-300:]}")
