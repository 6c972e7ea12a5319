"""The bench part ``bots`` counts what it says: pairwise comparisons with easy seats (a tie a half),
first places shared, the searching seat moved round the table; its lines are ``name value unit``. Played
on the host's small test game, so the counting is checked without the shipped games' long searches
(``make bench`` measures those)."""

from __future__ import annotations

import math

from bench import bots
from pbem.core import registry


def test_wilson_interval_brackets_the_rate_and_narrows_with_more_games() -> None:
    low, high = bots.wilson(7, 10)
    assert low < 0.7 < high
    assert bots.wilson(70, 100)[1] - bots.wilson(70, 100)[0] < high - low
    assert bots.wilson(0, 0) == (0.0, 1.0)


def test_three_seats_give_two_comparisons_a_game_and_the_seat_moves_round() -> None:
    game = registry.get_game("pearl-dive")
    tally = bots.Tally("strong")
    seated: list[int] = []
    original = game.setup

    def setup(seats, options, chance):  # type: ignore[no-untyped-def]
        seated.append(list(seats).index(bots.SEARCHED))
        return original(seats, options, chance)

    game.setup = setup  # type: ignore[method-assign]
    try:
        for number in range(4):
            bots.play(game, 3, "strong", number, tally)
    finally:
        del game.setup  # type: ignore[method-assign]
    assert seated == [0, 1, 2, 0]
    assert (tally.games, tally.pairs) == (4, 8)
    assert 0 <= tally.ahead <= 8 and 0 <= tally.first <= 4 and tally.seconds


def test_the_part_prints_each_figure_once_as_name_value_unit() -> None:
    lines = list(bots.figures(2, table=(("pearl-dive", "pearl_dive", 2),)))
    figures = {item[0]: item for item in lines if not isinstance(item, str)}
    assert sorted(figures) == [
        "bots.pearl_dive.decision_p95_s",
        "bots.pearl_dive.normal_vs_easy",
        "bots.pearl_dive.strong_vs_easy",
    ]
    assert all(0 <= figures[f"bots.pearl_dive.{lv}_vs_easy"][1] <= 1 for lv in ("strong", "normal"))
    assert math.isfinite(figures["bots.pearl_dive.decision_p95_s"][1])
    assert any("95 % interval" in item for item in lines if isinstance(item, str))


def test_games_played_at_once_count_the_same_as_one_after_another() -> None:
    one_by_one = bots._tally("pearl-dive", 2, "strong", 4, jobs=1)
    at_once = bots._tally("pearl-dive", 2, "strong", 4, jobs=2)
    assert (at_once.games, at_once.pairs, at_once.ahead, at_once.first) == (
        one_by_one.games, one_by_one.pairs, one_by_one.ahead, one_by_one.first,
    )  # fmt: skip
    assert len(at_once.seconds) == len(one_by_one.seconds) > 0
