"""What the searching stand-in (``pbem.core.search``) asks of Mare Balticum: orders worth comparing, and
how well a seat stands when a search stops looking ahead.

:func:`candidates` starts from the heuristic bot's orders and adds genuinely different plans: another
first plan of the turn (fish elsewhere, unload now, sail to another area) each played on as the bot
would, then the same a step later; in a company decision another fish for the best token, a low token
to keep the high ones, or the tax now; in the port decision every port. :func:`evaluate` projects
each seat's score from what it holds and compares the seat with each rival.
"""

from __future__ import annotations

import json
import math
from typing import Any

from pbem.core.game import Budget, Chance

from . import bot
from .board import AMBER, COMPONENTS, FISH, PORTS
from .seasons import tax_due
from .state import State, total

#: how hard the levels search. A game of Mare Balticum is short (some 40 to 50 turns in all) and what a
#: turn sets up pays late (the tokens placed, the fish unloaded), so every world is played to the end and
#: valued by its outcome. Strong against two easy seats over 200 games (BENCHMARKS.md), ahead of an easy
#: seat: 0.57 with two turns of look-ahead, 0.67 with six; to the end 0.73 at 6 candidates in 10 worlds
#: and 0.77 at 4 in 16 (fewer plans, each judged in more worlds, are fewer picked for their worlds' luck)
BUDGETS = {
    "normal": Budget(candidates=4, worlds=6, horizon=None),
    "strong": Budget(candidates=4, worlds=16, horizon=None),
}
#: how far apart two projected scores must be for the leader to stand surely ahead (at the end of the
#: game; earlier the bag still holds more chances and the gap counts for less)
SURE_LEAD = 2.0
#: how much less sure a lead is for each goods token left in the bag
LEAD_DOUBT_PER_GOOD = 0.12
#: what a time token still in the bag adds to a seat's projection for each ship it has on the board:
#: a fleet keeps fishing
FLEET_WORTH = 0.25


def candidates(state: State, seat: str, chance: Chance, limit: int) -> list[Any]:
    """Up to ``limit`` distinct legal orders for ``seat``, the heuristic bot's first."""
    first = bot.choose(state, seat, chance)
    if state.phase == "port":
        worth = bot.port_values(state, seat)
        others = sorted((p for p in PORTS if p != first[0]["port"]), key=lambda p: (-worth[p], p))
        found = [first] + [[{"port": p}] for p in others]
    elif state.phase == "company":
        found = [first] + [[{"company": c}] for c in _company_plans(state, seat)]
    else:
        found = [first, *_turn_plans(state, seat, first)]
    return _distinct(found)[:limit]


def _distinct(orders: list[Any]) -> list[Any]:
    """Each set of orders once: the same steps in another order count as the same plan."""
    seen: set[str] = set()
    out = []
    for given in orders:
        key = json.dumps(sorted(json.dumps(step, sort_keys=True) for step in given))
        if key not in seen:
            seen.add(key)
            out.append(given)
    return out


def _turn_plans(state: State, seat: str, first: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Other turns: at each of the bot's actions in turn, each other plan it ranked there, played on as
    the bot would; the alternatives of the earliest action first, the best ranked of each first."""
    actions = [i for i, step in enumerate(first) if "discard" not in step]
    by_depth: list[list[list[dict[str, Any]]]] = []
    for depth in range(len(actions) + 1):
        done = first[: actions[depth]] if depth < len(actions) else first
        work = state.copy()
        bot.play_steps(work, seat, done)
        left = COMPONENTS.actions_per_turn - min(depth, len(actions))
        if left <= 0:
            break
        gainful, repositions = bot.ranked_plans(work, seat, left)
        plans = [plan for _, plan in gainful] + [plan for _, plan in repositions[:3]]
        by_depth.append([bot.turn_from(state, seat, done, plan) for plan in plans])
    # one of each depth in turn, so the first few differ early and late in the turn alike
    out = []
    for rank in range(max((len(turns) for turns in by_depth), default=0)):
        out += [turns[rank] for turns in by_depth if rank < len(turns)]
    if first:
        out.append([])  # no action at all: keeps ships where refills would come
    return out


def _company_plans(state: State, seat: str) -> list[dict[str, Any]]:
    """The best token on every free slot, best liked first; the lowest token on the least liked slot;
    the tax with the cheapest goods now, when the rules allow it."""
    player = state.players[seat]
    numbers = [t for t in player.tokens if t != "tax"]
    free = bot.slots_by_appeal(state, seat)
    plans: list[dict[str, Any]] = []
    if numbers:
        plans += [{"token": numbers[0], "fish": fish} for fish in free]
        plans.append({"token": numbers[-1], "fish": free[-1]})
    have = total(player.hold) + total(player.warehouse)
    if "tax" in player.tokens and (have >= 2 or not numbers):
        plans.append({"token": "tax", "discard": bot.cheapest_tax(state, seat, tax_due(state, seat))})
    return plans


def projected(state: State, seat: str) -> float:
    """What ``seat`` would score if the game ended now, its hold unloaded at a discount, plus what its
    fleet may still fish while time tokens remain."""
    player = state.players[seat]
    values = _values_as_placed(state, seat)
    worth = sum(values[k] * n for k, n in player.warehouse.items())
    over = state.phase == "over"
    if not over:
        worth += sum(values[k] * n * bot.HOLD_RISK for k, n in player.hold.items())
        worth += FLEET_WORTH * len(player.ships) * state.bag.get("time", 0)
    if state.options["contracts"] and player.contract is not None:
        card = COMPONENTS.contracts[player.contract - 1]
        have = {k: player.warehouse.get(k, 0) for k in (*FISH, AMBER)}
        sets = min(have[k] // card.count(k) for k in set(card))
        worth += sets * (COMPONENTS.contract_set_points - sum(values[k] for k in card))
    return worth


def _values_as_placed(state: State, seat: str) -> dict[str, float]:
    """What each goods kind will be worth to ``seat`` once its number tokens still in hand are on the
    free slots, the highest on the fish it owns most of (as it will place them)."""
    values = bot.fish_values(state, seat)
    player = state.players[seat]
    numbers = sorted((COMPONENTS.token_values[t] for t in player.tokens if t != "tax"), reverse=True)
    free = [f for f in FISH if f not in player.market and values[f] > 0]
    owned = {f: player.warehouse.get(f, 0) + bot.HOLD_RISK * player.hold.get(f, 0) for f in free}
    for fish, number in zip(sorted(free, key=lambda f: -owned[f]), numbers, strict=False):
        values[fish] = float(number)
    return values


def evaluate(state: State, seat: str) -> float:
    """How likely ``seat`` is to finish ahead of each rival, on average: 1 first, 0 last, as a place
    counts in the search's own worth of a finished game."""
    mine = projected(state, seat)
    scale = SURE_LEAD + LEAD_DOUBT_PER_GOOD * total(state.bag)
    rivals = [s for s in state.order if s != seat]
    if not rivals:
        return 1.0
    ahead = [1 / (1 + math.exp(-(mine - projected(state, s)) / scale * 2.0)) for s in rivals]
    return sum(ahead) / len(ahead)
