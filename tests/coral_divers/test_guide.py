"""Orders by clicking (``next_steps``): every choice leads on to legal orders, the bot's orders can be
built one choice at a time, ``complete`` agrees with ``check``, and the choices depend on the seat's
view alone."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.coral_divers import GAME
from games.coral_divers.state import State
from games.coral_divers.turn import MISSING
from pbem.core.game import JSON, RulesError, StepGuide
from pbem.core.i18n import _, language

from .conftest import RandomChance, orders, position
from .test_properties import states


def verdict(state: State, steps: list[JSON]) -> str:
    """``ok``, ``short`` (only more steps needed) or the code of the illegal step."""
    if not steps:
        return "short"  # a turn is one action: nothing chosen yet is not yet orders
    try:
        GAME.check(state, state.seat, orders(*steps))
    except RulesError as error:
        return "short" if error.code in MISSING else error.code
    return "ok"


def walk(state: State, steps: list[JSON]) -> None:
    """Build ``steps`` one choice at a time, checking every choice offered on the way."""
    seat = state.seat
    for n in range(len(steps) + 1):
        chosen = steps[:n]
        answer = GAME.next_steps(state, seat, chosen)
        assert answer.complete == (verdict(state, chosen) == "ok"), chosen
        offered = [c.step for c in answer.choices]
        assert len(offered) == len({repr(s) for s in offered}), "a choice offered twice"
        for choice in answer.choices:
            assert verdict(state, [*chosen, choice.step]) in ("ok", "short"), (chosen, choice.step)
            assert choice.keyword == next(iter(choice.step)) and choice.label
        if n < len(steps):
            assert steps[n] in offered, (chosen, steps[n])


def test_the_game_is_a_step_guide() -> None:
    assert isinstance(GAME, StepGuide)


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (3, 8), (4, 21)])
def test_the_bots_orders_are_built_choice_by_choice(players: int, seed: int) -> None:
    for state, parsed in states(players, seed):
        if parsed is not None and state.actions % 3 == 0:
            walk(state, GAME.bot(state, state.seat, RandomChance(state.actions)))


def test_random_clicking_always_ends_in_orders_check_accepts() -> None:
    """Choices picked at random never lead to a dead end: clicking on finishes a legal turn."""
    rng = random.Random(5)
    finished = 0
    for state, parsed in states(3, 11):
        if parsed is None:
            continue
        chosen: list[JSON] = []
        answer = GAME.next_steps(state, state.seat, chosen)
        while not answer.complete or (answer.choices and rng.random() < 0.2):
            assert answer.choices, f"dead end after {chosen}"
            chosen.append(rng.choice(answer.choices).step)
            answer = GAME.next_steps(state, state.seat, chosen)
        assert verdict(state, chosen) == "ok"
        finished += 1
    assert finished > 20


def test_shells_lines_and_surfaces_are_offered_where_the_rules_allow() -> None:
    state = position(
        coins=1,
        shells={"red": ["pearl", "discount", "extra-tile", "free-start"]},
        reefs=[("red", {"f4": "brain"}), ("red", {"e5": "fan"})],
    )
    steps = [c.step for c in GAME.next_steps(state, "red", []).choices]
    assert {"surface": ["e5"]} in steps and {"surface": ["f4", "e5"]} in steps
    assert {"plant": {"line": "row 1"}} not in steps  # four tiles, one coin: a pearl or discount first
    assert {"shell": "pearl"} in steps and {"shell": "discount"} in steps
    assert {"shell": {"kind": "extra-tile", "row": 2, "column": 3}} in steps
    after = [c.step for c in GAME.next_steps(state, "red", [{"shell": "discount"}]).choices]
    assert {"plant": {"line": "row 1"}} in after and {"shell": "discount"} not in after
    assert not any("surface" in s for s in after)
    planted = [{"shell": "discount"}, {"plant": {"line": "row 1"}}]
    answer = GAME.next_steps(state, "red", planted)
    steps = [c.step for c in answer.choices]
    assert not answer.complete
    assert {"place": {"tile": 1, "at": "f3"}} in steps  # extends the brain reef at f4
    assert {"discard": {"tile": 4}} in steps
    assert {"shell": "discount"} not in steps  # too late once the line is taken


def test_an_illegal_start_raises_what_check_raises() -> None:
    state = position(coins=2)
    for steps in ([{"plant": {"line": "row 1"}}], [{"place": {"tile": 1, "at": "e5"}}], [{"shell": "pearl"}]):
        with pytest.raises(RulesError) as guided:
            GAME.next_steps(state, "red", steps)
        with pytest.raises(RulesError) as checked:
            GAME.check(state, "red", orders(*steps))
        assert guided.value.code == checked.value.code
    with pytest.raises(RulesError) as other:
        GAME.next_steps(state, "blue", [])
    assert other.value.code == "turn.not_yours"
    with pytest.raises(RulesError) as shape:
        GAME.next_steps(state, "red", [{"plant": {"line": "row 1"}}, {"jump": 3}])
    assert shape.value.code == "turn.not_a_step" and shape.value.step == 1


def test_a_surface_is_the_whole_turn() -> None:
    state = position(reefs=[("red", {"f4": "brain"})])
    answer = GAME.next_steps(state, "red", [{"surface": ["f4"]}])
    assert answer.complete and not answer.choices


@pytest.mark.parametrize("seed", [2, 9])
def test_choices_depend_on_the_seats_view_alone(seed: int) -> None:
    """The same view with the face-down tokens and reserved stations dealt anew gives the same choices,
    in the same words."""
    for state, parsed in states(2, seed):
        if parsed is None or state.actions % 4:
            continue
        other = GAME.resample_hidden(state, state.seat, RandomChance(seed + state.actions))
        steps: list[Any] = GAME.bot(state, state.seat, RandomChance(1))
        for n in range(len(steps) + 1):
            mine = GAME.next_steps(state, state.seat, steps[:n])
            theirs = GAME.next_steps(other, state.seat, steps[:n])
            assert mine == theirs


def test_labels_are_read_in_the_players_language() -> None:
    state = position(reefs=[("red", {"f4": "brain"})], seabed={"f3": "pearl"})
    answer = GAME.next_steps(state, "red", [{"plant": {"line": "row 1"}}])
    (label,) = [c.label for c in answer.choices if c.step == {"place": {"tile": 1, "at": "f3"}}]
    assert str(label) == "place tile 1 (brain) on f3: reef of 2; takes the face-down seabed token"
    with language("ru"):
        said = _(label)
    assert "f3" in said and "place" not in said and "brain" not in said


def test_the_options_are_followed_columns_and_one_new_reef_a_turn() -> None:
    chance = RandomChance(17)
    options = GAME.options_model(lines="rows-and-columns", new_reefs="one-a-turn")
    state = GAME.setup(["ann", "bob", "cy"], options, chance)
    columns = 0
    while GAME.outcome(state) is None:
        steps = GAME.bot(state, state.seat, chance)
        if state.actions % 2 == 0:
            walk(state, steps)
        columns += any(
            "column" in c.step["plant"]["line"]
            for c in GAME.next_steps(state, state.seat, []).choices
            if c.keyword == "plant"
        )
        parsed = orders(*steps)
        state = GAME.resolve(state, {state.seat: parsed}, chance).state
    assert columns > 0
