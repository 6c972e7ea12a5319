"""Shells: pearl, extra-tile, free-start, discount; used before, between or after placements."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games.coral_divers.orders import TurnOrders

from .conftest import line, play, position, refused

MINE = [("red", {"f4": "brain"})]


def test_a_pearl_gains_two_coins_and_is_removed() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE, shells={"red": ["pearl", "pearl"]}, coins=3)
    after, events = play(
        state, {"plant": {"line": "row 1"}}, {"shell": "pearl"}, {"place": {"tile": 1, "at": "f3"}}
    )
    assert after.players["red"].coins == 3 - 1 + 2
    assert after.players["red"].shells == ("pearl",) and after.players["red"].used == ("pearl",)
    assert "used a pearl (+2 coins)" in events[0]


def test_a_pearl_before_the_line_pays_for_it() -> None:
    state = position(nursery=line(["brain", "brain", "brain"]), shells={"red": ["pearl"]}, coins=1)
    assert refused(state, {"plant": {"line": "row 1"}}).code == "plant.cannot_afford"
    after, _ = play(
        state,
        {"shell": "pearl"},
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f4"}},
        {"place": {"tile": 2, "at": "f3"}},
        {"place": {"tile": 3, "at": "f2"}},
    )
    assert after.players["red"].coins == 0


def test_a_pearl_never_lifts_coins_above_twelve() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE, shells={"red": ["pearl"]}, coins=12)
    after, _ = play(
        state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}}, {"shell": "pearl"}
    )
    assert after.players["red"].coins == 12


def test_a_shell_must_be_in_front_of_you() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE, shells={"blue": ["pearl"]})
    err = refused(state, {"shell": "pearl"}, {"plant": {"line": "row 1"}})
    assert (err.code, err.step) == ("shell.not_held", 0)
    state = position(nursery=line(["brain"]), reefs=MINE, shells={"red": ["pearl"]})
    err = refused(state, {"shell": "pearl"}, {"shell": "pearl"}, {"plant": {"line": "row 1"}})
    assert (err.code, err.step) == ("shell.not_held", 1)


def test_a_shell_taken_this_turn_waits_for_your_next_turn() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE, seabed={"f3": "pearl"})
    err = refused(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}}, {"shell": "pearl"})
    assert (err.code, err.step) == ("shell.not_held", 2)
    # the refusal is the same whatever the face-down token is: it depends on nothing hidden
    other = position(nursery=line(["brain"]), reefs=MINE, seabed={"f3": "discount"})
    again = refused(
        other, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}}, {"shell": "pearl"}
    )
    assert str(again) == str(err)


def test_a_discount_makes_the_line_free() -> None:
    state = position(nursery=line(["brain", "brain", "brain"]), shells={"red": ["discount"]}, coins=0)
    after, events = play(
        state,
        {"shell": "discount"},
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f4"}},
        {"place": {"tile": 2, "at": "f3"}},
        {"discard": {"tile": 3}},
    )
    assert after.players["red"].coins == 0 and after.players["red"].used == ("discount",)
    assert "planted row 1 free (discount)" in events[0]


def test_a_discount_comes_before_the_line() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE, shells={"red": ["discount", "discount"]})
    err = refused(state, {"plant": {"line": "row 1"}}, {"shell": "discount"}, {"discard": {"tile": 1}})
    assert (err.code, err.step) == ("shell.discount_late", 1)
    err = refused(state, {"shell": "discount"}, {"shell": "discount"}, {"plant": {"line": "row 1"}})
    assert (err.code, err.step) == ("shell.discount_twice", 1)


def test_a_free_start_starts_a_reef_on_any_open_space() -> None:
    state = position(nursery=line(["brain"]), shells={"red": ["free-start"]})
    refusal = refused(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a1"}})
    assert refusal.code == "place.not_start_space"
    after, events = play(
        state, {"plant": {"line": "row 1"}}, {"shell": "free-start"}, {"place": {"tile": 1, "at": "a1"}}
    )
    reef = after.reefs[after.reef_at["a1"]]
    assert reef.owner == "red" and reef.diver == "a1"
    assert "brain a1 (new reef, free start)" in events[0]


def test_a_free_start_still_needs_a_diver_and_starts_one_reef() -> None:
    five = [("red", {sp: "fan"}) for sp in ("a9", "c9", "e9", "g9", "i9")]
    state = position(nursery=line(["brain"]), shells={"red": ["free-start"]}, reefs=five)
    err = refused(
        state, {"plant": {"line": "row 1"}}, {"shell": "free-start"}, {"place": {"tile": 1, "at": "a1"}}
    )
    assert err.code == "place.no_diver"
    state = position(nursery=line(["brain", "fan"]), shells={"red": ["free-start"]})
    err = refused(
        state,
        {"plant": {"line": "row 1"}},
        {"shell": "free-start"},
        {"place": {"tile": 1, "at": "a1"}},
        {"place": {"tile": 2, "at": "k1"}},
    )
    assert (err.code, err.step) == ("place.not_start_space", 3)


def test_a_free_start_may_not_touch_a_neutral_reef() -> None:
    state = position(nursery=line(["brain"]), shells={"red": ["free-start"]}, reefs=[(None, {"a2": "brain"})])
    err = refused(
        state, {"plant": {"line": "row 1"}}, {"shell": "free-start"}, {"place": {"tile": 1, "at": "a1"}}
    )
    assert err.code == "place.new_reef_touches_neutral"


def test_an_extra_tile_comes_free_from_any_slot_and_is_numbered_next() -> None:
    nursery = line(["brain", "fan"])
    nursery[15] = "staghorn"
    state = position(nursery=nursery, reefs=MINE, shells={"red": ["extra-tile"]}, coins=5)
    after, events = play(
        state,
        {"plant": {"line": "row 1"}},
        {"shell": {"kind": "extra-tile", "row": 4, "column": 4}},
        {"place": {"tile": 1, "at": "f3"}},
        {"discard": {"tile": 2}},
        {"place": {"tile": 3, "at": "g5"}},
    )
    assert after.tiles["g5"] == "staghorn" and after.nursery[15] is None
    assert after.players["red"].coins == 3
    assert "tile 3: staghorn from row 4 column 4" in events[0]


def test_an_extra_tile_comes_from_a_slot_with_a_tile() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE, shells={"red": ["extra-tile"]})
    err = refused(
        state, {"plant": {"line": "row 1"}}, {"shell": {"kind": "extra-tile", "row": 1, "column": 1}}
    )
    assert (err.code, err.step) == ("shell.empty_slot", 1)
    err = refused(
        state, {"shell": {"kind": "extra-tile", "row": 3, "column": 1}}, {"plant": {"line": "row 1"}}
    )
    assert (err.code, err.step) == ("shell.empty_slot", 0)


def test_a_fish_school_is_not_a_shell() -> None:
    with pytest.raises(ValidationError):
        TurnOrders.model_validate([{"shell": "fish-2"}, {"plant": {"line": "row 1"}}])
