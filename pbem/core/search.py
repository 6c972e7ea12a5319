"""A stand-in that searches: determinized Monte Carlo over what the seat cannot see.

The heuristic :meth:`Game.bot` plays a position as it finds it; :func:`decide` at the levels ``normal``
and ``strong`` compares a few orders the game proposes (:meth:`StandIn.candidates`) by playing each
forward in several *worlds*: states the seat cannot tell from the real one
(:meth:`Game.resample_hidden`: other screens, the bag's order, future draws dealt anew), the other seats
and the seat itself played on by the heuristic for a few turns, the end position valued by
:meth:`StandIn.evaluate` (or by the outcome, when the game ended). The orders with the best mean worth
win; ties go to the one the heuristic ranked first.

It never cheats by construction: every world, and the position the candidates are drawn from, is a
resample of the real state, and a game's ``resample_hidden`` depends on what the seat sees and on the
chance alone. So the decision is a function of the seat's view and the chance handed in (the host
derives that from the game's seed, the turn and the seat): ``tests/standin`` changes every secret and
gets the same orders.

Every candidate is tried in the same worlds with the same draws (common random numbers), so the
comparison measures the orders and not the luck of their worlds. The budget is counted in worlds and
turns, not seconds, so a decision does not depend on the machine's speed; ``seconds``, when given, only
stops a search early at a world's boundary (every candidate has then been tried in the same worlds), and
that decision then may.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.chance import Recorder
from pbem.core.game import JSON, Budget, Chance, Game, Outcome, RulesError, StandIn

#: the levels a stand-in plays at, weakest first
LEVELS = ("easy", "normal", "strong")
#: the missed-orders policies that hand a seat to the stand-in: plain ``bot`` is the easy level
BOT_POLICIES = ("bot", *(f"bot:{level}" for level in LEVELS))


def policy_level(policy: str) -> str | None:
    """The level at which a missed-orders policy (``GameRow.nmr``) plays for a seat: ``None`` for one
    that waits (``wait``), ``easy`` for plain ``bot``."""
    if policy not in BOT_POLICIES:
        return None
    return policy.partition(":")[2] or "easy"


def standin_mark(seat: str, level: str) -> str:
    """How a turn records that the stand-in played ``seat`` at ``level`` (an entry of its ``by_bot``)."""
    return f"{seat}={level}"


def standin_of(mark: str) -> tuple[str, str | None]:
    """(seat, level) of a ``by_bot`` entry; the level ``None`` for a turn recorded before the levels
    (only the easy bot played then, and its reports said so in their own words)."""
    seat, _sep, level = mark.partition("=")
    return seat, level or None


#: the budgets Reef Encounter and Coral Divers search with (each game sets its own: ``StandIn.budgets``),
#: measured there (BENCHMARKS.md): a horizon of 2 beat 1 for ``normal`` in Reef Encounter (0.875 against 0.675
#: over 40 games), for 1.7 times the time; 3 was no better than 2
BUDGETS: Mapping[str, Budget] = {
    "normal": Budget(candidates=4, worlds=6, horizon=2),
    "strong": Budget(candidates=8, worlds=12, horizon=2),
}


def decide(
    game: Game,
    state: Any,
    seat: str,
    chance: Chance,
    level: str = "easy",
    *,
    budget: Budget | None = None,
    seconds: float | None = None,
) -> JSON:
    """``seat``'s orders for its pending decision at ``level``, as plain data (what ``Game.bot`` gives)."""
    if level not in LEVELS:
        raise ValueError(f"unknown stand-in level {level!r}: one of {', '.join(LEVELS)}")
    if level == "easy" or not isinstance(game, StandIn):
        # the heuristic too is handed a resample, never the real state: whatever a game's ``bot`` reads,
        # its orders depend on the seat's view alone (a fixed seed: the bot's own draws stay the chance's)
        return game.bot(game.resample_hidden(state, seat, _chance(0)), seat, chance)
    budget = budget or game.budgets[level]
    root = random.Random(chance.pick("search", 2**62))
    world_seeds = [root.getrandbits(62) for _ in range(budget.worlds)]
    # the candidates come from a resample too: the real state's secrets never reach the search
    seen = game.resample_hidden(state, seat, _chance(root.getrandbits(62)))
    proposed = game.candidates(seen, seat, _chance(root.getrandbits(62)), budget.candidates)
    candidates = _legal(game, seen, seat, proposed)
    if len(candidates) <= 1:
        return candidates[0] if candidates else game.bot(seen, seat, chance)
    totals = [0.0] * len(candidates)
    started = time.monotonic()
    for world_seed in world_seeds:
        for i, orders in enumerate(candidates):
            totals[i] += _play_out(game, state, seat, orders, world_seed, budget.horizon)
        if seconds is not None and time.monotonic() - started > seconds:
            break
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]


def _chance(seed: int) -> Recorder:
    return Recorder(random.Random(seed))


def _legal(game: Game, state: Any, seat: str, proposed: Sequence[JSON]) -> list[JSON]:
    """The proposed orders that the rules accept, each once, in the order given."""
    decision = game.pending(state).get(seat)
    if decision is None:
        return []
    model = game.order_model(decision)
    legal: list[JSON] = []
    for orders in proposed:
        if orders in legal:
            continue
        try:
            game.check(state, seat, model.model_validate(orders))
        except (RulesError, ValueError):
            continue  # a proposal the rules refuse in this world is no candidate
        legal.append(orders)
    return legal


def _play_out(game: Any, state: Any, seat: str, orders: JSON, world_seed: int, horizon: int | None) -> float:
    """The worth for ``seat`` of giving ``orders`` now, in the world ``world_seed`` deals: the decision's
    own resolution, then ``horizon`` more (``None``: to the end) with every seat played by the heuristic."""
    draws = random.Random(world_seed)
    world = game.resample_hidden(state, seat, _chance(draws.getrandbits(62)))
    if not _legal(game, world, seat, [orders]):
        return 0.0  # orders that only some worlds allow are worth nothing in the others
    resolution = 0
    while horizon is None or resolution <= horizon:
        pending = game.pending(world)
        if not pending:
            break
        given = {}
        for who, decision in sorted(pending.items()):
            # each seat's draw is taken whether or not it is used, so every candidate meets the same luck
            bot_chance = _chance(draws.getrandbits(62))
            plain = orders if resolution == 0 and who == seat else game.bot(world, who, bot_chance)
            given[who] = game.order_model(decision).model_validate(plain)
        world = game.resolve(world, given, _chance(draws.getrandbits(62))).state
        resolution += 1
    outcome = game.outcome(world)
    return _worth(outcome, seat) if outcome is not None else float(game.evaluate(world, seat))


def _worth(outcome: Outcome, seat: str) -> float:
    """1 for first place, 0 for last, evenly between."""
    seats = len(outcome.places)
    if seats <= 1:
        return 1.0
    return (seats - outcome.places[seat]) / (seats - 1)
