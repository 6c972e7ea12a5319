"""The stand-in never cheats: at every level its orders are a function of the seat's own view and of
the chance handed in. For positions of every shipped game, every secret the seat cannot see (other
screens, the bag's order, face-down tokens: all the game's ``resample_hidden`` deals anew) is changed,
and the decision must stay the same at every level."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.core import registry, search
from pbem.core.chance import Recorder
from pbem.core.codec import canonical_json
from pbem.core.game import Game

SHIPPED = ("coral-divers", "mare-balticum", "reef-encounter")
#: the resolutions a position is taken after: the opening, and one well into the game
POSITIONS = (0, 9, 24)


def positions(game: Game, seed: int) -> list[Any]:
    """States of a game the heuristic plays from ``seed``, after each of :data:`POSITIONS` turns."""
    rng = random.Random(seed)
    seats = [f"s{i}" for i in range(max(game.min_players, 2))]
    state = game.setup(seats, game.options_model.model_validate({}), Recorder(rng))
    found = []
    for number in range(max(POSITIONS) + 1):
        if number in POSITIONS and game.pending(state):
            found.append(state)
        pending = game.pending(state)
        if not pending:
            break
        given = {
            seat: game.order_model(decision).model_validate(game.bot(state, seat, Recorder(rng)))
            for seat, decision in pending.items()
        }
        state = game.resolve(state, given, Recorder(rng)).state
    return found


def _dumped(game: Game, state: Any) -> str:
    return canonical_json(game.dump_state(state))


def fresh(seed: int) -> Recorder:
    """The chance a host hands the stand-in, the same for both states compared."""
    return Recorder(random.Random(seed))


@pytest.mark.parametrize("game_name", SHIPPED)
def test_changing_every_secret_the_seat_cannot_see_changes_no_decision(game_name: str) -> None:
    game = registry.get_game(game_name)
    changed = 0
    for state in positions(game, seed=len(game_name)):
        for seat in sorted(game.pending(state)):
            # a deal that differs where one does (a bag of counts may come out as it was)
            deals = [game.resample_hidden(state, seat, fresh(7919 + i)) for i in range(5)]
            other = next((d for d in deals if _dumped(game, d) != _dumped(game, state)), deals[0])
            assert game.view(other, seat) == game.view(state, seat)  # the seat cannot tell them apart
            changed += _dumped(game, other) != _dumped(game, state)
            for level in search.LEVELS:
                assert search.decide(game, other, seat, fresh(17), level) == search.decide(
                    game, state, seat, fresh(17), level
                ), f"{game_name}: {seat} decides otherwise at {level} when only its secrets change"
    assert changed  # secrets were changed: the test could have failed
