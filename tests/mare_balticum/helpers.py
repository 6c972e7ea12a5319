"""Test helpers: a seeded chance, a scripted chance, order parsing and complete bot games."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from games.mare_balticum import GAME
from games.mare_balticum.state import State
from pbem.core.game import Decision, Event

SEATS = {3: ["red", "blue", "green"], 4: ["red", "blue", "green", "yellow"],
         5: ["red", "blue", "green", "yellow", "black"]}  # fmt: skip


class SeededChance:
    """``random.Random`` behind the :class:`pbem.core.game.Chance` protocol; records every pick."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.record: list[tuple[str, int, int]] = []

    def pick(self, label: str, n: int) -> int:
        outcome = self.rng.randrange(n)
        self.record.append((label, n, outcome))
        return outcome


class ScriptedChance:
    """Answers from a list of outcomes (the host's replay does the same)."""

    def __init__(self, outcomes: Sequence[int]) -> None:
        self.outcomes = list(outcomes)

    def pick(self, label: str, n: int) -> int:
        outcome = self.outcomes.pop(0)
        assert 0 <= outcome < n, (label, n, outcome)
        return outcome


def parse(state: State, seat: str, data: Any) -> Any:
    """Orders as the host parses them for ``seat``'s pending decision."""
    decision: Decision = GAME.pending(state)[seat]
    return GAME.order_model(decision).model_validate(data)


def act(state: State, orders: dict[str, Any], chance: Any = None) -> tuple[State, list[Event]]:
    """Check and resolve plain-data orders of every pending seat."""
    parsed = {seat: parse(state, seat, data) for seat, data in orders.items()}
    for seat, model in parsed.items():
        GAME.check(state, seat, model)
    res = GAME.resolve(state, parsed, chance or SeededChance(0))
    return res.state, list(res.events)


def play_bot_game(
    seats: Sequence[str],
    options: dict[str, Any],
    seed: int,
    after_each: Callable[[State, list[Event]], None] | None = None,
    max_resolutions: int = 2000,
) -> State:
    """A complete game of bots; ``after_each`` sees every new state."""
    chance = SeededChance(seed)
    state = GAME.setup(seats, GAME.options_model(**options), chance)
    if after_each:
        after_each(state, [])
    for _ in range(max_resolutions):
        pend = GAME.pending(state)
        if not pend:
            return state
        orders = {}
        for seat, decision in pend.items():
            data = GAME.bot(state, seat, chance)
            model = GAME.order_model(decision).model_validate(data)
            GAME.check(state, seat, model)
            orders[seat] = model
        res = GAME.resolve(state, orders, chance)
        state = res.state
        if after_each:
            after_each(state, list(res.events))
    raise AssertionError(f"the game did not end within {max_resolutions} decisions")


def bot_positions(options: dict[str, Any], seed: int, seats: int = 3) -> Iterator[tuple[State, str, Any]]:
    """Every decision of a bot game as (state, seat, the bot's orders), seats in name order."""
    chance = SeededChance(seed)
    state = GAME.setup(SEATS[seats], GAME.options_model(**options), chance)
    while GAME.pending(state):
        orders = {}
        for seat in sorted(GAME.pending(state)):
            bot = GAME.bot(state, seat, chance)
            yield state, seat, bot
            orders[seat] = parse(state, seat, bot)
        state = GAME.resolve(state, orders, chance).state


def position(
    seats: Sequence[str] = ("red", "blue", "green"),
    *,
    options: dict[str, Any] | None = None,
    ships: dict[str, list[str]] | None = None,
    hold: dict[str, dict[str, int]] | None = None,
    warehouse: dict[str, dict[str, int]] | None = None,
    board: dict[str, dict[str, int]] | None = None,
    demand: dict[str, list[str | None]] | None = None,
    seed: int = 1,
) -> State:
    """A position in the turn phase, the first seat to play: setup, then the given facts laid over it.

    Ships not listed stay in the supply; every seat without ships listed gets one in kobenhavn."""
    opts = {"starting_player": seats[0], **(options or {})}
    state = GAME.setup(list(seats), GAME.options_model(**opts), SeededChance(seed))
    state.phase = "turn"
    state.placed = len(seats)
    fleet = {5: 3, 4: 4, 3: 5}[len(seats)]
    for seat in seats:
        p = state.players[seat]
        p.ships = list((ships or {}).get(seat, ["kobenhavn"]))
        p.supply = fleet - len(p.ships)
        p.hold = dict((hold or {}).get(seat, {}))
        p.warehouse = dict((warehouse or {}).get(seat, {}))
    for area, goods in (board or {}).items():
        state.board[area] = dict(goods)
    for port, slots in (demand or {}).items():
        state.demand[port] = list(slots)
    return state


def turn(state: State, *steps: Any, chance: Any = None) -> tuple[State, list[Event]]:
    """The active seat plays ``steps`` (plain data)."""
    return act(state, {state.active: list(steps)}, chance)


def rules_error(state: State, seat: str, data: Any) -> Any:
    """The :class:`RulesError` that ``check`` raises for these orders (fails if none)."""
    from pbem.core.game import RulesError

    model = parse(state, seat, data)
    try:
        GAME.check(state, seat, model)
    except RulesError as err:
        return err
    raise AssertionError(f"orders passed check: {data}")


def texts(events: list[Event], seat: str | None = None) -> list[str]:
    return [e.text for e in events if e.visible_to(seat)]
