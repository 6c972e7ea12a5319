"""``python -m bench [--quick] [--only PARTS] [--size NAME=N] [--keep DIR]``: the machine, then one line
per figure.

Lines starting with ``#`` are notes (the machine, what a figure was measured on); every other line is
``name value unit``. Exit 1 if a figure could not be measured (the error is on stderr).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import fields, replace
from pathlib import Path

from bench import bots, fleet, pipeline
from bench import engine as engine_figures
from bench.flat import flat
from bench.machine import describe, load, speed
from bench.mail import mail_figures
from bench.sizes import FULL, QUICK, Sizes
from bench.web import web_figures
from pbem.host.jobs import auto_jobs

Figure = tuple[str, float, str]
NOTE = "#"


def engine_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    for game_type, name in [
        ("reef-encounter", "reef_encounter"),
        ("mare-balticum", "mare_balticum"),
        ("coral-divers", "coral_divers"),
    ]:
        yield f"engine.{name}.game_s", engine_figures.engine_seconds(game_type, sizes.engine_games), "s"


def pipeline_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    turn_ms, ratio, password_ms, cpu_ms = pipeline.pipeline(folder, sizes.pipeline_games)
    yield "pipeline.turn_ms_p50", turn_ms, "ms"
    yield "pipeline.floor_ratio", ratio, "x"
    yield "pipeline.turn_cpu_ms_p50", cpu_ms, "ms"
    yield "pipeline.password_check_ms", password_ms, "ms"


def mail_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    png_ms, layered_ms, mail_bytes, turn_ms, cpu_ms, turns = mail_figures(
        folder, sizes.mail_turns, sizes.png_repeats
    )
    yield f"{NOTE} mail: {turns} turns of a 4-player Reef Encounter game, every seat's report mail composed"
    yield "report.png_ms_p50", png_ms, "ms"
    yield f"{NOTE} mail: the same board with its static layer and pieces drawn before (a turn's cost)"
    yield "report.png_layered_ms_p50", layered_ms, "ms"
    yield "mail.report_bytes_p50", mail_bytes, "B"
    yield "pipeline.turn_with_mail_ms_p50", turn_ms, "ms"
    yield "pipeline.turn_with_mail_cpu_ms_p50", cpu_ms, "ms"


def flat_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    same, unmatched = flat(
        folder, sizes.flat_turn_short, sizes.flat_turn_long, sizes.flat_window, sizes.flat_repeats
    )
    yield (
        f"{NOTE} flat: {sizes.flat_window} turns from turn {sizes.flat_turn_long} of a game with that much "
        f"history over the same turns with {sizes.flat_turn_short - 1} turns of history (submitted, ticked)"
    )
    yield "flat.turn2000_over_turn20", same, "x"
    yield f"{NOTE} flat: the same over turns {sizes.flat_turn_short}+ (other turns of play, other draws)"
    yield "flat.unmatched_turns_ratio", unmatched, "x"


def tick_sqlite_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    url = f"sqlite:///{folder / 'tick.sqlite'}"
    # every game its own (its own seed): a fleet of clones would share what real games never do
    fleet.build(url, sizes.tick_games, sizes.tick_games)
    shutil.copy(folder / "tick.sqlite", folder / "tick-1job.sqlite")
    (folder / "1job").mkdir()
    run = _checked(fleet.tick(url, folder), sizes.tick_games)
    yield (
        f"{NOTE} tick: {sizes.tick_games} different games due, {run.turns} resolved, "
        f"{run.cpu_seconds:.0f} s of cpu, --jobs {auto_jobs()} (the default here: one per core)"
    )
    yield "tick.sqlite_1000_games_s", run.seconds, "s"
    alone = _checked(
        fleet.tick(f"sqlite:///{folder / 'tick-1job.sqlite'}", folder / "1job", jobs=1), sizes.tick_games
    )
    yield f"{NOTE} tick: the same with --jobs 1: {alone.cpu_seconds:.0f} s of cpu"
    yield "tick.sqlite_1000_games_1job_s", alone.seconds, "s"


def tick_postgres_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    admin = fleet.pg_admin()
    # named after this process: two benches at once (a test and a make bench) must not drop each other's
    source, work = f"pbem_bench_fleet_{os.getpid()}", f"pbem_bench_tick_{os.getpid()}"
    try:
        fleet.build(fleet.pg_create(admin, source), sizes.pg_games, sizes.pg_games)
        # processes of one job each: the figure compares one tick process with two
        one = _checked(
            fleet.tick(fleet.pg_create(admin, work, template=source), folder, jobs=1), sizes.pg_games
        )
        two = _checked(
            fleet.tick(fleet.pg_create(admin, work, template=source), folder, 2, jobs=1), sizes.pg_games
        )
    finally:
        fleet.pg_drop(admin, work, source)
        admin.dispose()
    yield (
        f"{NOTE} postgres: {sizes.pg_games} different games due; "
        f"1 process {one.seconds:.1f} s ({one.cpu_seconds:.0f} s cpu), "
        f"2 processes {two.seconds:.1f} s ({two.cpu_seconds:.0f} s cpu)"
    )
    yield "tick.postgres_1proc_turns_per_s", one.turns / one.seconds, "turns/s"
    yield "tick.postgres_2proc_speedup", (two.turns / two.seconds) / (one.turns / one.seconds), "x"


def replay_storage_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    url = engine_figures.played(folder, sizes.replay_games)
    yield "replay.reef_encounter_s", engine_figures.replay_seconds(url, sizes.replay_games), "s"
    yield "replay.reef_encounter_command_s", engine_figures.replay_command_seconds(url), "s"
    turn_bytes, report_bytes = engine_figures.stored_bytes(url)
    yield "storage.bytes_per_turn", turn_bytes, "B"
    yield "storage.report_bytes_per_turn", report_bytes, "B"


def memory_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    url = f"sqlite:///{folder / 'memory.sqlite'}"
    fleet.build(url, sizes.memory_games, sizes.templates, due=sizes.memory_due)
    run = _checked(fleet.tick(url, folder, jobs=1), min(sizes.memory_due, sizes.memory_games))
    yield (
        f"{NOTE} memory: {sizes.memory_games} games, {run.turns} with a turn due; "
        f"the tick took {run.seconds:.1f} s"
    )
    yield "tick.10000_games_peak_mb", run.peak_mb, "MB"


def web_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    yield from web_figures(folder, sizes.web_clients, sizes.web_seconds, sizes.web_turns)


def bots_part(sizes: Sizes, folder: Path) -> Iterator[Figure | str]:
    # the games are independent: one a core (each game's draws come from its number alone)
    yield from bots.figures(sizes.bot_games, jobs=os.cpu_count() or 1)


def _checked(run: fleet.TickRun, due: int) -> fleet.TickRun:
    if run.errors or run.turns != due:
        raise RuntimeError(f"the tick resolved {run.turns} turns of {due} due, with {run.errors} errors")
    return run


PARTS: dict[str, Callable[[Sizes, Path], Iterator[Figure | str]]] = {
    "engine": engine_part,
    "pipeline": pipeline_part,
    "mail": mail_part,
    "flat": flat_part,
    "tick": tick_sqlite_part,
    "postgres": tick_postgres_part,
    "replay": replay_storage_part,
    "memory": memory_part,
    "web": web_part,
    "bots": bots_part,
}


def line(figure: Figure) -> str:
    name, value, unit = figure
    shown = f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"
    return f"{name} {shown} {unit}"


def resized(sizes: Sizes, changes: list[str]) -> Sizes:
    """``sizes`` with each ``NAME=N`` of ``changes`` applied; ``ValueError`` names a bad one."""
    known = [f.name for f in fields(Sizes)]
    values: dict[str, int] = {}
    for change in changes:
        name, _, number = change.partition("=")
        if name not in known or not number.isdigit() or int(number) < 1:
            raise ValueError(
                f"--size {change}: write NAME=N with N at least 1, NAME one of {', '.join(known)}"
            )
        values[name] = int(number)
    return replace(sizes, **values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="The speed and size figures of BENCHMARKS.md: the machine, then one line per figure "
        "(name value unit). Sizes: bench/sizes.py.",
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks every figure is produced")
    parser.add_argument(
        "--only", default="", metavar="PARTS", help=f"comma-separated parts: {', '.join(PARTS)}"
    )
    parser.add_argument("--keep", type=Path, metavar="DIR", help="keep the databases in this folder")
    parser.add_argument(
        "--size",
        action="append",
        default=[],
        metavar="NAME=N",
        help=f"change one size (repeatable): {', '.join(f.name for f in fields(Sizes))}",
    )
    parser.add_argument(
        "--games", type=int, metavar="N", help="games of each stand-in level a game (part bots; default 200)"
    )
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    try:
        sizes = resized(sizes, args.size + ([f"bot_games={args.games}"] if args.games is not None else []))
    except ValueError as exc:
        parser.error(str(exc))
    chosen = [p for p in args.only.split(",") if p] or list(PARTS)
    unknown = [p for p in chosen if p not in PARTS]
    if unknown:
        parser.error(f"unknown part {', '.join(unknown)}; parts: {', '.join(PARTS)}")
    for note in describe():
        print(f"{NOTE} {note}", flush=True)
    failed = 0
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as scratch:
        root = args.keep or Path(scratch)
        for name in chosen:
            folder = root / name
            folder.mkdir(parents=True, exist_ok=True)
            start = time.perf_counter()
            try:
                for item in PARTS[name](sizes, folder):
                    print(item if isinstance(item, str) else line(item), flush=True)
            except Exception:
                failed += 1
                print(f"bench part {name} failed:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
            print(f"{NOTE} part {name}: {time.perf_counter() - start:.0f} s, {load()}, {speed()}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
