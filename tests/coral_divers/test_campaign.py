"""1,000 complete bot games of 2, 3 and 4 players, with the invariants checked after every turn:
80 tiles and 16 seabed tokens accounted for, coins within 0-12, every reef with exactly one diver or
none, every bot order accepted by ``check``, ``resolve`` leaving its input alone, and every game ending.
"""

from __future__ import annotations

from collections import Counter

import pytest

from games.coral_divers import GAME
from games.coral_divers.data import ECONOMY, SEA_MAP, TOKENS
from games.coral_divers.state import State, coral

from .conftest import ALL_TILES, RandomChance

GAMES = 1000
CHUNKS = 20
#: far above any real game: 80 tiles, at least one leaves the nursery each Plant
TURN_LIMIT = 600


def check_invariants(state: State) -> None:
    discarded = sum(p.discarded for p in state.players.values())
    tiles = sum(state.bag.values()) + state.nursery_count() + len(state.tiles) + discarded + state.cleared
    assert tiles == ALL_TILES, f"{tiles} tiles accounted for"
    held = sum(len(p.shells) + len(p.fish) + len(p.used) for p in state.players.values())
    assert len(state.seabed) + held == len(TOKENS)
    kinds = Counter(state.seabed.values())
    for p in state.players.values():
        kinds.update(p.shells)
        kinds.update(p.used)
        kinds.update(f"fish-{v}" for v in p.fish)
    assert kinds == Counter(TOKENS)
    for p in state.players.values():
        assert 0 <= p.coins <= ECONOMY.coin_cap
        assert 0 <= state.divers_on_board(p.seat) <= ECONOMY.divers
    seen: set[str] = set()
    for reef in state.reefs.values():
        assert (reef.owner is None) == (reef.diver is None), "a reef has exactly one diver or none"
        assert reef.diver is None or reef.diver in reef.cells
        assert not (reef.cells & seen)
        seen |= reef.cells
        for c in reef.cells:
            assert state.reef_at[c] == reef.id and coral(state.tiles[c]) == reef.coral
            assert SEA_MAP.terrain[c] == "." and c not in state.seabed
    assert seen == set(state.tiles) == set(state.reef_at)
    for c, tile in state.tiles.items():
        for q in SEA_MAP.orthogonal[c]:
            if q in state.tiles and coral(state.tiles[q]) == coral(tile):
                assert state.reef_at[q] == state.reef_at[c], (
                    f"touching {coral(tile)} tiles {c} {q} in two reefs"
                )


def play_one(seed: int) -> int:
    n = 2 + seed % 3
    chance = RandomChance(seed)
    state = GAME.setup(["ann", "bob", "cy", "dee"][:n], GAME.options_model(), chance)
    check_invariants(state)
    for turn in range(TURN_LIMIT):
        if GAME.outcome(state) is not None:
            assert GAME.pending(state) == {}
            return turn
        ((seat, decision),) = GAME.pending(state).items()
        parsed = GAME.order_model(decision).model_validate(GAME.bot(state, seat, chance))
        GAME.check(state, seat, parsed)
        old, before = state, GAME.dump_state(state)
        state = GAME.resolve(state, {seat: parsed}, chance).state
        assert GAME.dump_state(old) == before, "resolve changed its input"
        check_invariants(state)
    raise AssertionError(f"game {seed} did not end within {TURN_LIMIT} turns")


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_bot_games_keep_every_invariant_and_end(chunk: int) -> None:
    per = GAMES // CHUNKS
    lengths = [play_one(seed) for seed in range(chunk * per, (chunk + 1) * per)]
    assert all(length > 0 for length in lengths)


def test_options_campaigns_end_and_keep_every_invariant() -> None:
    """The rules file's cap and the columns option: a few bot games each, every invariant held."""
    for seed in range(6):
        n = 2 + seed % 3
        chance = RandomChance(seed)
        options = GAME.options_model(lines="rows-and-columns", new_reefs="one-a-turn")
        state = GAME.setup(["ann", "bob", "cy", "dee"][:n], options, chance)
        for _ in range(TURN_LIMIT):
            if GAME.outcome(state) is not None:
                break
            ((seat, decision),) = GAME.pending(state).items()
            parsed = GAME.order_model(decision).model_validate(GAME.bot(state, seat, chance))
            GAME.check(state, seat, parsed)
            state = GAME.resolve(state, {seat: parsed}, chance).state
            check_invariants(state)
        assert GAME.outcome(state) is not None
