"""The rules file's goals for the completion, over a small campaign of bot games of 2, 3 and 4 players
(``python -m proof --only coral`` plays the full 1,000): every game ends, at most 2 % of Plants discard
every tile, no final score below zero, and no turn leaves a player with no reef without an action
scoring above -3. The figures are printed (``pytest -s``)."""

from __future__ import annotations

import pytest

from proof import coral

from .conftest import line, position

GAMES = 36


def test_a_small_campaign_meets_the_rules_file_s_goals() -> None:
    m = coral.measure(range(GAMES))
    print(
        f"coral divers, {m.games} bot games: plants discarding every tile "
        f"{100 * m.share_discarding_all():.2f} % of {m.plants}, lowest final score {m.lowest_final}, "
        f"worst no-reef turn {m.worst_no_reef_turn} over {m.no_reef_turns} such turns"
    )
    assert m.games == GAMES and m.unfinished == 0
    assert m.plants > 10 * GAMES, "the bots plant (they do not just surface)"
    assert m.no_reef_turns > 0
    assert m.goals_missed() == [], (m.goals_missed(), m.locked_out[:5], m.low_games[:5])


def test_the_measure_finds_a_missed_goal() -> None:
    m = coral.Measure(plants=100, plants_discarding_all=3, lowest_final=-1, worst_no_reef_turn=-3)
    assert m.goals_missed() == [
        "plants discarding every tile <= 2 %",
        "no final score below zero",
        "no turn without an action scoring above -3",
    ]


def test_a_no_reef_turn_is_scored_by_what_the_engine_accepts() -> None:
    state = position(nursery=line(["brain", "brain", "fan", "tube"]))
    assert coral.best_no_reef_score(state, "red") == 0  # no reef: the Surface is accepted
    # were the Surface refused (a reef on the map counts for red here), the floor would be the
    # cheapest line with every tile discarded: row 1 holds one brain (row 2 four tubes)
    state = position(nursery=line(["brain"]), reefs=[("red", {"f4": "fan"})])
    assert coral.best_no_reef_score(state, "red") == -3


def test_the_proof_part_prints_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from proof.__main__ import main

    assert main(["--only", "coral", "--scale", "0.003"]) == 0
    out = capsys.readouterr().out
    for name in (
        "coral.games: 3",
        "coral.unfinished: 0",
        "coral.plants_discarding_every_tile_pct: ",
        "coral.lowest_final_score: ",
        "coral.worst_no_reef_turn: 0",
        "coral.goals_missed: 0",
        "coral_capped.lowest_final_score: ",
    ):
        assert name in out, name
