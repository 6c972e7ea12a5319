"""Plant: a nursery line paid per tile, every tile placed or discarded, the refill and a new station."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games.coral_divers import GAME
from games.coral_divers.orders import TurnOrders
from pbem.core.game import RulesError

from .conftest import RandomChance, line, orders, play, position, refused

MINE = [("red", {"f4": "brain"})]


def test_a_line_costs_one_coin_per_tile() -> None:
    state = position(nursery=line(["brain", None, "brain", "fan"]), reefs=MINE, coins=5)
    steps = [{"place": {"tile": 1, "at": "f3"}}, {"place": {"tile": 2, "at": "f2"}}, {"discard": {"tile": 3}}]
    after, events = play(state, {"plant": {"line": "row 1"}}, *steps)
    assert after.players["red"].coins == 2
    assert after.nursery[:4] == [None, None, None, None]
    assert events[0].startswith("red planted row 1 for 3 coins")


def test_a_line_you_cannot_afford_cannot_be_chosen() -> None:
    state = position(nursery=line(["brain", "brain", "fan"]), reefs=MINE, coins=2)
    err = refused(state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 1}})
    assert (err.code, err.step) == ("plant.cannot_afford", 0)
    assert "costs more than you have (tiles: 3, cost: 3, your coins: 2)" in err.message


def test_a_line_must_hold_a_tile() -> None:
    err = refused(position(nursery=line(["brain"])), {"plant": {"line": "row 3"}})
    assert err.code == "plant.empty_line"


def test_a_column_is_a_line_too_and_tiles_are_numbered_down_it() -> None:
    nursery: list[str | None] = [None] * 16
    nursery[1], nursery[9], nursery[13] = "fan", "brain", "tube"
    nursery[0] = nursery[4] = nursery[8] = nursery[12] = "staghorn"
    state = position(nursery=nursery, reefs=MINE)
    state.lines = "rows-and-columns"  # the option: columns are lines only when it is chosen
    after, _ = play(
        state,
        {"plant": {"line": "column 2"}},
        {"place": {"tile": 2, "at": "f3"}},
        {"discard": {"tile": 1}},
        {"discard": {"tile": 3}},
    )
    assert after.tiles["f3"] == "brain"
    assert after.players["red"].coins == 2


def test_a_discarded_tile_costs_three_points() -> None:
    after, events = play(
        position(nursery=line(["fan", "tube"])),
        {"plant": {"line": "row 1"}},
        {"discard": {"tile": 2}},
        {"discard": {"tile": 1}},
    )
    assert after.players["red"].points == -6 and after.players["red"].discarded == 2
    assert "discarded tube (-3)" in events[0]


def test_every_taken_tile_must_be_placed_or_discarded() -> None:
    err = refused(
        position(nursery=line(["fan", "tube"])), {"plant": {"line": "row 1"}}, {"discard": {"tile": 2}}
    )
    assert (err.code, err.step) == ("plant.tiles_left", None)
    assert "tile 1" in err.message


def test_tiles_are_placed_after_the_line_is_taken() -> None:
    err = refused(
        position(nursery=line(["fan"])), {"place": {"tile": 1, "at": "f4"}}, {"plant": {"line": "row 1"}}
    )
    assert (err.code, err.step) == ("place.before_plant", 0)


def test_one_line_per_turn() -> None:
    state = position(nursery=line(["fan"]))
    err = refused(state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 1}}, {"plant": {"line": "row 2"}})
    assert (err.code, err.step) == ("plant.twice", 2)


def test_tile_numbers_name_the_taken_tiles_once_each() -> None:
    state = position(nursery=line(["fan", "tube"]))
    err = refused(state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 3}})
    assert err.code == "place.no_such_tile"
    err = refused(
        state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 1}}, {"place": {"tile": 1, "at": "f4"}}
    )
    assert (err.code, err.step) == ("place.tile_used", 2)


def test_a_plant_needs_a_line() -> None:
    err = refused(position(shells={"red": ["pearl"]}), {"shell": "pearl"})
    assert err.code == "plant.no_line"


def test_one_action_per_turn() -> None:
    state = position(nursery=line(["fan"]), reefs=MINE)
    err = refused(state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 1}}, {"surface": ["f4"]})
    assert (err.code, err.step) == ("turn.one_action", 2)
    err = refused(state, {"surface": ["f4"]}, {"plant": {"line": "row 1"}})
    assert (err.code, err.step) == ("turn.one_action", 1)


def test_only_the_active_seat_acts() -> None:
    state = position(nursery=line(["fan"]))
    with pytest.raises(RulesError) as info:
        GAME.check(state, "blue", orders({"plant": {"line": "row 1"}}, {"discard": {"tile": 1}}))
    assert info.value.code == "turn.not_yours"


def test_passing_is_not_allowed() -> None:
    with pytest.raises(ValidationError):
        TurnOrders.model_validate([])
    with pytest.raises(ValidationError):
        TurnOrders.model_validate(["pass"])


@pytest.mark.parametrize(
    "bad",
    [
        [{"plant": {"line": "row 5"}}],
        [{"plant": {"line": "diagonal 1"}}],
        [{"place": {"tile": 1, "at": "l4"}}],
        [{"place": {"tile": 0, "at": "e4"}}],
        [{"place": {"tile": 1, "at": "e4", "diver": True}}],
        [{"shell": "conch"}],
        [{"surface": "e4"}],
    ],
)
def test_order_shapes_are_checked_before_the_rules(bad: list[object]) -> None:
    with pytest.raises(ValidationError):
        TurnOrders.model_validate(bad)


def refill_position(count: int, bag: dict[str, int]) -> object:
    nursery: list[str | None] = [None] * 16
    for s in (0, 1, *range(4, 4 + count - 2)):
        nursery[s] = "fan"
    return position(nursery=nursery, bag=bag)


def test_three_or_fewer_left_reveals_a_station_and_refills_the_nursery() -> None:
    state = refill_position(5, {"tube": 20})
    after, events = play(
        state,
        {"plant": {"line": "row 1"}},
        {"discard": {"tile": 1}},
        {"discard": {"tile": 2}},
        chance=RandomChance(1),
    )
    assert all(t is not None for t in after.nursery)
    assert sum(after.bag.values()) == 20 - 13
    assert sum(1 for s in after.stations.values() if s.revealed) == 3
    assert any(e.startswith("a new station is revealed at") for e in events)
    assert "the nursery is refilled (tiles: 13; left in the bag: 7)" in events


def test_four_left_means_no_refill_and_no_station() -> None:
    state = refill_position(6, {"tube": 20})
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 1}}, {"discard": {"tile": 2}})
    assert after.nursery_count() == 4 and sum(after.bag.values()) == 20
    assert sum(1 for s in after.stations.values() if s.revealed) == 2


def test_the_refill_takes_what_the_bag_still_holds() -> None:
    state = refill_position(5, {"tube": 2})
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 1}}, {"discard": {"tile": 2}})
    assert after.nursery_count() == 5 and after.bag == {}


def test_the_refill_comes_without_a_station_once_all_are_revealed() -> None:
    spots = {s: (5, 2, True) for s in ("c3", "i3", "f5", "c7", "i7", "f8")}
    nursery: list[str | None] = [None] * 16
    nursery[0] = nursery[1] = nursery[4] = "fan"
    state = position(nursery=nursery, bag={"tube": 20}, stations=spots)
    after, events = play(
        state, {"plant": {"line": "row 1"}}, {"discard": {"tile": 1}}, {"discard": {"tile": 2}}
    )
    assert after.nursery_count() == 16
    assert not any("new station" in e for e in events)
