"""The HTML and text reports (rules section 8), rendered from views as the host does."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.state import State
from pbem.core.i18n import current_language
from pbem.render.tables import render

from .conftest import SeededChance, make_state
from .test_properties import positions


def context(state: State, seat: str | None, events: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    view = GAME.view(state, seat)
    pending = GAME.pending(state)
    outcome = GAME.outcome(state)
    return {
        "language": current_language(),  # <html lang>, as pbem.render.reports gives it
        "game": {"id": "reef-1", "title": GAME.title, "type": GAME.name, "turn": state.turn},
        "seat": seat,
        "colour": view["colours"][seat] if seat else None,
        "view": view,
        "events": [{"turn": state.turn, "text": t} for t in events],
        "decision": pending.get(seat) if seat else None,
        "order_template": GAME.template(state, seat) if seat in pending else None,
        "deadline": None,
        "status_note": None,
        "outcome": None
        if outcome is None
        else {
            "reason": outcome.reason,
            "scores": dict(outcome.scores),
            "places": dict(outcome.places),
            "ranking": outcome.ranking(),
            "tie_breaks": list(outcome.tie_breaks),
        },
    }


@pytest.fixture
def position() -> State:
    return make_state(
        polyps={"Bd5": "yellow", "Bd6": "yellow", "Db1": "pink"},
        shrimp={"Bd5": "green"},
        screens={"purple": {"white": 3}, "green": {"orange": 7}},
        larvae={"purple": {"grey": 1}},
        fish={"purple": {"pink": 2}, "green": {"grey": 4}},
    )


def test_a_polyp_and_a_shrimp_appear_in_both_reports(position: State) -> None:
    html = render("reef-encounter", "html", context(position, "purple"))
    text = render("reef-encounter", "txt", context(position, "purple"))
    # in words under board B (what a mail client without pictures still shows)
    [board_b] = re.findall(r"Board B · polyps: ([^·]*) · shrimp: ([^·]*) ·", html)
    assert "d5 yellow" in board_b[0].split(", ") and "d5 green" in board_b[1].split(", ")
    row5 = next(line for line in text.splitlines() if line.startswith("  5 "))
    # board B first: columns a-g at 3 characters each after "  5  "
    assert row5[5 + 3 * 3 : 5 + 3 * 3 + 2] == "Y2"
    row1 = next(line for line in text.splitlines() if line.startswith("  1 "))
    assert row1[36 : 36 + 2] == "P "  # board D, column b


def test_the_report_shows_ones_own_screen_and_parrotfish_only(position: State) -> None:
    mine = render("reef-encounter", "txt", context(position, "purple"))
    assert "Behind your screen: polyps white 3" in mine and "Your parrotfish: pink 2 (6 points now)" in mine
    assert "orange 7" not in mine and "grey 4" not in mine
    html = render("reef-encounter", "html", context(position, "purple"))
    assert "white 3" in html and "orange 7" not in html and "grey 4" not in html
    public = render("reef-encounter", "txt", context(position, None))
    assert "YOURS ALONE" not in public and "Behind your screen" not in public


@pytest.mark.parametrize("fmt", ["html", "txt"])
def test_a_report_is_identical_whatever_the_others_hold(fmt: str) -> None:
    for k, state in enumerate(positions(11, 3)):
        if k % 5:
            continue
        for seat in state.seats:
            other = GAME.resample_hidden(state, seat, SeededChance(k))
            assert render("reef-encounter", fmt, context(state, seat)) == render(
                "reef-encounter", fmt, context(other, seat)
            )


def test_the_html_report_is_self_contained_svg() -> None:
    state = list(positions(12, 4))[8]
    html = render("reef-encounter", "html", context(state, "ann", ["ann played a yellow larva and 3 polyps"]))
    assert html.count("<svg") > 20 and "ann played a yellow larva and 3 polyps" in html
    assert not re.search(r"(https?:)?//[a-z]", html.replace("http://www.w3.org/2000/svg", ""))
    assert "<script" not in html and "<img" not in html and "@import" not in html
    for tile in ("white-yellow", "yellow-grey"):
        assert f'aria-label="coral tile {tile}"' in html


def test_the_text_report_draws_the_boards_with_coordinates_in_78_columns() -> None:
    state = list(positions(13, 4))[10]
    text = render("reef-encounter", "txt", context(state, "bob", ["bob took the white open-sea space"]))
    table = text.split("REEF BOARDS")[1].split("WHAT YOU MUST SEND NEXT")[0]
    assert all(len(line) <= 78 for line in table.splitlines())
    assert "     a  b  c  d  e  f  g         a  b  c  d  e  f  g" in table
    assert "bob took the white open-sea space" in text
    for b in state.boards:
        assert f"Board {b}" in table


def test_the_final_report_reveals_every_parrotfish() -> None:
    last = list(positions(14, 2))[-1]
    for fmt in ("html", "txt"):
        out = render("reef-encounter", fmt, context(last, None))
        assert ("revealed" in out.lower() and "The game is over" in out) or "THE GAME IS OVER" in out


def test_the_view_shows_every_space_of_every_board_with_what_lies_on_it(position: State) -> None:
    view = GAME.view(position, "purple")
    assert [b["letter"] for b in view["boards"]] == list(position.boards)
    for board in view["boards"]:
        cells = [cell for row in board["rows"] for cell in row]
        assert len(board["rows"]) == 6 and len(cells) == 42
        for space, kind, polyp, shrimp, shrimp_colour in cells:
            assert space[0] == board["letter"]
            assert kind in ("rock", "sand", "starfish")
            assert polyp == position.polyps.get(space)
            assert shrimp == position.shrimp.get(space)
            assert shrimp_colour == (position.players[shrimp].colour if shrimp else None)
    board_b = next(b for b in view["boards"] if b["letter"] == "B")
    assert board_b["rows"][4][3] == ("Bd5", "rock", "yellow", "green", position.players["green"].colour)


def test_a_views_boards_cannot_be_changed_by_its_reader(position: State) -> None:
    # the empty cells are shared by every view (one board drawn once a process): a reader cannot
    # change them, so no view can change the next
    first = GAME.view(position, "purple")
    rows = first["boards"][0]["rows"]
    with pytest.raises(TypeError):
        rows[0][0] = ("Aa1", "rock", "grey", None, None)  # type: ignore[index]
    with pytest.raises(TypeError):
        rows[0] = ()  # type: ignore[index]
    again = GAME.view(position, "purple")
    assert again["boards"] == first["boards"]
    assert [cell[2] for row in again["boards"][0]["rows"] for cell in row] == [
        position.polyps.get(cell[0]) for row in again["boards"][0]["rows"] for cell in row
    ]
