"""What the stand-in's search needs of Coral Divers (:class:`pbem.core.game.StandIn`): a few orders worth
comparing, and the worth of a position it stops short of the end.

Rules: none of their own; every order comes from the bot's planner (:mod:`.bot`), built with the
engine's placement rules, and is read only from what the seat sees.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Any

from pbem.core.game import Chance

from . import bot, scoring, standing
from .state import State


def candidates(state: State, seat: str, chance: Chance, limit: int) -> list[Any]:
    """The bot's own orders first, then other plans taken in turn from two kinds so both are compared:
    planting each other line (the bot's plan for it, the most valuable first) and surfacing (the bot's
    choice of reefs, every reef at once, each reef alone, the fullest first)."""
    found: list[Any] = []

    def add(orders: Any) -> None:
        if orders is not None and orders not in found and len(found) < limit:
            found.append(orders)

    add(bot.choose(state, seat, chance))
    plants = [p.steps for p in bot.plans(state, seat)]
    for plant, rise in zip_longest(plants, _surfaces(state, seat)):
        add(plant)
        add(rise)
    return found


def _surfaces(state: State, seat: str) -> list[Any]:
    mine = sorted(state.reefs_of(seat), key=lambda r: (-scoring.reef_points(state, r), r.id))
    if not mine:
        return [[{"surface": []}]]
    everything = [{"surface": [min(r.cells) for r in sorted(mine, key=lambda r: r.id)]}]
    return [bot.surface(state, seat), everything, *([{"surface": [min(r.cells)]}] for r in mine)]


def evaluate(state: State, seat: str) -> float:
    """``seat``'s chances from its projected lead (:func:`.standing.chances`)."""
    return standing.chances(state, seat)
