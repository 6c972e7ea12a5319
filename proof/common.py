"""What every part of the campaign shares: the shipped games, seeded chance, bot playouts, figures and
scratch databases."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from pbem.core.game import Event, Game
from pbem.core.registry import games
from pbem.intake import passwords
from pbem.storage.db import connect

SEAT_NAMES = ("ann", "bob", "cy", "dee", "eve")
#: resolutions after which a playout is taken as endless (far above any shipped game's length)
TURN_LIMIT = 2_000


def shipped_games() -> list[Game]:
    """The games this repository ships (a test process may register more)."""
    found = [g for g in games().values() if g.__class__.__module__.startswith("games.")]
    return sorted(found, key=lambda g: g.name)


class RandomChance:
    """A seeded :class:`pbem.core.game.Chance` for playouts and resampling."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(str(seed))

    def pick(self, label: str, n: int) -> int:
        return self._random.randrange(n)


@dataclass(frozen=True)
class Position:
    """A state met in a bot game, with the events of the turn that led to it."""

    setting: Setting
    turn: int
    state: Any
    events: tuple[Event, ...]

    @property
    def game(self) -> Game:
        return self.setting.game

    @property
    def label(self) -> str:
        return f"{self.setting.label} turn {self.turn}"


#: option sets the playouts cycle through, so that variants' hidden holdings (contracts) are met too
OPTION_SETS: dict[str, list[dict[str, str]]] = {
    "reef-encounter": [{}, {"advanced": "true"}],
    "mare-balticum": [{}, {"contracts": "true"}, {"demand": "placed", "contracts": "true"}],
}


def options_for(game: Game, seed: int) -> dict[str, str]:
    sets = OPTION_SETS.get(game.name, [{}])
    return sets[seed % len(sets)]


@dataclass(frozen=True)
class Setting:
    """One bot game to play: which game, how many seats, which seed and options."""

    game: Game
    n_seats: int
    seed: int
    options: dict[str, str]

    @property
    def seats(self) -> tuple[str, ...]:
        return SEAT_NAMES[: self.n_seats]

    @property
    def label(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.game.name} {self.n_seats}p seed {self.seed}" + (f" [{opts}]" if opts else "")


def settings(game: Game, count: int, first_seed: int = 0) -> list[Setting]:
    """``count`` bot games, cycling through the player counts and option sets."""
    counts = player_counts(game)
    return [
        Setting(game, counts[i % len(counts)], first_seed + i, options_for(game, first_seed + i))
        for i in range(count)
    ]


def playout(setting: Setting) -> Iterator[Position]:
    """Every state of one bot game, from the setup to the end."""
    game, seats = setting.game, setting.seats
    chance = RandomChance(setting.label)
    options = game.options_model.model_validate(setting.options)
    state = game.setup(list(seats), options, chance)
    events: tuple[Event, ...] = ()
    for turn in range(TURN_LIMIT):
        yield Position(setting, turn, state, events)
        pending = game.pending(state)
        if not pending:
            return
        orders = {
            seat: game.order_model(decision).model_validate(game.bot(state, seat, chance))
            for seat, decision in sorted(pending.items())
        }
        resolution = game.resolve(state, orders, chance)
        state, events = resolution.state, tuple(resolution.events)


def player_counts(game: Game) -> list[int]:
    return list(range(game.min_players, game.max_players + 1))


@dataclass
class Figures:
    """The figures one part of the campaign measured, in the order they are printed, and the findings
    (one line each) that explain any figure above its goal."""

    values: dict[str, int | float | str] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)
    #: figure names whose goal is zero
    goals_zero: list[str] = field(default_factory=list)

    def set(self, name: str, value: int | float | str, *, goal_zero: bool = False) -> None:
        self.values[name] = value
        if goal_zero and name not in self.goals_zero:
            self.goals_zero.append(name)

    def add(self, name: str, by: int = 1) -> None:
        current = self.values.get(name, 0)
        assert isinstance(current, int)
        self.values[name] = current + by

    def find(self, line: str, limit: int = 50) -> None:
        if len(self.findings) < limit:
            self.findings.append(" ".join(line.split()))

    def missed(self) -> list[str]:
        return [name for name in self.goals_zero if self.values.get(name) != 0]

    def combine(self, other: Figures) -> None:
        """Add ``other``'s figures to these: counts add up, anything else is taken from ``other``."""
        for name, value in other.values.items():
            mine = self.values.get(name)
            numbers = isinstance(mine, int | float) and isinstance(value, int | float)
            if numbers and _is_extreme(name):
                self.values[name] = max(mine, value)  # type: ignore[type-var]
            elif numbers and isinstance(mine, int) and isinstance(value, int):
                self.values[name] = mine + value
            else:
                self.values[name] = value
        self.findings += other.findings
        self.goals_zero += [n for n in other.goals_zero if n not in self.goals_zero]


def _is_extreme(name: str) -> bool:
    """Figures that are maxima (``fuzz.max_ms``, ``fuzz.peak_mb``): combined, the larger one holds."""
    last = name.rsplit(".", 1)[-1]
    return last.startswith(("max", "peak"))


@contextlib.contextmanager
def cheap_passwords() -> Iterator[None]:
    """Scrypt at a tiny cost while a check runs thousands of order files through one scratch database.

    What is proved there is what a player is told, not the password hash's strength; the real cost
    (about 50 ms a check) would make a thousand positions take hours.
    """
    saved = passwords._N
    passwords._N = 2**4
    try:
        yield
    finally:
        passwords._N = saved


def scratch_engine(folder: Path, name: str) -> Engine:
    """A fresh SQLite database in ``folder``."""
    path = folder / f"{name}.sqlite"
    for leftover in folder.glob(f"{name}.sqlite*"):
        leftover.unlink()
    return connect(f"sqlite:///{path}")
