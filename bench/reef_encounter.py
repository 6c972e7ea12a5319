"""Reef Encounter's stand-in, measured: ``python -m bench.reef_encounter [--games N] [--level L]``.

Plays two-seat games of ``level`` against ``easy`` (seats alternated, every draw from the game's seed)
and prints the win rate, the decision times and iteration counts of the searching seat, and the easy
bot's habits (actions used, shrimp taken back, parrotfish colours, feedings), one ``name value unit``
line each, as the bench prints its figures. :func:`match` is what the bench's bot part can call.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.reef_encounter import GAME
from pbem.core.chance import Recorder
from pbem.core.search import BUDGETS, Budget, decide

TURN_LIMIT = 400


@dataclass
class Match:
    """What a run of games found: wins of the measured level, its decision seconds, the habits seen."""

    games: int = 0
    wins: float = 0.0
    seconds: list[float] = field(default_factory=list)
    habits: Counter[str] = field(default_factory=Counter)
    scores: list[tuple[int, int]] = field(default_factory=list)


def play(
    seed: int, levels: Mapping[str, str], budget: Budget | None = None, into: Match | None = None
) -> Any:
    """One game, each seat at its level; returns the outcome (and adds to ``into``)."""
    seats = list(levels)
    chance = Recorder(random.Random(seed))
    state = GAME.setup(seats, GAME.options_model(), chance)
    for _ in range(TURN_LIMIT):
        outcome = GAME.outcome(state)
        if outcome is not None:
            break
        orders = {}
        for seat, decision in GAME.pending(state).items():
            seat_chance = Recorder(random.Random(chance.pick("stand-in", 2**62)))
            started = time.perf_counter()
            data = decide(GAME, state, seat, seat_chance, levels[seat], budget=budget)
            if into is not None:
                if levels[seat] != "easy":
                    into.seconds.append(time.perf_counter() - started)
                _habits(into.habits, state, seat, data)
            orders[seat] = GAME.order_model(decision).model_validate(data)
        state = GAME.resolve(state, orders, chance).state
    else:
        raise RuntimeError(f"game {seed} did not end in {TURN_LIMIT} turns")
    if into is not None:
        into.habits["feedings"] += sum(p.feedings for p in state.players.values())
        into.habits["seats"] += len(seats)
        into.habits["seats never fed"] += sum(p.feedings == 0 for p in state.players.values())
    return outcome


def _habits(habits: Counter[str], state: Any, seat: str, data: list[Any]) -> None:
    for step in data:
        key = step if isinstance(step, str) else next(iter(step))
        habits["steps"] += 1
        habits[f"step {key}"] += 1
        if key == "move_shrimp" and step["move_shrimp"]["to"] == "screen":
            habits["shrimp taken back"] += 1
        if key == "setup":
            habits[f"parrotfish {step['setup']['parrotfish']}"] += 1


def match(level: str, games: int, seed: int = 0, budget: Budget | None = None) -> Match:
    """``games`` two-seat games of ``level`` against ``easy``, the measured seat first in every other."""
    out = Match()
    for g in range(games):
        levels = {"ann": level, "bob": "easy"} if g % 2 == 0 else {"ann": "easy", "bob": level}
        outcome = play(seed + g, levels, budget, out)
        me = "ann" if g % 2 == 0 else "bob"
        other = "bob" if me == "ann" else "ann"
        out.games += 1
        out.wins += (
            1.0
            if outcome.places[me] < outcome.places[other]
            else 0.5
            if outcome.places[me] == outcome.places[other]
            else 0.0
        )
        out.scores.append((outcome.scores[me], outcome.scores[other]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--level", default="strong")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worlds", type=int)
    parser.add_argument("--candidates", type=int)
    parser.add_argument("--horizon", type=int)
    args = parser.parse_args()
    budget = None
    if args.level != "easy":
        base = BUDGETS[args.level]
        budget = Budget(
            candidates=args.candidates or base.candidates,
            worlds=args.worlds or base.worlds,
            horizon=base.horizon if args.horizon is None else args.horizon,
        )
    started = time.perf_counter()
    m = match(args.level, args.games, args.seed, budget)
    name = f"bots.reef_encounter.{args.level}_vs_easy"
    print(f"# {m.games} games, seed {args.seed}, budget {budget}, {time.perf_counter() - started:.0f} s")
    print(f"{name} {m.wins / m.games:.3f} ratio")
    if m.seconds:
        s = sorted(m.seconds)
        print(f"bots.reef_encounter.decision_p50_s {s[len(s) // 2]:.3f} s")
        print(f"bots.reef_encounter.decision_p95_s {s[int(len(s) * 0.95)]:.3f} s")
    mean_me = sum(a for a, _ in m.scores) / m.games
    mean_easy = sum(b for _, b in m.scores) / m.games
    print(f"# mean score {args.level} {mean_me:.1f}, easy {mean_easy:.1f}")
    for key, n in sorted(m.habits.items()):
        print(f"# habit {key}: {n}")


if __name__ == "__main__":
    main()
