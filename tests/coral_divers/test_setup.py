"""Setup: nursery, stations, seabed tokens, divers and coins, starting player, colours."""

from __future__ import annotations

from collections import Counter

import pytest

from games.coral_divers import GAME
from games.coral_divers.data import SEA_MAP, STATION_VALUES, TOKENS
from pbem.core.game import Game, RulesError

from .conftest import ALL_TILES, RandomChance


def test_game_satisfies_the_contract() -> None:
    assert isinstance(GAME, Game)
    assert (GAME.name, GAME.min_players, GAME.max_players) == ("coral-divers", 2, 4)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_deals_nursery_stations_tokens_and_purses(n: int) -> None:
    seats = ["ann", "bob", "cy", "dee"][:n]
    state = GAME.setup(seats, GAME.options_model(), RandomChance(n))
    assert all(t is not None for t in state.nursery) and len(state.nursery) == 16
    assert sum(state.bag.values()) == ALL_TILES - 16
    dealt = sorted((s.value.high, s.value.low) for s in state.stations.values())
    assert dealt == sorted((v.high, v.low) for v in STATION_VALUES)
    assert sum(1 for s in state.stations.values() if s.revealed) == 2
    assert Counter(state.seabed.values()) == Counter(TOKENS)
    rings = {s for spot in SEA_MAP.spots for s in SEA_MAP.ring[spot]}
    assert all(SEA_MAP.terrain[s] == "." and s not in rings for s in state.seabed)
    for seat in seats:
        assert state.players[seat].coins == 5
        assert state.divers_on_board(seat) == 5
    assert not state.tiles and not state.reefs


def test_setup_is_deterministic_for_the_same_draws() -> None:
    a = GAME.setup(["ann", "bob"], GAME.options_model(), RandomChance(7))
    b = GAME.setup(["ann", "bob"], GAME.options_model(), RandomChance(7))
    assert GAME.dump_state(a) == GAME.dump_state(b)


def test_colours_follow_seating_order() -> None:
    state = GAME.setup(["zed", "amy", "kim", "bo"], GAME.options_model(), RandomChance(1))
    assert GAME.view(state, None)["colours"] == {"zed": "red", "amy": "blue", "kim": "yellow", "bo": "white"}


def test_starting_player_option_chooses_the_first_seat() -> None:
    for first in ("ann", "bob", "cy"):
        opts = GAME.options_model(starting_player=first)
        state = GAME.setup(["ann", "bob", "cy"], opts, RandomChance(3))
        assert list(GAME.pending(state)) == [first]


def test_starting_player_must_be_a_seat() -> None:
    with pytest.raises(RulesError) as info:
        GAME.setup(["ann", "bob"], GAME.options_model(starting_player="zoe"), RandomChance(3))
    assert info.value.code == "setup.starting_player"


def test_options_reject_unknown_keys() -> None:
    with pytest.raises(ValueError):
        GAME.options_model(rounds=3)


@pytest.mark.parametrize("seats", [["solo"], ["a", "b", "c", "d", "e"], ["a", "a"]])
def test_two_to_four_distinct_seats(seats: list[str]) -> None:
    with pytest.raises(RulesError) as info:
        GAME.setup(seats, GAME.options_model(), RandomChance(1))
    assert info.value.code == "setup.seats"


def test_play_goes_in_seating_order() -> None:
    state = GAME.setup(["ann", "bob", "cy"], GAME.options_model(starting_player="bob"), RandomChance(5))
    seen = []
    chance = RandomChance(6)
    for _ in range(4):
        seat = next(iter(GAME.pending(state)))
        seen.append(seat)
        data = GAME.bot(state, seat, chance)
        parsed = GAME.order_model(GAME.pending(state)[seat]).model_validate(data)
        state = GAME.resolve(state, {seat: parsed}, chance).state
    assert seen == ["bob", "cy", "ann", "bob"]
