"""Rules section 3: the ten actions and their order. A rejected turn names its first illegal step, the
action number and the rule."""

from __future__ import annotations

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.orders import SetupOrders, TurnOrders
from games.reef_encounter.state import State
from pbem.core.game import RulesError

from .conftest import make_state, rejected, turn

TAKE = {"take": "white"}


def position() -> State:
    return make_state(
        polyps={
            "Ba2": "yellow",
            "Ba3": "yellow",
            "Bf6": "grey",
            "Be6": "grey",
            "Bd6": "grey",
            "Bc6": "grey",
            "Bb6": "grey",
            "Bf5": "pink",
        },
        shrimp={"Bf6": "purple"},
        screens={"purple": {"yellow": 9, "white": 2}},
        larvae={"purple": {"yellow": 2, "white": 1}},
        fronts={"purple": {"pink": 2, "yellow": 1}},
    )


def test_feeding_is_only_the_very_first_action() -> None:
    state = position()
    after, _ = turn(state, [{"feed": "Bf6"}, {"larva": "yellow"}, {"place": "Bb2"}, TAKE])
    assert after.players["purple"].feedings == 1
    err = rejected(state, [{"larva": "yellow"}, {"feed": "Bf6"}, TAKE])
    assert (err.code, err.step, err.action) == ("feed.not_first", 1, "1")
    err = rejected(state, [{"move_shrimp": {"from": "Bf6", "to": "Be6"}}, {"feed": "Be6"}, TAKE])
    assert (err.code, err.step) == ("feed.not_first", 1)


def test_at_most_two_larva_actions() -> None:
    state = position()
    turn(state, [{"larva": "yellow"}, {"larva": "yellow"}, TAKE])
    err = rejected(state, [{"larva": "yellow"}, {"larva": "yellow"}, {"larva": "white"}, TAKE])
    assert (err.code, err.step, err.action) == ("larva.third", 2, "3")


def test_the_second_larva_is_action_three_with_its_own_four_polyps() -> None:
    state = position()
    four = [{"place": s} for s in ("Bb2", "Bc2", "Bd3", "Bd2")]
    more = [{"place": s} for s in ("Bb3", "Ba4", "Ba5", "Bb5")]
    after, _ = turn(state, [{"larva": "yellow"}, *four, {"larva": "yellow"}, *more, TAKE])
    assert after.players["purple"].screen["yellow"] == 1
    err = rejected(state, [{"larva": "yellow"}, *four, {"larva": "yellow"}, *more, {"place": "Bc3"}, TAKE])
    assert (err.code, err.step, err.action) == ("place.limit", 10, "3")
    err = rejected(state, [{"larva": "yellow"}, *four, {"place": "Bb3"}, TAKE])
    assert (err.code, err.step, err.action) == ("place.limit", 5, "2")


def test_no_more_action_two_polyps_once_action_three_began() -> None:
    state = position()
    # after the white larva (action 3) every polyp placed is white: the yellow action is over
    after, _ = turn(
        state, [{"larva": "yellow"}, {"place": "Bb2"}, {"larva": "white"}, {"place": "Bc2"}, TAKE]
    )
    assert after.polyps["Bc2"] == "white"
    err = rejected(
        state, [{"larva": "yellow"}, {"larva": "white"}, {"place": {"at": "Bb2", "from": "front"}}]
    )
    assert (err.code, err.step, err.action) == ("place.no_eaten", 2, "3")


def test_polyps_only_while_a_larva_action_is_under_way() -> None:
    state = position()
    err = rejected(state, [{"place": "Bb2"}, TAKE])
    assert (err.code, err.step, err.action) == ("place.no_larva", 0, "2")
    err = rejected(state, [{"larva": "yellow"}, {"larva_for_polyp": "pink"}, {"place": "Bb2"}, TAKE])
    assert (err.code, err.step) == ("place.no_larva", 2)


def test_a_new_shrimp_at_most_once() -> None:
    state = position()
    turn(state, [{"shrimp": "Ba2"}, TAKE])
    err = rejected(state, [{"shrimp": "Ba2"}, {"shrimp": "Bf5"}, TAKE])
    assert (err.code, err.step, err.action) == ("shrimp.twice", 1, "4")


def test_moving_a_shrimp_between_two_placements_keeps_the_larva_action() -> None:
    state = position()
    steps = [
        {"larva": "yellow"},
        {"place": "Bb2"},
        {"move_shrimp": {"from": "Bf6", "to": "Bg5"}},
        {"place": "Bc2"},
        {"move_shrimp": {"from": "Bg5", "to": "Bf6"}},
        {"place": "Bd3"},
        {"place": "Bd2"},
        TAKE,
    ]
    after, events = turn(state, steps)
    assert all(after.polyps[s] == "yellow" for s in ("Bb2", "Bc2", "Bd3", "Bd2"))
    assert after.shrimp == {"Bf6": "purple"}
    assert events[0] == "purple played their yellow larva cube and 1 polyp: Bb2"
    assert events[2] == "purple placed 1 more yellow polyp: Bc2"
    # still one action: a fifth polyp from behind the screen is refused
    err = rejected(state, [*steps[:-1], {"place": "Bb3"}, TAKE])
    assert (err.code, err.action) == ("place.limit", "2")


def test_taking_from_the_open_sea_is_mandatory_once_and_last() -> None:
    state = position()
    turn(state, ["pass", TAKE])
    turn(state, [TAKE])
    err = rejected(state, ["pass"])
    assert (err.code, err.step, err.action) == ("take.missing", None, "10")
    err = rejected(state, [TAKE, {"larva": "yellow"}])
    assert (err.code, err.step, err.action) == ("take.not_last", 1, "2")
    err = rejected(state, [TAKE, {"take": "pink"}])
    assert (err.code, err.step, err.action) == ("take.not_last", 1, "10")
    err = rejected(state, [TAKE, {"move_shrimp": {"from": "Bf6", "to": "screen"}}])
    assert (err.code, err.action) == ("take.not_last", "5")


def test_no_shrimp_on_empty_rock_at_the_end_of_the_turn() -> None:
    state = position()
    err = rejected(state, [{"move_shrimp": {"from": "Bf6", "to": "Bg5"}}, TAKE])
    assert (err.code, err.step, err.action) == ("shrimp.on_rock", None, "5")
    after, _ = turn(
        state,
        [{"move_shrimp": {"from": "Bf6", "to": "Bg5"}}, {"move_shrimp": {"from": "Bg5", "to": "Bf6"}}, TAKE],
    )
    assert after.shrimp == {"Bf6": "purple"}


def test_a_rejection_names_the_step_the_action_and_the_rule() -> None:
    err = rejected(position(), [{"larva": "yellow"}, {"place": "Bb4"}, TAKE])
    assert (
        str(err)
        == "orders[1] (place: Bb4): action 2: Bb4 is deep sand: no polyp ever grows there [place.deep_sand]"
    )


def test_only_the_active_seat_has_a_turn() -> None:
    with pytest.raises(RulesError) as info:
        GAME.check(position(), "green", TurnOrders.model_validate([TAKE]))
    assert info.value.code == "turn.not_pending"


def test_a_shrimp_move_right_after_the_larva_tells_the_larva_with_its_polyps() -> None:
    steps = [
        {"larva": "yellow"},
        {"move_shrimp": {"from": "Bf6", "to": "Bg5"}},
        {"place": "Bb2"},
        {"move_shrimp": {"from": "Bg5", "to": "Bf6"}},
        TAKE,
    ]
    _, events = turn(position(), steps)
    assert events[:3] == [
        "purple moved their shrimp from Bf6 to Bg5 (empty rock)",
        "purple played their yellow larva cube and 1 polyp: Bb2",
        "purple moved their shrimp from Bg5 to Bf6",
    ]


def test_orders_of_another_decision_are_refused_by_name() -> None:
    with pytest.raises(RulesError) as info:
        GAME.check(
            position(),
            "purple",
            SetupOrders.model_validate([{"setup": {"parrotfish": "grey", "larvae": ["grey", "pink"]}}]),
        )
    assert info.value.code == "orders.shape"
