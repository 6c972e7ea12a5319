"""Playing games for the bench: by the engine alone, and through the host's real services."""

from __future__ import annotations

import contextlib
import statistics
import time
from collections.abc import Iterator

from sqlalchemy import Engine

from pbem.core import registry
from pbem.core.chance import Recorder
from pbem.intake import passwords
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.play.create import create_game
from pbem.play.orders import submit, template
from pbem.play.status import status
from pbem.play.turns import process

SEATS = ("ann", "bob", "cy", "dee", "eve")
#: the players each game is benched with, as the issue names them
PLAYERS = {"reef-encounter": 4, "mare-balticum": 5, "coral-divers": 4}
MAX_TURNS = 5000


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def seats(count: int) -> list[tuple[str, str]]:
    return [(name, f"{name}@example.org") for name in SEATS[:count]]


def engine_game(game_type: str, players: int, seed: int) -> int:
    """One complete bot game by the rules engine alone, as the host drives it (the bot's orders
    validated and checked, chance from the host's recorder); returns the number of turns."""
    game = registry.get_game(game_type)
    state = game.setup(
        [name for name, _ in seats(players)], game.options_model(), Recorder.for_turn(seed, 0, 0)
    )
    for number in range(1, MAX_TURNS + 1):
        pending = game.pending(state)
        if not pending:
            return number - 1
        orders = {}
        for seat, decision in pending.items():
            data = game.bot(state, seat, Recorder.for_turn(seed, 0, number, f"bot:{seat}"))
            parsed = game.order_model(decision).model_validate(data)
            game.check(state, seat, parsed)
            orders[seat] = parsed
        state = game.resolve(state, orders, Recorder.for_turn(seed, 0, number)).state
    raise RuntimeError(f"{game_type} seed {seed} did not end within {MAX_TURNS} turns")


@contextlib.contextmanager
def cheap_passwords() -> Iterator[None]:
    """Scrypt at a trivial cost while building databases of many games: creating 10,000 games at the
    real cost would hash 40,000 passwords (half an hour). The figures that check a password (the
    pipeline's) never run under this."""
    saved = passwords._N
    passwords._N = 2
    try:
        yield
    finally:
        passwords._N = saved


def new_game(
    engine: Engine, game_type: str, game_id: str, seed: int, players: int | None = None
) -> dict[str, str]:
    return create_game(engine, game_type, game_id, seats(players or PLAYERS[game_type]), seed=seed)


def order_files(engine: Engine, game_id: str, issued: dict[str, str]) -> list[str]:
    """The order files the seats owed now would send: the bot's choice, with the real password."""
    [entry] = status(engine, game_id)
    return [
        template(engine, game_id, seat, suggest=True).replace(PASSWORD_PLACEHOLDER, issued[seat], 1)
        for seat in entry["awaited"]
    ]


def play_turn(engine: Engine, game_id: str, files: list[str]) -> list[int]:
    """One turn through the pipeline: every order file read, checked and stored, then the turn
    resolved, stored and every report rendered. Returns the turns resolved."""
    for text in files:
        receipt = submit(engine, text)
        if not receipt.accepted:
            raise RuntimeError(f"bot orders rejected in {game_id}: {receipt.errors}")
    return process(engine, game_id)


def play_to_end(
    engine: Engine, game_id: str, issued: dict[str, str], until: int | None = None
) -> list[float]:
    """Play ``game_id`` through the pipeline to its end (or until turn ``until`` is resolved); returns
    the seconds each turn took, order files prepared outside the timing."""
    timings: list[float] = []
    for _ in range(MAX_TURNS):
        [entry] = status(engine, game_id)
        if (
            entry["status"] != "active"
            or entry["finished"]
            or (until is not None and entry["turns_resolved"] >= until)
        ):
            return timings
        files = order_files(engine, game_id, issued)
        start = time.perf_counter()
        done = play_turn(engine, game_id, files)
        timings.append(time.perf_counter() - start)
        if not done:
            raise RuntimeError(f"{game_id}: turn {entry['turn']} did not resolve with every order in")
    raise RuntimeError(f"{game_id} did not end within {MAX_TURNS} turns")


def long_enough_seed(game_type: str, turns: int, start: int = 1) -> int:
    """The first seed from ``start`` whose bot game lasts more than ``turns`` turns."""
    players = PLAYERS[game_type]
    for seed in range(start, start + 500):
        if engine_game(game_type, players, seed) > turns:
            return seed
    raise RuntimeError(f"no {game_type} seed from {start} lasts {turns} turns")
