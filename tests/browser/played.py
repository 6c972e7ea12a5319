"""Bot games played in this process, and the HTML reports of three moments of each written to files.

The reports are made exactly as the host makes them (:func:`pbem.reports.context` and
:func:`pbem.render.render`, the seeded :class:`pbem.chance.Recorder`), without the database: a whole
game takes a fraction of a second this way, where ``pbem demo`` renders and stores every report of every
turn. The demo itself is run once, for its index page.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem import registry
from pbem.chance import Recorder
from pbem.game import Event
from pbem.render import render
from pbem.reports import context

NAMES = ("alice", "bob", "carol", "dave", "erin")
GAMES = ("reef-encounter", "mare-balticum", "coral-divers")
MOMENTS = ("start", "middle", "end")
SEED = 1
GAME_ID = "look-1"


@dataclass(frozen=True)
class Report:
    """One HTML report on disk and what the game says it must show."""

    game: str
    players: int
    moment: str
    turn: int
    seat: str | None
    path: Path
    #: the seat owes orders after this turn, so the report carries an order template
    owes_orders: bool
    #: the final scores, on the last turn only
    scores: dict[str, int] | None

    @property
    def name(self) -> str:
        return report_name(self.game, self.players, self.moment, self.seat)


def report_name(game_name: str, count: int, moment: str, seat: str | None) -> str:
    """``reef-encounter-2p-start-alice``: a report's name in test ids."""
    return f"{game_name}-{count}p-{moment}-{seat or 'public'}"


def player_counts(game_name: str) -> tuple[int, int]:
    """The fewest and the most players the game takes."""
    game = registry.get_game(game_name)
    return game.min_players, game.max_players


def play(game_name: str, count: int, seed: int = SEED) -> list[tuple[Any, list[Event]]]:
    """Every state of a bot game from setup to the end, each with the events of the turn that made it."""
    game = registry.get_game(game_name)
    seats = list(NAMES[:count])
    state = game.setup(seats, game.options_model(), Recorder.for_turn(seed, 0, 0))
    history: list[tuple[Any, list[Event]]] = [(state, [])]
    while pending := game.pending(state):
        turn = len(history)
        orders = {
            seat: game.order_model(decision).model_validate(
                game.bot(state, seat, Recorder.for_turn(seed, 0, turn, f"bot:{seat}"))
            )
            for seat, decision in pending.items()
        }
        resolution = game.resolve(state, orders, Recorder.for_turn(seed, 0, turn))
        state = resolution.state
        history.append((state, list(resolution.events)))
    return history


def write_reports(game_name: str, count: int, folder: Path) -> list[Report]:
    """The seat reports and the public one at the start, the middle and the end of a bot game."""
    game = registry.get_game(game_name)
    history = play(game_name, count)
    seats = list(NAMES[:count])
    reports = []
    for moment, turn in zip(MOMENTS, (0, len(history) // 2, len(history) - 1), strict=True):
        state, events = history[turn]
        outcome = game.outcome(state)
        pending = game.pending(state)
        for seat in [*seats, None]:
            page = render(game_name, "html", context(game, GAME_ID, state, turn, seat, events))
            path = folder / f"{game_name}-{count}" / (seat or "public") / f"turn-{turn:04d}.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(page, encoding="utf-8")
            reports.append(
                Report(
                    game=game_name,
                    players=count,
                    moment=moment,
                    turn=turn,
                    seat=seat,
                    path=path,
                    owes_orders=seat in pending,
                    scores=dict(outcome.scores) if outcome else None,
                )
            )
    return reports


def planned() -> list[tuple[str, int, str, str | None]]:
    """(game, players, moment, seat) of every report :func:`write_reports` makes, known without
    playing: for naming the tests when they are collected."""
    return [
        (game_name, count, moment, seat)
        for game_name in GAMES
        for count in sorted(set(player_counts(game_name)))
        for moment in MOMENTS
        for seat in [*NAMES[:count], None]
    ]
