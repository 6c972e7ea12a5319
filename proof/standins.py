"""Stand-in games: for every shipped game and every level, games the stand-in plays through the host
finish and replay.

Each game seats one player and the rest the stand-in (``pbem new --bot SEAT=LEVEL``); the player's seat
never sends orders and the missed-orders policy ``bot:LEVEL`` plays it (``turns.process`` with
``fill_missing``, the tick's path after a deadline). So both ways a stand-in plays a seat are met. A game
must end, every turn must record the stand-in's level for each seat it played, the stored game must
replay (``pbem replay --verify``'s check), and its archive, exported and imported into a fresh database,
must replay again (``pbem export`` / ``pbem import``).
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive import files, replay
from pbem.core.search import LEVELS, standin_mark
from pbem.play import turns
from pbem.play.create import create_game
from pbem.storage.models import GameRow, TurnRow
from proof.common import SEAT_NAMES, Figures, cheap_passwords, scratch_engine, shipped_games

#: resolutions after which a game is taken as endless (far above any shipped game's length)
TURN_LIMIT = 2_000


def play(engine: Engine, game_name: str, seats: int, level: str, seed: int, game_id: str) -> list[str]:
    """One stand-in game through the host; what went wrong, in words (nothing: it finished, each turn
    recorded the level, and it replays)."""
    names = list(SEAT_NAMES[:seats])
    players = [(names[0], f"{names[0]}@example.org"), *((n, "") for n in names[1:])]
    bots = {n: level for n in names[1:]}
    create_game(engine, game_name, game_id, players, seed=seed, nmr=f"bot:{level}", bots=bots)
    for _ in range(TURN_LIMIT):
        if not turns.process(engine, game_id, fill_missing=True):
            break
    return checked(engine, game_id, names, level)


def checked(engine: Engine, game_id: str, names: list[str], level: str) -> list[str]:
    """What is wrong with a stand-in game played to its end (nothing, when all is well)."""
    with Session(engine) as session:
        row = session.get(GameRow, game_id)
        marks = [
            json.loads(t.by_bot_json) for t in session.exec(select(TurnRow).where(TurnRow.game_id == game_id))
        ]
    problems = []
    if row is None or row.status != "finished":
        problems.append(f"not finished after {TURN_LIMIT} turns")
    allowed = {standin_mark(n, level) for n in names}
    if not all(set(m) <= allowed for m in marks) or not any(marks):
        problems.append(f"turns record other stand-ins than {level}: {marks[:3]}")
    checked = replay.verify(replay.from_database(engine, game_id))
    if not checked["ok"]:
        problems.append(f"the stored game does not replay: {checked['problems'][:2]}")
    return problems


def reimported(engine: Engine, fresh: Engine, folder: Path, game_id: str) -> list[str]:
    """The game's archive exported, imported into ``fresh`` (which replays it, checking every hash) and
    verified there."""
    path = folder / f"{game_id}.yaml"
    files.export(engine, game_id, str(path))
    imported, _passwords = files.import_archive(fresh, str(path))
    checked = replay.verify(replay.from_database(fresh, imported))
    return [] if checked["ok"] else [f"the imported archive does not replay: {checked['problems'][:2]}"]


def run(folder: Path, per_level: int) -> Figures:
    """``per_level`` games of every shipped game at every level."""
    figures = Figures()
    figures.set("standins.failures", 0, goal_zero=True)
    figures.set("standins.games", 0)
    figures.set("standins.turns", 0)
    engine, fresh = scratch_engine(folder, "standins"), scratch_engine(folder, "standins-imported")
    with cheap_passwords():
        for game in shipped_games():
            seats = max(2, game.min_players)
            for level in LEVELS:
                for seed in range(per_level):
                    game_id = f"si-{game.name}-{level}-{seed}"
                    try:
                        problems = play(engine, game.name, seats, level, 31 + seed, game_id)
                        problems += reimported(engine, fresh, folder, game_id)
                    except Exception as exc:  # a failure of one game is a finding, not the end of the part
                        problems = [f"{type(exc).__name__}: {exc}"]
                    figures.add("standins.games")
                    with Session(engine) as session:
                        figures.add(
                            "standins.turns",
                            len(session.exec(select(TurnRow.id).where(TurnRow.game_id == game_id)).all()),
                        )
                    if problems:
                        figures.add("standins.failures")
                        figures.find(f"standins: {game_id}: {'; '.join(problems)}")
    engine.dispose()
    fresh.dispose()
    return figures
