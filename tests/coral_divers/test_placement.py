"""Placement: extending, starting at an active station with a diver, the ban on touching another
player's reef of the same type, merging own reefs, absorbing neutral reefs, seabed tokens.

Stations f5 (start spaces f4, e5, g5, f6) and f8 are active in every position here; c3 is reserved.
"""

from __future__ import annotations

from .conftest import line, play, position, refused


def plant_one(tile: str = "brain", **kw: object) -> object:
    return position(nursery=line([tile]), **kw)  # type: ignore[arg-type]


def test_new_reef_starts_on_a_start_space_of_an_active_station() -> None:
    state, events = play(plant_one(), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f4"}})
    reef = state.reefs[state.reef_at["f4"]]
    assert (reef.owner, reef.coral, reef.diver, set(reef.cells)) == ("red", "brain", "f4", {"f4"})
    assert state.divers_on_board("red") == 4
    assert "brain f4 (new reef)" in events[0]


def test_new_reef_elsewhere_is_refused() -> None:
    err = refused(plant_one(), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "d4"}})
    assert (err.code, err.step) == ("place.not_start_space", 1)
    assert "start space of an active station" in err.message


def test_start_space_of_a_reserved_station_is_refused() -> None:
    err = refused(plant_one(), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "c4"}})
    assert err.code == "place.not_start_space"


def test_starting_needs_a_diver_on_the_board() -> None:
    five = [("red", {sp: "fan"}) for sp in ("a1", "c1", "e1", "g1", "i1")]
    err = refused(plant_one(reefs=five), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f4"}})
    assert err.code == "place.no_diver"
    four = five[:4]
    state, _ = play(plant_one(reefs=four), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f4"}})
    assert state.divers_on_board("red") == 0


def test_extending_needs_orthogonal_contact_with_the_same_type() -> None:
    mine = [("red", {"f4": "brain"})]
    state, _ = play(plant_one(reefs=mine), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}})
    assert state.reef_at["f3"] == state.reef_at["f4"] and len(state.reefs[state.reef_at["f4"]].cells) == 2
    assert state.divers_on_board("red") == 4  # extending uses no diver
    diagonal = refused(
        plant_one(reefs=mine), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e3"}}
    )
    assert diagonal.code == "place.not_start_space"
    other_type = refused(
        plant_one("fan", reefs=mine), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}}
    )
    assert other_type.code == "place.not_start_space"


def test_corals_never_go_on_caves_station_spots_or_tiles() -> None:
    mine = [("red", {"f4": "brain", "f3": "brain", "e3": "brain"})]
    for at in ("e2", "f5", "c3"):
        err = refused(plant_one(reefs=mine), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": at}})
        assert err.code == "place.not_open", at
    err = refused(plant_one(reefs=mine), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}})
    assert err.code == "place.occupied"


def test_a_tile_never_touches_another_players_reef_of_its_type() -> None:
    blue = [("blue", {"f4": "brain", "e4": "brain"})]
    err = refused(plant_one(reefs=blue), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e5"}})
    assert err.code == "place.touches_other_reef"
    assert "blue's brain reef" in err.message
    state, _ = play(
        plant_one("fan", reefs=blue), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e5"}}
    )
    assert state.reefs[state.reef_at["e5"]].owner == "red"


def test_extending_may_not_touch_another_players_reef_either() -> None:
    reefs = [("red", {"g5": "brain", "g4": "brain"}), ("blue", {"f4": "brain", "f3": "brain"})]
    err = refused(plant_one(reefs=reefs), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "g3"}})
    assert err.code == "place.touches_other_reef"


def test_merging_two_own_reefs_sends_a_diver_home() -> None:
    reefs = [("red", {"f4": "brain"}), ("red", {"e5": "brain", "d5": "brain"})]
    state = plant_one(reefs=reefs)
    assert state.divers_on_board("red") == 3
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e4"}})
    merged = after.reefs[after.reef_at["e4"]]
    assert set(merged.cells) == {"f4", "e4", "e5", "d5"} and merged.owner == "red"
    assert merged.diver == "e5"  # the larger reef's diver stays
    assert after.divers_on_board("red") == 4
    assert len(after.reefs_of("red")) == 1
    assert "diver goes home" in events[0]


def test_absorbing_a_neutral_reef_no_larger_than_yours() -> None:
    reefs = [("red", {"f4": "brain", "f3": "brain"}), (None, {"d4": "brain", "d3": "brain"})]
    after, events = play(
        plant_one(reefs=reefs), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e4"}}
    )
    merged = after.reefs[after.reef_at["e4"]]
    assert set(merged.cells) == {"f4", "f3", "e4", "d4", "d3"} and merged.owner == "red"
    assert "absorbs 1 neutral reef" in events[0]


def test_absorbing_a_larger_neutral_reef_is_refused() -> None:
    reefs = [("red", {"f4": "brain", "f3": "brain"}), (None, {"d4": "brain", "d3": "brain", "d2": "brain"})]
    err = refused(plant_one(reefs=reefs), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e4"}})
    assert err.code == "place.neutral_too_big"
    assert "reef (tiles: 3)" in err.message and "your reef (tiles: 2)" in err.message


def test_every_neutral_reef_joined_must_be_no_larger() -> None:
    small = (None, {"d4": "brain"})
    ok = [("red", {"f4": "brain", "g4": "brain"}), small, (None, {"e5": "brain", "e6": "brain"})]
    after, _ = play(plant_one(reefs=ok), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e4"}})
    assert len(after.reefs[after.reef_at["e4"]].cells) == 6
    too_big = [
        ("red", {"f4": "brain", "g4": "brain"}),
        small,
        (None, {"e5": "brain", "e6": "brain", "e7": "brain"}),
    ]
    err = refused(plant_one(reefs=too_big), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e4"}})
    assert err.code == "place.neutral_too_big"


def test_a_new_reef_may_not_touch_a_neutral_reef_of_its_type() -> None:
    reefs = [(None, {"e4": "brain", "d4": "brain"})]
    err = refused(plant_one(reefs=reefs), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e5"}})
    assert err.code == "place.new_reef_touches_neutral"
    state, _ = play(
        plant_one("fan", reefs=reefs), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e5"}}
    )
    assert state.reefs[state.reef_at["e5"]].owner == "red"


def test_nothing_is_added_to_a_neutral_reef_without_absorbing_it() -> None:
    reefs = [(None, {"e4": "brain", "d4": "brain"})]
    err = refused(plant_one(reefs=reefs), {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "e3"}})
    assert err.code == "place.new_reef_touches_neutral"


def test_a_tile_on_a_seabed_token_takes_it_face_up() -> None:
    reefs = [("red", {"f4": "brain"})]
    state = plant_one(reefs=reefs, seabed={"f3": "pearl", "a9": "fish-3"})
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}})
    assert after.players["red"].shells == ("pearl",)
    assert after.seabed == {"a9": "fish-3"}
    assert "red took the seabed token at f3: a shell: pearl" in events


def test_a_fish_school_token_is_kept_for_the_end() -> None:
    state = plant_one(reefs=[("red", {"f4": "brain"})], seabed={"f3": "fish-3"})
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}})
    assert after.players["red"].fish == (3,) and after.players["red"].shells == ()
    assert "red took the seabed token at f3: a fish school worth 3" in events
