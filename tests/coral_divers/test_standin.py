"""The stand-in's side of Coral Divers: worlds dealt from the seat's view alone, the search's hooks, and
a search that never cheats."""

from __future__ import annotations

import json

import pytest

from games.coral_divers import GAME
from games.coral_divers.state import State
from pbem.core.game import RulesError, StandIn
from pbem.core.search import LEVELS, Budget, decide

from .conftest import RandomChance, position
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


def legal(state: State, orders: object) -> bool:
    try:
        GAME.check(
            state, state.seat, GAME.order_model(GAME.pending(state)[state.seat]).model_validate(orders)
        )
    except (RulesError, ValueError):
        return False
    return True


def test_the_game_offers_the_stand_in_hooks() -> None:
    assert isinstance(GAME, StandIn)


@pytest.mark.parametrize(("players", "seed"), [(2, 12), (3, 13)])
def test_candidates_are_distinct_legal_plans_the_bots_first(players: int, seed: int) -> None:
    kinds = set()
    for state in positions(players, seed, 3):
        found = GAME.candidates(state, state.seat, RandomChance(state.actions), 6)
        assert found[0] == GAME.bot(state, state.seat, RandomChance(state.actions))
        assert 1 <= len(found) <= 6
        assert all(legal(state, orders) for orders in found)
        assert len({json.dumps(o, sort_keys=True) for o in found}) == len(found)
        kinds.update(next(iter(o[0])) if o[0] != {"surface": []} else "surface" for o in found)
        # not one plan reshuffled: the lines or the reefs closed differ between candidates
        plans = [
            tuple(s["plant"]["line"] for s in o if "plant" in s) or tuple(o[0].get("surface", ()))
            for o in found
        ]
        assert len(set(plans)) >= len(plans) - 1
    assert {"plant", "surface"} <= kinds


def test_a_seat_with_reefs_may_compare_planting_with_every_way_of_surfacing() -> None:
    state = position(reefs=[("red", {"f4": "brain", "f3": "brain"}), ("red", {"e5": "fan"})], coins=5)
    found = GAME.candidates(state, "red", RandomChance(0), 8)
    surfaces = [o[0]["surface"] for o in found if "surface" in o[0]]
    assert sorted(map(sorted, surfaces)) == [["e5"], ["e5", "f3"], ["f3"]]
    assert any("plant" in step for o in found for step in o)


def test_evaluate_follows_the_lead_and_the_places() -> None:
    even = position(reefs=[("red", {"a1": "brain"}), ("blue", {"k9": "brain"})])
    assert GAME.evaluate(even, "red") == pytest.approx(0.5)
    ahead = position(reefs=[("red", {"a1": "brain", "a2": "brain", "a3": "brain"}), ("blue", {"k9": "fan"})])
    assert 0.5 < GAME.evaluate(ahead, "red") < 1 and GAME.evaluate(ahead, "blue") < 0.5
    (end,) = [s for s, parsed in states(2, 4) if parsed is None]
    winner = min(end.seats, key=lambda s: end.places[s])
    assert (
        GAME.evaluate(end, winner) == 1.0 and GAME.evaluate(end, "bob" if winner == "ann" else "ann") == 0.0
    )


def test_a_station_counts_for_its_leader_before_it_scores() -> None:
    """Blue leads at an open station with its ring nearly full: the station's promise puts it ahead."""
    state = position(
        stations={"f5": (8, 4, True), "f8": (4, 2, True)},
        reefs=[("blue", {"e4": "brain", "f4": "brain", "g4": "brain"}), ("red", {"g5": "fan"})],
    )
    assert GAME.evaluate(state, "blue") > 0.5 > GAME.evaluate(state, "red")


LEVEL_POSITIONS = [s for s in positions(2, 31, 9)][:3]


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_gives_orders_check_accepts(level: str) -> None:
    for state in LEVEL_POSITIONS:
        orders = decide(GAME, state, state.seat, RandomChance(state.actions), level)
        assert legal(state, orders), orders


def test_the_search_never_cheats() -> None:
    """Every secret the seat cannot see dealt anew (the face-down tokens, the reserved stations; the
    bag has no order to change): the strong stand-in gives the same orders with the same chance."""
    changed = 0
    for state in positions(2, 41, 7)[:4]:
        seat = state.seat
        mine = decide(GAME, state, seat, RandomChance(7), "strong")
        for k in range(2):
            other = GAME.resample_hidden(state, seat, RandomChance(100 + k))
            changed += dumped(other) != dumped(state)
            assert decide(GAME, other, seat, RandomChance(7), "strong") == mine
    assert changed >= 4


def test_a_search_in_one_world_never_cheats_either() -> None:
    """The strong level's orders rarely turn on a hidden token, so the same question is asked where
    they would: one world each, many positions (with the tokens dealt from where they really lie,
    6 of these 24 decisions changed)."""
    for seed in (41, 42):
        for state in positions(2, seed, 3)[:12]:
            seat = state.seat
            other = GAME.resample_hidden(state, seat, RandomChance(100))
            tiny = Budget(candidates=8, worlds=1, horizon=3)
            mine = decide(GAME, state, seat, RandomChance(7), "strong", budget=tiny)
            assert decide(GAME, other, seat, RandomChance(7), "strong", budget=tiny) == mine
