"""Scoring and the outcome: tie-break by goods in the warehouse, shared places (rules file, "End")."""

from __future__ import annotations

from games.mare_balticum import GAME
from games.mare_balticum.scoring import score
from games.mare_balticum.state import State

from .helpers import position

MARKET = {"salmon": "x3", "herring": "x2", "flatfish": "x1", "cod": "x0"}


def finished(warehouses: dict[str, dict[str, int]], seats=("red", "blue", "green")) -> State:
    state = position(seats, warehouse=warehouses)
    for p in state.players.values():
        p.market = dict(MARKET)
        p.tokens = []
        p.tax_paid = True
    state.phase = "over"
    return state


def test_fish_without_a_value_and_hold_fish_score_nothing() -> None:
    state = finished({"red": {"cod": 5, "amber": 2}})
    state.players["red"].hold = {"salmon": 5}
    assert score(state, "red")["total"] == 2


def test_most_points_wins() -> None:
    state = finished({"red": {"salmon": 2}, "blue": {"herring": 2}, "green": {"amber": 1}})
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert dict(outcome.scores) == {"red": 6, "blue": 4, "green": 1}
    assert dict(outcome.places) == {"red": 1, "blue": 2, "green": 3}
    assert outcome.tie_breaks == []


def test_a_tie_goes_to_more_goods_in_the_warehouse() -> None:
    # red: 2 salmon = 6 points from 2 goods; blue: 3 herring = 6 points from 3 goods
    state = finished({"red": {"salmon": 2}, "blue": {"herring": 3}, "green": {}})
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.scores["red"] == outcome.scores["blue"] == 6
    assert outcome.places["blue"] == 1 and outcome.places["red"] == 2 and outcome.places["green"] == 3
    assert outcome.tie_breaks == [
        "red and blue: equal on points (6); more goods wins (goods: red: 2 and blue: 3)"
    ]


def test_still_tied_the_place_is_shared() -> None:
    # green 4 points from 4 goods; blue and red 4 points from 3 goods each
    state = finished(
        {"green": {"flatfish": 2, "amber": 2}, "blue": {"herring": 1, "flatfish": 1, "amber": 1},
         "red": {"herring": 1, "amber": 2}}
    )  # fmt: skip
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.places == {"green": 1, "blue": 2, "red": 2}
    assert outcome.tie_breaks == [
        "red, blue and green: equal on points (4); more goods wins (goods: red: 3, blue: 3 and green: 4); "
        "equal goods share"
    ]


def test_no_outcome_while_the_game_runs() -> None:
    assert GAME.outcome(position()) is None


def test_equal_points_and_goods_share_first_place() -> None:
    # red: herring 2 + amber 1 + cod 0; blue: 3 amber
    state = finished({"red": {"herring": 1, "amber": 1, "cod": 1}, "blue": {"amber": 3}, "green": {}})
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.places == {"red": 1, "blue": 1, "green": 3}
    assert outcome.tie_breaks == ["red and blue: equal on points (3) and on goods (3): a shared place"]
