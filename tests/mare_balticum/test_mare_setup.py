"""Setup (rules file, "Setup") and the sequential port choices."""

from __future__ import annotations

from collections import Counter

import pytest

from games.mare_balticum import GAME
from games.mare_balticum.board import AREAS, BOARD, PORTS
from games.mare_balticum.rules import DEMAND_ARRANGEMENTS
from pbem.core.game import RulesError

from .helpers import SEATS, ScriptedChance, SeededChance, act, rules_error


def _setup(n: int = 3, seed: int = 5, **options: object):
    return GAME.setup(SEATS[n], GAME.options_model(**options), SeededChance(seed))


def test_setup_fills_every_area_in_board_order_from_the_bag() -> None:
    chance = SeededChance(3)
    state = GAME.setup(SEATS[3], GAME.options_model(starting_player="red"), chance)
    bag_draws = [r for r in chance.record if r[0] == "bag"]
    assert len(bag_draws) == 33
    # the first draw is from the full bag of 68 for skagerrak; the bag shrinks one by one
    assert [n for _, n, _ in bag_draws] == list(range(68, 35, -1))
    for area in BOARD.areas:
        assert sum(state.board[area.name].values()) == area.capacity
    # skagerrak gets the first two draws: kinds are taken in sorted order from the counts
    first = sorted(["salmon"] * 12 + ["flatfish"] * 12 + ["herring"] * 12 + ["cod"] * 12 + ["amber"] * 20)
    assert first[bag_draws[0][2]] in state.board["skagerrak"]


def test_time_tokens_go_into_the_bag_after_the_first_placement() -> None:
    state = _setup()
    assert state.bag["time"] == 6
    assert sum(v for k, v in state.bag.items() if k != "time") == 68 - 33
    assert state.time_track == 0


def test_demand_tokens_fill_every_slot_without_two_equal_in_a_port() -> None:
    for seed in range(30):
        state = _setup(seed=seed)
        tokens = Counter(f for slots in state.demand.values() for f in slots)
        assert tokens == {"salmon": 2, "flatfish": 2, "herring": 2, "cod": 2}
        for slots in state.demand.values():
            assert len(set(slots)) == len(slots)


def test_demand_arrangements_are_every_legal_one() -> None:
    # 8!/(2!^4) = 2520 ways to lay the tokens; those with a pair in a two-slot port are left out
    assert len(DEMAND_ARRANGEMENTS) == len(set(DEMAND_ARRANGEMENTS))
    assert 0 < len(DEMAND_ARRANGEMENTS) < 2520
    assert all(a[1] != a[2] and a[3] != a[4] and a[5] != a[6] for a in DEMAND_ARRANGEMENTS)


def test_variant_1_leaves_the_ports_empty() -> None:
    state = _setup(demand="placed")
    assert all(slot is None for slots in state.demand.values() for slot in slots)
    assert state.demand_supply == {"salmon": 2, "flatfish": 2, "herring": 2, "cod": 2}


@pytest.mark.parametrize(("n", "ships"), [(3, 5), (4, 4), (5, 3)])
def test_ship_count_depends_on_the_number_of_players(n: int, ships: int) -> None:
    state = _setup(n)
    assert {p.supply for p in state.players.values()} == {ships}


def test_seats_get_colours_in_seating_order() -> None:
    state = _setup(5)
    assert GAME.view(state, None)["colours"] == {
        "red": "red", "blue": "blue", "green": "green", "yellow": "yellow", "black": "black",
    }  # fmt: skip


def test_starting_player_option_sets_the_turn_order() -> None:
    state = _setup(4, starting_player="green")
    assert state.order == ["green", "yellow", "red", "blue"]


def test_starting_player_is_drawn_when_not_given() -> None:
    starters = {_setup(3, seed=s).order[0] for s in range(20)}
    assert starters == {"red", "blue", "green"}


def test_unknown_starting_player_is_refused() -> None:
    with pytest.raises(RulesError) as err:
        _setup(3, starting_player="purple")
    assert err.value.code == "setup.starting_player"


def test_two_players_are_refused() -> None:
    with pytest.raises(RulesError) as err:
        GAME.setup(["a", "b"], GAME.options_model(), SeededChance(1))
    assert err.value.code == "setup.players"


def test_setup_is_deterministic_for_the_same_chance_outcomes() -> None:
    chance = SeededChance(11)
    first = GAME.setup(SEATS[4], GAME.options_model(contracts=True), chance)
    again = GAME.setup(
        SEATS[4], GAME.options_model(contracts=True), ScriptedChance([o for *_, o in chance.record])
    )
    assert GAME.dump_state(first) == GAME.dump_state(again)


def test_ports_are_chosen_one_seat_at_a_time_in_turn_order() -> None:
    state = _setup(3, starting_player="blue")
    seen = []
    for port in ("gdansk", "gdansk", "riga"):
        (seat,) = GAME.pending(state)
        assert GAME.pending(state)[seat].kind == "port"
        seen.append(seat)
        state, events = act(state, {seat: [{"port": port}]})
        assert events[0].text == f"{seat} put a first ship into {port}"
    assert seen == ["blue", "green", "red"]
    # several players may share a port
    assert state.players["blue"].ships == state.players["green"].ships == ["gdansk"]
    assert state.players["red"].supply == 4
    assert GAME.pending(state)["blue"].kind == "turn"


def test_port_choice_must_name_a_port() -> None:
    from pydantic import ValidationError

    state = _setup(3, starting_player="red")
    with pytest.raises(ValidationError):
        GAME.order_model(GAME.pending(state)["red"]).model_validate([{"port": "bornholm"}])
    assert set(PORTS) <= set(AREAS) | set(PORTS)


def test_only_the_seat_whose_port_choice_is_due_may_order() -> None:
    state = _setup(3, starting_player="red")
    err = rules_error_for_other(state)
    assert err.code == "decision.not_pending"


def rules_error_for_other(state):
    model = GAME.order_model(GAME.pending(state)["red"]).model_validate([{"port": "riga"}])
    with pytest.raises(RulesError) as err:
        GAME.check(state, "blue", model)
    return err.value


def test_rules_error_helper_reports_check_failures() -> None:
    state = _setup(3, starting_player="red")
    state, _ = act(state, {"red": [{"port": "riga"}]})
    state, _ = act(state, {"blue": [{"port": "riga"}]})
    state, _ = act(state, {"green": [{"port": "riga"}]})
    err = rules_error(state, "red", [{"sail": {"to": "riga"}}])
    assert err.code == "sail.own_ship_there"
