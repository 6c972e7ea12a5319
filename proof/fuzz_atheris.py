"""Coverage-guided fuzzing with atheris, each target in a process of its own for a bounded time.

``python -m proof.fuzz_atheris TARGET SECONDS DB`` fuzzes one target: ``reader`` (the pure order-file
reader) or ``submit`` (``pbem.play.orders.submit`` on the scratch database ``DB``, behind a real envelope
half of the time). An exception other than the reader's own error is a finding: libFuzzer stops and
prints it, and the process exits non-zero. libFuzzer's own summary says how many inputs it ran.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from proof.common import Figures

TARGETS = ("reader", "submit")


def available() -> str | None:
    """``None`` when atheris can be imported, else why not."""
    try:
        import atheris  # noqa: F401
    except ImportError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def run(folder: Path, seconds: int) -> Figures:
    """Each target for ``seconds``; figures ``fuzz.atheris.*``."""
    figures = Figures()
    why = available()
    if why is not None:
        figures.set("fuzz.atheris", f"not run: {why}")
        return figures
    figures.set("fuzz.atheris.crashes", 0, goal_zero=True)
    figures.set("fuzz.atheris.runs", 0)
    for target in TARGETS:
        corpus = folder / f"atheris-{target}"
        corpus.mkdir(exist_ok=True)
        argv = [sys.executable, "-m", "proof.fuzz_atheris", target, str(seconds), str(folder / "fuzz.sqlite")]
        argv += [f"-max_total_time={seconds}", "-rss_limit_mb=1024", "-max_len=4096"]
        argv += [f"-artifact_prefix={folder}/atheris-{target}-", str(corpus)]  # not in the working directory
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=seconds * 3 + 120)
        runs = re.findall(r"Done (\d+) runs", done.stderr) or re.findall(r"#(\d+)\s", done.stderr)
        figures.add("fuzz.atheris.runs", int(runs[-1]) if runs else 0)
        figures.set(f"fuzz.atheris.{target}.seconds", seconds)
        if done.returncode != 0:
            figures.add("fuzz.atheris.crashes")
            tail = " | ".join(done.stderr.strip().splitlines()[-12:])
            figures.find(f"fuzz atheris {target}: exit {done.returncode}: {tail[-800:]}")
    return figures


def _main(argv: list[str]) -> None:
    import atheris

    target, _seconds, db = argv[0], argv[1], argv[2]
    with atheris.instrument_imports():
        import yaml  # noqa: F401

        from pbem.intake import envelope, orderfile
        from pbem.play import orders
    from pbem.storage.db import connect
    from proof.common import cheap_passwords

    engine = connect(f"sqlite:///{db}") if target == "submit" else None
    seats = _seats(db) if target == "submit" else []
    passwords = cheap_passwords()
    passwords.__enter__()

    def one(data: bytes) -> None:
        if target == "reader":
            try:
                loaded = orderfile.load(data)
            except orderfile.OrderFileError:
                return
            envelope.read_envelope(loaded)
            return
        raw = data
        if seats and data[:1] and data[0] % 2:
            game_id, seat, password = seats[data[0] % len(seats)]
            head = f"game: {game_id}\nplayer: {seat}\nturn: 1\npassword: {password}\norders:\n"
            raw = head.encode() + data[1:]
        receipt = orders.submit(engine, raw)  # type: ignore[arg-type]
        if not receipt.accepted and not receipt.errors:
            raise AssertionError("rejected without a reason")

    atheris.Setup([sys.argv[0], *argv[3:]], one)
    atheris.Fuzz()


def _seats(db: str) -> list[tuple[str, str, str]]:
    """(game, seat, password) of the fuzz database, left there by :mod:`proof.fuzz` in a side file."""
    side = Path(db).with_suffix(".seats.json")
    return [tuple(x) for x in json.loads(side.read_text())] if side.is_file() else []  # type: ignore[misc]


if __name__ == "__main__":
    _main(sys.argv[1:])
