"""``python -m bench.mare_standin [--games N] [--level strong|normal] [--seed S]``: Mare Balticum's
stand-in levels measured against the heuristic.

Mare Balticum needs three seats: each game seats one searching stand-in (``normal`` or ``strong``)
against two ``easy`` ones, the searching seat rotated through the three places (and the starting player
drawn from the game's seed). It prints, as ``name value unit`` lines with notes:
``bots.mare_balticum.<level>_first`` (how often the searching seat finished first, shared firsts
counting half), ``bots.mare_balticum.<level>_vs_easy`` (how often it finished ahead of an easy seat,
each pair of seats one comparison, ties half), and ``bots.mare_balticum.<level>_decision_p95_s`` with
the p95 of the search's resolutions per decision (the machine-independent measure of its work).
:func:`match` and :func:`measure` are what the stand-in bench calls.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games.mare_balticum import GAME
from pbem.core.chance import Recorder
from pbem.core.search import Budget, decide

SEATS = ("red", "blue", "green")


class _Counting:
    """The game, counting the resolutions a search plays (its iterations)."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self.resolutions = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def resolve(self, state: Any, orders: Any, chance: Any) -> Any:
        self.resolutions += 1
        return self._game.resolve(state, orders, chance)


@dataclass
class Tally:
    games: int = 0
    first: float = 0.0
    pairs: int = 0
    ahead: float = 0.0
    seconds: list[float] = field(default_factory=list)
    resolutions: list[int] = field(default_factory=list)


def match(seed: int, level: str, budget: Budget | None = None, tally: Tally | None = None) -> Tally:
    """One game: the seat ``seed % 3`` plays at ``level``, the others ``easy``; adds to ``tally``."""
    tally = tally or Tally()
    rng = random.Random(seed)
    searching = SEATS[seed % 3]
    state = GAME.setup(list(SEATS), GAME.options_model(), Recorder(random.Random(rng.getrandbits(62))))
    while GAME.pending(state):
        given = {}
        for seat, decision in sorted(GAME.pending(state).items()):
            chance = Recorder(random.Random(rng.getrandbits(62)))
            if seat == searching:
                counting = _Counting(GAME)
                started = time.perf_counter()
                plain = decide(counting, state, seat, chance, level, budget=budget)
                tally.seconds.append(time.perf_counter() - started)
                tally.resolutions.append(counting.resolutions)
            else:
                plain = GAME.bot(state, seat, chance)
            given[seat] = GAME.order_model(decision).model_validate(plain)
        state = GAME.resolve(state, given, Recorder(random.Random(rng.getrandbits(62)))).state
    outcome = GAME.outcome(state)
    assert outcome is not None
    mine = outcome.places[searching]
    tally.games += 1
    firsts = [s for s in SEATS if outcome.places[s] == 1]
    tally.first += (1 / len(firsts)) if searching in firsts else 0.0
    for other in SEATS:
        if other != searching:
            tally.pairs += 1
            theirs = outcome.places[other]
            tally.ahead += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return tally


def measure(games: int, level: str, seed: int = 0, budget: Budget | None = None) -> Tally:
    tally = Tally()
    for i in range(games):
        match(seed + i, level, budget, tally)
    return tally


def _interval(wins: float, n: int) -> str:
    """A 95 % Wilson interval for a rate."""
    if not n:
        return "n/a"
    p, z = wins / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{max(0.0, centre - half):.2f}-{min(1.0, centre + half):.2f}"


def _p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else (values[0] if values else 0.0)


def report(tally: Tally, level: str) -> list[str]:
    name = f"bots.mare_balticum.{level}"
    return [
        f"# {tally.games} three-seat games, one {level} seat against two easy ones, seats rotated",
        f"# first place 95% interval {_interval(tally.first, tally.games)}; "
        f"ahead of an easy seat {_interval(tally.ahead, tally.pairs)} over {tally.pairs} pairs",
        f"# resolutions per decision: p95 {_p95(tally.resolutions):.0f}, "
        f"max {max(tally.resolutions, default=0)}",
        f"{name}_first {tally.first / max(1, tally.games):.3f} rate",
        f"{name}_vs_easy {tally.ahead / max(1, tally.pairs):.3f} rate",
        f"{name}_decision_p95_s {_p95(tally.seconds):.3f} s",
    ]


def guide_timing(seed: int = 0) -> list[str]:
    """How long ``next_steps`` takes over every prefix of every bot decision of one game (each click)."""
    rng = random.Random(seed)
    state = GAME.setup(list(SEATS), GAME.options_model(), Recorder(random.Random(rng.getrandbits(62))))
    seconds: list[float] = []
    choices: list[int] = []
    while GAME.pending(state):
        given = {}
        for seat, decision in sorted(GAME.pending(state).items()):
            plain = GAME.bot(state, seat, Recorder(random.Random(rng.getrandbits(62))))
            for i in range(len(plain) + 1):
                started = time.perf_counter()
                found = GAME.next_steps(state, seat, plain[:i])
                seconds.append(time.perf_counter() - started)
                choices.append(len(found.choices))
            given[seat] = GAME.order_model(decision).model_validate(plain)
        state = GAME.resolve(state, given, Recorder(random.Random(rng.getrandbits(62)))).state
    return [
        f"# next_steps over {len(seconds)} calls of one bot game: up to {max(choices)} choices a call",
        f"guide.mare_balticum.next_steps_p50_ms {statistics.median(seconds) * 1000:.2f} ms",
        f"guide.mare_balticum.next_steps_p95_ms {_p95(seconds) * 1000:.2f} ms",
    ]


def _budget(text: str) -> Budget:
    candidates, worlds, horizon = (int(n) for n in text.split(","))
    return Budget(candidates=candidates, worlds=worlds, horizon=horizon or None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mare_standin", description=__doc__)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--level", choices=("normal", "strong"), default="strong")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--budget", type=_budget, help="candidates,worlds,horizon (0: to the end; default: the game's own)"
    )
    parser.add_argument("--guide", action="store_true", help="time next_steps instead")
    args = parser.parse_args(argv)
    if args.guide:
        lines = guide_timing(args.seed)
    else:
        budget = args.budget or GAME.budgets[args.level]
        lines = report(measure(args.games, args.level, args.seed, budget), args.level)
        lines.insert(
            0,
            f"# budget: {budget.candidates} candidates, {budget.worlds} worlds, "
            f"horizon {budget.horizon or 'to the end'}",
        )
    for line in lines:
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
