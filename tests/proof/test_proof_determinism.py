"""Determinism, a small sample of ``make proof``'s campaign: bot games exported, imported into a fresh
database by another process and replayed give the same hashes and reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.core.game import Game
from proof import determinism
from proof.common import shipped_games

GAMES = 10


@pytest.mark.parametrize("game", shipped_games(), ids=lambda g: g.name)
def test_exported_games_replay_to_the_same_hashes_and_reports(game: Game, tmp_path: Path) -> None:
    figures = determinism.run_game_type(tmp_path, game.name, GAMES, by_commands=1)
    assert figures.values["determinism.games"] == GAMES
    assert figures.values["determinism.by_command"] == 1
    assert figures.values["determinism.reports_compared"] > GAMES
    assert figures.values["determinism.mismatches"] == 0, figures.findings


def test_a_changed_report_is_a_mismatch(tmp_path: Path) -> None:
    source = {"final": "a", "hashes": ["a", "b"], "reports": {"1:ann": (b"x", b"y")}}
    same = {"final": "a", "hashes": ["a", "b"], "reports": {"1:ann": (b"x", b"y")}}
    other = {"final": "a", "hashes": ["a", "c"], "reports": {"1:ann": (b"x", b"z")}}
    assert determinism.compare(source, same) == []
    assert determinism.compare(source, other) == ["turn hashes differ from turn 1", "report 1:ann differs"]
