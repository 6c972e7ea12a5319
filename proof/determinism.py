"""Determinism: a game exported, imported into a fresh database by another process and replayed gives
the same state hash after every turn and the same stored reports, byte for byte.

Bot games are played through the host (``create_game``, then ``turns.process`` with the bots filling
every seat, which is the missed-orders policy's path), exported with :func:`pbem.archive.files.export`, and
imported by ``python -m proof.determinism import`` in a new process with a hash seed of its own (it
calls what ``pbem import`` and ``pbem replay --verify`` call, for many games in one process). A few
games per game go through the real commands as well: ``pbem export``, ``pbem import``, ``pbem replay
--verify``, each its own process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive import files, replay
from pbem.core.codec import unpack
from pbem.play import turns
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.models import GameRow, ReportRow, TurnRow
from proof.common import Figures, Setting, cheap_passwords, scratch_engine, settings, shipped_games

#: games per game that also go through the real ``pbem`` commands, one process each
BY_COMMAND = 2


def play(engine: Engine, setting: Setting, game_id: str) -> None:
    """One bot game through the host, from creation to the end."""
    create_game(
        engine,
        setting.game.name,
        game_id,
        [(s, f"{s}@example.org") for s in setting.seats],
        seed=setting.seed,
        options=setting.options,
    )
    for _ in range(2_000):
        if not turns.process(engine, game_id, fill_missing=True):
            return
    raise AssertionError(f"{setting.label}: no end after 2,000 turns")


def fingerprint(engine: Engine, game_id: str) -> dict[str, Any]:
    """What must come out the same: each turn's state hash and each stored report, by (turn, seat): its
    words, unpacked (how a compressor lays out its stream is not what a player reads; ISA-L may choose
    its code by the processor)."""
    with Session(engine) as session:
        row = session.get(GameRow, game_id)
        hashes = [
            t.state_sha256
            for t in session.exec(select(TurnRow).where(TurnRow.game_id == game_id).order_by(TurnRow.number))
        ]
        stored = {
            f"{r.turn}:{r.seat}": (unpack(r.text_z), unpack(r.html_z))
            for r in session.exec(select(ReportRow).where(ReportRow.game_id == game_id))
        }
    return {"final": row.state_sha256 if row else None, "hashes": hashes, "reports": stored}


def compare(source: dict[str, Any], copy: dict[str, Any]) -> list[str]:
    """What differs between two fingerprints, in words."""
    problems = []
    if source["hashes"] != copy["hashes"]:
        first = next(
            (i for i, (a, b) in enumerate(zip(source["hashes"], copy["hashes"], strict=False)) if a != b),
            min(len(source["hashes"]), len(copy["hashes"])),
        )
        problems.append(f"turn hashes differ from turn {first}")
    if source["final"] != copy["final"]:
        problems.append("the final state hash differs")
    if set(source["reports"]) != set(copy["reports"]):
        problems.append("not the same reports are stored")
    differ = [
        key
        for key in source["reports"]
        if key in copy["reports"] and source["reports"][key] != copy["reports"][key]
    ]
    problems += [f"report {key} differs" for key in differ[:5]]
    return problems


def _new_process(argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONHASHSEED=str(1 + (hash(tuple(argv)) % 2**31)))
    return subprocess.run(argv, capture_output=True, text=True, env=env, check=False, timeout=3_600)


def run_game_type(folder: Path, game_name: str, per_game: int, by_commands: int = BY_COMMAND) -> Figures:
    """The determinism check of one game: ``per_game`` bot games, ``by_commands`` of them also through
    the ``pbem`` commands."""
    game = next(g for g in shipped_games() if g.name == game_name)
    figures = Figures()
    figures.set("determinism.mismatches", 0, goal_zero=True)
    figures.set("determinism.games", 0)
    figures.set("determinism.turns", 0)
    figures.set("determinism.reports_compared", 0)
    figures.set("determinism.by_command", 0)
    source = scratch_engine(folder, f"source-{game.name}")
    archives = folder / f"archives-{game.name}"
    archives.mkdir(exist_ok=True)
    ids = []
    with cheap_passwords():
        for setting in settings(game, per_game, first_seed=7_000):
            game_id = f"det-{game.name}-{setting.seed}"
            play(source, setting, game_id)
            files.export(source, game_id, str(archives / f"{game_id}.yaml"))
            ids.append(game_id)
    fresh_path = folder / f"fresh-{game.name}.sqlite"
    done = _new_process([sys.executable, "-m", "proof.determinism", "import", str(archives), str(fresh_path)])
    try:
        results = json.loads(done.stdout)
    except json.JSONDecodeError:
        figures.add("determinism.mismatches", len(ids))
        figures.find(f"determinism: the import process failed: {done.stderr.strip()[-1500:]}")
        return figures
    fresh = connect(f"sqlite:///{fresh_path}")
    for game_id in ids:
        original = fingerprint(source, game_id)
        problems = list(results.get(game_id, ["the import process did not report on it"]))
        if not problems:
            problems = compare(original, fingerprint(fresh, game_id))
        figures.add("determinism.games")
        figures.add("determinism.turns", len(original["hashes"]))
        figures.add("determinism.reports_compared", len(original["reports"]))
        if problems:
            figures.add("determinism.mismatches")
            figures.find(f"determinism: {game_id}: {'; '.join(problems)}")
    for game_id in ids[:by_commands]:
        problems = by_command(folder, source, game_id)
        figures.add("determinism.by_command")
        if problems:
            figures.add("determinism.mismatches")
            figures.find(f"determinism (pbem commands): {game_id}: {'; '.join(problems)}")
    source.dispose()
    fresh.dispose()
    return figures


def pbem_command() -> str:
    """The ``pbem`` console script beside this Python (the venv's)."""
    return str(Path(sys.executable).with_name("pbem"))


def by_command(folder: Path, source: Engine, game_id: str) -> list[str]:
    """``pbem export``, ``pbem import`` into a fresh database and ``pbem replay --verify``, each its own
    process, then the fingerprints compared."""
    pbem = [pbem_command()]
    url = source.url.render_as_string(hide_password=False)
    path = folder / f"cmd-{game_id}.yaml"
    fresh = folder / f"cmd-{game_id}.sqlite"
    steps = [
        [*pbem, "export", game_id, "-o", str(path), "--db", url],
        [*pbem, "import", str(path), "--db", f"sqlite:///{fresh}"],
        [*pbem, "replay", game_id, "--verify", "--db", f"sqlite:///{fresh}"],
    ]
    for argv in steps:
        done = _new_process(argv)
        if done.returncode != 0:
            return [f"pbem {argv[1]} exited {done.returncode}: {done.stderr.strip()[-500:]}"]
    engine = connect(f"sqlite:///{fresh}")
    try:
        return compare(fingerprint(source, game_id), fingerprint(engine, game_id))
    finally:
        engine.dispose()


def run(folder: Path, per_game: int, jobs: int = 1, by_commands: int = BY_COMMAND) -> Figures:
    """The determinism campaign over every shipped game."""
    from concurrent.futures import ProcessPoolExecutor

    figures = Figures()
    names = [g.name for g in shipped_games()]
    if jobs <= 1:
        parts = [run_game_type(folder, name, per_game, by_commands) for name in names]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            n = len(names)
            parts = list(pool.map(run_game_type, [folder] * n, names, [per_game] * n, [by_commands] * n))
    for part in parts:
        figures.combine(part)
    return figures


def _import_all(archives: Path, db_path: Path) -> dict[str, list[str]]:
    """In the new process: import every archive (which replays it, checking every hash) and verify the
    imported game's replay. Returns the problems of each game."""
    engine = connect(f"sqlite:///{db_path}")
    results: dict[str, list[str]] = {}
    with cheap_passwords():
        for path in sorted(archives.glob("*.yaml")):
            try:
                game_id, _passwords = files.import_archive(engine, str(path))
                checked = replay.verify(replay.from_database(engine, game_id))
                results[game_id] = list(checked["problems"]) + ([] if checked["ok"] else ["replay not ok"])
            except Exception as exc:  # reported as a mismatch of this game, with the reason
                results[path.stem] = [f"{type(exc).__name__}: {exc}"]
    return results


if __name__ == "__main__":
    if sys.argv[1:2] == ["import"]:
        print(json.dumps(_import_all(Path(sys.argv[2]), Path(sys.argv[3]))))
