"""Figures that need no tick: a whole game by the engine alone, a replay, and the bytes stored per turn."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from sqlalchemy import func
from sqlmodel import Session, select

from bench.fleet import PBEM
from bench.play import PLAYERS, cheap_passwords, engine_game, median, new_game, play_to_end
from pbem.archive.replay import from_database, verify
from pbem.storage.db import connect
from pbem.storage.models import ReportRow, TurnRow

REEF = "reef-encounter"


def engine_seconds(game_type: str, games: int) -> float:
    """The median seconds of a complete bot game of ``game_type`` (seeds 1 …), engine only."""
    engine_game(game_type, PLAYERS[game_type], 0)  # loads the game's data files: not a game's cost
    timings = []
    for seed in range(1, games + 1):
        start = time.perf_counter()
        engine_game(game_type, PLAYERS[game_type], seed)
        timings.append(time.perf_counter() - start)
    return median(timings)


def played(folder: Path, games: int) -> str:
    """An SQLite database holding ``games`` complete 4-player Reef Encounter games played through the
    pipeline (cheap passwords: nothing timed here checks one); its URL."""
    url = f"sqlite:///{folder / 'played.sqlite'}"
    engine = connect(url)
    with cheap_passwords():
        for seed in range(1, games + 1):
            game_id = f"played-{seed}"
            play_to_end(engine, game_id, new_game(engine, REEF, game_id, seed))
    engine.dispose()
    return url


def replay_seconds(url: str, games: int) -> float:
    """The median seconds to load a complete game's record and replay it with every hash verified."""
    engine = connect(url)
    timings = []
    for seed in range(1, games + 1):
        start = time.perf_counter()
        result = verify(from_database(engine, f"played-{seed}"))
        timings.append(time.perf_counter() - start)
        if not result["ok"]:
            raise RuntimeError(f"played-{seed} does not replay: {result['problems'][:3]}")
    engine.dispose()
    return median(timings)


def replay_command_seconds(url: str) -> float:
    """The wall time of ``pbem replay ID --verify`` as a person runs it: this command's start, and the
    new process it verifies in (its own hash seed), included."""
    start = time.perf_counter()
    done = subprocess.run(
        [PBEM, "replay", "played-1", "--verify", "--db", url], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"pbem replay --verify failed: {done.stdout[-500:]}{done.stderr[-2000:]}")
    return seconds


def stored_bytes(url: str) -> tuple[float, float]:
    """(bytes per stored turn, bytes of the reports rendered per turn), averaged over every turn held.

    A turn's bytes are its row's: state snapshot, orders, events, draws (all compressed or compact
    JSON), hash, game id, time and numbers."""
    engine = connect(url)
    turn = TurnRow.__table__.c  # type: ignore[attr-defined]
    report = ReportRow.__table__.c  # type: ignore[attr-defined]
    fixed = 8 * 4 + 26  # id, epoch, number, undone; resolved_at as SQLite keeps it
    with Session(engine) as session:
        turns, turn_bytes = session.exec(
            select(
                func.count(),
                func.sum(
                    func.length(turn.state_z)
                    + func.length(turn.orders_z)
                    + func.length(turn.events_z)
                    + func.length(turn.chance_json)
                    + func.length(turn.by_bot_json)
                    + func.length(turn.state_sha256)
                    + func.length(turn.game_id)
                    + fixed
                ),
            ).select_from(TurnRow)
        ).one()
        report_bytes = session.exec(
            select(func.sum(func.length(report.text_z) + func.length(report.html_z))).select_from(ReportRow)
        ).one()
    engine.dispose()
    return turn_bytes / turns, report_bytes / turns
