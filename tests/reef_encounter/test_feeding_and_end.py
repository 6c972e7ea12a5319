"""Rules sections 3 (action 1 and action 10), 9 (the end) and 10 (scores and ties)."""

from __future__ import annotations

from typing import Any

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.data import BOARDS, CORAL_COLOURS, OPEN_SEA, TILES
from games.reef_encounter.reef import beats, values
from games.reef_encounter.state import State

from .conftest import ScriptedChance, check_invariants, make_state, rejected, turn

TAKE = {"take": "white"}
GREY5 = dict.fromkeys(("Ba2", "Bb2", "Bc2", "Bd2", "Bd3"), "grey")


def feeding_position(fed: int = 0, **kw: Any) -> State:
    polyps = {**GREY5, "Bf1": "pink", "Bf2": "pink", "Df1": "white", **kw.pop("polyps", {})}
    return make_state(
        polyps=polyps, shrimp={"Ba2": "purple", **kw.pop("shrimp", {})}, fed={"purple": fed}, **kw
    )


def test_feeding_returns_four_to_the_bag_and_the_first_shrimp_to_the_open_sea() -> None:
    state = feeding_position()
    after, events = turn(state, [{"feed": "Bc2"}, TAKE])
    p = after.players["purple"]
    assert p.parrotfish["grey"] == 1 and p.feedings == 1 and p.sea_shrimp and p.eaten_shrimp == 0
    assert not set(GREY5) & set(after.polyps) and "Ba2" not in after.shrimp
    assert events[0] == (
        "purple fed the 5-polyp grey coral at Bc2 to their parrotfish "
        "(4 back to the bag; its shrimp went onto the open sea)"
    )
    check_invariants(after)


def test_later_shrimp_go_into_the_parrotfish() -> None:
    after, _ = turn(feeding_position(fed=1), [{"feed": "Ba2"}, TAKE])
    assert after.players["purple"].eaten_shrimp == 1 and after.players["purple"].feedings == 2


def test_the_advanced_game_returns_five() -> None:
    state = feeding_position(polyps={"Be2": "grey"}, advanced=True)
    after, _ = turn(state, [{"feed": "Ba2"}, TAKE])
    assert after.players["purple"].parrotfish["grey"] == 1


def test_only_a_coral_of_five_with_ones_own_shrimp_is_fed() -> None:
    state = feeding_position(shrimp={"Bf1": "purple", "Df1": "green"})
    err = rejected(state, [{"feed": "Bf2"}, TAKE])
    assert (err.code, err.step, err.action) == ("feed.too_small", 0, "1")
    err = rejected(state, [{"feed": "Df1"}, TAKE])
    assert err.code == "feed.not_yours"
    err = rejected(feeding_position(), [{"feed": "Bf1"}, TAKE])
    assert err.code == "feed.not_yours"
    err = rejected(state, [{"feed": "Bg5"}, TAKE])
    assert err.code == "feed.no_coral"


def test_the_fourth_feeding_ends_the_game_with_final_feeding_turns() -> None:
    state = make_state(
        seats=("purple", "green", "red"),
        boards=("A", "B", "C"),
        polyps={**GREY5, **dict.fromkeys(("Cb5", "Cc5", "Cd5", "Ce5", "Cf5", "Cf6"), "yellow")},
        shrimp={"Ba2": "purple", "Cc5": "red"},
        fed={"purple": 3},
        active="purple",
    )
    after, events = turn(state, [{"feed": "Ba2"}])
    assert after.phase == "final" and after.active == "green" and after.final_queue == ["red"]
    assert events[-1] == "the game ends: purple fed their fourth coral; the others get a final feeding turn"
    err = rejected(state, [{"feed": "Ba2"}, TAKE])
    assert (err.code, err.step) == ("turn.game_over", 1)
    assert GAME.pending(after)["green"].kind == "final_feeding"
    after, events = turn(after, ["pass"])
    assert events == ["green passed their final feeding turn"] and after.active == "red"
    err = rejected(after, [{"feed": "Bb2"}])
    assert err.code == "feed.no_coral"
    done, _ = turn(after, [{"feed": "Cc5"}])
    # final feeding returns five, not four: 6 - 5 = 1 polyp for red's parrotfish
    assert done.players["red"].parrotfish["yellow"] == 1
    assert done.phase == "over" and GAME.pending(done) == {}
    assert GAME.outcome(done).reason == "purple fed their fourth coral"
    check_invariants(done)


def test_final_feeding_in_the_advanced_game_returns_six() -> None:
    state = make_state(
        polyps=dict.fromkeys(("Cb5", "Cc5", "Cd5", "Ce5", "Cf5", "Cf6", "Cg6"), "yellow"),
        boards=("B", "C"),
        shrimp={"Cc5": "green"},
        advanced=True,
    )
    state.phase, state.active = "final", "green"
    after, _ = turn(state, [{"feed": "Cb5"}])
    assert after.players["green"].parrotfish["yellow"] == 1 and after.phase == "over"


def test_taking_refills_the_open_sea() -> None:
    state = make_state()
    after, events = turn(state, [{"take": "pink"}], ScriptedChance([0] * 5))
    p = after.players["purple"]
    assert p.larvae["pink"] == 1 and p.screen["pink"] == 1
    assert after.sea["pink"].larva and after.larva_supply["pink"] == state.larva_supply["pink"] - 1
    # every space had fewer than 3 polyps: each got exactly one (the first colour by the chance: grey)
    assert [sum(after.sea[s].polyps.values()) for s in OPEN_SEA] == [2, 2, 2, 1, 2]
    assert events[0].startswith("purple took the pink open-sea space: the pink larva and 1 polyp (1 pink)")
    assert events[1] == (
        "the open sea was refilled: grey to white, grey to yellow, grey to orange, grey to pink, grey to grey"
    )
    check_invariants(after)


def test_a_space_with_three_polyps_gets_none() -> None:
    state = make_state()
    state.sea["grey"].polyps["grey"] = 3
    state.bag["grey"] -= 2
    after, _ = turn(state, [{"take": "pink"}])
    assert sum(after.sea["grey"].polyps.values()) == 3


def test_the_game_ends_when_the_refill_leaves_fewer_than_three_in_the_bag() -> None:
    state = make_state()
    for c in state.bag:
        state.players["green"].screen[c] += state.bag[c]
        state.bag[c] = 0
    state.bag["grey"] = 7  # 5 refills leave 2
    state.players["green"].screen["grey"] -= 7
    after, _ = turn(state, [TAKE])
    assert after.phase == "over" and GAME.outcome(after) is not None
    assert "could not be refilled or the bag holds fewer than 3" in after.end_reason
    check_invariants(after)
    state.bag["grey"] += 1
    state.players["green"].screen["grey"] -= 1
    after, _ = turn(state, [TAKE])
    assert after.phase == "play"


def test_the_bonus_row_goes_into_an_empty_bag() -> None:
    state = make_state()
    for c in state.bag:
        state.players["green"].screen[c] += state.bag[c]
        state.bag[c] = 0
    state.bag["grey"] = 2
    state.players["green"].screen["grey"] -= 2
    after, _ = turn(state, [TAKE])
    assert sum(after.bonus.values()) == 0 and after.phase == "over"
    assert sum(sum(s.polyps.values()) for s in after.sea.values()) == 9
    check_invariants(after)


def test_the_game_ends_when_no_larva_can_refill_the_space() -> None:
    state = make_state()
    state.players["green"].larvae["white"] += state.larva_supply["white"]
    state.larva_supply["white"] = 0
    after, _ = turn(state, [TAKE])
    assert after.phase == "over" and not after.sea["white"].larva


def test_the_game_ends_when_no_polyp_can_be_placed_anywhere() -> None:
    # one board full of grey: no free space, and no other colour has a coral to attack from
    polyps = dict.fromkeys(BOARDS["B"].rock, "grey")
    after, _ = turn(make_state(boards=("B",), polyps=polyps), [TAKE])
    assert after.phase == "over" and after.end_reason == "no polyp can be placed anywhere"
    polyps.pop("Ba2")
    after, _ = turn(make_state(boards=("B",), polyps=polyps), [TAKE])
    assert after.phase == "play"


def test_exactly_one_colour_of_each_pair_beats_the_other() -> None:
    state = make_state()
    for flip in (False, True):
        state.up = dict.fromkeys(TILES, not flip)
        for x in CORAL_COLOURS:
            assert not beats(state, x, x)
            for y in CORAL_COLOURS:
                if x != y:
                    assert beats(state, x, y) != beats(state, y, x)


def test_values_are_one_plus_the_tiles_showing_the_colour_strong_and_sum_to_fifteen() -> None:
    state = make_state()
    assert values(state) == dict.fromkeys(values(state), 3)
    state.up["white-pink"] = False
    assert values(state)["white"] == 4 and values(state)["pink"] == 2
    for t in TILES:
        state.up[t] = t in ("white-yellow", "white-orange", "white-pink", "white-grey")
    assert sum(values(state).values()) == 15


def ended(**kw: Any) -> State:
    state = make_state(seats=("purple", "green", "red"), boards=("A", "B", "C"), **kw)
    state.phase, state.active, state.end_reason = "over", "", "test"
    return state


def test_scores_are_the_parrotfish_polyps_at_their_colour_values() -> None:
    state = ended(fish={"purple": {"grey": 2, "pink": 1}, "green": {"white": 3}})
    state.up["white-pink"] = False
    out = GAME.outcome(state)
    assert out.scores == {"purple": 3 + 3 + 2, "green": 12, "red": 0}
    assert out.places == {"green": 1, "purple": 2, "red": 3}


@pytest.mark.parametrize(
    ("kw", "breaker"),
    [
        ({"fronts": {"green": {"grey": 1}}}, "eaten polyps in front of the screen"),
        ({"larvae": {"green": {"grey": 1}}}, "larva cubes behind the screen"),
        ({"screens": {"green": {"grey": 1}}}, "polyps behind the screen"),
        ({"polyps": {"Ba2": "grey", "Bb2": "grey"}, "shrimp": {"Ba2": "green"}}, "in corals protected"),
    ],
)
def test_the_four_tie_breaks_in_order(kw: dict[str, Any], breaker: str) -> None:
    fish = {"purple": {"grey": 1}, "green": {"grey": 1}}
    # each earlier tie-break is equal (both zero), so the named one decides for green
    state = ended(fish=fish, **kw)
    out = GAME.outcome(state)
    assert out.places["green"] == 1 and out.places["purple"] == 2
    assert any(breaker in t for t in out.tie_breaks)


def test_an_earlier_tie_break_wins_over_a_later_one() -> None:
    state = ended(
        fish={"purple": {"grey": 1}, "green": {"grey": 1}},
        fronts={"purple": {"pink": 1}},
        larvae={"green": {"grey": 3}},
    )
    assert GAME.outcome(state).places == {"purple": 1, "green": 2, "red": 3}


def test_a_complete_tie_shares_the_place() -> None:
    out = GAME.outcome(ended(fish={"purple": {"grey": 1}, "green": {"grey": 1}}))
    assert out.places == {"purple": 1, "green": 1, "red": 3}
    assert any("shared place" in t for t in out.tie_breaks)


def test_the_rulebooks_scoring_example() -> None:
    """Hungarian rules, "Példa a pontozásra" (the Czech table lost its zero columns): values grey 2,
    pink 3, orange 2, white 3, yellow 5; green wins with 23 points from the fewest polyps (5)."""
    state = make_state(
        seats=("purple", "green", "red", "yellow"),
        boards=("A", "B", "C", "D"),
        fish={
            "purple": {"grey": 2, "white": 3, "yellow": 1},
            "green": {"pink": 1, "yellow": 4},
            "red": {"orange": 4, "white": 4},
            "yellow": {"grey": 3, "pink": 3, "yellow": 1},
        },
        fronts={"red": {"grey": 1}},
    )
    # the tile sides that give those values: yellow strong on all four of its tiles
    down = {"white-yellow", "yellow-grey", "white-pink", "orange-pink"}
    state.up = {t: t not in down for t in TILES}
    state.phase, state.active, state.end_reason = "over", "", "every coral tile is locked by an alga"
    assert values(state) == {"grey": 2, "pink": 3, "orange": 2, "white": 3, "yellow": 5}
    out = GAME.outcome(state)
    assert out.scores == {"purple": 18, "green": 23, "red": 20, "yellow": 20}
    # red and yellow tie on 20: red's eaten polyp in front of its screen breaks the tie
    assert out.places == {"green": 1, "red": 2, "yellow": 3, "purple": 4}
    assert out.tie_breaks == (
        "red and yellow tied on 20 points; broken by eaten polyps in front of the screen: red 1, yellow 0",
    )
