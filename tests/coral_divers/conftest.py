"""Positions and chances for the Coral Divers tests.

:func:`position` builds a state by hand: an empty sea floor, the stations and tokens asked for, reefs
laid out tile by tile. Tests then play orders on it through the game's own ``check`` and ``resolve``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from games.coral_divers import GAME
from games.coral_divers.data import SEA_MAP, TILE_COUNTS, StationValue
from games.coral_divers.orders import TurnOrders
from games.coral_divers.state import COLOURS, Player, Reef, State, Station
from pbem.core.game import RulesError


class RandomChance:
    """Seeded draws; tests may use :mod:`random`, the engine may not."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.labels: list[str] = []

    def pick(self, label: str, n: int) -> int:
        assert n >= 1
        self.labels.append(label)
        return self._random.randrange(n)


class FirstChance:
    """Always the first outcome: makes draws predictable (the bag gives its first kind in sorted order)."""

    def pick(self, label: str, n: int) -> int:
        return 0


def position(
    seats: Sequence[str] = ("red", "blue"),
    *,
    active: int = 0,
    coins: Mapping[str, int] | int = 5,
    shells: Mapping[str, Iterable[str]] | None = None,
    nursery: Sequence[str | None] | None = None,
    bag: Mapping[str, int] | None = None,
    stations: Mapping[str, tuple[int, int, bool]] | None = None,
    reefs: Sequence[tuple[str | None, Mapping[str, str]]] = (),
    seabed: Mapping[str, str] | None = None,
) -> State:
    """A hand-made state.

    ``stations``: ``{spot: (high, low, revealed)}`` (default: f5 6/3 and f8 4/2 revealed, the others
    reserved); ``reefs``: ``[(owner or None, {space: tile})]``, the diver on the first space listed;
    ``nursery``: 16 slots row by row (default: a full nursery of brain tiles); ``bag`` default: empty.
    """
    spec = dict(stations or {"f5": (6, 3, True), "f8": (4, 2, True)})
    station_map = {}
    for spot in SEA_MAP.spots:
        high, low, shown = spec.get(spot, (5, 2, False))
        station_map[spot] = Station(StationValue(high, low), revealed=shown)
    coin_of = coins if isinstance(coins, Mapping) else dict.fromkeys(seats, coins)
    shells = shells or {}
    state = State(
        seats=tuple(seats),
        players={
            s: Player(s, COLOURS[i], coin_of.get(s, 5), 0, shells=tuple(sorted(shells.get(s, ()))))
            for i, s in enumerate(seats)
        },
        active=active,
        nursery=list(nursery) if nursery is not None else ["brain"] * 16,
        bag=dict(bag or {}),
        tiles={},
        reef_at={},
        reefs={},
        next_reef=1,
        stations=station_map,
        seabed=dict(seabed or {}),
    )
    for owner, tiles in reefs:
        rid = state.next_reef
        state.next_reef += 1
        first = next(iter(tiles))
        kind = tiles[first].rstrip("*")
        state.reefs[rid] = Reef(rid, kind, owner, frozenset(tiles), first if owner else None)
        for at, tile in tiles.items():
            state.tiles[at] = tile
            state.reef_at[at] = rid
    return state


def orders(*steps: Any) -> Any:
    return TurnOrders.model_validate(list(steps))


def play(state: State, *steps: Any, chance: Any = None) -> tuple[State, list[str]]:
    """Check then resolve the active seat's orders; the new state and the event texts."""
    parsed = orders(*steps)
    GAME.check(state, state.seat, parsed)
    res = GAME.resolve(state, {state.seat: parsed}, chance or FirstChance())
    return res.state, [e.text for e in res.events]


def refused(state: State, *steps: Any) -> RulesError:
    """The error ``check`` gives for these orders (and ``resolve`` agrees)."""
    parsed = orders(*steps)
    with pytest.raises(RulesError) as info:
        GAME.check(state, state.seat, parsed)
    with pytest.raises(RulesError) as again:
        GAME.resolve(state, {state.seat: parsed}, FirstChance())
    assert again.value.code == info.value.code
    return info.value


def line(tiles: Sequence[str | None], row: int = 1) -> list[str | None]:
    """A nursery with ``tiles`` in the given row and every other slot empty... except one tile far away
    so that the nursery does not trigger a refill (more than 3 tiles must remain)."""
    nursery: list[str | None] = [None] * 16
    for c, t in enumerate(tiles):
        nursery[(row - 1) * 4 + c] = t
    # keep 4 tiles elsewhere so taking the line leaves more than 3: no refill, no new station
    others = [s for s in range(16) if s // 4 != row - 1][:4]
    for s in others:
        nursery[s] = "tube"
    return nursery


ALL_TILES = sum(TILE_COUNTS.values())
