"""The HTML and text reports, rendered from views the way the host does."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.mare_balticum import GAME
from games.mare_balticum.state import State
from pbem.core.game import Event
from pbem.core.i18n import current_language
from pbem.render.tables import render

from .helpers import SEATS, SeededChance, play_bot_game, position


def context(state: State, seat: str | None, events: list[Event] = ()) -> dict[str, Any]:
    pend = GAME.pending(state)
    out = GAME.outcome(state)
    view = GAME.view(state, seat)
    return {
        "language": current_language(),  # <html lang>, as pbem.render.reports gives it
        "game": {"id": "mb-1", "title": "Mare Balticum", "type": "mare-balticum", "turn": state.turns_done},
        "seat": seat,
        "colour": view["colours"][seat] if seat else None,
        "view": view,
        "events": [{"turn": 1, "text": e.text} for e in events if e.visible_to(seat)],
        "decision": pend.get(seat) if seat else None,
        "order_template": f"orders:\n{GAME.template(state, seat)}" if seat in pend else None,
        "deadline": None,
        "status_note": None,
        "outcome": None
        if out is None
        else {
            "reason": out.reason,
            "scores": out.scores,
            "places": out.places,
            "ranking": out.ranking(),
            "tie_breaks": out.tie_breaks,
        },
    }


def secret_position() -> State:
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"], "blue": ["riga"]},
        hold={"red": {"herring": 2}, "blue": {"cod": 1}},
        warehouse={"red": {"salmon": 3}, "blue": {"flatfish": 4, "amber": 1}},
        board={"gdansk-deep": {"amber": 1, "cod": 1}},
        options={"contracts": True},
    )
    state.players["red"].market = {"salmon": "x3"}
    state.players["red"].tokens = ["x2", "x1", "x0", "tax"]
    state.players["blue"].market = {"flatfish": "x2"}
    state.players["blue"].tokens = ["x3", "x1", "x0", "tax"]
    state.players["blue"].contract = 4
    return state


@pytest.mark.parametrize("fmt", ["html", "txt"])
def test_report_shows_the_board_holds_and_ports(fmt: str) -> None:
    state = secret_position()
    text = render("mare-balticum", fmt, context(state, "red"))
    assert "gdansk-deep" in text and "herring" in text
    # the demand tokens of gdansk and the red ship there
    slots = state.demand["gdansk"]
    assert all(f in text for f in slots)
    if fmt == "txt":
        assert re.search(r"gdansk-deep\s+D\s+cod amber\s+red", text)
        assert re.search(r"blue\s+blue\s+1\+4\s+C\s+5\s+\.F\.\.", text)  # public hold, warehouse count
        assert "Warehouse (3): salmon ×3" in text
        assert "Market: salmon=x3" in text
    else:
        assert "<svg" in text and 'id="area-gdansk-deep"' in text
        assert "red&#39;s ship" in text or "red's ship" in text
        assert "5 goods" in text  # blue's warehouse as a count


@pytest.mark.parametrize("fmt", ["html", "txt"])
def test_report_hides_other_players_secrets(fmt: str) -> None:
    state = secret_position()
    text = render("mare-balticum", fmt, context(state, "red"))
    assert "flatfish=x2" not in text and "x2</strong>" not in text.split("Yours alone")[0]
    public = render("mare-balticum", fmt, context(state, None))
    assert "x3" not in public and "Yours alone" not in public and "YOURS ALONE" not in public


@pytest.mark.parametrize("fmt", ["html", "txt"])
def test_report_is_identical_whatever_the_others_hidden_holdings(fmt: str) -> None:
    seen: list[State] = []
    play_bot_game(
        SEATS[4], {"contracts": True, "demand": "placed"}, 21, after_each=lambda s, _e: seen.append(s)
    )
    for state in seen[5:-1:4]:
        for seat in state.order:
            mine = render("mare-balticum", fmt, context(state, seat))
            for seed in range(2):
                other = GAME.resample_hidden(state, seat, SeededChance(seed))
                assert render("mare-balticum", fmt, context(other, seat)) == mine


@pytest.mark.parametrize("fmt", ["html", "txt"])
def test_final_report_reveals_everything_and_the_score_sheets(fmt: str) -> None:
    state = play_bot_game(SEATS[3], {"contracts": True}, 4)
    text = render("mare-balticum", fmt, context(state, None))
    outcome = GAME.outcome(state)
    assert outcome is not None
    for seat in state.order:
        assert str(outcome.scores[seat]) in text
    assert "FINAL SCORING" in text or "Final scoring" in text


def test_html_report_makes_no_external_request() -> None:
    text = render("mare-balticum", "html", context(secret_position(), "red"))
    assert not re.search(r"(src|href)\s*=|url\(|@import|<script", text)


@pytest.mark.parametrize("n", [3, 5])
def test_text_report_lines_fit_a_mail_client(n: int) -> None:
    seen: list[State] = []
    play_bot_game(
        SEATS[n], {"contracts": True, "demand": "placed"}, 8, after_each=lambda s, _e: seen.append(s)
    )
    for state in seen[::7] + seen[-1:]:
        text = render("mare-balticum", "txt", context(state, "red"))
        long = [line for line in text.splitlines() if len(line) > 78 and not line.startswith("  - turn")]
        assert long == []


GOODS_KINDS = ["salmon", "flatfish", "herring", "cod", "amber"]


@settings(max_examples=40, deadline=None)
@given(
    warehouse=st.lists(st.sampled_from(GOODS_KINDS), min_size=5, max_size=5),
    values=st.permutations(["x3", "x2", "x1", "x0"]),
    contract=st.sampled_from([2, 3, 4, 5, 6]),
    fmt=st.sampled_from(["html", "txt"]),
)
def test_report_is_byte_identical_whatever_blues_secrets(
    warehouse: list[str], values: list[str], contract: int, fmt: str
) -> None:
    """Blue's warehouse (5 goods), company token values (on salmon and flatfish) and contract card
    are blue's own: red's report and the public one never change with them."""
    base = secret_position()
    other = base.copy()
    blue = other.players["blue"]
    blue.warehouse = {}
    for kind in warehouse:
        blue.warehouse[kind] = blue.warehouse.get(kind, 0) + 1
    blue.market = {"salmon": values[0], "flatfish": values[1]}
    blue.tokens = [*values[2:], "tax"]
    base.players["blue"].market = {"salmon": "x1", "flatfish": "x2"}
    base.players["blue"].tokens = ["x3", "x0", "tax"]
    base.pile = [c for c in range(1, 7) if c not in (4, 1)]
    base.players["red"].contract = 1
    other.players["red"].contract = 1
    other.players["blue"].contract = contract
    other.pile = [c for c in range(1, 7) if c not in (contract, 1)]
    for seat in ("red", None):
        assert render("mare-balticum", fmt, context(other, seat)) == render(
            "mare-balticum", fmt, context(base, seat)
        )
