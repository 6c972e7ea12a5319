"""``make bench``: how fast the host is, and how much it stores, per shipped game.

For each game: one bot game through the real services (create, template --suggest, submit, process),
timed per step, then a replay and verify, and the bytes stored per turn. Prints one table; no test
depends on these numbers (speed is measured, not asserted).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func
from sqlmodel import Session, select

from pbem.create import create_game
from pbem.db import connect
from pbem.envelope import PASSWORD_PLACEHOLDER
from pbem.models import ReportRow, TurnRow
from pbem.orders import submit, template
from pbem.registry import games
from pbem.replay import from_database, verify
from pbem.status import status
from pbem.turns import process


def bench(name: str, folder: Path, seed: int = 1) -> dict[str, float]:
    engine = connect(f"sqlite:///{folder / f'{name}.sqlite'}")
    game = games()[name]
    seats = [(f"p{i}", f"p{i}@example.org") for i in range(min(3, game.max_players))]
    started = time.perf_counter()
    issued = create_game(engine, name, "bench", seats, seed=seed)
    created = time.perf_counter() - started
    submit_time = process_time = 0.0
    submits = turns = 0
    while not (entry := status(engine, "bench")[0])["finished"]:
        for seat in entry["awaited"]:
            text = template(engine, "bench", seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat])
            t0 = time.perf_counter()
            assert submit(engine, text).accepted
            submit_time += time.perf_counter() - t0
            submits += 1
        t0 = time.perf_counter()
        turns += len(process(engine, "bench"))
        process_time += time.perf_counter() - t0
    t0 = time.perf_counter()
    assert verify(from_database(engine, "bench"))["ok"]
    replay_time = time.perf_counter() - t0
    with Session(engine) as session:
        turn_bytes = session.exec(
            select(
                func.avg(
                    func.length(TurnRow.state_z)
                    + func.length(TurnRow.orders_z)
                    + func.length(TurnRow.events_z)
                    + func.length(TurnRow.chance_json)
                )
            )
        ).one()
        report_bytes = session.exec(
            select(func.avg(func.length(ReportRow.text_z) + func.length(ReportRow.html_z)))
        ).one()
    return {
        "turns": turns,
        "create ms": created * 1000,
        "submit ms": submit_time / max(submits, 1) * 1000,
        "process ms/turn": process_time / max(turns, 1) * 1000,
        "replay ms/turn": replay_time / max(turns, 1) * 1000,
        "turn row B": float(turn_bytes or 0),
        "report B": float(report_bytes or 0),
    }


def main() -> int:
    shipped = [n for n, g in games().items() if type(g).__module__.startswith("games.")]
    with tempfile.TemporaryDirectory() as tmp:
        rows = {name: bench(name, Path(tmp)) for name in shipped}
    columns = list(next(iter(rows.values())))
    print(f"{'game':<16}" + "".join(f"{c:>17}" for c in columns))
    for name, row in rows.items():
        print(f"{name:<16}" + "".join(f"{row[c]:>17.1f}" for c in columns))
    print("(submit includes the scrypt password check, ~50 ms by design)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
