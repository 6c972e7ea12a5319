"""``python -m proof`` (``make proof``): the whole campaign, one ``name: value`` line per figure.

Exits 1 when any figure whose goal is zero is not zero, after printing what explains it. ``--only``
runs some parts; ``--scale`` shrinks every count (``--scale 0.1`` for a quick look).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from proof.common import Figures, shipped_games

PARTS = ("secrets", "determinism", "crash", "fuzz", "rivals", "coral", "hardening", "edges", "standins")


def _secrets(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import secrets

    names = [g.name for g in shipped_games()]
    per_game = max(1, round(1000 * scale))
    figures = Figures()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        runs = [pool.submit(secrets.run_one, folder, name, per_game, 1) for name in names]
        parts = [r.result() for r in runs]
    for part in parts:
        figures.combine(part)
    return figures


def _determinism(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import determinism

    return determinism.run(folder, per_game=max(1, round(100 * scale)), jobs=jobs)


def _crash(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import crash

    return crash.run(folder, kills=max(1, round(50 * scale)), games_per_type=2)


def _fuzz(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import fuzz

    return fuzz.run(folder, examples=max(20, round(1500 * scale)), atheris_seconds=max(5, round(60 * scale)))


def _rivals(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import rivals

    return rivals.run(folder, races=max(2, round(10 * scale)))


def _coral(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import coral

    return coral.run(games=max(3, round(1000 * scale)))


def _hardening(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import hardening

    return hardening.run(
        folder,
        messages=max(20, round(600 * scale)),
        jumps=max(2, round(20 * scale)),
        mails=max(4, round(50 * scale)),
    )


def _edges(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import edges

    return edges.run(folder, scale=scale)


def _standins(folder: Path, scale: float, jobs: int) -> Figures:
    from proof import standins

    return standins.run(folder, per_level=max(1, round(3 * scale)))


RUNNERS: dict[str, Callable[[Path, float, int], Figures]] = {
    "secrets": _secrets,
    "determinism": _determinism,
    "crash": _crash,
    "fuzz": _fuzz,
    "rivals": _rivals,
    "coral": _coral,
    "hardening": _hardening,
    "edges": _edges,
    "standins": _standins,
}


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (workers, ``pbem`` commands)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m proof", description=__doc__)
    parser.add_argument("--only", action="append", choices=PARTS, help="Run only this part (repeatable).")
    parser.add_argument("--scale", type=float, default=1.0, help="Multiply every count by this.")
    parser.add_argument("--jobs", type=int, default=2, help="Processes for the parts that split.")
    parser.add_argument("--keep", type=Path, default=None, help="Keep the scratch files in this folder.")
    args = parser.parse_args(argv)
    figures = Figures()
    with tempfile.TemporaryDirectory(prefix="pbem-proof-") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        for part in args.only or PARTS:
            folder = root / part
            folder.mkdir(exist_ok=True)
            started, cpu = time.monotonic(), _cpu_seconds()
            try:
                found = RUNNERS[part](folder, args.scale, args.jobs)
            except Exception as exc:  # one broken part must not hide the figures of the others
                found = Figures()
                found.set(f"{part}.failed", 1, goal_zero=True)
                found.find(f"{part}: {type(exc).__name__}: {exc}")
            found.set(f"{part}.seconds", round(time.monotonic() - started, 1))
            found.set(f"{part}.cpu_seconds", round(_cpu_seconds() - cpu, 1))
            for name, value in found.values.items():
                print(f"{name}: {value}", flush=True)
            for line in found.findings:
                print(f"  ! {line}", flush=True)
            figures.combine(found)
    missed = figures.missed()
    print(f"proof.goals_missed: {len(missed)}")
    if missed:
        print("proof: goals missed: " + ", ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
