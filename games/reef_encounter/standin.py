"""What the searching stand-in needs of Reef Encounter (:class:`pbem.core.game.StandIn`).

The candidates are whole plans, not reshufflings of one: the heuristic's turn first, then turns that
feed or hold back, lead with another larva, leave the algae, or take another open-sea space. The worth of
a position is each seat's score now plus what its guarded corals and holdings promise, turned into a
standing between 0 and 1 against every other seat.
"""

from __future__ import annotations

import math

from pbem.core.game import JSON, Chance, Game

from .bot import Plan, final_choices, setup_orders, turn_orders
from .data import CORAL_COLOURS
from .reef import coral, values
from .sea import polyps_back
from .state import State

#: how many points of lead make a seat about three times as likely to be ahead as behind
SCALE = 6.0


def candidates(game: Game, state: State, seat: str, chance: Chance, limit: int) -> list[JSON]:
    """Up to ``limit`` distinct orders for ``seat``'s pending decision, the heuristic's first."""
    kind = game.pending(state)[seat].kind
    out: list[JSON] = [game.bot(state, seat, chance)]
    if kind == "setup":
        p, v = state.players[seat], values(state)
        for fish in sorted((c for c in CORAL_COLOURS if p.screen[c]), key=lambda c: (-v[c], c)):
            _add(out, setup_orders(state, seat, fish))
    elif kind == "final_feeding":
        for space in final_choices(state, seat):
            _add(out, [{"feed": space}])
        _add(out, ["pass"])
    else:
        for plan in _plans(state, seat):
            if len(out) >= limit:
                break
            _add(out, turn_orders(game, state, seat, plan))
    return out[:limit]


def _add(out: list[JSON], orders: JSON) -> None:
    if orders not in out:
        out.append(orders)


def _plans(state: State, seat: str) -> list[Plan]:
    """Turns that differ from the heuristic's in one choice each, the likeliest to matter first."""
    p = state.players[seat]
    held = [c for c in CORAL_COLOURS if p.larvae[c] and p.screen[c] + p.front[c]]
    plans = [Plan(feed=True), Plan(feed=False)]
    plans += [Plan(larvae=(c,)) for c in held]
    plans += [Plan(take=1), Plan(algae=False), Plan(take=2)]
    plans += [Plan(larvae=(a, b)) for a in held for b in held if a != b]
    return plans


def evaluate(state: State, seat: str) -> float:
    """``seat``'s standing: the mean over the other seats of a logistic in the lead of its promise."""
    if len(state.seats) < 2:
        return 1.0
    promise = {s: _promise(state, s) for s in state.seats}
    mine = promise[seat]
    others = [promise[s] for s in state.seats if s != seat]
    return sum(1.0 / (1.0 + math.exp(-(mine - o) / SCALE)) for o in others) / len(others)


def _promise(state: State, seat: str) -> float:
    """Points in the parrotfish, plus most of what the seat's guarded corals would feed it, plus a
    little for material that can still grow corals."""
    v = values(state)
    p = state.players[seat]
    points = float(sum(v[c] * n for c, n in p.parrotfish.items()))
    back = polyps_back(state, final=False)
    seen: set[str] = set()
    feeds_left = 4 - p.feedings
    corals: list[float] = []
    for space, owner in state.shrimp.items():
        if owner != seat or space not in state.polyps or space in seen:
            continue
        c = coral(state, space)
        seen |= c
        colour = state.polyps[space]
        corals.append(max(0, len(c) - back) * v[colour] * 0.7 + min(len(c), 5) * 0.15)
    points += sum(sorted(corals, reverse=True)[: max(feeds_left, 0)])
    material = sum(p.screen.values()) + sum(p.front.values()) + 2 * sum(p.larvae.values())
    return points + 0.1 * material + (0.5 if p.sea_shrimp else 0.0)
