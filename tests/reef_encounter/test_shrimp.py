"""Rules sections 3 (actions 4 and 5) and 5: shrimp, their limits and what they protect."""

from __future__ import annotations

from typing import Any

from .conftest import make_state, rejected, turn

TAKE = {"take": "white"}


def position(**kw: Any):  # -> State
    polyps = {"Ba2": "grey", "Bb2": "grey", "Bf1": "pink", "Bf2": "pink", "Ba5": "white", "Bc6": "white"}
    polyps.update(kw.pop("polyps", {}))
    return make_state(polyps=polyps, **kw)


def test_a_new_shrimp_goes_onto_a_coral_without_a_shrimp() -> None:
    state = position(shrimp={"Ba2": "green"})
    after, events = turn(state, [{"shrimp": "Bf1"}, TAKE])
    assert after.shrimp == {"Ba2": "green", "Bf1": "purple"} and after.players["purple"].shrimp == 3
    assert events[0] == "purple put a new shrimp on Bf1"
    err = rejected(state, [{"shrimp": "Bb2"}, TAKE])
    assert (err.code, err.step, err.action) == ("shrimp.coral_has_shrimp", 0, "4")
    err = rejected(state, [{"shrimp": "Ba2"}, TAKE])
    assert err.code == "shrimp.occupied"


def test_a_new_shrimp_needs_a_polyp_and_a_shrimp_behind_the_screen() -> None:
    err = rejected(position(), [{"shrimp": "Bd6"}, TAKE])
    assert (err.code, err.action) == ("shrimp.not_on_polyp", "4")
    err = rejected(position(), [{"shrimp": "Bb4"}, TAKE])
    assert err.code == "shrimp.deep_sand"
    state = position(fed={"purple": 4})
    state.players["purple"].eaten_shrimp, state.players["purple"].feedings = 3, 4
    err = rejected(state, [{"shrimp": "Bf1"}, TAKE])
    assert err.code == "shrimp.none_left"


def test_at_most_two_of_a_players_shrimp_on_one_board() -> None:
    state = position(shrimp={"Ba2": "purple", "Bf1": "purple"}, polyps={"Dc2": "grey", "Dd2": "orange"})
    err = rejected(state, [{"shrimp": "Ba5"}, TAKE])
    assert (err.code, err.action) == ("shrimp.board_limit", "4")
    turn(state, [{"shrimp": "Dc2"}, TAKE])
    after, _ = turn(state, [{"move_shrimp": {"from": "Bf1", "to": "Dd2"}}, {"shrimp": "Ba5"}, TAKE])
    assert sorted(after.shrimp) == ["Ba2", "Ba5", "Dd2"]
    # another player's shrimp do not count against mine
    other = position(shrimp={"Ba2": "green", "Bf1": "green"})
    turn(other, [{"shrimp": "Ba5"}, TAKE])


def test_moving_within_a_coral_or_to_a_coral_without_shrimp() -> None:
    state = position(shrimp={"Ba2": "purple", "Bf1": "green"})
    after, _ = turn(state, [{"move_shrimp": {"from": "Ba2", "to": "Bb2"}}, TAKE])
    assert after.shrimp == {"Bb2": "purple", "Bf1": "green"}
    after, _ = turn(state, [{"move_shrimp": {"from": "Ba2", "to": "Ba5"}}, TAKE])
    assert "Ba5" in after.shrimp
    err = rejected(state, [{"move_shrimp": {"from": "Ba2", "to": "Bf2"}}, TAKE])
    assert (err.code, err.step, err.action) == ("shrimp.coral_has_shrimp", 0, "5")


def test_only_ones_own_shrimp_move() -> None:
    state = position(shrimp={"Ba2": "purple", "Bf1": "green"})
    err = rejected(state, [{"move_shrimp": {"from": "Bf1", "to": "Bf2"}}, TAKE])
    assert (err.code, err.action) == ("move_shrimp.not_yours", "5")
    err = rejected(state, [{"move_shrimp": {"from": "Ba2", "to": "Ba2"}}, TAKE])
    assert err.code == "move_shrimp.same_space"


def test_a_shrimp_goes_back_behind_the_screen() -> None:
    state = position(shrimp={"Ba2": "purple"})
    after, events = turn(state, [{"move_shrimp": {"from": "Ba2", "to": "screen"}}, TAKE])
    assert after.shrimp == {} and after.players["purple"].shrimp == 4
    assert events[0] == "purple took their shrimp on Ba2 back behind the screen"


def test_a_shrimp_on_empty_rock_may_move_again_the_same_turn() -> None:
    state = position(shrimp={"Ba2": "purple"})
    steps = [
        {"move_shrimp": {"from": "Ba2", "to": "Bd6"}},
        {"move_shrimp": {"from": "Bd6", "to": "Bc6"}},
        TAKE,
    ]
    after, _ = turn(state, steps)
    assert after.shrimp == {"Bc6": "purple"}


def test_a_shrimp_on_rock_blocks_the_space_during_the_turn() -> None:
    state = position(
        shrimp={"Ba2": "purple"}, screens={"purple": {"pink": 2}}, larvae={"purple": {"pink": 1}}
    )
    steps = [{"move_shrimp": {"from": "Ba2", "to": "Bf3"}}, {"larva": "pink"}, {"place": "Bf3"}]
    err = rejected(state, [*steps, TAKE])
    assert (err.code, err.step) == ("place.shrimp", 2)


def test_the_shrimp_block_also_counts_a_moved_shrimp() -> None:
    state = position(
        shrimp={"Ba2": "purple", "Bc6": "green"},
        polyps={"Bb5": "white"},
        screens={"purple": {"white": 2}},
        larvae={"purple": {"white": 1}},
    )
    ok = [{"larva": "white"}, {"place": "Bb6"}, TAKE]
    after, _ = turn(state, ok)
    assert after.polyps["Bb6"] == "white"
    err = rejected(state, [{"move_shrimp": {"from": "Ba2", "to": "Ba5"}}, *ok])
    assert (err.code, err.step) == ("place.shrimp_block", 2)
