"""Station scoring after every Plant: a full ring, majorities and every tie rule, scored once.

Each case is its own position around station f5 (6/3), whose ring is e4 f4 g4 / e5 g5 / e6 f6 g6.
Ring spaces not named by a case hold single neutral staghorn tiles. Red then plants one tube tile on
its own far-away reef (a1), which triggers the station check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.coral_divers.scoring import award, award_final

from .conftest import line, play, position

RING = ("e4", "f4", "g4", "e5", "g5", "e6", "f6", "g6")
SEATS = ("red", "blue", "yellow")
Reefs = Sequence[tuple[str | None, Mapping[str, str]]]


def station_check(
    reefs: Reefs,
    *,
    leave_empty: Sequence[str] = (),
    seabed: Mapping[str, str] | None = None,
    revealed: bool = True,
) -> tuple[dict[str, int], list[str], object]:
    used = {c for _, cells in reefs for c in cells} | set(leave_empty) | set(seabed or {})
    fillers = [(None, {s: "staghorn"}) for s in RING if s not in used]
    state = position(
        SEATS,
        nursery=line(["tube"]),
        reefs=[*reefs, *fillers, ("red", {"a1": "tube"})],
        stations={"f5": (6, 3, revealed), "f8": (4, 2, True)},
        seabed=seabed,
    )
    before = {s: state.players[s].points for s in SEATS}
    after, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a2"}})
    gains = {s: after.players[s].points - before[s] for s in SEATS}
    return gains, events, after


def test_most_tiles_take_the_high_value_second_most_the_low() -> None:
    gains, events, after = station_check(
        [
            ("red", {"f4": "brain", "f3": "brain", "f2": "brain", "f1": "brain"}),
            ("blue", {"e5": "fan", "d5": "fan"}),
            ("yellow", {"g6": "tube"}),
        ]
    )
    assert gains == {"red": 6, "blue": 3, "yellow": 0}
    assert "station f5 (6/3) is surrounded and scores: red +6 and blue +3" in events
    assert after.stations["f5"].scored  # type: ignore[attr-defined]


def test_a_tie_for_first_gives_all_tied_the_high_value_and_no_second() -> None:
    gains, _, _ = station_check(
        [
            ("red", {"f4": "brain", "f3": "brain", "f2": "brain"}),
            ("blue", {"e5": "fan", "d5": "fan", "c5": "fan"}),
            ("yellow", {"g6": "tube"}),
        ]
    )
    assert gains == {"red": 6, "blue": 6, "yellow": 0}


def test_a_tie_for_second_gives_all_tied_the_low_value() -> None:
    gains, _, _ = station_check(
        [
            ("red", {"f4": "brain", "f3": "brain", "f2": "brain", "f1": "brain"}),
            ("blue", {"e5": "fan", "d5": "fan"}),
            ("yellow", {"g6": "tube", "h6": "tube"}),
        ]
    )
    assert gains == {"red": 6, "blue": 3, "yellow": 3}


def test_a_lone_player_takes_the_high_value_only() -> None:
    gains, events, _ = station_check([("blue", {"e5": "fan", "d5": "fan"})])
    assert gains == {"red": 0, "blue": 6, "yellow": 0}
    assert "station f5 (6/3) is surrounded and scores: blue +6" in events


def test_neutral_reefs_do_not_count() -> None:
    big_neutral = (None, {"e4": "brain", "d4": "brain", "d3": "brain", "d2": "brain", "d1": "brain"})
    gains, _, _ = station_check(
        [big_neutral, ("blue", {"e5": "fan", "d5": "fan"}), ("yellow", {"g6": "tube"})]
    )
    assert gains == {"red": 0, "blue": 6, "yellow": 3}


def test_a_reef_counts_once_with_all_its_tiles_however_many_touch_the_ring() -> None:
    # red: one reef of 4 tiles, 3 of them in the ring; blue: one reef of 5 tiles, 1 in the ring.
    # Counted once with every tile, blue leads 5 to 4 (per ring tile red would lead, and 12 to 5 if
    # counted once per ring tile with its size).
    red = ("red", {"f4": "brain", "e4": "brain", "g4": "brain", "f3": "brain"})
    blue = ("blue", {"e6": "fan", "d6": "fan", "c6": "fan", "b6": "fan", "a6": "fan"})
    gains, _, _ = station_check([red, blue])
    assert gains == {"red": 3, "blue": 6, "yellow": 0}


def test_a_players_reefs_in_the_ring_add_up() -> None:
    gains, _, _ = station_check(
        [
            ("red", {"f4": "brain", "f3": "brain"}),
            ("red", {"g6": "tube", "h6": "tube"}),
            ("blue", {"e5": "fan", "d5": "fan", "c5": "fan"}),
        ]
    )
    assert gains == {"red": 6, "blue": 3, "yellow": 0}


def test_only_reefs_with_a_tile_in_the_ring_count() -> None:
    near = ("red", {"d5": "brain", "c5": "brain", "c4": "brain"})  # d5 is next to e5, outside the ring
    gains, _, _ = station_check([near, ("blue", {"e5": "fan"})])
    assert gains == {"red": 0, "blue": 6, "yellow": 0}


def test_a_ring_with_an_empty_space_does_not_score() -> None:
    gains, _, after = station_check([("blue", {"e5": "fan"})], leave_empty=["g5"])
    assert gains == {"red": 0, "blue": 0, "yellow": 0}
    assert not after.stations["f5"].scored  # type: ignore[attr-defined]


def test_seabed_tokens_and_caves_fill_a_ring() -> None:
    gains, _, _ = station_check([("blue", {"e5": "fan"})], seabed={"g5": "pearl"})
    assert gains["blue"] == 6
    # c3's ring holds the cave b4: the 7 other spaces suffice
    ring = {"b2": "fan", "c2": "fan", "d2": "fan", "b3": "fan", "d3": "fan", "c4": "fan", "d4": "fan"}
    state = position(
        SEATS,
        nursery=line(["tube"]),
        reefs=[("blue", ring), ("red", {"a9": "tube"})],
        stations={"c3": (8, 4, True), "f5": (6, 3, True)},
    )
    after, _ = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a8"}})
    assert after.players["blue"].points == 8


def test_a_station_scores_once() -> None:
    _, _, after = station_check([("blue", {"e5": "fan"})])
    state = after.copy()  # type: ignore[attr-defined]
    state.active = 0
    state.nursery = line(["tube"])
    again, events = play(state, {"plant": {"line": "row 1"}}, {"place": {"tile": 1, "at": "a3"}})
    assert again.players["blue"].points == after.players["blue"].points  # type: ignore[attr-defined]
    assert not any("surrounded" in e for e in events)


def test_a_reserved_station_does_not_score() -> None:
    gains, _, after = station_check([("blue", {"e5": "fan"})], revealed=False)
    assert gains["blue"] == 0 and not after.stations["f5"].scored  # type: ignore[attr-defined]


def test_nobody_present_still_flips_the_station() -> None:
    gains, events, after = station_check([])
    assert set(gains.values()) == {0}
    assert after.stations["f5"].scored  # type: ignore[attr-defined]
    assert "station f5 (6/3) is surrounded and scores: nobody has a reef there" in events


def test_the_majority_rule_as_a_function() -> None:
    assert award({}, 6, 3) == {}
    assert award({"a": 4, "b": 2, "c": 1}, 6, 3) == {"a": 6, "b": 3}
    assert award({"a": 3, "b": 3, "c": 1}, 6, 3) == {"a": 6, "b": 6}
    assert award({"a": 4, "b": 2, "c": 2}, 6, 3) == {"a": 6, "b": 3, "c": 3}
    assert award({"a": 2}, 6, 3) == {"a": 6}
    assert award_final({"a": 4, "b": 4, "c": 1}, 3) == {"a": 3, "b": 3}
    assert award_final({"a": 4, "b": 2}, 3) == {"a": 3}
