"""The data files agree with the data file's checks (shared/rules/reef-encounter-data.md)."""

from __future__ import annotations

from itertools import combinations

import pytest

from games.reef_encounter import data
from games.reef_encounter.data import (
    ALGAE_COLOURS,
    BOARDS,
    CORAL_COLOURS,
    NEIGHBOURS,
    OPEN_SEA,
    STARTING_POLYPS,
    TILES,
    DataError,
)


def test_every_pair_of_colours_is_on_exactly_one_tile() -> None:
    pairs = sorted(tuple(sorted(t.pair)) for t in TILES.values())
    assert pairs == sorted(tuple(sorted(p)) for p in combinations(CORAL_COLOURS, 2))


def test_each_alga_is_the_large_alga_on_five_tile_faces() -> None:
    for alga in ALGAE_COLOURS:
        faces = [t.faces[side].large for t in TILES.values() for side in (True, False)]
        assert faces.count(alga) == 5


@pytest.mark.parametrize("side", [True, False])
def test_each_colour_is_strong_on_two_tiles_of_each_side(side: bool) -> None:
    strong = [t.faces[side].strong for t in TILES.values()]
    assert {c: strong.count(c) for c in CORAL_COLOURS} == dict.fromkeys(CORAL_COLOURS, 2)


def test_the_other_side_swaps_strong_weak_and_the_algae() -> None:
    for t in TILES.values():
        up, down = t.faces[True], t.faces[False]
        assert (down.strong, down.weak, down.large, down.small) == (up.weak, up.strong, up.small, up.large)


def test_the_tiles_of_the_data_file() -> None:
    yp = TILES["yellow-pink"].faces[True]
    assert (yp.strong, yp.weak, yp.large, yp.small) == ("yellow", "pink", "purple", "blue")
    wp = TILES["white-pink"].faces[True]
    assert (wp.strong, wp.weak, wp.large, wp.small) == ("pink", "white", "purple", "green")


@pytest.mark.parametrize("letter", "ABCD")
def test_each_board_has_33_rock_9_sand_and_the_starfish_on_d4(letter: str) -> None:
    b = BOARDS[letter]
    assert len(b.rock) == 33 and len(b.sand) == 9
    assert b.starfish == f"{letter}d4"
    assert sorted(b.printed.values()) == sorted(CORAL_COLOURS)
    assert not set(b.printed) & b.sand


def test_board_b_as_printed() -> None:
    b = BOARDS["B"]
    assert b.printed == {"Bd2": "grey", "Bc3": "yellow", "Bf4": "white", "Bc5": "orange", "Be5": "pink"}
    assert {"Ba1", "Bb1", "Bc1", "Bg1", "Bg2", "Be3", "Bb4", "Ba6", "Bg6"} == b.sand


def test_adjacency_is_orthogonal_symmetric_and_never_crosses_sand_or_boards() -> None:
    for space, near in NEIGHBOURS.items():
        for n in near:
            assert space in NEIGHBOURS[n]
            assert n[0] == space[0]
            dc = abs(ord(n[1]) - ord(space[1]))
            dr = abs(int(n[2]) - int(space[2]))
            assert dc + dr == 1
    assert "Bb4" not in NEIGHBOURS["Bb3"]  # Bb4 is deep sand


def test_open_sea_order_and_starting_polyps() -> None:
    assert OPEN_SEA == ("white", "yellow", "orange", "pink", "grey")
    assert STARTING_POLYPS == {2: (6, 9), 3: (6, 7, 9), 4: (6, 7, 8, 9)}


def test_a_broken_board_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DataError):
        data._board("A", ["###...#"] * 6)
    broken = dict(TILES)
    broken.pop("white-yellow")
    monkeypatch.setattr(data, "TILES", broken)
    with pytest.raises(DataError):
        data.check_data()
