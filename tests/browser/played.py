"""Bot games played in this process, and the HTML reports of three moments of each written to files.

The reports are made exactly as the host makes them (:func:`pbem.render.reports.context` and
:func:`pbem.render.environment.render`, the seeded :class:`pbem.core.chance.Recorder`), without the database:
a whole game takes a fraction of a second this way, where ``pbem demo`` renders and stores every report of
every turn. The demo itself is run once, for its index page.

Besides the short seat names of the demo, each game is also played at its most players with the longest
seat names and game id that ``pbem new`` accepts, the worst case for a narrow screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.core import registry
from pbem.core.chance import Recorder
from pbem.core.game import Event
from pbem.render.reports import context
from pbem.render.tables import render

NAMES = ("alice", "bob", "carol", "dave", "erin")
GAMES = ("reef-encounter", "mare-balticum", "coral-divers")
MOMENTS = ("start", "middle", "end")
SEED = 1
SHORT_ID = "look-1"
# the longest a game id (64) and a seat name (32) may be, with no break opportunity but the hyphen
LONG_ID = ("baltic_league_" * 5)[:64]
LONG_NAMES = tuple(f"{name}-{'x' * 32}"[:32] for name in NAMES)


@dataclass(frozen=True)
class Plan:
    """One report to make: its game, seating and moment, and whose it is."""

    game: str
    players: int
    #: "" for the demo's short names, "long" for the longest names allowed
    names: str
    moment: str
    #: index into the seating, or ``None`` for the public report
    seat_index: int | None

    @property
    def name(self) -> str:
        """``reef-encounter-2p-start-alice``, ``mare-balticum-5p-long-end-public``: for test ids."""
        seat = "public" if self.seat_index is None else NAMES[self.seat_index]
        return "-".join(filter(None, [self.game, f"{self.players}p", self.names, self.moment, seat]))


@dataclass(frozen=True)
class Report:
    """One HTML report on disk and what the game says it must show."""

    plan: Plan
    game_id: str
    turn: int
    seat: str | None
    path: Path
    #: the seat owes orders after this turn, so the report carries an order template
    owes_orders: bool
    #: the final scores, on the last turn only
    scores: dict[str, int] | None

    @property
    def game(self) -> str:
        return self.plan.game

    @property
    def moment(self) -> str:
        return self.plan.moment


def planned() -> list[Plan]:
    """Every report :func:`write_reports` makes, known without playing: for naming tests when they are
    collected. The fewest and the most players at three moments; the longest names at the end of a game
    at the most players (every name in every table, everything revealed), in a seat's and the public
    report."""
    plans = []
    for game_name in GAMES:
        game = registry.get_game(game_name)
        for count in sorted({game.min_players, game.max_players}):
            plans += [
                Plan(game_name, count, "", moment, seat)
                for moment in MOMENTS
                for seat in [*range(count), None]
            ]
        plans += [Plan(game_name, game.max_players, "long", "end", seat) for seat in (0, None)]
    return plans


def play(game_name: str, seats: list[str], seed: int = SEED) -> list[tuple[Any, list[Event]]]:
    """Every state of a bot game from setup to the end, each with the events of the turn that made it."""
    game = registry.get_game(game_name)
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


def write_reports(plans: list[Plan], folder: Path) -> list[Report]:
    """Play each game and seating of ``plans`` once and write the planned reports under ``folder``."""
    reports = []
    for game_name, count, names in dict.fromkeys((p.game, p.players, p.names) for p in plans):
        game = registry.get_game(game_name)
        seats = list((LONG_NAMES if names else NAMES)[:count])
        game_id = LONG_ID if names else SHORT_ID
        history = play(game_name, seats)
        turns = dict(zip(MOMENTS, (0, len(history) // 2, len(history) - 1), strict=True))
        for plan in plans:
            if (plan.game, plan.players, plan.names) != (game_name, count, names):
                continue
            turn = turns[plan.moment]
            state, events = history[turn]
            seat = None if plan.seat_index is None else seats[plan.seat_index]
            page = render(game_name, "html", context(game, game_id, state, turn, seat, events))
            path = folder / f"{plan.name}.html"
            path.write_text(page, encoding="utf-8")
            outcome = game.outcome(state)
            reports.append(
                Report(
                    plan=plan,
                    game_id=game_id,
                    turn=turn,
                    seat=seat,
                    path=path,
                    owes_orders=seat in game.pending(state),
                    scores=dict(outcome.scores) if outcome else None,
                )
            )
    return reports
