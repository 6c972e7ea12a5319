"""``python -m bench.profile pipeline|tick [--games N]``: where the time of a turn, or of a tick, goes.

``pipeline`` plays one Reef Encounter game through the pipeline under cProfile; ``tick`` runs the real tick
in this process over a fleet of N games (default 100), once under cProfile and once timed by phase (each
phase's functions wrapped with a clock). Prints the phases, then the profile's top functions.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench import fleet
from bench.play import new_game, play_to_end

#: (module, function) timed separately, named in the module its caller finds it in; nested phases are
#: counted within their callers' time too
PHASES = [
    ("pbem.play.turns", "process"),
    ("pbem.render.reports", "write_reports"),
    ("pbem.render.reports", "render_pair"),
    ("pbem.outbox", "enqueue_reports"),
    ("pbem.outbox.queueing", "report_mail"),
    ("pbem.outbox.queueing", "pack_message"),
    ("pbem.outbox", "send"),
    ("pbem.outbox.transport", "MaildirTransport.deliver"),
    ("pbem.cron.policy", "sync_clock"),
    ("pbem.cron.policy", "due"),
    ("pbem.host.claims", "claim"),
    ("pbem.host.claims", "release"),
    ("pbem.intake.passwords", "verify"),
]


@contextmanager
def phases() -> Iterator[dict[str, list[float]]]:
    """Wrap each of :data:`PHASES` with a clock for the duration; yields name -> [calls, seconds]."""
    import importlib

    spent: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    undo: list[Callable[[], None]] = []
    for module_name, path in PHASES:
        owner: Any = importlib.import_module(module_name)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part)
        original = getattr(owner, name)
        label = f"{module_name}.{path}"

        def timed(*args: Any, __original: Any = original, __label: str = label, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return __original(*args, **kwargs)
            finally:
                spent[__label][0] += 1
                spent[__label][1] += time.perf_counter() - start

        setattr(owner, name, timed)
        undo.append(lambda owner=owner, name=name, original=original: setattr(owner, name, original))
    try:
        yield spent
    finally:
        for restore in undo:
            restore()


def _owner(filename: str) -> str:
    """The library (or the project's package) a profiled function's file belongs to."""
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C)"
    parts = Path(filename).parts
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1].split(".")[0]
    for root in ("pbem", "games", "templates", "bench"):
        if root in parts:
            tail = parts[parts.index(root) :]
            return "/".join(tail[:2]) if root in ("pbem", "games") and len(tail) > 2 else root
    return "stdlib:" + Path(filename).stem


def _by_owner(stats: pstats.Stats, lines: int) -> str:
    """Own time (tottime) summed by library: which code the time is spent *in*."""
    spent: dict[str, float] = defaultdict(float)
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        spent[_owner(filename)] += tottime
    total = sum(spent.values()) or 1.0
    rows = sorted(spent.items(), key=lambda kv: -kv[1])[:lines]
    return "own time by library:\n" + "\n".join(
        f"  {name:40} {seconds:7.2f} s {seconds / total:6.1%}" for name, seconds in rows
    )


def _top(profile: cProfile.Profile, lines: int) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    out.write(_by_owner(stats, 25) + "\n\n")
    stats.sort_stats("cumulative").print_stats(lines)
    stats.sort_stats("tottime").print_stats(lines)
    return out.getvalue()


def profile_pipeline(folder: Path, lines: int) -> str:
    from pbem.storage.db import connect

    engine = connect(f"sqlite:///{folder / 'phases.sqlite'}")
    issued = new_game(engine, "reef-encounter", "prof", 1)
    with phases() as spent:
        timings = play_to_end(engine, "prof", issued)
    turns = len(timings)
    report = [f"{turns} turns, {sum(timings):.2f} s ({sum(timings) / turns * 1000:.0f} ms a turn)"]
    for label, (calls, seconds) in sorted(spent.items(), key=lambda kv: -kv[1][1]):
        report.append(
            f"  {label:45} {int(calls):6d} calls {seconds:7.2f} s {seconds / turns * 1000:6.1f} ms/turn"
        )
    engine.dispose()
    engine = connect(f"sqlite:///{folder / 'profile.sqlite'}")
    issued = new_game(engine, "reef-encounter", "prof", 1)
    profile = cProfile.Profile()
    profile.enable()
    play_to_end(engine, "prof", issued)
    profile.disable()
    engine.dispose()
    return "\n".join(report) + "\n" + _top(profile, lines)


def profile_tick(folder: Path, games: int, lines: int) -> str:
    import os

    from pbem.cli.cron import _mail_parts
    from pbem.host.tick import TickSettings, tick
    from pbem.outbox.settings import load_settings
    from pbem.storage.db import connect

    os.environ["PBEM_OUTBOX"] = str(folder / "outbox")
    os.environ["PBEM_MAIL_FROM"] = fleet.FROM
    report = []
    for run in ("phases", "profile"):
        url = f"sqlite:///{folder / f'{run}.sqlite'}"
        fleet.build(url, games, min(games, 20))
        engine = connect(url)
        now = datetime.now(UTC) + timedelta(minutes=1)
        settings = load_settings()
        _fetch, enqueue, deliver = _mail_parts(engine, now, settings, None)

        def work(
            engine: Any = engine, now: datetime = now, enqueue: Any = enqueue, deliver: Any = deliver
        ) -> Any:
            return tick(engine, now, settings=TickSettings(host="profile"), enqueue=enqueue, deliver=deliver)

        if run == "phases":
            with phases() as spent:
                start = time.perf_counter()
                summary = work()
                total = time.perf_counter() - start
            report.append(f"{summary.line()} in {total:.2f} s ({total / games * 1000:.0f} ms a game)")
            for label, (calls, seconds) in sorted(spent.items(), key=lambda kv: -kv[1][1]):
                per_game = seconds / games * 1000
                report.append(f"  {label:45} {int(calls):6d} calls {seconds:7.2f} s {per_game:6.1f} ms/game")
        else:
            profile = cProfile.Profile()
            profile.enable()
            work()
            profile.disable()
            report.append(_top(profile, lines))
        engine.dispose()
    return "\n".join(report)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["pipeline", "tick"])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--lines", type=int, default=40)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pbem-profile-") as scratch:
        folder = Path(scratch)
        if args.what == "pipeline":
            print(profile_pipeline(folder, args.lines))
        else:
            print(profile_tick(folder, args.games, args.lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
