"""The rules file's second pass (issue 19): condition 3 ends the game at the step that causes it, the
final-feeding texts give the engine's number of polyps, and the new Rulings, each a legal and an
illegal case."""

from __future__ import annotations

import re

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.data import BOARDS
from games.reef_encounter.sea import polyps_back
from games.reef_encounter.state import State
from pbem.render.tables import render

from .conftest import check_invariants, make_state, rejected, turn
from .test_reports import context

TAKE = {"take": "white"}
STAR = BOARDS["B"].starfish  # Bd4


# ------------------------------------------------------------------------------------------ condition 3


def nearly_full(advanced: bool = False) -> State:
    """Board B all grey but Ba2; the active seat holds a grey larva and polyp to fill it."""
    polyps = dict.fromkeys(BOARDS["B"].rock, "grey")
    polyps.pop("Ba2")
    return make_state(
        boards=("B",),
        polyps=polyps,
        screens={"purple": {"grey": 1}},
        larvae={"purple": {"grey": 1}},
        advanced=advanced,
    )


def test_condition_3_ends_the_game_at_the_step_that_causes_it() -> None:
    after, events = turn(nearly_full(), [{"larva": "grey"}, {"place": "Ba2"}])
    assert after.phase == "over" and after.end_reason == "no polyp can be placed anywhere"
    assert after.final_queue == [] and GAME.pending(after) == {}
    assert events[-1] == "the game ends: no polyp can be placed anywhere"
    # no action 10 was taken: the open sea is as it was
    assert all(sp.larva for sp in after.sea.values())
    check_invariants(after)


def test_steps_after_condition_3_are_accepted_and_not_played() -> None:
    # the ruling (issue 34): the player could not know the end would come mid-turn; refusing the orders
    # would cost the turn, so what follows the step that ends the game is accepted and left unplayed
    state = nearly_full()
    GAME.check(
        state,
        "purple",
        GAME.order_model(GAME.pending(state)["purple"]).model_validate(
            [{"larva": "grey"}, {"place": "Ba2"}, TAKE]
        ),
    )
    after, events = turn(state, [{"larva": "grey"}, {"place": "Ba2"}, "pass", TAKE])
    assert after.phase == "over" and after.end_reason == "no polyp can be placed anywhere"
    assert all(sp.larva for sp in after.sea.values())  # the take was not played
    assert events[-2:] == [
        "the game ends: no polyp can be placed anywhere",
        "the game ended before purple's last 2 steps, which were not played: orders[2] (pass), "
        "orders[3] (take: white)",
    ]
    check_invariants(after)
    after, events = turn(state, [{"larva": "grey"}, {"place": "Ba2"}, TAKE])
    assert (
        events[-1]
        == "the game ended before purple's last step, which was not played: orders[2] (take: white)"
    )


def test_a_turn_that_leaves_a_space_free_still_needs_action_10() -> None:
    err = rejected(nearly_full(), [{"larva": "grey"}])
    assert err.code == "take.missing"


# ------------------------------------------------------------------------------------------ feeding numbers


def final_position(advanced: bool) -> State:
    state = make_state(
        polyps=dict.fromkeys(("Cb5", "Cc5", "Cd5", "Ce5", "Cf5", "Cf6", "Cg6"), "yellow"),
        boards=("B", "C"),
        shrimp={"Cc5": "green"},
        advanced=advanced,
    )
    state.phase, state.active = "final", "green"
    return state


@pytest.mark.parametrize("advanced", [False, True])
def test_the_final_feeding_template_says_how_many_polyps_the_engine_returns(advanced: bool) -> None:
    state = final_position(advanced)
    text = GAME.template(state, "green")
    (said,) = re.findall(r"\((\d+) polyps go back to the bag\)", text)
    before = state.bag["yellow"]
    after, _ = turn(state, [{"feed": "Cb5"}])
    assert int(said) == after.bag["yellow"] - before == (6 if advanced else 5)
    assert GAME.view(state, "green")["polyps_back"]["final_feeding"] == int(said)


@pytest.mark.parametrize("advanced", [False, True])
def test_the_turn_template_says_how_many_polyps_a_feeding_returns(advanced: bool) -> None:
    grey5 = dict.fromkeys(("Ba2", "Bb2", "Bc2", "Bd2", "Bd3"), "grey")
    state = make_state(polyps=grey5, shrimp={"Ba2": "purple"}, advanced=advanced)
    text = GAME.template(state, "purple")
    (said,) = re.findall(r"\((\d+) polyps go back to the bag\)", text)
    assert int(said) == polyps_back(state, final=False) == (5 if advanced else 4)
    after, _ = turn(state, [{"feed": "Ba2"}, TAKE])
    assert after.players["purple"].parrotfish["grey"] == 5 - int(said)


@pytest.mark.parametrize("advanced", [False, True])
def test_the_report_of_a_final_feeding_gives_the_engine_s_number(advanced: bool) -> None:
    state = final_position(advanced)
    n = polyps_back(state, final=True)
    for fmt in ("txt", "html"):
        text = render("reef-encounter", fmt, context(state, "green"))
        assert f"A final feeding returns {n} polyps to the bag." in text


# ------------------------------------------------------------------------------------------ rulings


def starfish_position() -> State:
    return make_state(
        polyps={"Bd6": "pink", "Bc6": "pink"},
        shrimp={"Bc6": "purple"},
        screens={"purple": {"pink": 4}},
        larvae={"purple": {"pink": 1}},
    )


def test_a_shrimp_on_the_starfish_space_stops_the_extra_growth() -> None:
    steps = [
        {"move_shrimp": {"from": "Bc6", "to": STAR}},
        {"larva": "pink"},
        {"place": "Bd5"},
        {"move_shrimp": {"from": STAR, "to": "Bd5"}},
        TAKE,
    ]
    after, _ = turn(starfish_position(), steps)
    assert STAR not in after.polyps and after.shrimp == {"Bd5": "purple"}
    # without the shrimp there, the same polyp grows the starfish space
    grown, _ = turn(starfish_position(), [{"larva": "pink"}, {"place": "Bd5"}, TAKE])
    assert grown.polyps[STAR] == "pink"


def test_a_shrimp_may_not_stay_on_the_starfish_space() -> None:
    steps = [{"move_shrimp": {"from": "Bc6", "to": STAR}}, {"larva": "pink"}, {"place": "Bd5"}, TAKE]
    err = rejected(starfish_position(), steps)
    assert (err.code, err.action) == ("shrimp.on_rock", "5")


def test_two_own_shrimp_on_empty_rock_of_one_board_mid_turn() -> None:
    # the Hungarian "one shrimp on empty rock per reef" is no separate limit: two may stand there
    state = make_state(polyps={"Ba2": "grey", "Bf2": "white"}, shrimp={"Ba2": "purple", "Bf2": "purple"})
    steps = [
        {"move_shrimp": {"from": "Ba2", "to": "Bc4"}},
        {"move_shrimp": {"from": "Bf2", "to": "Be4"}},
        {"move_shrimp": {"from": "Bc4", "to": "Ba2"}},
        {"move_shrimp": {"from": "Be4", "to": "screen"}},
        TAKE,
    ]
    after, _ = turn(state, steps)
    assert after.shrimp == {"Ba2": "purple"}


def test_a_third_shrimp_on_a_board_is_refused_even_on_empty_rock() -> None:
    state = make_state(
        boards=("B", "D"),
        polyps={"Ba2": "grey", "Bf2": "white", "Da2": "grey"},
        shrimp={"Ba2": "purple", "Bf2": "purple", "Da2": "purple"},
    )
    err = rejected(state, [{"move_shrimp": {"from": "Da2", "to": "Bc4"}}, TAKE])
    assert err.code == "shrimp.board_limit"


def test_action_8_takes_the_polyp_from_the_bag_not_the_bonus_row() -> None:
    state = make_state(larvae={"purple": {"white": 1}})
    bonus, bag = state.bonus["white"], state.bag["white"]
    after, _ = turn(state, [{"polyp_for_larva": "white"}, {"take": "pink"}])
    assert after.bonus["white"] == bonus and after.players["purple"].screen["white"] == 1
    assert after.bag["white"] <= bag - 1


def test_action_8_is_impossible_with_the_colour_only_in_the_bonus_row() -> None:
    state = make_state(larvae={"purple": {"white": 1}})
    state.players["green"].screen["white"] += state.bag["white"]
    state.bag["white"] = 0
    assert state.bonus["white"] == 1
    err = rejected(state, [{"polyp_for_larva": "white"}, TAKE])
    assert (err.code, err.action) == ("exchange.bag", "8")


def test_the_extra_growth_polyp_comes_from_the_bonus_row_then_the_bag() -> None:
    state = starfish_position()
    bag = state.bag["pink"]
    after, _ = turn(state, [{"larva": "pink"}, {"place": "Bd5"}, TAKE])
    # from the bonus row, refilled from the bag (the take's refill may draw from the bag too)
    assert after.polyps[STAR] == "pink" and after.bonus["pink"] == 1 and after.bag["pink"] <= bag - 1
    state = starfish_position()
    state.bag["pink"] += state.bonus["pink"]
    state.bonus["pink"] = 0
    after, _ = turn(state, [{"larva": "pink"}, {"place": "Bd5"}, TAKE])
    assert after.polyps[STAR] == "pink" and after.bonus["pink"] == 0


def test_the_grown_starfish_space_is_taken_for_the_rest_of_the_turn() -> None:
    err = rejected(starfish_position(), [{"larva": "pink"}, {"place": "Bd5"}, {"place": STAR}, TAKE])
    assert (err.code, err.step) == ("place.occupied", 2)


def test_the_template_s_limit_of_polyps_per_larva_is_the_engine_s() -> None:
    state = make_state(screens={"purple": {"pink": 6}}, larvae={"purple": {"pink": 1}}, advanced=True)
    (said,) = re.findall(r"up to (\d+) polyps of its colour", GAME.template(state, "purple"))
    spaces = ["Bd5", "Bd6", "Bc6", "Bb6", "Bc5"][: int(said) + 1]
    after, _ = turn(state, [{"larva": "pink"}, *({"place": s} for s in spaces[:-1]), TAKE])
    assert sum(1 for c in after.polyps.values() if c == "pink") == int(said)
    err = rejected(state, [{"larva": "pink"}, *({"place": s} for s in spaces), TAKE])
    assert (err.code, err.step) == ("place.limit", int(said) + 1)
