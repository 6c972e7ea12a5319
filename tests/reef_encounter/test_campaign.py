"""1,000 complete bot games (2, 3 and 4 players, basic and advanced) with the invariants after every turn:
every polyp, larva, alga and shrimp accounted for, colour values summing to 15, no illegal position, and
every game ending."""

from __future__ import annotations

import pytest

from games.reef_encounter import GAME
from pbem.core.steps import dump_steps

from .conftest import SeededChance, check_invariants

GAMES = 1000
CHUNKS = 20
TURN_LIMIT = 400


def play(seed: int, players: int, advanced: bool) -> tuple[int, str]:
    seats = ["ann", "bob", "cy", "dee"][:players]
    chance = SeededChance(seed)
    state = GAME.setup(seats, GAME.options_model(advanced=advanced), chance)
    check_invariants(state)
    for turns in range(TURN_LIMIT):
        outcome = GAME.outcome(state)
        if outcome is not None:
            assert GAME.pending(state) == {}
            assert set(outcome.places) == set(seats) and min(outcome.places.values()) == 1
            return turns, outcome.reason
        orders = {}
        for seat, decision in GAME.pending(state).items():
            model = GAME.order_model(decision)
            parsed = model.model_validate(GAME.bot(state, seat, chance))
            assert model.model_validate(dump_steps(parsed)) == parsed
            GAME.check(state, seat, parsed)
            orders[seat] = parsed
        state = GAME.resolve(state, orders, chance).state
        check_invariants(state)
    raise AssertionError(f"game {seed} did not end in {TURN_LIMIT} turns")


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_bot_games_keep_every_invariant_and_end(chunk: int) -> None:
    per_chunk = GAMES // CHUNKS
    reasons = set()
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        _, reason = play(seed, players=2 + seed % 3, advanced=seed % 2 == 1)
        reasons.add(reason.split(":")[0])
    assert reasons
