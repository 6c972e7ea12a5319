"""The rules file's second pass (issue 19): rows only unless the option says columns too, shells before
the line, new reefs (the rules file's cap as an option), surfacing without a reef, a reserved station
revealed when no start space is free, and a template that suggests a line holding tiles."""

from __future__ import annotations

import yaml

from games.coral_divers import GAME
from games.coral_divers.state import State

from .conftest import FirstChance, line, orders, play, position, refused

MINE = [("red", {"f4": "brain"})]


# ------------------------------------------------------------------------------------------ rows only


def test_rows_are_lines_by_default_and_a_column_is_refused() -> None:
    state = GAME.setup(["ann", "bob"], GAME.options_model(), FirstChance())
    assert state.lines == "rows"
    err = refused(state, {"plant": {"line": "column 1"}}, *[{"discard": {"tile": n}} for n in range(1, 5)])
    assert (err.code, err.step) == ("plant.rows_only", 0)
    assert "choose a row, not column 1" in err.message


def test_the_option_rows_and_columns_lets_a_column_be_taken() -> None:
    options = GAME.options_model.model_validate({"lines": "rows-and-columns"})
    state = GAME.setup(["ann", "bob"], options, FirstChance())
    assert state.lines == "rows-and-columns"
    after, events = play(
        state, {"plant": {"line": "column 1"}}, *[{"discard": {"tile": n}} for n in range(1, 5)]
    )
    assert events[0].startswith(f"{state.seat} planted column 1 for 4 coins")
    assert GAME.load_state(GAME.dump_state(after)).lines == "rows-and-columns"


def test_a_state_saved_before_the_option_keeps_columns() -> None:
    data = GAME.dump_state(position())
    del data["lines"], data["new_reefs"], data["cleared"]
    old = GAME.load_state(data)
    assert (old.lines, old.new_reefs, old.cleared) == ("rows-and-columns", "any", 0)


# ------------------------------------------------------------------------------------------ shells first


def test_an_extra_tile_may_be_taken_before_the_line_and_is_numbered_after_its_tiles() -> None:
    nursery = line(["brain", "fan"])
    nursery[15] = "brain"
    state = position(nursery=nursery, reefs=MINE, shells={"red": ["extra-tile"]})
    after, events = play(
        state,
        {"shell": {"kind": "extra-tile", "row": 4, "column": 4}},
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f3"}},
        {"discard": {"tile": 2}},
        {"place": {"tile": 3, "at": "f2"}},
    )
    assert after.tiles["f2"] == "brain" and after.nursery[15] is None
    assert "brain from row 4 column 4, before the line" in events[0]


def test_a_tile_taken_before_the_line_is_still_placed_after_it() -> None:
    state = position(nursery=line(["brain"]), reefs=MINE, shells={"red": ["extra-tile"]})
    err = refused(
        state,
        {"shell": {"kind": "extra-tile", "row": 2, "column": 1}},
        {"place": {"tile": 1, "at": "f3"}},
        {"plant": {"line": "row 1"}},
    )
    assert (err.code, err.step) == ("place.before_plant", 1)


# ------------------------------------------------------------------------------------------ new reefs


def capped(state: State) -> State:
    state.new_reefs = "one-a-turn"
    return state


def test_by_default_one_line_may_start_several_reefs() -> None:
    after, _ = play(
        position(nursery=line(["brain", "fan"])),
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f4"}},
        {"place": {"tile": 2, "at": "e5"}},
    )
    assert len(after.reefs_of("red")) == 2


def test_with_the_cap_one_new_reef_a_turn_and_the_rest_extend_it() -> None:
    state = capped(position(nursery=line(["brain", "brain", "fan"])))
    after, _ = play(
        state,
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f4"}},
        {"place": {"tile": 2, "at": "f3"}},
        {"discard": {"tile": 3}},
    )
    assert [len(r.cells) for r in after.reefs_of("red")] == [2]
    err = refused(
        state,
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f4"}},
        {"place": {"tile": 3, "at": "e5"}},
        {"discard": {"tile": 2}},
    )
    assert (err.code, err.step) == ("place.one_new_reef", 2)


def test_the_cap_counts_a_free_start_reef_too() -> None:
    state = capped(position(nursery=line(["brain", "fan"]), shells={"red": ["free-start"]}))
    err = refused(
        state,
        {"plant": {"line": "row 1"}},
        {"place": {"tile": 1, "at": "f4"}},
        {"shell": "free-start"},
        {"place": {"tile": 2, "at": "a1"}},
    )
    assert (err.code, err.step) == ("place.one_new_reef", 3)


def test_the_template_mentions_the_cap_only_when_it_applies() -> None:
    state = position(nursery=line(["brain"]))
    assert "at most one new reef a turn" not in GAME.template(state, "red")
    assert "at most one new reef a turn" in GAME.template(capped(state), "red")


def test_the_cap_is_an_option() -> None:
    options = GAME.options_model.model_validate({"new_reefs": "one-a-turn"})
    assert GAME.setup(["ann", "bob"], options, FirstChance()).new_reefs == "one-a-turn"
    assert GAME.setup(["ann", "bob"], GAME.options_model(), FirstChance()).new_reefs == "any"


# ------------------------------------------------------------------------------------------ surfacing


def test_with_no_reef_and_no_placeable_tile_a_player_surfaces_for_income() -> None:
    # every start space of both stations is taken by blue's brain reefs: red cannot place a brain
    blue = [("blue", {at: "brain"}) for at in ("f4", "e5", "g5", "f6", "f7", "e8", "g8", "f9")]
    state = position(nursery=line(["brain"]), reefs=blue, coins=3)
    after, events = play(state, {"surface": []})
    assert after.players["red"].coins == 11
    assert "closed nothing; divers home: 5; income: 8" in events[0]


def test_a_player_with_a_reef_must_close_one_to_surface() -> None:
    err = refused(position(reefs=MINE), {"surface": []})
    assert (err.code, err.step) == ("surface.nothing_closed", 0)


def test_a_cleared_row_that_leaves_three_tiles_refills_the_nursery() -> None:
    nursery: list[str | None] = ["fan"] * 4 + ["tube"] * 2 + [None] * 10
    state = position(nursery=nursery, bag={"brain": 20})
    after, events = play(state, {"surface": []})
    assert after.cleared == 4 and after.nursery_count() == 16
    assert any("refilled (tiles: 14;" in e for e in events)
    assert sum(after.stations[s].revealed for s in after.stations) == 3


def test_clearing_the_last_tiles_ends_the_game() -> None:
    state = position(nursery=["fan"] + [None] * 15)
    after, _ = play(state, {"surface": []})
    assert after.over and GAME.outcome(after) is not None


# ------------------------------------------------------------------------------------------ stations


FULL_BUT_F4 = [("blue", {at: "fan"}) for at in ("e5", "g5", "f6", "f7", "e8", "g8", "f9")]


def test_a_reserved_station_is_revealed_when_the_last_start_space_is_taken() -> None:
    state = position(nursery=line(["brain"]), reefs=FULL_BUT_F4)
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f4"}})
    revealed = sorted(s for s, st in after.stations.items() if st.revealed)
    assert len(revealed) == 3 and "c3" in revealed  # FirstChance: the first reserved spot
    assert any(e.startswith("no start space is free: a new station is revealed at c3") for e in events)


def test_a_reserved_station_s_start_space_is_not_one_before_it_is_revealed() -> None:
    err = refused(
        position(nursery=line(["brain"])), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "c4"}}
    )
    assert err.code == "place.not_start_space"


def test_no_station_is_revealed_while_a_start_space_is_free() -> None:
    state = position(nursery=line(["brain"]), reefs=FULL_BUT_F4[1:])
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f4"}})
    assert sum(st.revealed for st in after.stations.values()) == 2
    assert not any("no start space is free" in e for e in events)


# ------------------------------------------------------------------------------------------ template


def test_the_template_suggests_an_affordable_row_that_holds_tiles() -> None:
    nursery: list[str | None] = [None] * 8 + ["brain", "fan", None, None] + ["tube"] * 4
    state = position(nursery=nursery, coins=2)
    text = GAME.template(state, "red")
    assert "  # - plant: {line: row 3}" in text  # row 4 costs 4, more than red has
    assert "lines you can afford and their costs: row 3: 2 coins" in text
    assert "column" not in text.split("SURFACE")[0].replace("column: 1", "")
    # the suggested line, uncommented with its tiles discarded, is accepted
    steps = yaml.safe_load("- plant: {line: row 3}\n- discard: {tile: 1}\n- discard: {tile: 2}\n")
    GAME.check(state, "red", orders(*steps))


def test_the_template_offers_a_surface_to_a_player_with_no_reef() -> None:
    text = GAME.template(position(nursery=line(["brain"])), "red")
    words = " ".join(line.strip(" #") for line in text.splitlines())  # comments wrap at any width
    assert "  # - surface: []" in text and "you may surface without closing anything" in words
