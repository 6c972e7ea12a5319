"""Coral Divers' completion measured over bot games (``shared/rules/coral-divers.md``, Surface): the
rules file asks of 1,000 bot games of 2, 3 and 4 players that every game ends, that at most 2 % of Plant
actions discard every tile taken, that no final score is below zero, and that no turn leaves the player
to move with no reef and no action scoring above -3.

The last figure is measured, not assumed: at every turn where the player to move has no reef, the
engine is asked whether it accepts a Surface without closing anything (it scores 0); if it did not, the
turn would count at the floor of a Plant discarding every tile. The worst of those is the figure.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from games.coral_divers import GAME
from games.coral_divers.data import ECONOMY
from games.coral_divers.orders import Discard, Place, Plant, TurnOrders
from games.coral_divers.state import State
from games.coral_divers.turn import affordable_lines, line_cost
from pbem.core.game import RulesError
from proof.common import Figures

#: the goals of the rules file
MOST_DISCARDING_ALL = 0.02
LOWEST_FINAL = 0
WORST_NO_REEF_TURN_ABOVE = -3
#: far above any real game: 80 tiles, at least one leaves the nursery each Plant (a Surface may follow)
TURN_LIMIT = 600


class _Chance:
    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def pick(self, label: str, n: int) -> int:
        return self._random.randrange(n)


@dataclass
class Measure:
    games: int = 0
    unfinished: int = 0
    plants: int = 0
    plants_discarding_all: int = 0
    lowest_final: int | None = None
    no_reef_turns: int = 0
    #: the worst, over turns where the player to move had no reef, of the best score available
    worst_no_reef_turn: int | None = None
    #: turns where that best was -3 or below, as ``seed/turn``
    locked_out: list[str] = field(default_factory=list)
    low_games: list[str] = field(default_factory=list)

    def share_discarding_all(self) -> float:
        return self.plants_discarding_all / self.plants if self.plants else 0.0

    def goals_missed(self) -> list[str]:
        missed = []
        if self.unfinished:
            missed.append("every game ends")
        if self.share_discarding_all() > MOST_DISCARDING_ALL:
            missed.append("plants discarding every tile <= 2 %")
        if self.lowest_final is not None and self.lowest_final < LOWEST_FINAL:
            missed.append("no final score below zero")
        if self.worst_no_reef_turn is not None and self.worst_no_reef_turn <= WORST_NO_REEF_TURN_ABOVE:
            missed.append("no turn without an action scoring above -3")
        return missed


def best_no_reef_score(state: State, seat: str) -> int:
    """The best score some legal action gives ``seat`` (who has no reef) this turn: 0 when the engine
    accepts a Surface without closing anything; otherwise, as a floor, the cheapest Plant with every
    tile discarded (never better than the truth, so the figure can only look worse)."""
    try:
        GAME.check(state, seat, TurnOrders.model_validate([{"surface": []}]))
        return 0
    except RulesError:
        pass
    costs = [line_cost(state, line) for line in affordable_lines(state, seat)]
    return -ECONOMY.discard_penalty * min(costs) if costs else -ECONOMY.discard_penalty * 16


def play(seed: int, m: Measure, lines: str = "rows", new_reefs: str = "any") -> None:
    """One bot game of 2 + seed % 3 players, its figures added to ``m``."""
    chance = _Chance(seed)
    options = GAME.options_model(lines=lines, new_reefs=new_reefs)
    state: State = GAME.setup(["ann", "bob", "cy", "dee"][: 2 + seed % 3], options, chance)
    m.games += 1
    for turn in range(TURN_LIMIT):
        if GAME.outcome(state) is not None:
            break
        ((seat, decision),) = GAME.pending(state).items()
        if not state.reefs_of(seat):
            score = best_no_reef_score(state, seat)
            m.no_reef_turns += 1
            m.worst_no_reef_turn = score if m.worst_no_reef_turn is None else min(m.worst_no_reef_turn, score)
            if score <= WORST_NO_REEF_TURN_ABOVE:
                m.locked_out.append(f"game {seed} turn {turn} ({seat}): best action scores {score}")
        parsed = GAME.order_model(decision).model_validate(GAME.bot(state, seat, chance))
        steps = list(parsed.root)
        if any(isinstance(s, Plant) for s in steps):
            m.plants += 1
            kinds = Counter(type(s) for s in steps)
            if kinds[Place] == 0 and kinds[Discard] > 0:
                m.plants_discarding_all += 1
        state = GAME.resolve(state, {seat: parsed}, chance).state
    outcome = GAME.outcome(state)
    if outcome is None:
        m.unfinished += 1
        return
    low = min(outcome.scores.values())
    if low < LOWEST_FINAL:
        m.low_games.append(f"game {seed}: final scores {dict(sorted(outcome.scores.items()))}")
    m.lowest_final = low if m.lowest_final is None else min(m.lowest_final, low)


def measure(seeds: range, lines: str = "rows", new_reefs: str = "any") -> Measure:
    m = Measure()
    for seed in seeds:
        play(seed, m, lines, new_reefs)
    return m


def run(games: int = 1000) -> Figures:
    """The ``coral`` part of ``python -m proof``: ``games`` bot games, the rules file's figures; then
    the same games under the rules file's cap (option ``new_reefs: one-a-turn``), shown for README
    ruling 15 and without a goal."""
    m = measure(range(games))
    f = Figures()
    f.set("coral.games", m.games)
    f.set("coral.unfinished", m.unfinished, goal_zero=True)
    f.set("coral.plants", m.plants)
    f.set("coral.plants_discarding_every_tile_pct", round(100 * m.share_discarding_all(), 2))
    f.set("coral.lowest_final_score", m.lowest_final if m.lowest_final is not None else "none")
    f.set("coral.no_reef_turns", m.no_reef_turns)
    f.set("coral.worst_no_reef_turn", m.worst_no_reef_turn if m.worst_no_reef_turn is not None else "none")
    missed = m.goals_missed()
    f.set("coral.goals_missed", len(missed), goal_zero=True)
    for goal in missed:
        f.find(f"coral: goal missed: {goal}")
    for line in (m.locked_out + m.low_games)[:20]:
        f.find(f"coral: {line}")
    c = measure(range(games), new_reefs="one-a-turn")
    f.set("coral_capped.plants_discarding_every_tile_pct", round(100 * c.share_discarding_all(), 2))
    f.set("coral_capped.lowest_final_score", c.lowest_final if c.lowest_final is not None else "none")
    f.set("coral_capped.games_with_a_score_below_zero", len(c.low_games))
    return f
