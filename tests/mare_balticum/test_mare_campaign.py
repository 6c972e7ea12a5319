"""1,000 complete bot games of 3, 4 and 5 players with every option combination, checking after
every decision that all 68 goods and 6 time tokens are accounted for, no player has two ships on a
space, the fleet rule and the hold limit hold, and that every game ends."""

from __future__ import annotations

from collections import Counter

import pytest

from games.mare_balticum import GAME
from games.mare_balticum.board import ADJACENT, COMPONENTS, TIME
from games.mare_balticum.state import State
from pbem.core.game import Event

from .helpers import SEATS, play_bot_game

GAMES = 1000
CHUNKS = 20
COMBOS = [
    (n, {"demand": demand, "contracts": contracts})
    for n in (3, 4, 5)
    for demand in ("fixed", "placed")
    for contracts in (False, True)
]


def check_invariants(state: State, events: list[Event]) -> None:
    goods: Counter[str] = Counter()
    for area in state.board.values():
        goods.update(area)
    for p in state.players.values():
        goods.update(p.hold)
        goods.update(p.warehouse)
        goods.update(p.taxed)
        assert sum(p.hold.values()) <= COMPONENTS.hold_limit, p.hold
        assert len(set(p.ships)) == len(p.ships), f"{p.seat} has two ships on one space: {p.ships}"
        assert len(p.ships) + p.supply == COMPONENTS.ships[len(state.order)]
        if len(p.ships) > 1:
            own = set(p.ships)
            for space in p.ships:
                assert ADJACENT[space] & own, f"{p.seat}'s ship on {space} has no neighbour of its own"
        assert len(p.tokens) + len(p.market) + p.tax_paid == 5
    goods.update(state.discarded)
    goods.update({k: v for k, v in state.bag.items() if k != TIME})
    assert dict(goods) == COMPONENTS.goods, dict(goods)
    assert state.bag.get(TIME, 0) + state.time_track == COMPONENTS.time_tokens
    for slots in state.demand.values():
        held = [f for f in slots if f]
        assert len(set(held)) == len(held)
    for event in events:
        assert event.to is None or event.to in state.players


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_bot_games_keep_every_invariant_and_end(chunk: int) -> None:
    per = GAMES // CHUNKS
    for i in range(chunk * per, (chunk + 1) * per):
        n, options = COMBOS[i % len(COMBOS)]
        seats = SEATS[n]
        starting = seats[(i // len(COMBOS)) % n] if i % 2 else None
        state = play_bot_game(
            seats, {**options, "starting_player": starting}, seed=i, after_each=check_invariants
        )
        outcome = GAME.outcome(state)
        assert outcome is not None and GAME.pending(state) == {}
        assert state.time_track == COMPONENTS.time_tokens
        assert state.turns_done == state.end_after
        assert set(outcome.places.values()) <= set(range(1, n + 1)) and 1 in outcome.places.values()
