"""The state of a Reef Encounter game as plain dataclasses, with an exact JSON round trip.

Counts of same-coloured pieces are kept as ``{colour: n}`` (pieces of one colour are interchangeable);
board contents as ``{space: colour}`` and ``{space: seat}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .data import ALGAE_COLOURS, CORAL_COLOURS, SHRIMP_PER_PLAYER, TILES

Counts = dict[str, int]


def zero() -> Counts:
    return dict.fromkeys(CORAL_COLOURS, 0)


@dataclass
class Player:
    """One seat: what is behind its screen, in front of it, and in its parrotfish."""

    seat: str
    colour: str
    screen: Counts = field(default_factory=zero)
    larvae: Counts = field(default_factory=zero)
    shrimp: int = SHRIMP_PER_PLAYER
    front: Counts = field(default_factory=zero)
    parrotfish: Counts = field(default_factory=zero)
    feedings: int = 0
    sea_shrimp: bool = False
    #: shrimp eaten after the first feeding (they lie in the parrotfish and score nothing)
    eaten_shrimp: int = 0

    def clone(self) -> Player:
        return Player(
            self.seat,
            self.colour,
            dict(self.screen),
            dict(self.larvae),
            self.shrimp,
            dict(self.front),
            dict(self.parrotfish),
            self.feedings,
            self.sea_shrimp,
            self.eaten_shrimp,
        )


@dataclass
class SeaSpace:
    """An open-sea space: its larva cube (present or not) and the polyps on it."""

    larva: bool = True
    polyps: Counts = field(default_factory=zero)


@dataclass
class State:
    """A whole game. ``phase`` is ``setup``, ``play``, ``final`` (final feeding turns) or ``over``."""

    seats: list[str]
    players: dict[str, Player]
    advanced: bool
    boards: list[str]
    polyps: dict[str, str] = field(default_factory=dict)
    shrimp: dict[str, str] = field(default_factory=dict)
    bag: Counts = field(default_factory=zero)
    bonus: Counts = field(default_factory=zero)
    sea: dict[str, SeaSpace] = field(default_factory=dict)
    larva_supply: Counts = field(default_factory=zero)
    algae_supply: Counts = field(default_factory=lambda: dict.fromkeys(ALGAE_COLOURS, 0))
    algae_space: str | None = None
    #: tile name -> True when the starfish side is up
    up: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(TILES, True))
    #: tile name -> the algae colour locking it
    locks: dict[str, str] = field(default_factory=dict)
    phase: str = "setup"
    #: the seat whose turn it is (play), or whose final feeding turn it is (final)
    active: str = ""
    #: seats still owed a final feeding turn after ``active``
    final_queue: list[str] = field(default_factory=list)
    end_reason: str = ""
    turn: int = 0

    def clone(self) -> State:
        """A copy sharing nothing mutable with this one."""
        return State(
            list(self.seats),
            {s: p.clone() for s, p in self.players.items()},
            self.advanced,
            list(self.boards),
            dict(self.polyps),
            dict(self.shrimp),
            dict(self.bag),
            dict(self.bonus),
            {k: SeaSpace(v.larva, dict(v.polyps)) for k, v in self.sea.items()},
            dict(self.larva_supply),
            dict(self.algae_supply),
            self.algae_space,
            dict(self.up),
            dict(self.locks),
            self.phase,
            self.active,
            list(self.final_queue),
            self.end_reason,
            self.turn,
        )

    def next_seat(self, seat: str) -> str:
        return self.seats[(self.seats.index(seat) + 1) % len(self.seats)]

    def colour_of(self, seat: str) -> str:
        return self.players[seat].colour


def dump(state: State) -> dict[str, Any]:
    """JSON-compatible, deterministic data (dict keys sorted by the canonical encoder)."""
    return {
        "seats": list(state.seats),
        "players": {
            s: {
                "colour": p.colour,
                "screen": dict(p.screen),
                "larvae": dict(p.larvae),
                "shrimp": p.shrimp,
                "front": dict(p.front),
                "parrotfish": dict(p.parrotfish),
                "feedings": p.feedings,
                "sea_shrimp": p.sea_shrimp,
                "eaten_shrimp": p.eaten_shrimp,
            }
            for s, p in state.players.items()
        },
        "advanced": state.advanced,
        "boards": list(state.boards),
        "polyps": dict(sorted(state.polyps.items())),
        "shrimp": dict(sorted(state.shrimp.items())),
        "bag": dict(state.bag),
        "bonus": dict(state.bonus),
        "sea": {k: {"larva": v.larva, "polyps": dict(v.polyps)} for k, v in state.sea.items()},
        "larva_supply": dict(state.larva_supply),
        "algae_supply": dict(state.algae_supply),
        "algae_space": state.algae_space,
        "up": dict(state.up),
        "locks": dict(sorted(state.locks.items())),
        "phase": state.phase,
        "active": state.active,
        "final_queue": list(state.final_queue),
        "end_reason": state.end_reason,
        "turn": state.turn,
    }


def load(data: dict[str, Any]) -> State:
    """The inverse of :func:`dump`."""
    players = {
        s: Player(
            s,
            p["colour"],
            dict(p["screen"]),
            dict(p["larvae"]),
            p["shrimp"],
            dict(p["front"]),
            dict(p["parrotfish"]),
            p["feedings"],
            p["sea_shrimp"],
            p["eaten_shrimp"],
        )
        for s, p in data["players"].items()
    }
    return State(
        list(data["seats"]),
        players,
        data["advanced"],
        list(data["boards"]),
        dict(data["polyps"]),
        dict(data["shrimp"]),
        dict(data["bag"]),
        dict(data["bonus"]),
        {k: SeaSpace(v["larva"], dict(v["polyps"])) for k, v in data["sea"].items()},
        dict(data["larva_supply"]),
        dict(data["algae_supply"]),
        data["algae_space"],
        dict(data["up"]),
        dict(data["locks"]),
        data["phase"],
        data["active"],
        list(data["final_queue"]),
        data["end_reason"],
        data["turn"],
    )
