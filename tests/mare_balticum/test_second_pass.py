"""The rules file's second pass (issue 19): variant 1's `-1` slot judged by the hold, tax from hold or
warehouse, the tie-break without set-aside goods, the contract pile seen by its own seat only, and
errors that quote the step as the player wrote it. Each point: a legal and an illegal case."""

from __future__ import annotations

from games.mare_balticum import GAME
from games.mare_balticum.scoring import outcome, score
from pbem.render.tables import render

from .helpers import ScriptedChance, SeededChance, act, position, rules_error, texts, turn
from .test_mare_reports import context
from .test_mare_time import COD, company, paused

PLACED = {"demand": "placed"}
CONTRACTS = {"contracts": True}


# ------------------------------------------------------------------------------------------ variant 1


def test_the_minus_one_slot_takes_one_unloaded_fish_when_the_hold_holds_two() -> None:
    state = position(options=PLACED, ships={"red": ["gdansk"]}, hold={"red": {"herring": 2}})
    after, events = turn(state, {"unload": {"port": "gdansk", "fish": ["herring"], "slot": -1}})
    assert after.demand["gdansk"] == [None, "herring"]
    assert after.players["red"].hold == {"herring": 1} and after.players["red"].warehouse == {}
    assert "red unloaded herring ×1 (one of them lost to the -1 slot) at gdansk" in texts(events)


def test_the_minus_one_slot_refuses_a_fish_the_hold_holds_only_one_of() -> None:
    state = position(options=PLACED, ships={"red": ["gdansk"]}, hold={"red": {"herring": 1}})
    err = rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["herring"], "slot": -1}}])
    assert err.code == "unload.minus_one_single"
    assert "your hold holds only one herring" in err.message


# ------------------------------------------------------------------------------------------ tax


def test_tax_may_take_a_fish_from_the_warehouse_though_the_hold_has_one() -> None:
    state = paused(hold={"red": {"cod": 1}}, warehouse={"red": {"amber": 2, "cod": 1}})
    orders = {
        "red": company("tax", discard=[{"goods": "cod", "from": "warehouse"}, "amber"]),  # type: ignore[list-item]
        "blue": company("x3", "cod"),
        "green": company("x3", "cod"),
    }
    after, events = act(state, orders, ScriptedChance([COD, COD]))
    red = after.players["red"]
    assert red.hold == {"cod": 1} and red.warehouse == {"amber": 1}
    assert "red played the tax token and discarded 2 goods from the warehouse" in texts(events)
    assert "you paid tax with cod ×1 and amber ×1 from your warehouse" in texts(events, "red")


def test_tax_from_the_hold_needs_the_fish_in_the_hold() -> None:
    state = paused(hold={"red": {}}, warehouse={"red": {"amber": 2, "cod": 1}})
    choice = company("tax", discard=[{"goods": "cod", "from": "hold"}, "amber"])  # type: ignore[list-item]
    err = rules_error(state, "red", choice)
    assert err.code == "company.tax_not_in_hold"
    assert "{goods: cod, from: warehouse}" in err.message
    assert "company: {token: tax, discard: [{goods: cod, from: hold}, amber]}" in str(err)


# ------------------------------------------------------------------------------------------ ties


def test_goods_set_aside_for_a_contract_do_not_count_in_the_tie_break() -> None:
    state = position(
        options=CONTRACTS,
        warehouse={"red": {"cod": 1, "flatfish": 1, "amber": 2}, "blue": {"amber": 3, "salmon": 1}},
    )
    market = {"salmon": "x3", "herring": "x2", "flatfish": "x1", "cod": "x0"}
    for p in state.players.values():
        p.market, p.tokens, p.tax_paid = dict(market), [], True
    state.players["red"].contract = 2  # cod, flatfish, amber, amber: one set, 7 points
    state.players["blue"].contract = 6  # flatfish, flatfish, cod, herring: none
    state.phase = "over"
    assert score(state, "red")["total"] == 7 and score(state, "red")["goods"] == 0
    assert score(state, "blue")["total"] == 6 and score(state, "blue")["goods"] == 4
    state.players["blue"].warehouse["amber"] = 4  # 7 points from 5 goods: a tie on points
    result = outcome(state)
    assert result.places["blue"] == 1 and result.places["red"] == 2
    assert (
        "red and blue: equal on points (7); more goods wins (goods: red: 0 and blue: 5)" in result.tie_breaks
    )


# ------------------------------------------------------------------------------------------ contract pile


def test_the_pile_seen_is_in_the_own_view_and_report_only() -> None:
    state = position(options=CONTRACTS)
    after, _ = turn(state, {"contract": [5, 1, 2]})
    assert GAME.view(after, "red")["players"]["red"]["pile_seen"] == [1, 2, 3, 4, 5, 6]
    assert GAME.view(after, "blue")["players"]["red"]["pile_seen"] is None
    assert GAME.view(after, None)["players"]["red"]["pile_seen"] is None
    for fmt in ("txt", "html"):
        mine = render("mare-balticum", fmt, context(after, "red"))
        theirs = render("mare-balticum", fmt, context(after, "blue"))
        assert "the pile held cards 1, 2, 3, 4, 5, 6 when you chose" in mine
        assert "pile held" not in theirs


def test_another_seat_s_view_does_not_change_with_the_pile() -> None:
    state = position(options=CONTRACTS)
    after, _ = turn(state, {"contract": [5, 1, 2]})
    view = GAME.view(after, "blue")
    changed = False
    for seed in range(8):
        other = GAME.resample_hidden(after, "blue", SeededChance(seed))
        red, was = other.players["red"], after.players["red"]
        changed |= (red.contract, red.pile_seen, other.pile) != (was.contract, was.pile_seen, after.pile)
        assert GAME.view(other, "blue") == view
    assert changed, "the resampling deals red's card and what red saw anew"


def test_the_template_lists_the_cards_and_a_long_enough_ranking() -> None:
    state = position(options=CONTRACTS)
    state.players["blue"].contract = 3
    state.pile.remove(3)
    text = GAME.template(state, "red")
    assert "#   2: flatfish ×1, cod ×1 and amber ×2" in text
    assert "at least 2:" in text and "# - contract: [1, 2]" in text
    after, _ = turn(state, {"contract": [1, 2]})
    assert after.players["red"].contract == 1


# ------------------------------------------------------------------------------------------ quotes


def test_an_error_quotes_the_step_as_written() -> None:
    state = position(ships={"red": ["kobenhavn", "oresund", "arkona", "kattegat", "skagerrak"]})
    err = rules_error(state, "red", [{"sail": {"to": "bornholm"}}])
    assert err.code == "sail.from_needed"
    assert "(sail: {to: bornholm})" in str(err) and "null" not in str(err)


def test_a_legal_step_with_from_is_accepted_and_quoted_whole_when_wrong() -> None:
    state = position(ships={"red": ["kobenhavn", "oresund", "arkona", "kattegat", "skagerrak"]})
    after, _ = turn(state, {"sail": {"from": "skagerrak", "to": "bornholm"}})
    assert "bornholm" in after.players["red"].ships
    err = rules_error(state, "red", [{"sail": {"from": "riga", "to": "bornholm"}}])
    assert err.code == "sail.no_ship_there" and "(sail: {from: riga, to: bornholm})" in str(err)
