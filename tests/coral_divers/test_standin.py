"""The stand-in's side of Coral Divers: worlds dealt from the seat's view alone, the search's hooks, and
a search that never cheats."""

from __future__ import annotations

import json

import pytest

from games.coral_divers import GAME
from games.coral_divers.state import State

from .conftest import RandomChance
from .test_properties import states


def dumped(state: State) -> str:
    return json.dumps(GAME.dump_state(state), sort_keys=True)


def positions(players: int, seed: int, every: int) -> list[State]:
    return [s for s, parsed in states(players, seed) if parsed is not None and s.actions % every == 0]


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (3, 6)])
def test_resampling_depends_on_the_view_and_the_chance_alone(players: int, seed: int) -> None:
    """Two states a seat cannot tell apart (the tokens and reserved stations lying elsewhere) are dealt
    the same world by the same chance."""
    tried = 0
    for state in positions(players, seed, 5):
        seat = state.seat
        other = GAME.resample_hidden(state, seat, RandomChance(1000 + state.actions))
        assert GAME.view(other, seat) == GAME.view(state, seat)
        if dumped(other) == dumped(state):
            continue  # nothing hidden left to tell the two apart
        tried += 1
        for k in range(3):
            mine = GAME.resample_hidden(state, seat, RandomChance(k))
            theirs = GAME.resample_hidden(other, seat, RandomChance(k))
            assert dumped(mine) == dumped(theirs)
    assert tried >= 5
