"""The Coral Divers state: plain dataclasses, cheap to copy, dumped to sorted JSON data.

A tile is a short code: its coral type (``brain``), with a trailing ``*`` when it shows a clownfish
(``brain*``). Spaces are map names (``e4``); nursery slots are numbered 0-15 row by row (row 1 column 1
is slot 0). Reefs, players and stations are frozen values replaced whole when they change, so copying a
state only copies its containers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .data import ECONOMY, StationValue

COLOURS = ("red", "blue", "yellow", "white")
NURSERY = ECONOMY.nursery_size


def coral(tile: str) -> str:
    """The coral type of a tile code: ``brain*`` -> ``brain``."""
    return tile[:-1] if tile.endswith("*") else tile


def has_clownfish(tile: str) -> bool:
    return tile.endswith("*")


def line_slots(line: str) -> list[int]:
    """The nursery slots of ``row 2`` or ``column 3``, in order."""
    kind, _, number = line.partition(" ")
    n = int(number) - 1
    if kind == "row":
        return [n * NURSERY + c for c in range(NURSERY)]
    return [r * NURSERY + n for r in range(NURSERY)]


ROWS = tuple(f"row {i}" for i in range(1, NURSERY + 1))
LINES = ROWS + tuple(f"column {i}" for i in range(1, NURSERY + 1))
#: the option ``lines``: rows only (the seed's "choose a row"), or rows and columns (ours)
LINE_CHOICES = ("rows", "rows-and-columns")


@dataclass(frozen=True)
class Reef:
    """Orthogonally connected tiles of one coral type; ``owner`` None means neutral (closed)."""

    id: int
    coral: str
    owner: str | None
    cells: frozenset[str]
    #: the space the owner's diver stands on; None exactly when the reef is neutral
    diver: str | None


@dataclass(frozen=True)
class Player:
    seat: str
    colour: str
    coins: int
    points: int
    #: shells in front of the player, unused, sorted
    shells: tuple[str, ...] = ()
    #: values of the fish-school tokens taken, sorted
    fish: tuple[int, ...] = ()
    #: shells used (removed from the game), sorted: kept so every token stays accounted for
    used: tuple[str, ...] = ()
    discarded: int = 0


@dataclass(frozen=True)
class Station:
    value: StationValue
    revealed: bool = False
    scored: bool = False


@dataclass
class State:
    seats: tuple[str, ...]
    players: dict[str, Player]
    #: index into ``seats`` of the seat to act
    active: int
    nursery: list[str | None]
    bag: dict[str, int]
    tiles: dict[str, str]
    reef_at: dict[str, int]
    reefs: dict[int, Reef]
    next_reef: int
    stations: dict[str, Station]
    #: face-down seabed tokens still on the map: space -> token code
    seabed: dict[str, str]
    #: actions taken so far
    actions: int = 0
    #: the final scoring once the game is over: {seat: {part: points}}, and how places were decided
    final: dict[str, dict[str, int]] | None = None
    places: dict[str, int] | None = None
    tie_breaks: list[str] = field(default_factory=list)
    #: the option ``lines``: ``rows`` (default) or ``rows-and-columns``
    lines: str = "rows"
    #: the option ``new_reefs``: ``any`` (default) or ``one-a-turn`` (the rules file's cap)
    new_reefs: str = "any"
    #: tiles put out of the game by Surfaces without a reef (the nursery row they clear)
    cleared: int = 0

    def copy(self) -> State:
        return replace(
            self,
            players=dict(self.players),
            nursery=list(self.nursery),
            bag=dict(self.bag),
            tiles=dict(self.tiles),
            reef_at=dict(self.reef_at),
            reefs=dict(self.reefs),
            stations=dict(self.stations),
            seabed=dict(self.seabed),
            final=None if self.final is None else {k: dict(v) for k, v in self.final.items()},
            places=None if self.places is None else dict(self.places),
            tie_breaks=list(self.tie_breaks),
        )

    @property
    def over(self) -> bool:
        return self.final is not None

    @property
    def seat(self) -> str:
        """The seat to act."""
        return self.seats[self.active]

    def choosable_lines(self) -> tuple[str, ...]:
        """The nursery lines a Plant may take under the ``lines`` option (empty or not)."""
        return LINES if self.lines == "rows-and-columns" else ROWS

    def reefs_of(self, seat: str) -> list[Reef]:
        return [r for r in self.reefs.values() if r.owner == seat]

    def divers_on_board(self, seat: str) -> int:
        return ECONOMY.divers - sum(1 for r in self.reefs.values() if r.owner == seat)

    def nursery_count(self) -> int:
        return sum(1 for t in self.nursery if t is not None)

    def clownfish(self, reef: Reef) -> int:
        return sum(1 for c in reef.cells if self.tiles[c].endswith("*"))


# ------------------------------------------------------------------------------------------ dump / load


def dump(state: State) -> dict[str, Any]:
    return {
        "seats": list(state.seats),
        "players": [
            {
                "seat": p.seat,
                "colour": p.colour,
                "coins": p.coins,
                "points": p.points,
                "shells": list(p.shells),
                "fish": list(p.fish),
                "used": list(p.used),
                "discarded": p.discarded,
            }
            for p in (state.players[s] for s in state.seats)
        ],
        "active": state.active,
        "nursery": list(state.nursery),
        "bag": {k: v for k, v in sorted(state.bag.items())},
        "tiles": {k: state.tiles[k] for k in sorted(state.tiles)},
        "reefs": [
            {
                "id": r.id,
                "coral": r.coral,
                "owner": r.owner,
                "cells": sorted(r.cells),
                "diver": r.diver,
            }
            for r in sorted(state.reefs.values(), key=lambda r: r.id)
        ],
        "next_reef": state.next_reef,
        "stations": {
            spot: {"high": s.value.high, "low": s.value.low, "revealed": s.revealed, "scored": s.scored}
            for spot, s in sorted(state.stations.items())
        },
        "seabed": {k: state.seabed[k] for k in sorted(state.seabed)},
        "actions": state.actions,
        "final": state.final,
        "places": state.places,
        "tie_breaks": list(state.tie_breaks),
        "lines": state.lines,
        "cleared": state.cleared,
        "new_reefs": state.new_reefs,
    }


def load(data: dict[str, Any]) -> State:
    reefs = {
        int(r["id"]): Reef(int(r["id"]), r["coral"], r["owner"], frozenset(r["cells"]), r["diver"])
        for r in data["reefs"]
    }
    return State(
        seats=tuple(data["seats"]),
        players={
            p["seat"]: Player(
                seat=p["seat"],
                colour=p["colour"],
                coins=int(p["coins"]),
                points=int(p["points"]),
                shells=tuple(p["shells"]),
                fish=tuple(int(f) for f in p["fish"]),
                used=tuple(p["used"]),
                discarded=int(p["discarded"]),
            )
            for p in data["players"]
        },
        active=int(data["active"]),
        nursery=list(data["nursery"]),
        bag={k: int(v) for k, v in data["bag"].items()},
        tiles=dict(data["tiles"]),
        reef_at={c: r.id for r in reefs.values() for c in r.cells},
        reefs=reefs,
        next_reef=int(data["next_reef"]),
        stations={
            spot: Station(StationValue(int(s["high"]), int(s["low"])), bool(s["revealed"]), bool(s["scored"]))
            for spot, s in data["stations"].items()
        },
        seabed=dict(data["seabed"]),
        actions=int(data["actions"]),
        final=None if data["final"] is None else {k: dict(v) for k, v in data["final"].items()},
        places=None if data["places"] is None else dict(data["places"]),
        tie_breaks=list(data["tie_breaks"]),
        # states stored before the option existed took columns too
        lines=str(data.get("lines", "rows-and-columns")),
        cleared=int(data.get("cleared", 0)),
        new_reefs=str(data.get("new_reefs", "any")),
    )
