"""The board and the components, loaded from ``data/*.yaml`` at import and checked there.

Rules file sections "Components" and "Board". Raises :class:`BoardDataError` when a data file breaks
a fact the rules state (24 areas, 5 ports, symmetric adjacency, 15 shallow + 9 deep, 68 goods).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_DATA = Path(__file__).resolve().parent / "data"

FISH: tuple[str, ...] = ("salmon", "flatfish", "herring", "cod")
AMBER = "amber"
GOODS: tuple[str, ...] = (*FISH, AMBER)
TIME = "time"


class BoardDataError(ValueError):
    """A data file contradicts the rules file."""


@dataclass(frozen=True)
class Area:
    name: str
    index: int
    deep: bool
    x: int
    y: int

    @property
    def capacity(self) -> int:
        """Goods a refill puts here: shallow 1, deep 2."""
        return 2 if self.deep else 1


@dataclass(frozen=True)
class Port:
    name: str
    slots: tuple[int, ...]
    x: int
    y: int


@dataclass(frozen=True)
class Components:
    goods: dict[str, int]
    time_tokens: int
    ships: dict[int, int]
    company_tokens: tuple[str, ...]
    token_values: dict[str, int]
    demand_tokens_per_fish: int
    hold_limit: int
    actions_per_turn: int
    contract_set_points: int
    contracts: tuple[tuple[str, ...], ...]
    colours: tuple[str, ...]


@dataclass(frozen=True)
class Board:
    areas: tuple[Area, ...]
    ports: dict[str, Port]
    adjacent: dict[str, frozenset[str]]

    @property
    def spaces(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.areas) + tuple(self.ports)

    def area(self, name: str) -> Area:
        return self.areas[AREA_INDEX[name]]


def _load(name: str) -> Any:
    with (_DATA / name).open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def load_board(raw: dict[str, Any]) -> Board:
    """The board from ``board.yaml``'s data, checked against the rules file."""
    areas = tuple(
        Area(name=a["name"], index=i, deep={"D": True, "S": False}[a["depth"]], x=a["x"], y=a["y"])
        for i, a in enumerate(raw["areas"])
    )
    ports = {
        p["name"]: Port(name=p["name"], slots=tuple(int(s) for s in p["slots"]), x=p["x"], y=p["y"])
        for p in raw["ports"]
    }
    adjacent = {e["name"]: frozenset(e["adjacent"]) for e in (*raw["areas"], *raw["ports"])}
    if len(areas) != 24 or len(ports) != 5:
        raise BoardDataError(f"the board has 24 areas and 5 ports, data has {len(areas)} and {len(ports)}")
    shallow = sum(not a.deep for a in areas)
    if (shallow, len(areas) - shallow) != (15, 9):
        raise BoardDataError(f"the board has 15 shallow and 9 deep areas, data has {shallow} shallow")
    if len(adjacent) != 29:
        raise BoardDataError("space names must be unique")
    for space, neighbours in adjacent.items():
        for other in neighbours:
            if other not in adjacent:
                raise BoardDataError(f"{space} is adjacent to unknown space {other}")
            if space not in adjacent[other]:
                raise BoardDataError(f"adjacency is not symmetric: {space} -> {other}")
        if space in neighbours:
            raise BoardDataError(f"{space} is adjacent to itself")
    for port in ports.values():
        if any(n in ports for n in adjacent[port.name]):
            raise BoardDataError(f"port {port.name} is adjacent to another port")
        if port.slots not in ((0,), (0, -1)):
            raise BoardDataError(f"port {port.name} has slots {port.slots}; ports have (0) or (0, -1)")
    if sum(len(p.slots) for p in ports.values()) != 8:
        raise BoardDataError("the ports have 8 demand slots in all")
    return Board(areas=areas, ports=ports, adjacent=adjacent)


def load_components(raw: dict[str, Any]) -> Components:
    """The components from ``components.yaml``'s data, checked against the rules file."""
    comp = Components(
        goods=dict(raw["goods"]),
        time_tokens=raw["time_tokens"],
        ships={int(k): v for k, v in raw["ships"].items()},
        company_tokens=tuple(raw["company_tokens"]),
        token_values=dict(raw["token_values"]),
        demand_tokens_per_fish=raw["demand_tokens_per_fish"],
        hold_limit=raw["hold_limit"],
        actions_per_turn=raw["actions_per_turn"],
        contract_set_points=raw["contract_set_points"],
        contracts=tuple(tuple(c) for c in raw["contracts"]),
        colours=tuple(raw["colours"]),
    )
    if set(comp.goods) != set(GOODS) or sum(comp.goods.values()) != 68:
        raise BoardDataError(f"68 goods of {GOODS} expected, data has {comp.goods}")
    if comp.time_tokens != 6 or comp.ships != {3: 5, 4: 4, 5: 3}:
        raise BoardDataError("6 time tokens and 5/4/3 ships for 3/4/5 players expected")
    if set(comp.token_values) | {"tax"} != set(comp.company_tokens):
        raise BoardDataError("every company token but tax needs a value")
    if len(comp.contracts) != 6 or any(len(c) != 4 or not set(c) <= set(GOODS) for c in comp.contracts):
        raise BoardDataError("6 contract cards of 4 goods each expected")
    if len(set(comp.colours)) != 5:
        raise BoardDataError("5 distinct seat colours expected")
    return comp


BOARD = load_board(_load("board.yaml"))
COMPONENTS = load_components(_load("components.yaml"))
AREAS: tuple[str, ...] = tuple(a.name for a in BOARD.areas)
AREA_INDEX: dict[str, int] = {name: i for i, name in enumerate(AREAS)}
PORTS: tuple[str, ...] = tuple(BOARD.ports)
SPACES: tuple[str, ...] = AREAS + PORTS
ADJACENT = BOARD.adjacent
