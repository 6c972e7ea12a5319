"""Rules section 4: placing polyps (growth, merging, the shrimp block, attacks, splitting, extra growth,
deep sand) and section 5's protection."""

from __future__ import annotations

from typing import Any

from games.reef_encounter.reef import coral

from .conftest import check_invariants, make_state, rejected, turn

TAKE = {"take": "white"}


def play(colour: str, *spaces: Any, **kw: Any) -> list[Any]:
    return [{"larva": colour}, *({"place": s} for s in spaces), TAKE]


def with_polyps(polyps: dict[str, str], shrimp: dict[str, str] | None = None, **kw: Any):  # -> State
    return make_state(
        polyps=polyps,
        shrimp=shrimp or {},
        screens={"purple": {"yellow": 6, "white": 6, "orange": 6, "pink": 6, "grey": 6}},
        larvae={"purple": {"yellow": 2, "white": 2, "orange": 2, "pink": 2, "grey": 2}},
        **kw,
    )


def test_a_polyp_starts_a_coral_or_extends_one_of_its_colour() -> None:
    state = with_polyps({"Ba2": "yellow"})
    after, _ = turn(state, play("yellow", "Bb2", "Bf1"))
    assert coral(after, "Ba2") == {"Ba2", "Bb2"} and coral(after, "Bf1") == {"Bf1"}
    err = rejected(state, play("yellow", "Ba2"))
    assert (err.code, err.step) == ("place.occupied", 1)


def test_diagonal_contact_does_not_connect() -> None:
    after, _ = turn(with_polyps({"Ba2": "yellow"}), play("yellow", "Bb3"))
    assert coral(after, "Ba2") == {"Ba2"}


def test_corals_that_become_connected_merge() -> None:
    after, _ = turn(with_polyps({"Ba2": "grey", "Bc2": "grey"}), play("grey", "Bb2"))
    assert coral(after, "Ba2") == {"Ba2", "Bb2", "Bc2"}


def test_shrimp_block_between_two_shrimp_carrying_corals() -> None:
    state = with_polyps({"Ba2": "grey", "Bc2": "grey"}, {"Ba2": "green", "Bc2": "purple"})
    err = rejected(state, play("grey", "Bb2"))
    assert (err.code, err.step, err.action) == ("place.shrimp_block", 1, "2")
    # one shrimp is no block, and other colours may go there
    state = with_polyps({"Ba2": "grey", "Bc2": "grey"}, {"Ba2": "green"})
    after, _ = turn(state, play("grey", "Bb2"))
    assert coral(after, "Bb2") == {"Ba2", "Bb2", "Bc2"}


def test_growing_a_coral_protected_by_another_players_shrimp() -> None:
    after, _ = turn(with_polyps({"Ba2": "grey"}, {"Ba2": "green"}), play("grey", "Bb2"))
    assert coral(after, "Ba2") == {"Ba2", "Bb2"}


def test_attack_needs_two_polyps_before() -> None:
    # yellow beats orange (yellow-orange starfish side up)
    state = with_polyps({"Ba2": "yellow", "Bb2": "orange"})
    err = rejected(state, play("yellow", "Bb2"))
    assert (err.code, err.step, err.action) == ("attack.too_small", 1, "2")
    # once a second polyp has made the coral 2 strong, the next one may attack
    after, _ = turn(state, play("yellow", "Ba3", "Bb2"))
    assert after.polyps["Bb2"] == "yellow" and after.players["purple"].front["orange"] == 1


def test_attack_needs_an_adjacent_coral_of_the_colour() -> None:
    err = rejected(with_polyps({"Ba2": "yellow", "Ba3": "yellow", "Bf2": "orange"}), play("yellow", "Bf2"))
    assert err.code == "attack.not_adjacent"


def test_attack_needs_the_placed_colour_to_beat_the_target() -> None:
    # pink beats white on the starfish side: white cannot eat pink, pink can eat white
    state = with_polyps({"Ba2": "white", "Ba3": "white", "Bb2": "pink", "Bc2": "pink", "Bc3": "white"})
    err = rejected(state, play("white", "Bb2"))
    assert (err.code, err.step) == ("attack.weaker", 1)
    after, _ = turn(state, play("pink", "Bc3"))
    assert after.polyps["Bc3"] == "pink"


def test_attack_on_a_protected_polyp_is_refused() -> None:
    base = {
        "Ba2": "yellow",
        "Ba3": "yellow",
        "Bb2": "orange",
        "Bc2": "orange",
        "Bd2": "orange",
        "Bb3": "grey",
    }
    # a shrimp on the target itself
    err = rejected(with_polyps(base, {"Bb2": "green"}), play("yellow", "Bb2"))
    assert (err.code, err.step) == ("attack.protected", 1)
    # a shrimp on an adjacent polyp of the same coral
    err = rejected(with_polyps(base, {"Bc2": "green"}), play("yellow", "Bb2"))
    assert err.code == "attack.protected"
    # a shrimp two polyps away, or on an adjacent polyp of another coral, does not protect
    after, _ = turn(with_polyps(base, {"Bd2": "green", "Bb3": "green"}), play("yellow", "Bb2"))
    assert after.polyps["Bb2"] == "yellow"


def test_the_eaten_polyp_goes_to_the_active_player() -> None:
    state = with_polyps(
        {"Ba2": "yellow", "Ba3": "yellow", "Bb2": "orange", "Bc2": "orange"}, {"Ba2": "green"}
    )
    after, events = turn(state, play("yellow", "Bb2"))
    assert after.players["purple"].front["orange"] == 1 and after.players["green"].front["orange"] == 0
    assert events[0] == "purple played their yellow larva cube and 1 polyp: Bb2 (attack, ate orange)"


def test_an_attack_splits_a_coral() -> None:
    base = {
        "Ba3": "yellow",
        "Bb3": "yellow",
        "Bc2": "orange",
        "Bc3": "orange",
        "Bc4": "orange",
        "Bc5": "orange",
    }
    after, _ = turn(with_polyps(base, {"Bc5": "green"}), play("yellow", "Bc3"))
    assert coral(after, "Bc2") == {"Bc2"} and coral(after, "Bc5") == {"Bc4", "Bc5"}
    check_invariants(after)


def test_deep_sand_never_holds_a_polyp() -> None:
    err = rejected(with_polyps({}), play("yellow", "Bb4"))
    assert (err.code, err.step) == ("place.deep_sand", 1)
    err = rejected(with_polyps({}), play("yellow", "Ad4"))
    assert err.code == "space.not_in_play"


def test_no_polyp_on_a_shrimp() -> None:
    state = with_polyps({"Ba2": "grey"}, {"Ba2": "purple"})
    err = rejected(
        state, [{"move_shrimp": {"from": "Ba2", "to": "Bb2"}}, {"larva": "grey"}, {"place": "Bb2"}]
    )
    assert (err.code, err.step) == ("place.shrimp", 2)


def test_polyps_come_from_behind_the_screen_or_from_the_eaten_ones() -> None:
    state = with_polyps({}, fronts={"purple": {"grey": 1}})
    after, _ = turn(state, [{"larva": "grey"}, {"place": {"at": "Bb2", "from": "front"}}, TAKE])
    assert after.players["purple"].front["grey"] == 0 and after.players["purple"].screen["grey"] == 6
    err = rejected(
        state, [{"larva": "grey"}, *[{"place": {"at": s, "from": "front"}} for s in ("Bb2", "Bc2")]]
    )
    assert (err.code, err.step) == ("place.no_eaten", 2)
    poor = make_state(larvae={"purple": {"grey": 1}}, screens={"purple": {"grey": 1}})
    err = rejected(poor, [{"larva": "grey"}, {"place": "Bb2"}, {"place": "Bc2"}, TAKE])
    assert (err.code, err.step) == ("place.no_polyp", 2)
    err = rejected(poor, [{"larva": "white"}, TAKE])
    assert (err.code, err.step, err.action) == ("larva.none", 0, "2")


def test_extra_growth_on_the_starfish_space_from_the_bonus_row() -> None:
    state = with_polyps({})
    after, events = turn(state, play("pink", "Bd5", "Bd6", "Bc6", "Bb6"))
    assert after.polyps["Bd4"] == "pink" and coral(after, "Bd4") == {"Bd4", "Bd5", "Bd6", "Bc6", "Bb6"}
    # the extra polyp does not count toward the four, and the bonus row was refilled from the bag
    assert after.players["purple"].screen["pink"] == 2
    assert after.bonus["pink"] == 1
    check_invariants(after)
    assert "Bd5 (extra growth on Bd4)" in events[0]


def test_extra_growth_takes_from_the_bag_when_the_bonus_row_lacks_the_colour() -> None:
    state = with_polyps({})
    state.bonus["pink"], state.bag["pink"] = 0, state.bag["pink"] + 1
    after, _ = turn(state, play("pink", "Bd5"))
    assert after.polyps["Bd4"] == "pink" and after.bonus["pink"] == 0
    check_invariants(after)


def test_no_extra_growth_when_no_polyp_of_the_colour_is_left() -> None:
    state = with_polyps({})
    state.bag["grey"] += state.bonus["grey"]
    state.bonus["grey"] = 0
    state.players["green"].screen["grey"] += state.bag["grey"]
    state.bag["grey"] = 0
    after, _ = turn(state, play("grey", "Bd5"))
    assert "Bd4" not in after.polyps
    check_invariants(after)


def test_extra_growth_obeys_the_shrimp_block_and_an_occupied_space() -> None:
    state = with_polyps({"Bc4": "pink", "Be4": "pink"}, {"Bc4": "green", "Be4": "purple"})
    after, _ = turn(state, play("pink", "Bd5"))
    assert "Bd4" not in after.polyps
    state = with_polyps({"Bd4": "grey"})
    after, _ = turn(state, play("pink", "Bd5"))
    assert after.polyps["Bd4"] == "grey"


def test_extra_growth_triggers_again_once_the_space_is_empty_again() -> None:
    grey = dict.fromkeys(("Bd4", "Bd3", "Bd2", "Bc2", "Bb2"), "grey")
    state = with_polyps(grey, {"Bd2": "purple"})
    after, _ = turn(state, play("pink", "Bc4"))
    assert after.polyps["Bd4"] == "grey"
    after, _ = turn(state, [{"feed": "Bd2"}, *play("pink", "Bc4")])
    assert after.polyps["Bd4"] == "pink"


def test_the_advanced_game_has_no_extra_growth() -> None:
    state = make_state(screens={"purple": {"pink": 4}}, larvae={"purple": {"pink": 1}}, advanced=True)
    after, _ = turn(state, play("pink", "Bd5"))
    assert "Bd4" not in after.polyps


def test_the_verdict_without_words_is_placement_problems_on_every_space_of_bot_games() -> None:
    # game end condition 3 asks placement_refused of the rock spaces after every step; the orders'
    # own steps are refused with placement_problem's words: both must be the same rules
    from games.reef_encounter import GAME
    from games.reef_encounter.data import ALL_SAND, BOARDS, CORAL_COLOURS
    from games.reef_encounter.reef import any_legal_placement, placement_problem, placement_refused
    from pbem.core.chance import Recorder

    codes: set[str | None] = set()
    for seed in (1, 2):
        state = GAME.setup(["ann", "bob", "cy", "dee"], GAME.options_model(), Recorder.for_turn(seed, 0, 0))
        for number in range(1, 40):
            pending = GAME.pending(state)
            if not pending:
                break
            spaces = sorted({s for b in state.boards for s in BOARDS[b].rock} | set(ALL_SAND) | {"Za1"})
            for space in spaces:
                for colour in CORAL_COLOURS:
                    problem = placement_problem(state, space, colour)
                    code = placement_refused(state, space, colour)
                    assert code == (problem[0] if problem else None), (space, colour)
                    assert problem is None or str(problem[1])  # the words are made for every refusal
                    codes.add(code)
            assert isinstance(any_legal_placement(state), bool)
            orders = {
                seat: GAME.order_model(decision).model_validate(
                    GAME.bot(state, seat, Recorder.for_turn(seed, 0, number, f"bot:{seat}"))
                )
                for seat, decision in pending.items()
            }
            state = GAME.resolve(state, orders, Recorder.for_turn(seed, 0, number)).state
    # the games reached refusals of most kinds, and legal places
    assert None in codes and len(codes) >= 6, codes


def test_each_refusal_keeps_its_words() -> None:
    from games.reef_encounter.reef import placement_problem

    state = with_polyps({"Ba2": "yellow", "Bb2": "pink"})
    assert placement_problem(state, "Ba2", "yellow") == (
        "place.occupied",
        "Ba2 already holds a polyp of that colour (yellow)",
    )
    assert placement_problem(state, "Ba2", "grey") == (
        "attack.not_adjacent",
        "no grey coral touches Ba2, so it cannot attack there",
    )
    assert placement_problem(state, "Bb2", "yellow") == (
        "attack.too_small",
        "yellow corals need at least 2 polyps before they can attack Bb2",
    )
    assert placement_problem(state, "Za1", "grey") == (
        "space.not_in_play",
        "reef board Z is not in this game",
    )
    assert placement_problem(state, "Ba3", "grey") is None
