"""Surface: closing reefs (points, neutral reefs, divers home), the income table and the 12-coin cap."""

from __future__ import annotations

import pytest

from games.coral_divers.turn import affordable_lines

from .conftest import play, position, refused

TWO = [("red", {"f4": "brain", "f3": "brain*", "f2": "brain"}), ("red", {"e5": "fan", "d5": "fan*"})]


def test_closing_reefs_scores_tiles_and_clownfish_and_makes_them_neutral() -> None:
    state = position(reefs=TWO, coins=0)
    after, events = play(state, {"surface": ["f2", "d5"]})
    red = after.players["red"]
    assert red.points == (3 + 1) + (2 + 1)
    assert all(r.owner is None and r.diver is None for r in after.reefs.values())
    assert after.divers_on_board("red") == 5
    assert red.coins == 8
    assert events[0].startswith("red surfaced: closed brain reef at f4 (tiles: 3, points: 4)")


def test_closing_some_reefs_only() -> None:
    after, _ = play(position(reefs=TWO, coins=0), {"surface": ["e5"]})
    assert after.reefs[after.reef_at["f4"]].owner == "red"
    assert after.reefs[after.reef_at["e5"]].owner is None
    assert after.players["red"].points == 3 and after.players["red"].coins == 7  # 4 divers home: 7


@pytest.mark.parametrize(("reefs_left", "income"), [(4, 2), (3, 4), (2, 6), (1, 7), (0, 8)])
def test_income_follows_the_divers_on_the_board(reefs_left: int, income: int) -> None:
    spaces = ("a1", "c1", "e1", "g1", "i1")
    reefs = [("red", {sp: "tube"}) for sp in spaces]
    state = position(reefs=reefs, coins=0)
    after, _ = play(state, {"surface": list(spaces[reefs_left:])})
    assert after.players["red"].coins == income


def test_income_stops_at_twelve_coins() -> None:
    after, events = play(position(reefs=TWO, coins=9), {"surface": ["f4", "e5"]})
    assert after.players["red"].coins == 12
    assert "income: 3 (coins now: 12)" in events[0]


def test_surfacing_closes_at_least_one_reef() -> None:
    err = refused(position(reefs=TWO), {"surface": []})
    assert (err.code, err.step) == ("surface.nothing_closed", 0)


def test_only_your_own_reefs_are_closed() -> None:
    reefs = [*TWO, ("blue", {"g5": "tube"}), (None, {"a1": "tube"})]
    for space, why in (("g5", "blue's reef"), ("a1", "a neutral reef"), ("k9", "no reef")):
        err = refused(position(reefs=reefs), {"surface": [space]})
        assert err.code == "surface.not_your_reef"
        assert why in err.message


def test_each_reef_is_named_once() -> None:
    err = refused(position(reefs=TWO), {"surface": ["f4", "f2"]})
    assert err.code == "surface.same_reef"


BLOCK: list[str | None] = ["brain", "brain", None, None, "brain", "brain"] + [None] * 10


def test_no_reef_and_no_affordable_line_surfaces_for_the_income() -> None:
    state = position(nursery=BLOCK, coins=1)
    after, events = play(state, {"surface": []})
    assert after.players["red"].coins == 9
    assert "red surfaced: closed nothing" in events[0]


def test_no_reef_surfaces_even_with_an_affordable_line_and_clears_the_fullest_row() -> None:
    # our ruling (README 16): a player with no reef may always surface; the fullest row goes out
    nursery: list[str | None] = ["tube", "tube", None, None, "brain", "brain", "fan", None]
    nursery += [None] * 4 + ["tube", None, "tube", None]
    state = position(nursery=nursery, coins=4)
    after, events = play(state, {"surface": []})
    assert after.players["red"].coins == 12
    assert after.nursery[4:8] == [None] * 4 and after.cleared == 3
    assert "row 2 of the nursery goes out of the game (tiles: 3)" in events[0]


def test_pearls_and_discounts_count_towards_affording_a_line() -> None:
    nursery = BLOCK  # every line with a tile costs 2
    assert affordable_lines(position(nursery=nursery, coins=1), "red") == []
    assert affordable_lines(position(nursery=nursery, coins=1, shells={"red": ["pearl"]}), "red") == [
        "row 1",
        "row 2",
    ]
    assert affordable_lines(position(nursery=nursery, coins=0, shells={"red": ["discount"]}), "red") == [
        "row 1",
        "row 2",
    ]


def test_a_surface_does_not_trigger_station_scoring() -> None:
    ring = {s: "tube" for s in ("e4", "f4", "g4", "e5", "g5", "e6", "f6", "g6")}
    state = position(reefs=[("red", ring), ("red", {"a1": "fan"})])
    after, _ = play(state, {"surface": ["a1"]})
    assert not after.stations["f5"].scored
