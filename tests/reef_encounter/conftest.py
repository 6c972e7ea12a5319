"""Fixtures for the Reef Encounter tests: a seeded chance, hand-built positions and the invariants."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.data import (
    ALGAE_COLOURS,
    ALGAE_PER_COLOUR,
    ALL_SAND,
    CORAL_COLOURS,
    LARVAE_PER_COLOUR,
    OPEN_SEA,
    POLYPS_PER_COLOUR,
    SHRIMP_COLOURS,
    SHRIMP_PER_PLAYER,
    TILES,
)
from games.reef_encounter.reef import coral, values
from games.reef_encounter.state import Player, SeaSpace, State, zero
from pbem.core.game import RulesError


class SeededChance:
    """A deterministic chance for tests (tests may use :mod:`random`; the engine may not)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.record: list[tuple[str, int, int]] = []

    def pick(self, label: str, n: int) -> int:
        k = self.rng.randrange(n)
        self.record.append((label, n, k))
        return k


class ScriptedChance:
    """Answers from a list of outcomes, in order."""

    def __init__(self, outcomes: Iterable[int]) -> None:
        self.outcomes = list(outcomes)

    def pick(self, label: str, n: int) -> int:
        k = self.outcomes.pop(0)
        assert 0 <= k < n
        return k


def counts(**kw: int) -> dict[str, int]:
    out = zero()
    out.update(kw)
    return out


def make_state(
    seats: tuple[str, ...] = ("purple", "green"),
    boards: tuple[str, ...] = ("B", "D"),
    polyps: Mapping[str, str] | None = None,
    shrimp: Mapping[str, str] | None = None,
    screens: Mapping[str, Mapping[str, int]] | None = None,
    larvae: Mapping[str, Mapping[str, int]] | None = None,
    fronts: Mapping[str, Mapping[str, int]] | None = None,
    fish: Mapping[str, Mapping[str, int]] | None = None,
    fed: Mapping[str, int] | None = None,
    active: str | None = None,
    advanced: bool = False,
) -> State:
    """A position in play: the given pieces, one polyp of the space's colour on each open-sea space,
    a full bonus row, every tile starfish side up, and every other piece in the bag or supply."""
    players = {s: Player(s, SHRIMP_COLOURS[i]) for i, s in enumerate(seats)}
    state = State(list(seats), players, advanced, sorted(boards))
    state.polyps = dict(polyps or {})
    state.shrimp = dict(shrimp or {})
    for s, p in players.items():
        p.screen = counts(**(screens or {}).get(s, {}))
        p.larvae = counts(**(larvae or {}).get(s, {}))
        p.front = counts(**(fronts or {}).get(s, {}))
        p.parrotfish = counts(**(fish or {}).get(s, {}))
        p.feedings = (fed or {}).get(s, 0)
        p.sea_shrimp = p.feedings >= 1
        p.eaten_shrimp = max(0, p.feedings - 1)
        on_board = sum(1 for w in state.shrimp.values() if w == s)
        p.shrimp = SHRIMP_PER_PLAYER - on_board - p.feedings
    state.sea = {name: SeaSpace(True, counts(**{name: 1})) for name in OPEN_SEA}
    state.bonus = dict.fromkeys(CORAL_COLOURS, 1)
    state.larva_supply = {
        c: LARVAE_PER_COLOUR - 1 - sum(p.larvae[c] for p in players.values()) for c in CORAL_COLOURS
    }
    state.algae_supply = dict.fromkeys(ALGAE_COLOURS, ALGAE_PER_COLOUR)
    state.bag = {}
    for c in CORAL_COLOURS:
        used = sum(1 for v in state.polyps.values() if v == c) + 1 + 1
        used += sum(p.screen[c] + p.front[c] + p.parrotfish[c] for p in players.values())
        state.bag[c] = POLYPS_PER_COLOUR - used
    state.phase = "play"
    state.active = active or seats[0]
    check_invariants(state)
    return state


def turn(state: State, data: list[Any], chance: Any = None) -> tuple[State, list[str]]:
    """Check and resolve the active seat's turn; returns the new state and the public event texts."""
    seat = state.active
    decision = GAME.pending(state)[seat]
    model = GAME.order_model(decision).model_validate(data)
    GAME.check(state, seat, model)
    res = GAME.resolve(state, {seat: model}, chance or SeededChance(0))
    return res.state, [e.text for e in res.events if e.to is None]


def rejected(state: State, data: list[Any], seat: str | None = None) -> RulesError:
    """The error ``check`` raises for these orders (the test fails if they are accepted)."""
    seat = seat or state.active
    model = GAME.order_model(GAME.pending(state)[seat]).model_validate(data)
    with pytest.raises(RulesError) as info:
        GAME.check(state, seat, model)
    return info.value


def check_invariants(state: State, turn_over: bool = True) -> None:
    """Every piece accounted for and no illegal position (the campaign checks this after every turn)."""
    players = state.players.values()
    for c in CORAL_COLOURS:
        total = sum(1 for v in state.polyps.values() if v == c) + state.bag[c] + state.bonus[c]
        total += sum(sp.polyps[c] for sp in state.sea.values())
        total += sum(p.screen[c] + p.front[c] + p.parrotfish[c] for p in players)
        assert total == POLYPS_PER_COLOUR, f"{c} polyps: {total}"
        larvae = state.larva_supply[c] + sum(p.larvae[c] for p in players)
        larvae += sum(1 for name, sp in state.sea.items() if sp.larva and name == c)
        assert larvae == LARVAE_PER_COLOUR, f"{c} larvae: {larvae}"
        assert min(state.bag[c], state.larva_supply[c], state.bonus[c]) >= 0
        assert all(min(p.screen[c], p.front[c], p.parrotfish[c], p.larvae[c]) >= 0 for p in players)
    for alga in ALGAE_COLOURS:
        n = (
            state.algae_supply[alga]
            + (state.algae_space == alga)
            + sum(v == alga for v in state.locks.values())
        )
        assert n == ALGAE_PER_COLOUR, f"{alga} algae: {n}"
    assert set(state.locks) <= set(TILES)
    for p in players:
        on_board = sum(1 for w in state.shrimp.values() if w == p.seat)
        assert p.shrimp + on_board + p.sea_shrimp + p.eaten_shrimp == SHRIMP_PER_PLAYER, p.seat
        assert p.feedings == p.sea_shrimp + p.eaten_shrimp
        for b in state.boards:
            assert sum(1 for s, w in state.shrimp.items() if w == p.seat and s[0] == b) <= 2
    assert sum(values(state).values()) == 15
    for space in state.polyps:
        assert space not in ALL_SAND and space[0] in state.boards, space
    seen: set[str] = set()
    for space in state.shrimp:
        assert space[0] in state.boards
        if turn_over:
            assert space in state.polyps, f"shrimp on empty rock at {space}"
        if space in state.polyps:
            c = coral(state, space)
            assert not (c & seen), f"two shrimp on one coral ({space})"
            seen |= c
