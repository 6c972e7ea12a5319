"""A Coral Divers bot: plans every affordable line greedily and plays the best, or surfaces.

It sees only what its seat may see: it never reads a face-down token's kind (a token is worth a flat
bonus to it) nor a reserved station's value. Every order it gives is built with the same placement
rules as the engine, so it always passes ``check``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pbem.core.game import Chance

from . import board
from .data import ECONOMY, SEA_MAP
from .scoring import strengths
from .standing import filled, station_promise
from .state import NURSERY, State, coral, has_clownfish, line_slots
from .turn import can_afford_a_line, line_cost, may_surface_without_reef

#: a player with no reef surfaces (income, a cleared row) rather than plant a line worth less than this
SURFACE_BELOW = -3.0


@dataclass
class Plan:
    line: str
    value: float
    steps: list[Any] = field(default_factory=list)
    #: whether the plan starts a new reef already (at most one a turn)
    started: bool = False


def _hot_spaces(state: State) -> dict[str, float]:
    """Ring spaces of active, unscored stations, valued by the station's high value."""
    hot: dict[str, float] = {}
    for spot, st in state.stations.items():
        if st.revealed and not st.scored:
            for s in SEA_MAP.ring[spot]:
                hot[s] = max(hot.get(s, 0.0), st.value.high / 4)
    return hot


def _candidates(state: State, seat: str, kind: str) -> set[str]:
    spaces: set[str] = set()
    for reef in state.reefs.values():
        if reef.owner == seat and reef.coral == kind:
            for c in reef.cells:
                spaces.update(q for q in SEA_MAP.orthogonal[c] if q not in state.tiles)
    if state.divers_on_board(seat) > 0:
        for spot, st in state.stations.items():
            if st.revealed:
                spaces.update(q for q in SEA_MAP.start[spot] if q not in state.tiles)
    return spaces


@dataclass(frozen=True)
class _Open:
    """An open (active, unscored) station as a placement sees it: its ring, values, who has how many
    tiles there, how much of the ring is taken, and the seat's lead in what it promises now."""

    ring: frozenset[str]
    high: int
    low: int
    strength: dict[str, int]
    taken: int
    lead: float


def _open_stations(state: State, seat: str) -> list[_Open]:
    found = []
    for spot, st in state.stations.items():
        if st.revealed and not st.scored:
            strength = strengths(state, spot)
            taken = filled(state, spot)
            now = _lead(station_promise(strength, st.value.high, st.value.low, taken), seat)
            found.append(
                _Open(frozenset(SEA_MAP.ring[spot]), st.value.high, st.value.low, strength, taken, now)
            )
    return found


def _station_gain(state: State, seat: str, at: str, how: board.Placement, stations: list[_Open]) -> float:
    """How much a tile on ``at`` raises ``seat``'s lead at the open stations it counts at: what each
    promises (:func:`.standing.station_promise`) with the tile, less without it. A tile that fills a
    ring where another seat leads hands that seat the high value: that is a loss, not a gain."""
    grown = {at}.union(*(state.reefs[r].cells for r in (*how.own, *how.neutral)))
    gain = 0.0
    for st in stations:
        if st.ring.isdisjoint(grown):
            continue
        joined = sum(
            len(state.reefs[r].cells) for r in how.own if not st.ring.isdisjoint(state.reefs[r].cells)
        )
        after = dict(st.strength)
        after[seat] = after.get(seat, 0) - joined + len(grown)
        now = station_promise(after, st.high, st.low, st.taken + (at in st.ring))
        gain += _lead(now, seat) - st.lead
    return gain


def _lead(promise: dict[str, float], seat: str) -> float:
    others = [v for s, v in promise.items() if s != seat]
    return promise.get(seat, 0.0) - (max(others) if others else 0.0)


def _worth(state: State, tile: str, at: str, how: board.Placement, stations: list[_Open]) -> float:
    value = 1.0 + (1.0 if has_clownfish(tile) else 0.0) + _station_gain(state, state.seat, at, how, stations)
    if at in state.seabed:
        value += 1.0
    if how.starts:
        value -= 1.2 if state.divers_on_board(state.seat) > 2 else 2.0
    else:
        value += 0.6 + 0.3 * sum(len(state.reefs[r].cells) for r in how.neutral)
    return value


def _best_spot(
    state: State, seat: str, tile: str, hot: dict[str, float], free_start: bool, may_start: bool = True
) -> tuple[str, board.Placement, float] | None:
    best: tuple[str, board.Placement, float] | None = None
    spaces = sorted(_candidates(state, seat, coral(tile)))
    stations = _open_stations(state, seat)
    for at in spaces:
        how = board.placement(state, seat, tile, at, 0, may_start=may_start)
        if isinstance(how, board.Placement):
            w = _worth(state, tile, at, how, stations)
            if best is None or w > best[2]:
                best = (at, how, w)
    if best is None and free_start and may_start and state.divers_on_board(seat) > 0:
        for at in sorted(hot):
            how = board.placement(state, seat, tile, at, 1, may_start=may_start)
            if isinstance(how, board.Placement) and how.free_start:
                return at, how, _worth(state, tile, at, how, stations)
    return best


def _plan(state: State, seat: str, line: str, hot: dict[str, float]) -> Plan | None:
    p = state.players[seat]
    shells = Counter(p.shells)
    cost = line_cost(state, line)
    plan = Plan(line, 0.0)
    coins = p.coins
    if shells["discount"] and (cost >= 3 or cost > coins):
        plan.steps.append({"shell": "discount"})
        shells["discount"] -= 1
        cost = 0
    while cost > coins and shells["pearl"]:
        plan.steps.append({"shell": "pearl"})
        shells["pearl"] -= 1
        coins = min(ECONOMY.coin_cap, coins + ECONOMY.pearl_coins)
    if cost > coins:
        return None
    plan.steps.append({"plant": {"line": line}})
    plan.value -= 0.4 * cost
    work = state.copy()
    taken = [work.nursery[s] for s in line_slots(line) if work.nursery[s] is not None]
    for s in line_slots(line):
        work.nursery[s] = None
    # the most promising tiles first: the ones that extend a reef of their own type, then the type
    # the line holds most of (one new reef a turn: the others of its type can extend it)
    kinds = Counter(coral(t or "") for t in taken)
    order = sorted(
        range(len(taken)),
        key=lambda n: (
            -_tile_promise(work, seat, taken[n]),
            -kinds[coral(taken[n] or "")],
            coral(taken[n] or ""),
        ),
    )
    for n in order:
        plan.value += _put(work, seat, taken[n], n + 1, plan, hot, shells)
    if shells["extra-tile"] and plan.value > 0:
        _extra(work, seat, len(taken) + 1, plan, hot, shells)
    return plan


def _tile_promise(state: State, seat: str, tile: str | None) -> int:
    kind = coral(tile or "")
    return sum(len(r.cells) for r in state.reefs.values() if r.owner == seat and r.coral == kind)


def _put(
    work: State,
    seat: str,
    tile: str | None,
    number: int,
    plan: Plan,
    hot: dict[str, float],
    shells: Counter[str],
) -> float:
    assert tile is not None
    may_start = not plan.started or work.new_reefs == "any"
    spot = _best_spot(work, seat, tile, hot, shells["free-start"] > 0, may_start)
    if spot is None:
        plan.steps.append({"discard": {"tile": number}})
        return -float(ECONOMY.discard_penalty)
    at, how, w = spot
    plan.started = plan.started or how.starts
    if how.free_start:
        plan.steps.append({"shell": "free-start"})
        shells["free-start"] -= 1
    board.place(work, seat, tile, at, how)
    plan.steps.append({"place": {"tile": number, "at": at}})
    return w


def _extra(
    work: State, seat: str, number: int, plan: Plan, hot: dict[str, float], shells: Counter[str]
) -> None:
    """Use an extra-tile shell on the nursery tile that extends one of our reefs best, if any does."""
    best: tuple[float, int, str, board.Placement] | None = None
    for slot, tile in enumerate(work.nursery):
        if tile is None:
            continue
        spot = _best_spot(work, seat, tile, hot, False, False)
        if spot is not None and not spot[1].starts and (best is None or spot[2] > best[0]):
            best = (spot[2], slot, spot[0], spot[1])
    if best is None:
        return
    _, slot, at, how = best
    tile = work.nursery[slot]
    assert tile is not None
    work.nursery[slot] = None
    board.place(work, seat, tile, at, how)
    shells["extra-tile"] -= 1
    plan.steps.append(
        {"shell": {"kind": "extra-tile", "row": slot // NURSERY + 1, "column": slot % NURSERY + 1}}
    )
    plan.steps.append({"place": {"tile": number, "at": at}})
    plan.value += best[0]


def _room(state: State, reef_cells: frozenset[str]) -> int:
    """Empty open spaces next to a reef: how much it can still grow."""
    return len(
        {q for c in reef_cells for q in SEA_MAP.orthogonal[c] if q not in state.tiles} & set(SEA_MAP.open)
    )


def _surface(state: State, seat: str) -> list[Any]:
    """Close the reefs that can no longer grow and count at no open station; else the least promising."""
    hot = _hot_spaces(state)
    mine = sorted(state.reefs_of(seat), key=lambda r: r.id)
    idle = [r for r in mine if _room(state, r.cells) == 0 and not any(c in hot for c in r.cells)]
    closing = idle or [min(mine, key=lambda r: (_room(state, r.cells), -len(r.cells), r.id))]
    return [{"surface": [min(r.cells) for r in closing]}]


def plans(state: State, seat: str) -> list[Plan]:
    """A plan for every line ``seat`` can pay for, the most valuable first."""
    if not can_afford_a_line(state, seat):
        return []
    hot = _hot_spaces(state)
    lines = [line for line in state.choosable_lines() if line_cost(state, line) > 0]
    found = [p for line in lines if (p := _plan(state, seat, line, hot))]
    found.sort(key=lambda p: -p.value)
    return found


def surface(state: State, seat: str) -> list[Any]:
    """The bot's Surface: the reefs it would close, or nothing when the seat has no reef."""
    return _surface(state, seat) if state.reefs_of(seat) else [{"surface": []}]


def choose(state: State, seat: str, chance: Chance) -> list[Any]:
    """The bot's orders for ``seat``'s turn."""
    mine = state.reefs_of(seat)
    ranked = plans(state, seat)
    if not ranked:
        return surface(state, seat)
    best = ranked[0]
    if not mine and best.value < SURFACE_BELOW and may_surface_without_reef(state, seat):
        # no reef and no line to plant without a discard: income (and a cleared row) beats a loss
        return [{"surface": []}]
    if len(ranked) > 1 and ranked[1].value >= best.value - 0.5 and chance.pick("bot", 3) == 0:
        best = ranked[1]
    p = state.players[seat]
    weak = best.value < 0 or (p.coins <= 1 and best.value < 2)
    if mine and weak:
        return _surface(state, seat)
    return best.steps
