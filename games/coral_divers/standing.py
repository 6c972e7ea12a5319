"""How the seats stand: each one's points as they would be counted if play stopped, what its open
stations promise, and a seat's chances from its lead (what the stand-in's search values a position by).

Only what every seat sees is read: points, reefs, coins, shells and fish in front of the players, the
active stations. Reserved stations and face-down tokens do not enter, so the worth of a position is
the same in every world a search deals.
"""

from __future__ import annotations

import math

from .data import SEA_MAP
from .scoring import award, award_final, reef_points, ring_full, strengths
from .state import State

#: what a coin in hand is worth in points: it buys about one tile's planting
COIN = 0.3
#: a lead in points that makes a seat about three times as likely to finish ahead as behind
LEAD_SCALE = 6.0


def filled(state: State, spot: str) -> int:
    """Ring spaces of ``spot`` already taken (coral tile, face-down token or cave)."""
    return sum(1 for s in SEA_MAP.ring[spot] if s in state.tiles or s in state.seabed or s in SEA_MAP.caves)


def station_promise(strength: dict[str, int], high: int, low: int, taken: int) -> dict[str, float]:
    """What an open station promises each seat present: its award once the ring fills (``high`` and
    ``low``), the end's low value to the leaders until then, weighed by how much of the ring is
    taken. A full ring is scored now."""
    if not strength:
        return {}
    full = award(strength, high, low)
    if taken >= 8:
        return {s: float(v) for s, v in full.items()}
    at_end = award_final(strength, low)
    weight = (taken / 8) ** 2
    return {s: weight * full.get(s, 0) + (1 - weight) * at_end.get(s, 0) for s in strength}


def projected(state: State) -> dict[str, float]:
    """Every seat's points if play stopped now, its coins and open stations counted at their promise."""
    if state.final is not None:
        return {s: float(state.final[s]["total"]) for s in state.seats}
    out = {s: p.points + len(p.shells) + sum(p.fish) + COIN * p.coins for s, p in state.players.items()}
    for reef in state.reefs.values():
        if reef.owner is not None:
            out[reef.owner] += reef_points(state, reef)
    for spot, st in state.stations.items():
        if not st.revealed or st.scored:
            continue
        taken = 8 if ring_full(state, spot) else filled(state, spot)
        for seat, value in station_promise(
            strengths(state, spot), st.value.high, st.value.low, taken
        ).items():
            out[seat] += value
    return out


def lead(state: State, seat: str) -> float:
    """``seat``'s projected points ahead of the best other seat (negative when behind)."""
    points = projected(state)
    return points[seat] - max(v for s, v in points.items() if s != seat)


def chances(state: State, seat: str) -> float:
    """0 (surely last) to 1 (surely first): the lead through a logistic curve; the places once over."""
    if state.places is not None:
        seats = len(state.seats)
        return (seats - state.places[seat]) / (seats - 1)
    return 1 / (1 + math.exp(-lead(state, seat) / LEAD_SCALE * math.log(3)))
