"""Variant 1 (demand tokens placed on first unloading, the -1 slots) and variant 2 (contracts)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games.mare_balticum import GAME
from pbem.core.game import Decision

from .helpers import position, rules_error, texts, turn

PLACED = {"demand": "placed"}


def placed(hold: dict[str, int], port: str = "gdansk", **kw: object):
    return position(options=PLACED, ships={"red": [port]}, hold={"red": hold}, **kw)  # type: ignore[arg-type]


def test_first_unloading_puts_the_demand_token_on_slot_0_by_default() -> None:
    state = placed({"cod": 1})
    after, events = turn(state, {"unload": {"port": "gdansk", "fish": ["cod"]}})
    assert after.demand["gdansk"] == ["cod", None]
    assert after.demand_supply["cod"] == 1
    assert after.players["red"].warehouse == {"cod": 1}
    assert "red put a cod demand token on the 0 slot of gdansk" in texts(events)


def test_a_demand_token_on_the_minus_one_slot_costs_one_fish() -> None:
    state = placed({"cod": 3})
    after, events = turn(state, {"unload": {"port": "gdansk", "fish": ["cod", "cod", "cod"], "slot": -1}})
    assert after.demand["gdansk"] == [None, "cod"]
    assert after.players["red"].warehouse == {"cod": 2}
    assert after.discarded == {"cod": 1}
    assert "red unloaded cod ×3 (one of them lost to the -1 slot) at gdansk" in texts(events)


def test_later_unloading_at_a_minus_one_slot_costs_one_fish_too() -> None:
    state = placed({"cod": 2}, demand={"gdansk": [None, "cod"]})
    after, _ = turn(state, {"unload": {"port": "gdansk", "fish": ["cod", "cod"]}})
    assert after.players["red"].warehouse == {"cod": 1}


def test_minus_one_slot_cannot_be_chosen_for_a_single_fish() -> None:
    state = placed({"cod": 1})
    err = rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["cod"], "slot": -1}}])
    assert err.code == "unload.minus_one_single"
    # nor when the -1 slot is the only one free
    state = placed({"cod": 1}, demand={"gdansk": ["salmon", None]})
    assert (
        rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["cod"]}}]).code
        == "unload.minus_one_single"
    )


def test_a_port_never_holds_two_equal_demand_tokens_and_a_full_port_takes_no_more() -> None:
    state = placed({"cod": 2}, demand={"gdansk": ["salmon", "herring"]})
    assert (
        rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["cod"]}}]).code
        == "unload.no_free_slot"
    )
    state = placed({"salmon": 2}, demand={"gdansk": ["salmon", None]})
    after, _ = turn(state, {"unload": {"port": "gdansk", "fish": ["salmon", "salmon"]}})
    assert after.demand["gdansk"] == ["salmon", None]  # the existing token is used, none added


def test_each_fish_has_two_demand_tokens_so_at_most_two_ports_take_it() -> None:
    state = placed({"cod": 2}, demand={"riga": ["cod", None], "stockholm": ["cod", None]})
    state.demand_supply["cod"] = 0
    assert (
        rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["cod"]}}]).code
        == "unload.not_demanded"
    )


def test_slot_must_be_free_and_exist() -> None:
    state = placed({"cod": 2}, demand={"gdansk": ["salmon", None]})
    err = rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["cod", "cod"], "slot": 0}}])
    assert err.code == "unload.slot_taken"
    state = placed({"cod": 2}, port="kobenhavn")
    err = rules_error(state, "red", [{"unload": {"port": "kobenhavn", "fish": ["cod", "cod"], "slot": -1}}])
    assert err.code == "unload.no_such_slot"


def test_slot_is_refused_when_no_new_token_is_placed() -> None:
    state = placed({"salmon": 2}, demand={"gdansk": ["salmon", None]})
    err = rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["salmon"], "slot": -1}}])
    assert err.code == "unload.slot_unused"


def test_one_unloading_may_place_two_demand_tokens() -> None:
    state = placed({"salmon": 1, "herring": 2})
    after, _ = turn(
        state, {"unload": {"port": "gdansk", "fish": ["salmon", "herring", "herring"], "slot": 0}}
    )
    assert after.demand["gdansk"] == ["salmon", "herring"]
    assert after.players["red"].warehouse == {"salmon": 1, "herring": 1}
    # with the order reversed the single salmon would land on -1: refused
    err = rules_error(
        state, "red", [{"unload": {"port": "gdansk", "fish": ["herring", "herring", "salmon"], "slot": 0}}]
    )
    assert err.code == "unload.minus_one_single"


# --------------------------------------------------------------------------------------------- contracts

CONTRACTS = {"contracts": True}


def test_contract_takes_the_first_listed_card_still_in_the_pile() -> None:
    state = position(options=CONTRACTS)
    state.players["blue"].contract = 4
    state.pile = [c for c in state.pile if c != 4]
    after, events = turn(state, {"contract": [4, 2, 5]})
    assert after.players["red"].contract == 2 and 2 not in after.pile and len(after.pile) == 4
    assert "red took a contract card from the pile" in texts(events, None)
    mine = [t for t in texts(events, "red") if t.startswith("the pile held cards")]
    assert mine == ["the pile held cards 1, 2, 3, 5 and 6; you took card 2: flatfish ×1, cod ×1 and amber ×2"]
    # nothing about the pile or the card reaches another seat
    assert not [t for t in texts(events, "blue") if "pile held" in t or "card 2" in t]
    assert after.players["red"].pile_seen == [1, 2, 3, 5, 6]


def test_contract_exchanges_the_card_held_which_goes_back_afterwards() -> None:
    state = position(options=CONTRACTS)
    after, events = turn(state, {"contract": [3]}, {"contract": [5, 1]})
    assert after.players["red"].contract == 5
    # card 3 went back after the choice: it was not in the pile red saw the second time
    assert 3 in after.pile and after.players["red"].pile_seen == [1, 2, 4, 5, 6]
    assert "red exchanged their contract card for one from the pile" in texts(events)


def test_a_ranked_list_must_name_more_cards_than_the_others_hold() -> None:
    state = position(options=CONTRACTS)
    state.players["blue"].contract, state.players["green"].contract = 1, 2
    state.pile = [3, 4, 5, 6]
    err = rules_error(state, "red", [{"contract": [1, 2]}])
    assert err.code == "contract.list_too_short"
    assert "must name at least 3, best first" in err.message
    after, _ = turn(state, {"contract": [1, 2, 6]})
    assert after.players["red"].contract == 6


def test_a_ranked_list_names_each_card_once_and_not_ones_own() -> None:
    state = position(options=CONTRACTS)
    assert rules_error(state, "red", [{"contract": [2, 2]}]).code == "contract.repeated"
    state.players["red"].contract = 3
    state.pile = [c for c in state.pile if c != 3]
    assert rules_error(state, "red", [{"contract": [3, 1]}]).code == "contract.own_card"


def test_a_card_number_is_1_to_6() -> None:
    with pytest.raises(ValidationError):
        GAME.order_model(Decision("turn", "")).model_validate([{"contract": [7]}])


def test_contract_counts_as_an_action() -> None:
    state = position(options=CONTRACTS)
    steps = [{"contract": [1]}, {"contract": [2]}, {"contract": [3]}, {"contract": [4]}]
    err = rules_error(state, "red", steps)
    assert err.code == "turn.too_many_actions"


def test_contract_sets_score_seven_each_at_the_end() -> None:
    from games.mare_balticum.scoring import score

    state = position(options=CONTRACTS, warehouse={"red": {"cod": 2, "flatfish": 1, "amber": 5}})
    state.players["red"].contract = 2  # cod, flatfish, amber, amber
    state.players["red"].market = {"cod": "x0", "flatfish": "x0", "salmon": "x3", "herring": "x2"}
    sheet = score(state, "red")
    # one complete set (7) and the rest: cod 0 + 3 amber; a partial second set scores nothing
    assert sheet["contract_sets"] == 1 and sheet["contract_points"] == 7
    assert sheet["total"] == 7 + 3
    # without the variant the card is ignored
    state.options["contracts"] = False
    assert score(state, "red")["total"] == 5


def test_contract_is_not_filled_when_the_goods_score_more_plainly() -> None:
    from games.mare_balticum.scoring import score

    state = position(options=CONTRACTS, warehouse={"red": {"salmon": 2, "herring": 2, "amber": 2}})
    state.players["red"].contract = 1  # salmon, herring, amber, amber
    state.players["red"].market = {"salmon": "x3", "herring": "x3", "cod": "x0", "flatfish": "x1"}
    # plain: 6 + 6 + 2 = 14 against one set 7 + salmon 3 + herring 3 = 13
    sheet = score(state, "red")
    assert sheet["contract_sets"] == 0 and sheet["total"] == 14
    assert GAME.view(state, "red")["players"]["red"]["contract"]["goods"] == [
        "salmon",
        "herring",
        "amber",
        "amber",
    ]
