"""What a seat cannot see never steers what is dealt or decided for it: the resample of hidden holdings
and the stand-in's decisions are functions of the seat's view and the chance alone."""

from __future__ import annotations

from games.reef_encounter import GAME
from games.reef_encounter.state import dump

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
