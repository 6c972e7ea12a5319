"""A turn: sail, fish, unload, discard, the three-action limit, the fleet rule and the hold limit."""

from __future__ import annotations

from games.mare_balticum import GAME

from .helpers import position, rules_error, texts, turn

FIXED = {"gdansk": ["herring", "flatfish"], "riga": ["salmon", "cod"], "kobenhavn": ["cod"]}


# --------------------------------------------------------------------------------------------- sail


def test_sail_puts_a_new_ship_next_to_one_of_yours_while_the_supply_lasts() -> None:
    state = position(ships={"red": ["gdansk"]})
    after, events = turn(state, {"sail": {"to": "gdansk-deep"}})
    assert after.players["red"].ships == ["gdansk-deep", "gdansk"]
    assert after.players["red"].supply == 3
    assert "red sailed a new ship to gdansk-deep" in texts(events)


def test_sail_may_go_anywhere_next_to_any_own_ship() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]})
    # bornholm is next to gdansk-deep, not to the port
    after, _ = turn(state, {"sail": {"to": "bornholm"}})
    assert "bornholm" in after.players["red"].ships


def test_sail_new_ship_must_be_next_to_the_fleet() -> None:
    state = position(ships={"red": ["gdansk"]})
    assert rules_error(state, "red", [{"sail": {"to": "bornholm"}}]).code == "sail.fleet"


def test_sail_cannot_move_a_ship_while_the_supply_lasts() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]})
    err = rules_error(state, "red", [{"sail": {"from": "gdansk", "to": "gdansk-bay"}}])
    assert err.code == "sail.new_ship_first"
    assert err.step == 0 and err.quote == "sail: {from: gdansk, to: gdansk-bay}"


def test_sail_moves_a_ship_once_all_are_out() -> None:
    fleet = ["gdansk-deep", "gdansk-bay", "curonian-coast", "eastern-gotland", "gdansk"]
    state = position(ships={"red": fleet})
    after, events = turn(state, {"sail": {"from": "curonian-coast", "to": "bornholm"}})
    assert "curonian-coast" not in after.players["red"].ships
    assert "bornholm" in after.players["red"].ships
    assert "red sailed from curonian-coast to bornholm" in texts(events)
    assert rules_error(state, "red", [{"sail": {"to": "bornholm"}}]).code == "sail.from_needed"
    assert (
        rules_error(state, "red", [{"sail": {"from": "arkona", "to": "bornholm"}}]).code
        == "sail.no_ship_there"
    )


def test_a_player_never_has_two_ships_on_a_space() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]})
    assert rules_error(state, "red", [{"sail": {"to": "gdansk-deep"}}]).code == "sail.own_ship_there"


def test_several_players_may_share_a_space() -> None:
    state = position(ships={"red": ["gdansk"], "blue": ["gdansk-deep"]})
    after, _ = turn(state, {"sail": {"to": "gdansk-deep"}})
    assert after.ships_on("gdansk-deep") == ["red", "blue"]


def test_fleet_rule_is_checked_after_each_sail_not_as_connectivity() -> None:
    # two separate pairs are a legal fleet: every ship has a neighbour of its own
    fleet = ["skagerrak", "kattegat", "gulf-of-riga", "riga", "irbe-strait"]
    state = position(ships={"red": fleet})
    err = rules_error(state, "red", [{"sail": {"from": "kattegat", "to": "oresund"}}])
    assert err.code == "sail.fleet"  # skagerrak would be left alone
    # the ship on irbe-strait may join the western group: each ship keeps a neighbour of its own
    after, _ = turn(state, {"sail": {"from": "irbe-strait", "to": "oresund"}})
    assert set(after.players["red"].ships) == {"skagerrak", "kattegat", "oresund", "gulf-of-riga", "riga"}


def test_fleet_rule_names_the_ship_left_alone() -> None:
    fleet = ["gdansk", "gdansk-bay", "curonian-coast", "irbe-strait", "gulf-of-riga"]
    state = position(ships={"red": fleet})
    err = rules_error(state, "red", [{"sail": {"from": "irbe-strait", "to": "gdansk-deep"}}])
    assert err.code == "sail.fleet"
    assert "your ship on gulf-of-riga would have no other ship" in err.message


# --------------------------------------------------------------------------------------------- fish


def test_fish_takes_a_goods_token_where_you_have_a_ship() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]}, board={"gdansk-deep": {"cod": 1, "amber": 1}})
    after, events = turn(state, {"fish": {"at": "gdansk-deep", "goods": "cod"}})
    assert after.players["red"].hold == {"cod": 1}
    assert after.board["gdansk-deep"] == {"amber": 1}
    assert "red fished cod at gdansk-deep (into the hold)" in texts(events)


def test_fish_puts_amber_into_the_warehouse() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]}, board={"gdansk-deep": {"cod": 1, "amber": 1}})
    after, _ = turn(state, {"fish": {"at": "gdansk-deep", "goods": "amber"}})
    assert after.players["red"].warehouse == {"amber": 1} and after.players["red"].hold == {}


def test_fish_needs_an_own_ship_there() -> None:
    state = position(ships={"red": ["gdansk"], "blue": ["gdansk-deep"]}, board={"gdansk-deep": {"cod": 2}})
    assert rules_error(state, "red", [{"fish": {"at": "gdansk-deep", "goods": "cod"}}]).code == "fish.no_ship"


def test_fish_needs_that_goods_on_the_space() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]}, board={"gdansk-deep": {"cod": 2}})
    assert (
        rules_error(state, "red", [{"fish": {"at": "gdansk-deep", "goods": "salmon"}}]).code
        == "fish.no_goods"
    )


def test_ports_hold_no_goods() -> None:
    state = position(ships={"red": ["gdansk"]})
    assert rules_error(state, "red", [{"fish": {"at": "gdansk", "goods": "cod"}}]).code == "fish.port"


def test_hold_limit_forbids_a_sixth_fish_unless_one_is_discarded_first() -> None:
    full = {"red": {"cod": 3, "salmon": 2}}
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"]}, hold=full, board={"gdansk-deep": {"herring": 1, "amber": 1}}
    )
    err = rules_error(state, "red", [{"fish": {"at": "gdansk-deep", "goods": "herring"}}])
    assert err.code == "fish.hold_full"
    # amber goes to the warehouse, so a full hold does not stop it
    after, _ = turn(state, {"fish": {"at": "gdansk-deep", "goods": "amber"}})
    assert after.players["red"].warehouse == {"amber": 1}
    after, _ = turn(state, {"discard": ["cod"]}, {"fish": {"at": "gdansk-deep", "goods": "herring"}})
    assert after.players["red"].hold == {"cod": 2, "salmon": 2, "herring": 1}


# --------------------------------------------------------------------------------------------- unload


def test_unload_moves_demanded_hold_fish_to_the_warehouse() -> None:
    state = position(ships={"red": ["gdansk"]}, hold={"red": {"herring": 2, "flatfish": 1}}, demand=FIXED)
    after, events = turn(state, {"unload": {"port": "gdansk", "fish": ["herring", "herring", "flatfish"]}})
    assert after.players["red"].warehouse == {"herring": 2, "flatfish": 1}
    assert after.players["red"].hold == {}
    assert "red unloaded herring ×2 and flatfish ×1 at gdansk" in texts(events)


def test_unload_refuses_a_fish_the_port_does_not_take() -> None:
    state = position(ships={"red": ["gdansk"]}, hold={"red": {"salmon": 1}}, demand=FIXED)
    err = rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["salmon"]}}])
    assert err.code == "unload.not_demanded"
    assert "herring and flatfish" in err.message


def test_unload_needs_a_ship_in_the_port() -> None:
    state = position(ships={"red": ["gdansk"]}, hold={"red": {"salmon": 1}}, demand=FIXED)
    assert (
        rules_error(state, "red", [{"unload": {"port": "riga", "fish": ["salmon"]}}]).code == "unload.no_ship"
    )


def test_unload_only_in_a_port() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]}, hold={"red": {"cod": 1}}, demand=FIXED)
    err = rules_error(state, "red", [{"unload": {"port": "gdansk-deep", "fish": ["cod"]}}])
    assert err.code == "unload.not_a_port"


def test_unload_only_fish_in_the_hold() -> None:
    state = position(ships={"red": ["gdansk"]}, hold={"red": {"herring": 1}}, demand=FIXED)
    err = rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["herring", "herring"]}}])
    assert err.code == "unload.not_in_hold"


def test_slot_is_refused_when_ports_start_full() -> None:
    state = position(ships={"red": ["gdansk"]}, hold={"red": {"herring": 2}}, demand=FIXED)
    err = rules_error(state, "red", [{"unload": {"port": "gdansk", "fish": ["herring"], "slot": 0}}])
    assert err.code == "unload.slot_unused"


def test_unload_at_a_minus_one_slot_costs_nothing_without_variant_1() -> None:
    state = position(ships={"red": ["gdansk"]}, hold={"red": {"flatfish": 2}}, demand=FIXED)
    after, _ = turn(state, {"unload": {"port": "gdansk", "fish": ["flatfish", "flatfish"]}})
    assert after.players["red"].warehouse == {"flatfish": 2}


# ---------------------------------------------------------------------------------------- discard, limits


def test_discard_is_free_and_takes_fish_out_of_the_game() -> None:
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"]}, hold={"red": {"cod": 2}}, board={"gdansk-deep": {"cod": 2}}
    )
    after, events = turn(
        state,
        {"discard": ["cod"]},
        {"fish": {"at": "gdansk-deep", "goods": "cod"}},
        {"discard": ["cod"]},
        {"fish": {"at": "gdansk-deep", "goods": "cod"}},
        {"sail": {"to": "gdansk-bay"}},
        {"discard": ["cod", "cod"]},
    )
    assert after.players["red"].hold == {}
    assert after.discarded == {"cod": 4}
    assert "red discarded cod ×1 from the hold" in texts(events)


def test_discard_only_fish_in_the_hold() -> None:
    state = position(hold={"red": {"cod": 1}})
    assert rules_error(state, "red", [{"discard": ["salmon"]}]).code == "discard.not_in_hold"


def test_a_turn_has_at_most_three_actions() -> None:
    state = position(ships={"red": ["gdansk"]})
    steps = [{"sail": {"to": "gdansk-deep"}}, {"sail": {"to": "gdansk-bay"}}, {"sail": {"to": "bornholm"}}]
    after, _ = turn(state, *steps)
    assert after.players["red"].supply == 1
    err = rules_error(state, "red", [*steps, {"sail": {"to": "eastern-gotland"}}])
    assert err.code == "turn.too_many_actions" and err.step == 3


def test_a_turn_may_have_no_action() -> None:
    state = position()
    after, events = turn(state)
    assert after.turns_done == 1 and after.active == "blue"
    assert "red took no action" in texts(events)


def test_contract_is_refused_without_variant_2() -> None:
    state = position()
    assert rules_error(state, "red", [{"contract": [1]}]).code == "contract.variant_off"


def test_only_the_active_seat_may_play_a_turn() -> None:
    import pytest

    from pbem.core.game import RulesError

    state = position()
    model = GAME.order_model(GAME.pending(state)["red"]).model_validate([])
    with pytest.raises(RulesError) as err:
        GAME.check(state, "blue", model)
    assert err.value.code == "decision.not_pending"


# --------------------------------------------------------------------------------------------- refill


def test_refill_fills_empty_areas_without_ships_in_board_order() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]})
    state.board["skagerrak"] = {}
    state.board["kattegat"] = {}
    state.board["gdansk-deep"] = {}  # a ship sits here: no refill
    state.bag = {"cod": 2, "salmon": 1}
    from .helpers import ScriptedChance

    # sorted kinds: cod, cod, salmon -> picks index into them
    after, events = turn(state, chance=ScriptedChance([2, 0, 0]))
    assert after.board["skagerrak"] == {"salmon": 1, "cod": 1}
    assert after.board["kattegat"] == {"cod": 1}
    assert after.board["gdansk-deep"] == {}
    assert "refill: skagerrak: salmon and cod; kattegat: cod" in texts(events)


def test_refills_stop_when_the_bag_is_empty() -> None:
    state = position()
    state.board["skagerrak"] = {}
    state.board["kattegat"] = {}
    state.bag = {"amber": 1}
    after, events = turn(state)
    assert after.board["skagerrak"] == {"amber": 1} and after.board["kattegat"] == {}
    assert "the bag is empty: refills stop" in texts(events)
