"""The bot plays every pending decision legally and not stupidly: it feeds, grows, attacks, protects and
locks tiles in its parrotfish's favour."""

from __future__ import annotations

from typing import Any

from games.reef_encounter import GAME
from games.reef_encounter.reef import values
from games.reef_encounter.state import State

from .conftest import SeededChance, check_invariants, make_state, turn


def bot_turn(state: State) -> tuple[list[Any], State, list[str]]:
    data = GAME.bot(state, state.active, SeededChance(0))
    after, events = turn(state, data)
    check_invariants(after)
    return data, after, events


def test_the_bot_feeds_a_coral_worth_feeding() -> None:
    six = dict.fromkeys(("Ba2", "Bb2", "Bc2", "Bd2", "Bd3", "Bc3"), "grey")
    data, after, _ = bot_turn(make_state(polyps=six, shrimp={"Bb2": "purple"}))
    assert data[0] == {"feed": "Bb2"} and after.players["purple"].feedings == 1
    # a coral of 5 would give the parrotfish one polyp only: the bot lets it grow first
    five = dict.fromkeys(("Ba2", "Bb2", "Bc2", "Bd2", "Bd3"), "grey")
    data, _, _ = bot_turn(make_state(polyps=five, shrimp={"Bb2": "purple"}))
    assert "feed" not in data[0]


def test_the_bot_grows_and_attacks() -> None:
    state = make_state(
        polyps={"Ba2": "yellow", "Ba3": "yellow", "Bb2": "orange", "Bb3": "orange"},
        screens={"purple": {"yellow": 4}},
        larvae={"purple": {"yellow": 1}},
    )
    data, after, events = bot_turn(state)
    assert data[0] == {"larva": "yellow"} and after.polyps["Bb2"] == after.polyps["Bb3"] == "yellow"
    assert sum(c == "yellow" for c in after.polyps.values()) >= 2 + 4
    assert events[0].count("attack, ate orange") == 2


def test_the_bot_protects_its_corals() -> None:
    state = make_state(polyps={"Ba2": "pink", "Bb2": "pink", "Bf1": "white"})
    data, after, _ = bot_turn(state)
    assert {"shrimp": "Ba2"} in data or {"shrimp": "Bb2"} in data
    assert set(after.shrimp) & {"Ba2", "Bb2"}


def test_the_bot_locks_a_tile_that_favours_its_parrotfish() -> None:
    # locking yellow-pink with purple turns white-pink over: white (in the parrotfish) gains a point
    state = make_state(fronts={"purple": {"orange": 1}}, fish={"purple": {"white": 3}}, fed={"purple": 1})
    before = values(state)["white"]
    data, after, _ = bot_turn(state)
    assert any("algae" in step for step in data if isinstance(step, dict))
    assert values(after)["white"] > before and after.locks


def test_the_bot_never_locks_against_its_parrotfish() -> None:
    # every lock possible here would cost pink points or gain nothing
    state = make_state(fronts={"purple": {"orange": 1}}, fish={"purple": {"pink": 3}}, fed={"purple": 1})
    _, after, _ = bot_turn(state)
    assert values(after)["pink"] >= values(state)["pink"]


def test_the_bot_sets_up_with_a_held_polyp_and_feeds_or_passes_at_the_end() -> None:
    state = GAME.setup(["ann", "bob"], GAME.options_model(), SeededChance(3))
    for seat in state.seats:
        (step,) = GAME.bot(state, seat, SeededChance(1))
        assert state.players[seat].screen[step["setup"]["parrotfish"]] > 0
    final = make_state(
        polyps=dict.fromkeys(("Ba2", "Bb2", "Bc2", "Bd2", "Bd3"), "grey"), shrimp={"Bb2": "green"}
    )
    final.phase, final.active = "final", "green"
    assert GAME.bot(final, "green", SeededChance(0)) == [{"feed": "Bb2"}]
    final.active = "purple"
    assert GAME.bot(final, "purple", SeededChance(0)) == ["pass"]
