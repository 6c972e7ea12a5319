"""The stand-in's levels measured, part ``bots`` of ``python -m bench`` (or ``python -m bench.bots
[--games N] [--only GAME]``): per shipped game, N games of ``strong`` against ``easy`` and N of
``normal`` against ``easy``, every draw from the game's seed.

A game seats one searching stand-in against easy ones: one in a two-seat game, two in Mare Balticum
(which needs three seats). Its seat moves round the table from game to game (game ``i`` seats it at
``i mod seats``), so no level is helped by always playing first.

How a *win* is counted: pairwise, each easy seat one comparison, the searching seat ahead of it counting
1, level with it 1/2, behind it 0 (in a two-seat game that is just a win, a tie counting half). First
place (shared firsts counting half) is given as a note. Each rate has its Wilson 95 % interval as a note
(over the comparisons; in Mare Balticum the two of a game are not independent, so that interval is a
little narrow). ``decision_p95_s`` is the p95 wall time of the strong level's decisions on this machine
(a benchmark, not a bound: the search's budget counts worlds and turns, never seconds).

The games are independent, so ``--jobs`` plays as many at once as the machine has cores (each game's draws
come from its number alone: the figures do not depend on how many run at once). A decision is still timed
on one core, its own process's.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat

from pbem.core import registry
from pbem.core.chance import Recorder
from pbem.core.game import Game
from pbem.core.search import decide

#: (registry name, figure name, seats at the table)
GAMES = (
    ("reef-encounter", "reef_encounter", 2),
    ("mare-balticum", "mare_balticum", 3),
    ("coral-divers", "coral_divers", 2),
)
#: a game not over after this many resolutions is a bug, not a long game
LONGEST = 5000
SEARCHED = "stand-in"


@dataclass
class Tally:
    """A level's record against easy seats."""

    level: str
    games: int = 0
    ahead: float = 0.0  # pairwise comparisons won (a tie a half)
    pairs: int = 0
    first: float = 0.0  # games finished first (a shared first a share)
    seconds: list[float] = field(default_factory=list)  # the level's decisions, wall time

    def rate(self) -> float:
        return self.ahead / self.pairs if self.pairs else 0.0

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.ahead += other.ahead
        self.pairs += other.pairs
        self.first += other.first
        self.seconds += other.seconds


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` in ``trials`` (95 % by default)."""
    if not trials:
        return 0.0, 1.0
    p = successes / trials
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    middle = p + z * z / (2 * trials)
    scale = 1 + z * z / trials
    return max(0.0, (middle - spread) / scale), min(1.0, (middle + spread) / scale)


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def play(game: Game, seats: int, level: str, number: int, tally: Tally) -> None:
    """Game ``number``: the searching seat at ``number mod seats``, the others easy."""
    names = [f"easy{i}" for i in range(seats - 1)]
    names.insert(number % seats, SEARCHED)
    rng = random.Random(number)
    state = game.setup(names, game.options_model.model_validate({}), Recorder(rng))
    for _ in range(LONGEST):
        outcome = game.outcome(state)
        pending = game.pending(state)
        if outcome is not None or not pending:
            break
        given = {}
        for seat, decision in sorted(pending.items()):
            chance = Recorder(random.Random(rng.getrandbits(62)))
            started = time.perf_counter()
            orders = decide(game, state, seat, chance, level if seat == SEARCHED else "easy")
            if seat == SEARCHED:
                tally.seconds.append(time.perf_counter() - started)
            given[seat] = game.order_model(decision).model_validate(orders)
        state = game.resolve(state, given, Recorder(rng)).state
    outcome = game.outcome(state)
    if outcome is None:
        raise RuntimeError(f"{game.name} game {number} at {level} did not end in {LONGEST} resolutions")
    places = outcome.places
    mine = places[SEARCHED]
    others = [places[n] for n in names if n != SEARCHED]
    tally.games += 1
    tally.pairs += len(others)
    tally.ahead += sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others)
    if mine == min(places.values()):
        tally.first += 1 / sum(1 for p in places.values() if p == mine)


def _game(game_name: str, seats: int, level: str, number: int) -> Tally:
    """One game's tally (what a worker process plays)."""
    tally = Tally(level)
    play(registry.get_game(game_name), seats, level, number, tally)
    return tally


def _tally(game_name: str, seats: int, level: str, games: int, jobs: int) -> Tally:
    """``games`` games of ``level`` against easy seats, ``jobs`` at once."""
    tally = Tally(level)
    if jobs <= 1:
        for number in range(games):
            play(registry.get_game(game_name), seats, level, number, tally)
        return tally
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for one in pool.map(_game, repeat(game_name), repeat(seats), repeat(level), range(games)):
            tally.add(one)
    return tally


def figures(
    games: int,
    only: str | None = None,
    table: tuple[tuple[str, str, int], ...] = GAMES,
    jobs: int = 1,
) -> Iterator[tuple[str, float, str] | str]:
    """The part's lines: notes (``str``) and ``(name, value, unit)`` figures, for each game of ``table``,
    ``jobs`` games played at once."""
    yield (
        f"# bots: {games} games a level a game, the searching seat rotated round the table against easy "
        "seats; a win is being ahead of an easy seat (pairwise, a tie a half)"
    )
    for game_name, figure, seats in table:
        if only and only not in (game_name, figure):
            continue
        for level in ("strong", "normal"):
            tally = _tally(game_name, seats, level, games, jobs)
            low, high = wilson(tally.ahead, tally.pairs)
            yield (
                f"# bots.{figure}.{level}_vs_easy: 95 % interval {low:.2f}-{high:.2f} over {tally.pairs} "
                f"comparisons; first place {tally.first / tally.games:.2f} of {tally.games} games "
                f"(a fair share: {1 / seats:.2f}); decision p50 {quantile(tally.seconds, 0.5):.3f} s, "
                f"p95 {quantile(tally.seconds, 0.95):.3f} s"
            )
            yield f"bots.{figure}.{level}_vs_easy", tally.rate(), "rate"
            if level == "strong":
                strong_p95 = quantile(tally.seconds, 0.95)
        yield f"bots.{figure}.decision_p95_s", strong_p95, "s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games a level a game (default 200)")
    parser.add_argument("--only", help="one game: reef_encounter, mare_balticum or coral_divers")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="games played at once (default: one a core)"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs: at least 1")
    for item in figures(args.games, args.only, jobs=args.jobs):
        print(item if isinstance(item, str) else f"{item[0]} {item[1]:.3f} {item[2]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
