"""Time tokens: the refill pauses, every player plays a company token at once, tax, and the end."""

from __future__ import annotations

import pytest

from games.mare_balticum import GAME
from games.mare_balticum.state import State

from .helpers import ScriptedChance, act, position, rules_error, texts, turn

# the bag's kinds are drawn in sorted order: with {cod: 3, time: 2}, picks 0-2 are cod, 3-4 time
COD, TIME = 0, 3


def paused(**kw: object) -> State:
    """Red ends a turn; the refill of skagerrak (deep) draws a cod, then a time token."""
    state = position(**kw)  # type: ignore[arg-type]
    state.board["skagerrak"] = {}
    state.board["kattegat"] = {}
    state.bag = {"cod": 3, "time": 2}
    state.time_track = 0
    after, events = turn(state, chance=ScriptedChance([COD, TIME]))
    assert "time token 1 is drawn: every player chooses a company token" in texts(events)
    return after


def company(token: str, fish: str | None = None, discard: list[str] | None = None) -> list[dict]:
    choice: dict = {"token": token}
    if fish:
        choice["fish"] = fish
    if discard is not None:
        choice["discard"] = discard
    return [{"company": choice}]


def test_a_time_token_pauses_the_refill_and_asks_every_player_at_once() -> None:
    state = paused()
    pend = GAME.pending(state)
    assert set(pend) == {"red", "blue", "green"}
    assert {d.kind for d in pend.values()} == {"company"}
    assert state.board["skagerrak"] == {"cod": 1} and state.board["kattegat"] == {}
    assert (state.refill_at, state.refill_owed) == (0, 1)
    assert state.time_track == 1 and state.bag == {"cod": 2, "time": 1}


def test_the_refill_resumes_and_the_paused_area_gets_its_full_count() -> None:
    state = paused()
    orders = {"red": company("x3", "salmon"), "blue": company("x2", "cod"), "green": company("x0", "herring")}
    # sorted kinds now: cod 0-1, time 2
    after, events = act(state, orders, ScriptedChance([COD, COD]))
    assert after.board["skagerrak"] == {"cod": 2}
    assert after.board["kattegat"] == {"cod": 1}
    assert after.phase == "turn" and after.active == "blue"
    assert "time token 1 goes onto the time track; the refill goes on" in texts(events)


def test_a_later_time_token_in_the_same_refill_asks_again() -> None:
    state = paused()
    orders = {s: company("x3", "salmon") for s in ("red", "blue", "green")}
    after, _ = act(state, orders, ScriptedChance([COD, 1]))  # cod, then the second time token
    assert after.phase == "company" and after.time_track == 2
    assert (after.refill_at, after.refill_owed) == (1, 1)  # kattegat still owed its one good
    orders = {s: company("x2", "cod") for s in ("red", "blue", "green")}
    final, _ = act(after, orders, ScriptedChance([0]))
    assert final.board["kattegat"] == {"cod": 1} and final.phase == "turn"


def test_a_number_token_goes_face_down_on_a_free_fish_slot() -> None:
    state = paused()
    orders = {"red": company("x3", "salmon"), "blue": company("x2", "cod"), "green": company("x0", "herring")}
    after, events = act(state, orders, ScriptedChance([COD, COD]))
    assert after.players["red"].market == {"salmon": "x3"}
    assert after.players["red"].tokens == ["x2", "x1", "x0", "tax"]
    public = texts(events, None)
    assert "red put a company token face down on the salmon slot" in public
    assert not any("x3" in t for t in public)
    assert "you put x3 on salmon" in texts(events, "red")
    assert "you put x3 on salmon" not in texts(events, "blue")


def test_a_company_token_is_played_once_and_a_slot_takes_one_token() -> None:
    state = paused()
    state.players["red"].market = {"salmon": "x3"}
    state.players["red"].tokens = ["x2", "x1", "x0", "tax"]
    assert rules_error(state, "red", company("x3", "cod")).code == "company.token_used"
    assert rules_error(state, "red", company("x2", "salmon")).code == "company.slot_taken"


def test_tax_discards_two_goods_from_hold_or_warehouse() -> None:
    state = paused(hold={"red": {"cod": 1}}, warehouse={"red": {"amber": 2, "cod": 1}})
    orders = {
        "red": company("tax", discard=["cod", "amber"]),
        "blue": company("x3", "cod"),
        "green": company("x3", "cod"),
    }
    after, events = act(state, orders, ScriptedChance([COD, COD]))
    red = after.players["red"]
    # the named cod leaves the hold first (ruling), the amber the warehouse
    assert red.hold == {} and red.warehouse == {"amber": 1, "cod": 1}
    assert red.tax_paid and "tax" not in red.tokens
    assert (
        "red played the tax token and discarded cod ×1 from the hold and 1 good from the warehouse"
        in texts(events)
    )
    assert "you paid tax with amber ×1 from your warehouse" in texts(events, "red")
    assert not any("amber" in t for t in texts(events, "blue"))


def test_tax_needs_two_goods_unless_it_is_the_last_token() -> None:
    state = paused(warehouse={"red": {"amber": 1}})
    assert rules_error(state, "red", company("tax", discard=["amber"])).code == "company.tax_needs_two_goods"
    state.players["red"].tokens = ["tax"]
    state.players["red"].market = {"salmon": "x3", "cod": "x2", "herring": "x1", "flatfish": "x0"}
    orders = {
        "red": company("tax", discard=["amber"]),
        "blue": company("x3", "cod"),
        "green": company("x3", "cod"),
    }
    after, _ = act(state, orders, ScriptedChance([COD, COD]))
    assert after.players["red"].warehouse == {}


def test_last_tax_token_with_no_goods_discards_nothing() -> None:
    state = paused()
    state.players["red"].tokens = ["tax"]
    orders = {"red": company("tax", discard=[]), "blue": company("x3", "cod"), "green": company("x3", "cod")}
    _after, events = act(state, orders, ScriptedChance([COD, COD]))
    assert "red played the tax token and discarded nothing (no goods left)" in texts(events)
    assert rules_error(state, "red", company("tax", discard=["cod"])).code == "company.tax_discard_count"


def test_tax_discards_exactly_two_of_goods_owned() -> None:
    state = paused(warehouse={"red": {"amber": 3}})
    assert rules_error(state, "red", company("tax", discard=["amber"])).code == "company.tax_discard_count"
    assert rules_error(state, "red", company("tax")).code == "company.tax_discard_count"
    assert rules_error(state, "red", company("tax", discard=["amber", "cod"])).code == "company.tax_not_owned"


def test_company_shape_needs_the_fish_for_a_number_token() -> None:
    from pydantic import ValidationError

    state = paused()
    model = GAME.order_model(GAME.pending(state)["red"])
    with pytest.raises(ValidationError):
        model.model_validate(company("x3"))
    with pytest.raises(ValidationError):
        model.model_validate(company("tax", fish="cod"))


def test_turn_orders_are_refused_during_a_company_decision() -> None:
    from pbem.core.game import RulesError

    state = paused()
    turn_model = GAME.order_model(GAME.pending(position())["red"]).model_validate([])
    with pytest.raises(RulesError) as err:
        GAME.check(state, "red", turn_model)
    assert err.value.code == "decision.wrong_kind"


# --------------------------------------------------------------------------------------------- the end


def sixth_after(active_index: int, n: int = 3) -> State:
    """The sixth time token drawn in the refill after the turn of the seat at ``active_index``."""
    seats = ("red", "blue", "green", "yellow", "black")[:n]
    state = position(seats)
    for _ in range(active_index):
        state, _ = turn(state)
    state.board["skagerrak"] = {}
    state.bag = {"cod": 3, "time": 1}
    state.time_track = 5
    after, events = turn(state, chance=ScriptedChance([TIME, COD, COD]))
    assert after.time_track == 6 and after.phase == "turn"  # no company decision for the sixth
    assert after.board["skagerrak"] == {"cod": 2}
    assert any(t.startswith("the sixth time token is drawn") for t in texts(events))
    return after


def play_out(state: State) -> list[str]:
    seen = []
    while GAME.pending(state):
        seen.append(state.active)
        state, _ = turn(state)
    assert GAME.outcome(state) is not None
    return seen


def test_sixth_token_play_finishes_the_round_then_one_full_round() -> None:
    # drawn after red's turn (red starts): blue and green finish the round, then a full round
    assert play_out(sixth_after(0)) == ["blue", "green", "red", "blue", "green"]


def test_sixth_token_in_the_middle_of_a_round() -> None:
    assert play_out(sixth_after(1, n=4)) == ["green", "yellow", "red", "blue", "green", "yellow"]


def test_sixth_token_after_the_last_players_turn_gives_one_full_round() -> None:
    assert play_out(sixth_after(2)) == ["red", "blue", "green"]


def test_the_game_ends_with_an_outcome_and_no_pending_decision() -> None:
    state = sixth_after(2)
    for _ in range(3):
        assert GAME.outcome(state) is None
        state, events = turn(state)
    assert GAME.pending(state) == {} and state.phase == "over"
    assert "the Baltic freezes over: the game is over" in texts(events)
    err_state = state
    from pbem.core.game import RulesError

    model = GAME.order_model(GAME.pending(sixth_after(2))["red"]).model_validate([])
    with pytest.raises(RulesError) as err:
        GAME.check(err_state, "red", model)
    assert err.value.code == "decision.game_over"
