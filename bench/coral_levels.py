"""Coral Divers' stand-in levels measured: two-seat games of one level against ``easy`` (the heuristic
bot), the seats alternated (the level moves first in even games), every draw from the game's seed.

``python -m bench.coral_levels --level strong --games 40`` prints the level's wins, ties and losses with
a 95 % interval, and the single decisions' wall time (median, p95) beside their size (orders compared,
worlds, turns played per world), so the bound that decides (the iterations) is reported with the time.
:func:`match` is what a bench part calls.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass, field

from games.coral_divers import GAME
from pbem.core.chance import Recorder
from pbem.core.search import BUDGETS, Budget, decide

SEATS = ("level", "easy")


@dataclass
class Match:
    level: str
    games: int = 0
    wins: int = 0
    ties: int = 0
    #: wall seconds of each decision the level made
    seconds: list[float] = field(default_factory=list)
    #: the orders each of its decisions compared (the search's candidates)
    compared: list[int] = field(default_factory=list)

    def rate(self) -> float:
        """Wins, a tie counting half."""
        return (self.wins + self.ties / 2) / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """The Wilson 95 % interval of :meth:`rate`."""
        n, p, z = self.games, self.rate(), 1.96
        if not n:
            return 0.0, 1.0
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def p95(self) -> float:
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0


def play(level: str, seed: int, budget: Budget | None, result: Match) -> None:
    """One game, ``level`` against ``easy``; the level moves first when ``seed`` is even."""
    rng = random.Random(seed)
    state = GAME.setup(SEATS, GAME.options_model(starting_player=SEATS[seed % 2]), Recorder(rng))
    while GAME.outcome(state) is None:
        ((seat, decision),) = GAME.pending(state).items()
        chance = Recorder(random.Random(rng.getrandbits(62)))
        if seat == "level":
            started = time.perf_counter()
            orders = decide(GAME, state, seat, chance, level, budget=budget)
            result.seconds.append(time.perf_counter() - started)
            limit = (budget or BUDGETS[level]).candidates if level != "easy" else 1
            result.compared.append(len(GAME.candidates(state, seat, Recorder(random.Random(0)), limit)))
        else:
            orders = GAME.bot(state, seat, chance)
        model = GAME.order_model(decision).model_validate(orders)
        state = GAME.resolve(state, {seat: model}, Recorder(rng)).state
    places = GAME.outcome(state).places  # type: ignore[union-attr]
    result.games += 1
    if places["level"] == places["easy"]:
        result.ties += 1
    elif places["level"] < places["easy"]:
        result.wins += 1


def match(level: str, games: int, first_seed: int = 0, budget: Budget | None = None) -> Match:
    result = Match(level)
    for seed in range(first_seed, first_seed + games):
        play(level, seed, budget, result)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="strong", choices=("easy", "normal", "strong"))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", help="candidates,worlds,horizon (default: the level's)")
    args = parser.parse_args()
    budget = Budget(*(int(x) for x in args.budget.split(","))) if args.budget else None
    m = match(args.level, args.games, args.seed, budget)
    low, high = m.interval()
    size = budget or BUDGETS.get(args.level)
    seconds = sorted(m.seconds)
    median = seconds[len(seconds) // 2] if seconds else 0.0
    print(
        f"bots.coral_divers.{args.level}_vs_easy {m.rate():.3f} rate  # 95 % {low:.2f}-{high:.2f}, "
        f"{m.wins} won {m.ties} tied of {m.games}, seeds {args.seed}-{args.seed + args.games - 1}"
    )
    print(
        f"bots.coral_divers.{args.level}_decision_p95_s {m.p95():.3f} s  # median {median:.3f} s over "
        f"{len(seconds)} decisions; budget {size}; orders compared: mean "
        f"{sum(m.compared) / max(1, len(m.compared)):.1f}"
    )


if __name__ == "__main__":
    main()
