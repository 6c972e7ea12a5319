"""The HTML and text reports, rendered from ``view`` through the host's renderer."""

from __future__ import annotations

import re
from typing import Any

import yaml

from games.coral_divers import GAME
from games.coral_divers.state import State
from pbem.core.i18n import current_language
from pbem.render.tables import render

from .conftest import line, position

REEFS = [
    ("red", {"f4": "brain*", "f3": "brain"}),
    ("blue", {"e5": "fan", "d5": "fan"}),
    (None, {"a1": "tube"}),
]


def context(state: State, seat: str | None) -> dict[str, Any]:
    view = GAME.view(state, seat)
    pending = GAME.pending(state)
    decision = pending.get(seat) if seat else None
    template = None
    if decision is not None and seat is not None:
        template = f"game: cd-1\nplayer: {seat}\nturn: 4\npassword: x\norders:\n{GAME.template(state, seat)}"
    return {
        "language": current_language(),  # <html lang>, as pbem.render.reports gives it
        "game": {"id": "cd-1", "title": GAME.title, "type": GAME.name, "turn": 4},
        "seat": seat,
        "colour": view["colours"].get(seat) if seat else None,
        "view": view,
        "events": [{"turn": 3, "text": "red planted row 1 for 1 coin: brain f3 (reef of 2)"}],
        "decision": decision,
        "order_template": template,
        "deadline": None,
        "status_note": None,
        "outcome": None,
    }


def sample() -> State:
    return position(nursery=line(["staghorn*", "fan"]), reefs=REEFS, seabed={"k9": "pearl"})


def test_text_report_draws_the_map_with_coordinates() -> None:
    text = render("coral-divers", "txt", context(sample(), "red"))
    rows = {int(m.group(1)): m.group(2) for m in re.finditer(r"^ ?(\d)  (.*)$", text, re.M)}
    columns = "abcdefghijk"

    def at(space: str) -> str:
        return rows[int(space[1])][columns.index(space[0]) * 5 : columns.index(space[0]) * 5 + 5]

    assert at("f4") == " B1@*"
    assert at("f3") == " B1  "
    assert at("e5") == " F2@ "
    assert at("a1") == " T-  "
    assert at("f5") == "[6/3]"
    assert at("e2") == " ### "
    assert at("k9") == "  ?  "
    assert at("c3") == "[ ? ]"  # reserved: its value is hidden
    assert "    " + "".join(f"  {c}  " for c in columns) in text
    map_lines = [line for line in text.splitlines() if re.match(r"^ ?\d  ", line)]
    assert all(len(line) <= 78 for line in map_lines)
    assert "staghorn*" in text and "row 1: 2" in text


def test_html_report_draws_the_map_as_inline_svg() -> None:
    html = render("coral-divers", "html", context(sample(), "red"))
    assert "<svg" in html
    cell = html.split('data-at="f4"')[1].split('data-at="g4"')[0]
    assert "#f6c6c1" in cell  # tinted red
    assert "red's diver" in cell
    assert "#ff7f1f" in cell  # the clownfish
    assert ">B<" in cell
    assert 'data-at="f5"' in html and ">6/3<" in html
    cave = html.split('data-at="e2"')[1].split("</g>")[0]
    assert "<title>cave</title>" in cave and "<path" in cave
    assert "<text" not in cave  # drawn, not written: no word in any language can outgrow the square
    assert "Nursery" in html and "staghorn" in html


def test_html_report_makes_no_external_request() -> None:
    html = render("coral-divers", "html", context(sample(), None))
    for banned in ("<script", "<link", "<img", "url(", "@import", "src="):
        assert banned not in html
    assert re.findall(r"https?://[^\"' ]+", html) == ["http://www.w3.org/2000/svg"]


def test_reports_are_identical_whatever_the_face_down_tokens() -> None:
    a = position(nursery=line(["fan"]), reefs=REEFS, seabed={"k9": "pearl", "a9": "fish-2"})
    b = position(nursery=line(["fan"]), reefs=REEFS, seabed={"k9": "fish-4", "a9": "discount"})
    for fmt in ("html", "txt"):
        for seat in ("red", "blue", None):
            assert render("coral-divers", fmt, context(a, seat)) == render(
                "coral-divers", fmt, context(b, seat)
            )


def test_the_order_template_is_valid_yaml_and_explains_the_steps() -> None:
    state = position(nursery=line(["fan"]), reefs=REEFS, shells={"red": ["pearl", "extra-tile"]})
    text = GAME.template(state, "red")
    assert all(line.startswith("  ") for line in text.splitlines())
    assert "plant: {line: row 2}" in text and "surface: [f3]" in text and "extra-tile" in text
    yaml.safe_load("game: cd-1\norders:\n" + text)


def test_a_forced_surface_is_written_out_in_the_template() -> None:
    nursery: list[str | None] = ["brain", "brain", None, None, "brain", "brain"] + [None] * 10
    state = position(nursery=nursery, coins=1)
    doc = yaml.safe_load("orders:\n" + GAME.template(state, "red"))
    parsed = GAME.order_model(GAME.pending(state)["red"]).model_validate(doc["orders"])
    GAME.check(state, "red", parsed)
