"""The stand-in's hooks: hidden holdings dealt from the seat's view alone, candidates, evaluate, the
search's levels, and a decision that never depends on what the seat cannot see."""

from __future__ import annotations

from games.mare_balticum import GAME
from games.mare_balticum.state import dump_state

from .helpers import SeededChance, bot_positions


def test_resample_hidden_depends_on_the_seats_view_and_the_chance_only() -> None:
    compared = 0
    for options in ({}, {"contracts": True}):
        for state, seat, _bot in list(bot_positions(options, seed=4))[5::9]:
            # the same view for seat, other secrets: other warehouses, the bag, tokens, contracts
            twin = GAME.resample_hidden(state, seat, SeededChance(99))
            assert GAME.view(twin, seat) == GAME.view(state, seat)
            if dump_state(twin) == dump_state(state):
                continue
            for seed in (1, 2):
                assert dump_state(GAME.resample_hidden(state, seat, SeededChance(seed))) == dump_state(
                    GAME.resample_hidden(twin, seat, SeededChance(seed))
                )
            compared += 1
    assert compared >= 6
