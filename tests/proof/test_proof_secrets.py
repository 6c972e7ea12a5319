"""Secrets, a small sample of ``make proof``'s campaign: no report, status, template or answer to an order
file changes when the holdings hidden from a seat are dealt anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem.game import Game
from proof import secrets
from proof.common import shipped_games

POSITIONS = 20


@pytest.mark.parametrize("game", shipped_games(), ids=lambda g: g.name)
def test_nothing_a_seat_is_told_depends_on_hidden_holdings(game: Game, tmp_path: Path) -> None:
    figures = secrets.run(tmp_path, POSITIONS, 1, [game])
    assert figures.values["secrets.positions"] == POSITIONS
    assert figures.values["secrets.variants_changed"] > 0, "the resampling changed nothing: no test at all"
    assert figures.values["secrets.errors"] == 0, figures.findings
    assert figures.values["secrets.leaks"] == 0, figures.findings


def test_a_view_that_shows_the_next_seats_holdings_is_caught(tmp_path: Path, monkeypatch: Any) -> None:
    game = next(g for g in shipped_games() if g.name == "reef-encounter")
    honest = game.view

    def next_seats_view(state: Any, seat: str | None) -> Any:
        if seat is None:
            return honest(state, None)
        order = list(honest(state, None)["colours"])
        return honest(state, order[(order.index(seat) + 1) % len(order)])

    monkeypatch.setattr(game, "view", next_seats_view)
    figures = secrets.run(tmp_path, 6, 1, [game])
    assert figures.values["secrets.leaks"] > 0
    assert any("report" in line for line in figures.findings)


def test_a_running_games_archive_page_that_tells_the_state_hash_is_caught(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The archive page of a running game is collected too: a page whose marker held the state's hash
    (as a first version of it did: a reader could test guesses of hidden holdings against it) leaks."""
    from pbem import archive_page

    monkeypatch.setattr(archive_page, "_mark", lambda row: f"{row.epoch}:{row.turn}:{row.state_sha256}")
    game = next(g for g in shipped_games() if g.name == "coral-divers")
    figures = secrets.run(tmp_path, 4, 1, [game])
    assert figures.values["secrets.leaks"] > 0
    assert all("archive page" in line for line in figures.findings)
