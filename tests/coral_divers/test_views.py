"""Views and secrets: face-down seabed tokens and reserved station values are unknown to every player
until taken or revealed; everything else is public; the end reveals all."""

from __future__ import annotations

import json

from games.coral_divers import GAME

from .conftest import RandomChance, line, play, position


def dumped(view: object) -> str:
    return json.dumps(view, sort_keys=True)


def test_face_down_tokens_are_unknown_to_every_seat() -> None:
    a = position(seabed={"a1": "pearl", "k9": "fish-4"})
    b = position(seabed={"a1": "discount", "k9": "fish-2"})
    for seat in (None, "red", "blue"):
        assert dumped(GAME.view(a, seat)) == dumped(GAME.view(b, seat))
    view = GAME.view(a, "red")
    assert view["face_down"] == ["a1", "k9"]
    assert "pearl" not in dumped(view) and "fish-4" not in dumped(view)


def test_a_taken_token_is_face_up_for_all() -> None:
    state = position(nursery=line(["brain"]), reefs=[("red", {"f4": "brain"})], seabed={"f3": "discount"})
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "f3"}})
    for seat in (None, "blue"):
        red = next(p for p in GAME.view(after, seat)["players"] if p["seat"] == "red")
        assert red["shells"] == ["discount"]


def test_reserved_station_values_stay_hidden_until_revealed() -> None:
    state = position(stations={"f5": (6, 3, True), "c3": (8, 4, False)})
    stations = {s["at"]: s for s in GAME.view(state, "red")["stations"]}
    assert (stations["f5"]["high"], stations["f5"]["low"]) == (6, 3)
    assert (stations["c3"]["high"], stations["c3"]["low"]) == (None, None)
    other = position(stations={"f5": (6, 3, True), "c3": (5, 2, False)})
    for seat in (None, "red", "blue"):
        assert dumped(GAME.view(state, seat)) == dumped(GAME.view(other, seat))


def test_resample_hidden_deals_the_secrets_anew_and_keeps_the_view() -> None:
    state = GAME.setup(["ann", "bob", "cy"], GAME.options_model(), RandomChance(11))
    changed = False
    for k in range(10):
        other = GAME.resample_hidden(state, "ann", RandomChance(k))
        for seat in ("ann", "bob", None):
            assert dumped(GAME.view(other, seat)) == dumped(GAME.view(state, seat))
        assert sorted(other.seabed) == sorted(state.seabed)
        assert sorted(other.seabed.values()) == sorted(state.seabed.values())
        changed |= other.seabed != state.seabed
    assert changed, "resampling never moved a face-down token"


def test_the_end_reveals_the_tokens_left_face_down() -> None:
    state = position(nursery=["tube"] + [None] * 15, reefs=[("red", {"a1": "tube"})], seabed={"k9": "pearl"})
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    view = GAME.view(after, "blue")
    assert view["over"] and view["face_down_revealed"] == {"k9": "pearl"}


def test_view_lists_colours_players_and_the_board() -> None:
    state = position(reefs=[("red", {"f4": "brain*", "f3": "brain"})], coins={"red": 7, "blue": 3})
    view = GAME.view(state, "red")
    assert view["colours"] == {"red": "red", "blue": "blue"}
    cell = view["board"][3][5]
    assert cell["at"] == "f4" and cell["diver"] and cell["owner"] == "red" and cell["tile"]["clownfish"]
    assert [p["coins"] for p in view["players"]] == [7, 3]
    assert view["reefs"][0]["points"] == 3
