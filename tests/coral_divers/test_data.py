"""The data files agree with the rules file: counts, map, rings, start spaces, token spaces."""

from __future__ import annotations

from collections import Counter

from games.coral_divers.data import (
    ECONOMY,
    REVEALED_AT_SETUP,
    SEA_MAP,
    STATION_VALUES,
    TILE_COUNTS,
    TOKENS,
)


def test_eighty_tiles_twenty_per_type_four_clownfish_each() -> None:
    assert sum(TILE_COUNTS.values()) == 80
    for kind in ("brain", "fan", "staghorn", "tube"):
        assert TILE_COUNTS[kind] + TILE_COUNTS[kind + "*"] == 20
        assert TILE_COUNTS[kind + "*"] == 4


def test_sixteen_seabed_tokens_of_the_rules_mix() -> None:
    assert len(TOKENS) == 16
    assert Counter(TOKENS) == Counter(
        {"pearl": 4, "extra-tile": 3, "free-start": 3, "discount": 2, "fish-2": 2, "fish-3": 1, "fish-4": 1}
    )


def test_six_station_tiles_with_the_rules_values() -> None:
    assert sorted((v.high, v.low) for v in STATION_VALUES) == [(4, 2), (5, 2), (5, 3), (6, 3), (7, 3), (8, 4)]
    assert REVEALED_AT_SETUP == 2


def test_map_is_eleven_by_nine_with_the_rules_caves_and_spots() -> None:
    assert SEA_MAP.columns == "abcdefghijk" and SEA_MAP.rows == 9
    assert len(SEA_MAP.terrain) == 99
    assert sorted(SEA_MAP.spots) == ["c3", "c7", "f5", "f8", "i3", "i7"]
    assert SEA_MAP.caves == {"e2", "g2", "b4", "a5", "k5", "j6", "d9", "h9"}


def test_adjacency_is_symmetric_and_orthogonal() -> None:
    for space, near in SEA_MAP.orthogonal.items():
        for other in near:
            assert space in SEA_MAP.orthogonal[other]
            dc = abs(ord(space[0]) - ord(other[0]))
            dr = abs(int(space[1:]) - int(other[1:]))
            assert dc + dr == 1
    assert sorted(SEA_MAP.orthogonal["a1"]) == ["a2", "b1"]
    assert len(SEA_MAP.orthogonal["f5"]) == 4


def test_every_station_has_a_ring_of_eight_and_four_open_start_spaces() -> None:
    assert sorted(SEA_MAP.ring["f5"]) == sorted(["e4", "f4", "g4", "e5", "g5", "e6", "f6", "g6"])
    assert sorted(SEA_MAP.start["f5"]) == ["e5", "f4", "f6", "g5"]
    for spot in SEA_MAP.spots:
        assert len(SEA_MAP.ring[spot]) == 8
        assert len(SEA_MAP.start[spot]) == 4
        assert set(SEA_MAP.start[spot]) <= set(SEA_MAP.ring[spot])
        assert all(SEA_MAP.terrain[s] == "." for s in SEA_MAP.start[spot])


def test_token_spaces_are_open_and_outside_every_ring() -> None:
    rings = {s for spot in SEA_MAP.spots for s in SEA_MAP.ring[spot]}
    assert SEA_MAP.token_spaces
    for s in SEA_MAP.token_spaces:
        assert SEA_MAP.terrain[s] == "." and s not in rings
    assert len(SEA_MAP.token_spaces) >= len(TOKENS)


def test_the_seed_economy() -> None:
    assert ECONOMY.income == {1: 2, 2: 4, 3: 6, 4: 7, 5: 8}
    assert ECONOMY.coin_cap == 12
    assert ECONOMY.discard_penalty == 3
    assert ECONOMY.divers == 5 and ECONOMY.starting_coins == 5
