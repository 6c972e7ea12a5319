"""A refusal names what to write instead (issue 34), taken from the seat's own position, and what it
names is accepted."""

from __future__ import annotations

import re
from typing import Any

import yaml

from games.coral_divers import GAME
from games.coral_divers.turn import affordable_lines, line_cost
from pbem.core.game import RulesError

from .conftest import line, orders, position, refused
from .test_properties import states

MINE = [("red", {"f4": "brain"})]


def advised(err: RulesError) -> list[Any]:
    """The steps a refusal tells the player to write, as orders."""
    return [yaml.safe_load(step)[0] for step in re.findall(r"`(- [^`]+)`", err.message)]


def test_tiles_left_in_hand_are_told_where_they_fit_or_to_be_discarded() -> None:
    state = position(nursery=line(["brain", "fan"]), reefs=MINE)
    err = refused(state, {"plant": {"line": "row 1"}})
    assert err.code == "plant.tiles_left"
    # the brain tile extends red's reef at f4 (f3 is the first space beside it); the fan tile can only
    # start a reef, on a free start space
    assert "write `- place: {tile: 1, at: f3}` or `- discard: {tile: 1}`" in err.message
    assert "write `- place: {tile: 2, at: e5}` or `- discard: {tile: 2}`" in err.message


def test_a_tile_that_fits_nowhere_is_told_to_be_discarded() -> None:
    blue = ("blue", {"f4": "tube", "e5": "tube", "e4": "tube", "e6": "tube", "f6": "tube", "g6": "tube"})
    state = position(
        nursery=line(["brain"]), stations={"f5": (6, 3, True)}, reefs=[blue, ("blue", {"g5": "staghorn"})]
    )
    err = refused(state, {"plant": {"line": "row 1"}})
    assert "write `- discard: {tile: 1}`: this tile fits nowhere now" in err.message


def test_a_refused_placement_names_a_space_that_takes_the_tile() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE)
    err = refused(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a5"}})  # a cave
    assert err.code == "place.not_open"
    assert "write `- place: {tile: 1, at: f3}` or `- discard: {tile: 1}`" in err.message
    GAME.check(state, "red", orders({"plant": {"line": "row 1"}}, advised(err)[0]))


def test_a_line_out_of_reach_is_answered_with_one_within_reach() -> None:
    nursery: list[str | None] = [None] * 8 + ["brain", "fan", None, None] + ["tube"] * 4
    state = position(nursery=nursery, coins=2)
    err = refused(state, {"plant": {"line": "row 4"}}, {"discard": {"tile": 1}})
    assert err.code == "plant.cannot_afford"
    assert "write `- plant: {line: row 3}`, a line you can afford" in err.message
    err = refused(state, {"plant": {"line": "row 1"}})
    assert err.code == "plant.empty_line" and "`- plant: {line: row 3}`" in err.message
    err = refused(state, {"discard": {"tile": 1}})
    assert "`- plant: {line: row 3}`" in err.message


def test_a_surface_that_closes_nothing_is_told_which_spaces_close_the_reefs() -> None:
    state = position(reefs=[*MINE, ("red", {"c3": "fan", "c4": "fan"})])
    err = refused(state, {"surface": []})
    assert err.code == "surface.nothing_closed"
    assert "write `- surface: [f4, c3]`: one space of each of your reefs to close" in err.message
    GAME.check(state, "red", orders(*advised(err)))
    err = refused(position(), {"surface": ["f4"]})
    assert "write `- surface: []`: with no reef you close nothing" in err.message


def test_the_advice_for_the_tiles_left_in_hand_is_accepted_whole_in_bot_positions() -> None:
    # each tile's first choice, written one after another, is one legal Plant
    checked = 0
    for i, (state, _orders) in enumerate(states(3, 3405)):
        within = [] if state.over else affordable_lines(state, state.seat)
        if i % 2 or not within or line_cost(state, within[0]) > state.players[state.seat].coins:
            continue  # (a line within reach of pearls only needs them played first)
        plant = {"plant": {"line": within[0]}}
        try:
            GAME.check(state, state.seat, orders(plant))
        except RulesError as err:
            assert err.code == "plant.tiles_left"
            steps = advised(err)
            firsts = [s for n, s in enumerate(steps) if n == 0 or _tile(s) != _tile(steps[n - 1])]
            assert len(firsts) == line_cost(state, within[0])
            GAME.check(state, state.seat, orders(plant, *firsts))
            checked += sum("place" in s for s in firsts)
    assert checked > 10


def _tile(step: Any) -> int:
    return int((step.get("place") or step["discard"])["tile"])
