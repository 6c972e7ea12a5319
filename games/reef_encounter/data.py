"""The physical data of Reef Encounter (rules section 12), loaded from ``data/*.yaml`` and checked at import.

Raises :class:`DataError` at import when a file contradicts the component list of section 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parent / "data"

CORAL_COLOURS: tuple[str, ...] = ("grey", "orange", "pink", "white", "yellow")
ALGAE_COLOURS: tuple[str, ...] = ("blue", "green", "purple", "red")
SHRIMP_COLOURS: tuple[str, ...] = ("purple", "green", "red", "yellow")
BOARD_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")
COLUMNS = "abcdefg"
ROWS = 6
POLYPS_PER_COLOUR = 40
LARVAE_PER_COLOUR = 10
ALGAE_PER_COLOUR = 5
SHRIMP_PER_PLAYER = 4
STARFISH_CELL = "d4"

_LETTER_COLOUR = {"W": "white", "Y": "yellow", "O": "orange", "P": "pink", "G": "grey"}


class DataError(ValueError):
    """A data file does not describe the published components."""


@dataclass(frozen=True)
class Board:
    """One reef board: its rock spaces (``Bd4``), deep sand, starfish space and printed polyps."""

    letter: str
    rock: frozenset[str]
    sand: frozenset[str]
    starfish: str
    printed: dict[str, str]


@dataclass(frozen=True)
class Face:
    strong: str
    weak: str
    large: str
    small: str


@dataclass(frozen=True)
class Tile:
    """A coral tile: ``faces[True]`` is the starfish side, ``faces[False]`` the other."""

    name: str
    pair: frozenset[str]
    faces: dict[bool, Face]


def _load(name: str) -> Any:
    with (DATA / name).open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _board(letter: str, rows: list[str]) -> Board:
    if len(rows) != ROWS or any(len(r) != len(COLUMNS) for r in rows):
        raise DataError(f"board {letter} must be {len(COLUMNS)} columns x {ROWS} rows")
    rock: set[str] = set()
    sand: set[str] = set()
    printed: dict[str, str] = {}
    starfish = ""
    for r, line in enumerate(rows, start=1):
        for c, ch in enumerate(line):
            space = f"{letter}{COLUMNS[c]}{r}"
            if ch == "#":
                sand.add(space)
                continue
            rock.add(space)
            if ch == "*":
                starfish = space
            elif ch in _LETTER_COLOUR:
                printed[space] = _LETTER_COLOUR[ch]
            elif ch != ".":
                raise DataError(f"board {letter}: unknown mark {ch!r} at {space}")
    if starfish != f"{letter}{STARFISH_CELL}":
        raise DataError(f"board {letter}: the starfish space must be {letter}{STARFISH_CELL}")
    if sorted(printed.values()) != sorted(CORAL_COLOURS):
        raise DataError(f"board {letter}: one printed polyp of each colour expected")
    return Board(letter, frozenset(rock), frozenset(sand), starfish, printed)


def _tiles(raw: dict[str, dict[str, str]]) -> dict[str, Tile]:
    tiles: dict[str, Tile] = {}
    for name, d in raw.items():
        up = Face(d["strong"], d["weak"], d["large"], d["small"])
        down = Face(d["weak"], d["strong"], d["small"], d["large"])
        if set(name.split("-")) != {up.strong, up.weak}:
            raise DataError(f"tile {name}: its name must be its two colours")
        tiles[name] = Tile(name, frozenset((up.strong, up.weak)), {True: up, False: down})
    return tiles


BOARDS: dict[str, Board] = {k: _board(k, v) for k, v in _load("boards.yaml").items()}
TILES: dict[str, Tile] = _tiles(_load("tiles.yaml"))
_sea = _load("open_sea.yaml")
OPEN_SEA: tuple[str, ...] = tuple(_sea["clockwise"])
OPENING_POLYPS: tuple[int, ...] = tuple(_sea["opening_polyps"])
STARTING_POLYPS: dict[int, tuple[int, ...]] = {int(k): tuple(v) for k, v in _sea["starting_polyps"].items()}

#: the tile of each pair of colours
TILE_OF: dict[frozenset[str], str] = {t.pair: t.name for t in TILES.values()}

#: orthogonal neighbours of every rock space (deep sand holds nothing, so it connects nothing)
NEIGHBOURS: dict[str, tuple[str, ...]] = {}
for _b in BOARDS.values():
    for _s in _b.rock:
        _c, _r = COLUMNS.index(_s[1]), int(_s[2])
        _n = []
        for dc, dr in ((0, -1), (-1, 0), (1, 0), (0, 1)):
            cc, rr = _c + dc, _r + dr
            if 0 <= cc < len(COLUMNS) and 1 <= rr <= ROWS:
                other = f"{_b.letter}{COLUMNS[cc]}{rr}"
                if other in _b.rock:
                    _n.append(other)
        NEIGHBOURS[_s] = tuple(_n)

ALL_ROCK: frozenset[str] = frozenset(NEIGHBOURS)
ALL_SAND: frozenset[str] = frozenset().union(*(b.sand for b in BOARDS.values()))


def check_data() -> None:
    """The data checks of the data file; raises :class:`DataError`."""
    if set(BOARDS) != set(BOARD_LETTERS):
        raise DataError("four reef boards A-D expected")
    for b in BOARDS.values():
        if len(b.rock) != 33 or len(b.sand) != 9:
            raise DataError(f"board {b.letter}: 33 rock and 9 deep-sand spaces expected")
    pairs = [t.pair for t in TILES.values()]
    if sorted(map(sorted, pairs)) != sorted(map(sorted, map(frozenset, combinations(CORAL_COLOURS, 2)))):
        raise DataError("every pair of coral colours must appear on exactly one tile")
    for side in (True, False):
        strong = [t.faces[side].strong for t in TILES.values()]
        if any(strong.count(c) != 2 for c in CORAL_COLOURS):
            raise DataError("on each side every colour must be strong on exactly two tiles")
        for t in TILES.values():
            f = t.faces[side]
            if f.large == f.small or {f.large, f.small} - set(ALGAE_COLOURS):
                raise DataError(f"tile {t.name}: two different algae colours expected")
    for a in ALGAE_COLOURS:
        faces = sum(t.faces[s].large == a for t in TILES.values() for s in (True, False))
        if faces != 5:
            raise DataError(f"alga {a} must be the large alga on exactly 5 tile faces, is on {faces}")
    if sorted(OPEN_SEA) != sorted(CORAL_COLOURS) or len(OPENING_POLYPS) != len(OPEN_SEA):
        raise DataError("five open-sea spaces, one per coral colour, expected")
    for n, counts in STARTING_POLYPS.items():
        if len(counts) != n:
            raise DataError(f"starting polyps for {n} players: {n} numbers expected")


check_data()
