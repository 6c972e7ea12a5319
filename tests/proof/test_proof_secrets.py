"""Secrets, a small sample of ``make proof``'s campaign: no report, status, template or answer to an order
file changes when the holdings hidden from a seat are dealt anew."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem.core.game import Game
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
    from pbem.archive import page

    monkeypatch.setattr(page, "_mark", lambda row: f"{row.epoch}:{row.turn}:{row.state_sha256}")
    game = next(g for g in shipped_games() if g.name == "coral-divers")
    figures = secrets.run(tmp_path, 4, 1, [game])
    assert figures.values["secrets.leaks"] > 0
    assert all("archive page" in line for line in figures.findings)


def test_the_seats_read_mixed_languages_and_the_game_yet_another() -> None:
    assert secrets.seat_languages(("ann", "bob", "cy")) == {"ann": "en", "bob": "hu", "cy": "cs"}
    assert secrets.game_language(("ann", "bob", "cy")) == "zh"  # no seat's: observers read a fifth
    five = ("ann", "bob", "cy", "dee", "eve")
    assert sorted(secrets.seat_languages(five).values()) == sorted(secrets.i18n.LANGUAGES)


def test_each_seat_is_told_everything_in_its_own_language(tmp_path: Path) -> None:
    game = next(g for g in shipped_games() if g.name == "mare-balticum")
    position = next(secrets.positions(game, 1))
    scratch = secrets.Scratch(tmp_path, game)
    ann = secrets.outputs(scratch, position, position.state, position.events, "ann", [])
    bob = secrets.outputs(scratch, position, position.state, position.events, "bob", [])
    assert "Report for ann" in ann["report.txt[ann]"]
    assert "jelentés" in bob["report.txt[bob]"].lower() and "Report for bob" not in bob["report.txt[bob]"]
    assert bob["template"] != ann["template"].replace("ann", "bob")  # the template's comments in Hungarian
    scratch.engine.dispose()


def test_a_leak_in_one_language_only_is_caught(tmp_path: Path, monkeypatch: Any) -> None:
    """A slip only the Hungarian reader gets (there, the view names the face-down seabed tokens' kinds,
    as a mistranslated word naming a hidden holding would): the mixed-language campaign finds it, and
    only for the seat that reads Hungarian (bob, seat 2)."""
    game = next(g for g in shipped_games() if g.name == "coral-divers")
    honest = game.view

    def hungarian_slip(state: Any, seat: str | None) -> Any:
        view = honest(state, seat)
        if seat is not None and secrets.i18n.current_language() == "hu":
            view["face_down_revealed"] = {k: state.seabed[k] for k in sorted(state.seabed)}
        return view

    monkeypatch.setattr(game, "view", hungarian_slip)
    figures = secrets.run(tmp_path, 4, 1, [game])
    assert figures.values["secrets.leaks"] > 0
    assert any("report" in line for line in figures.findings)
    assert figures.findings and all(": bob's " in line for line in figures.findings), figures.findings
