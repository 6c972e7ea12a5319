"""What a seat cannot see never steers what is dealt or decided for it: the resample of hidden holdings
and the stand-in's decisions are functions of the seat's view and the chance alone."""

from __future__ import annotations

from games.reef_encounter import GAME
from games.reef_encounter.state import dump
from pbem.core.search import decide

from .conftest import SeededChance
from .test_guide import positions


def test_a_resample_depends_on_the_view_and_the_chance_only() -> None:
    """Two states a seat cannot tell apart (the secrets dealt differently) resample alike."""
    compared = 0
    for k, (state, seat, _) in enumerate(positions(7, players=3, every=4)):
        if state.phase != "play":
            continue
        twin = GAME.resample_hidden(state, seat, SeededChance(1000 + k))
        assert GAME.view(twin, seat) == GAME.view(state, seat)
        if dump(twin) == dump(state):
            continue
        for draw in range(3):
            assert dump(GAME.resample_hidden(state, seat, SeededChance(draw))) == dump(
                GAME.resample_hidden(twin, seat, SeededChance(draw))
            )
        compared += 1
    assert compared > 5


def test_the_strong_stand_in_decides_the_same_whatever_it_cannot_see() -> None:
    """Every secret dealt anew (the other screens and parrotfish, the larvae held, the bag's colours;
    the bag's order and the draws to come are the chance's, never the state's): the same orders."""
    decided = 0
    games = [*positions(8, players=2, every=7), *positions(9, players=3, every=11)]
    for k, (state, seat, _) in enumerate(games):
        if k % 2:
            continue
        twin = GAME.resample_hidden(state, seat, SeededChance(500 + k))
        assert GAME.view(twin, seat) == GAME.view(state, seat)
        if dump(twin) == dump(state):
            continue
        assert decide(GAME, state, seat, SeededChance(k), "strong") == decide(
            GAME, twin, seat, SeededChance(k), "strong"
        )
        decided += 1
    assert decided >= 4
