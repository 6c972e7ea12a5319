"""The searching stand-in's hooks: candidates that are distinct legal plans, the heuristic's first; a
worth of a position in [0, 1] that follows the score; and ``decide`` at every level giving orders that
``check`` accepts."""

from __future__ import annotations

import pytest

from games.reef_encounter import GAME
from pbem.core.search import Budget, decide

from .conftest import SeededChance, make_state
from .test_guide import positions, verdict

#: a small search, enough to exercise every path of the levels quickly
SMALL = Budget(candidates=4, worlds=2, horizon=1)


def test_candidates_are_distinct_legal_plans_the_heuristics_first() -> None:
    varied = 0
    for k, (state, seat, _) in enumerate(positions(3, players=2, every=5)):
        found = GAME.candidates(state, seat, SeededChance(k), 6)
        assert found[0] == GAME.bot(state, seat, SeededChance(k))
        assert len(found) <= 6 and all(found.count(c) == 1 for c in found)
        assert all(verdict(state, seat, c) is None for c in found)
        if GAME.pending(state)[seat].kind == "turn" and len(found) > 1:
            # not the same steps reshuffled: another plan plays other steps
            assert any(sorted(map(str, c)) != sorted(map(str, found[0])) for c in found[1:])
            varied += 1
    assert varied > 5


def test_the_worth_of_a_position_follows_the_score() -> None:
    even = make_state()
    ahead = make_state(fish={"purple": {"grey": 4}}, fed={"purple": 1})
    behind = make_state(fish={"green": {"grey": 4}}, fed={"green": 1})
    assert GAME.evaluate(even, "purple") == pytest.approx(0.5)
    assert 0.5 < GAME.evaluate(ahead, "purple") <= 1.0
    assert 0.0 <= GAME.evaluate(behind, "purple") < 0.5
    # a guarded coral worth feeding promises points too
    coral = dict.fromkeys(("Ba2", "Bb2", "Bc2", "Bd2", "Bd3", "Bc3"), "grey")
    assert GAME.evaluate(make_state(polyps=coral, shrimp={"Bb2": "purple"}), "purple") > 0.5


@pytest.mark.parametrize("level", ["easy", "normal", "strong"])
def test_decide_gives_orders_check_accepts_at_every_level(level: str) -> None:
    decided = 0
    games = [*positions(4, players=2, every=9), *positions(5, players=3, every=9)]
    for k, (state, seat, _) in enumerate(games):
        orders = decide(GAME, state, seat, SeededChance(k), level, budget=None if level == "easy" else SMALL)
        assert verdict(state, seat, orders) is None, orders
        decided += 1
    assert decided > 3
