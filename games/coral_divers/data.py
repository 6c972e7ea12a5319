"""The fixed facts of Coral Divers, loaded from ``data/*.yaml`` at import and checked there.

Rules: ``shared/rules/coral-divers.md``, "Components" and "Map". The map gives each space its terrain;
from it come the stations' rings (the 8 surrounding spaces) and start spaces (the 4 orthogonal ones).
Raises :class:`DataError` at import if a file disagrees with the rules file's counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_DATA = Path(__file__).resolve().parent / "data"

CAVE = "#"
STATION = "S"
SEA = "."


class DataError(ValueError):
    """A data file that contradicts the rules (wrong counts, unknown terrain)."""


def _load(name: str) -> Any:
    with (_DATA / name).open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@dataclass(frozen=True)
class StationValue:
    high: int
    low: int


@dataclass(frozen=True)
class SeaMap:
    """The grid: ``terrain[space]`` is cave, station spot or open sea; neighbours are precomputed."""

    columns: str
    rows: int
    terrain: dict[str, str]
    orthogonal: dict[str, tuple[str, ...]]
    ring: dict[str, tuple[str, ...]]
    start: dict[str, tuple[str, ...]]
    spots: tuple[str, ...]
    caves: frozenset[str]
    open: tuple[str, ...]
    #: open spaces in no station's ring: where seabed tokens may lie
    token_spaces: tuple[str, ...]
    #: space -> the station spots whose ring holds it
    rings_of: dict[str, tuple[str, ...]]

    def spaces(self) -> list[str]:
        return [f"{c}{r}" for r in range(1, self.rows + 1) for c in self.columns]


def _space(col: str, row: int) -> str:
    return f"{col}{row}"


def _build_map(raw: dict[str, Any]) -> SeaMap:
    columns = str(raw["columns"])
    lines = [str(x) for x in raw["rows"]]
    if len(columns) != 11 or len(lines) != 9 or any(len(line) != len(columns) for line in lines):
        raise DataError("map.yaml: the sea floor must be 11 columns (a-k) by 9 rows")
    terrain: dict[str, str] = {}
    for r, line in enumerate(lines, start=1):
        for c, mark in zip(columns, line, strict=True):
            if mark not in (CAVE, STATION, SEA):
                raise DataError(f"map.yaml: unknown mark {mark!r} at {c}{r}")
            terrain[_space(c, r)] = mark

    def at(ci: int, r: int) -> str | None:
        if 0 <= ci < len(columns) and 1 <= r <= len(lines):
            return _space(columns[ci], r)
        return None

    orthogonal: dict[str, tuple[str, ...]] = {}
    around: dict[str, tuple[str, ...]] = {}
    for r in range(1, len(lines) + 1):
        for ci, c in enumerate(columns):
            orth = [at(ci, r - 1), at(ci - 1, r), at(ci + 1, r), at(ci, r + 1)]
            orthogonal[_space(c, r)] = tuple(s for s in orth if s)
            ring = [at(ci + dc, r + dr) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dc, dr) != (0, 0)]
            around[_space(c, r)] = tuple(s for s in ring if s)
    spots = tuple(s for s in terrain if terrain[s] == STATION)
    ring = {s: around[s] for s in spots}
    start = {s: orthogonal[s] for s in spots}
    for s in spots:
        if len(ring[s]) != 8:
            raise DataError(f"map.yaml: station spot {s} needs 8 surrounding spaces")
        if any(terrain[x] == STATION for x in ring[s]):
            raise DataError(f"map.yaml: station spot {s} touches another station spot")
        if any(terrain[x] != SEA for x in start[s]):
            raise DataError(f"map.yaml: every start space of station {s} must be open sea")
    rings_of: dict[str, tuple[str, ...]] = {}
    for s in spots:
        for x in ring[s]:
            rings_of[x] = (*rings_of.get(x, ()), s)
    open_spaces = tuple(s for s in terrain if terrain[s] == SEA)
    return SeaMap(
        columns=columns,
        rows=len(lines),
        terrain=terrain,
        orthogonal=orthogonal,
        ring=ring,
        start=start,
        spots=spots,
        caves=frozenset(s for s in terrain if terrain[s] == CAVE),
        open=open_spaces,
        token_spaces=tuple(s for s in open_spaces if s not in rings_of),
        rings_of=rings_of,
    )


@dataclass(frozen=True)
class Economy:
    divers: int
    starting_coins: int
    coin_cap: int
    discard_penalty: int
    income: dict[int, int]
    nursery_size: int
    refill_at_most: int
    pearl_coins: int


def _build_economy(raw: dict[str, Any]) -> Economy:
    eco = Economy(
        divers=int(raw["divers"]),
        starting_coins=int(raw["starting_coins"]),
        coin_cap=int(raw["coin_cap"]),
        discard_penalty=int(raw["discard_penalty"]),
        income={int(k): int(v) for k, v in raw["income"].items()},
        nursery_size=int(raw["nursery_size"]),
        refill_at_most=int(raw["refill_at_most"]),
        pearl_coins=int(raw["pearl_coins"]),
    )
    if eco.income != {1: 2, 2: 4, 3: 6, 4: 7, 5: 8} or eco.coin_cap != 12 or eco.discard_penalty != 3:
        raise DataError("economy.yaml: the seed's income table, 12-coin cap and -3 discard are fixed")
    if sorted(eco.income) != list(range(1, eco.divers + 1)):
        raise DataError("economy.yaml: the income table needs one line per diver count")
    return eco


def _build_tiles(raw: dict[str, Any]) -> dict[str, int]:
    """Bag counts by tile code: ``brain`` plain, ``brain*`` with a clownfish."""
    counts: dict[str, int] = {}
    for kind, spec in raw["types"].items():
        counts[kind] = int(spec["count"]) - int(spec["clownfish"])
        counts[kind + "*"] = int(spec["clownfish"])
    if sorted(raw["types"]) != ["brain", "fan", "staghorn", "tube"] or sum(counts.values()) != 80:
        raise DataError("tiles.yaml: 80 tiles of the four types brain, fan, staghorn, tube")
    if any(int(spec["clownfish"]) != 4 or int(spec["count"]) != 20 for spec in raw["types"].values()):
        raise DataError("tiles.yaml: 20 tiles per type, 4 of them with a clownfish")
    return counts


def _build_tokens(raw: dict[str, Any]) -> tuple[str, ...]:
    """Every seabed token by code: shells by name, fish schools as ``fish-3``."""
    tokens: list[str] = []
    for kind, n in raw["shells"].items():
        tokens += [str(kind)] * int(n)
    tokens += [f"fish-{int(v)}" for v in raw["fish_schools"]]
    if len(tokens) != 16 or set(raw["shells"]) != set(SHELLS):
        raise DataError("seabed.yaml: 16 tokens, shells pearl, extra-tile, free-start, discount")
    return tuple(sorted(tokens))


def _build_stations(raw: dict[str, Any]) -> tuple[tuple[StationValue, ...], int]:
    values = tuple(StationValue(int(v["high"]), int(v["low"])) for v in raw["values"])
    if any(v.low >= v.high for v in values):
        raise DataError("stations.yaml: a station's low value is below its high value")
    return values, int(raw["revealed_at_setup"])


SHELLS = ("pearl", "extra-tile", "free-start", "discount")
CORALS = ("brain", "fan", "staghorn", "tube")

SEA_MAP = _build_map(_load("map.yaml"))
ECONOMY = _build_economy(_load("economy.yaml"))
TILE_COUNTS = _build_tiles(_load("tiles.yaml"))
TOKENS = _build_tokens(_load("seabed.yaml"))
STATION_VALUES, REVEALED_AT_SETUP = _build_stations(_load("stations.yaml"))

if len(STATION_VALUES) != len(SEA_MAP.spots):
    raise DataError("stations.yaml: one station tile per station spot of the map")
if len(SEA_MAP.token_spaces) < len(TOKENS):
    raise DataError("map.yaml: not enough open spaces outside the rings for the seabed tokens")
