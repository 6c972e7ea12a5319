"""Generic properties over bot games: determinism, round trips, orders that parse back, views that do
not depend on hidden things, and ``check`` agreeing with ``resolve`` on random (mostly illegal) orders."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from games.coral_divers import GAME
from games.coral_divers.data import SEA_MAP
from games.coral_divers.state import State
from pbem.core.game import RulesError
from pbem.core.steps import dump_steps

from .conftest import RandomChance


def states(n: int, seed: int) -> Iterator[tuple[State, Any]]:
    """Every state of one bot game, with the bot's orders for it (None at the end)."""
    chance = RandomChance(seed)
    state = GAME.setup(["ann", "bob", "cy", "dee"][:n], GAME.options_model(), chance)
    while GAME.outcome(state) is None:
        ((seat, decision),) = GAME.pending(state).items()
        parsed = GAME.order_model(decision).model_validate(GAME.bot(state, seat, chance))
        yield state, parsed
        state = GAME.resolve(state, {seat: parsed}, chance).state
    yield state, None


def hashes(n: int, seed: int) -> list[str]:
    return [json.dumps(GAME.dump_state(s), sort_keys=True) for s, _ in states(n, seed)]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_same_draws_and_orders_give_the_same_states(n: int) -> None:
    assert hashes(n, 40 + n) == hashes(n, 40 + n)


@pytest.mark.parametrize("n", [2, 4])
def test_states_round_trip_through_their_dump(n: int) -> None:
    for state, _ in states(n, 50 + n):
        data = json.loads(json.dumps(GAME.dump_state(state)))
        assert GAME.dump_state(GAME.load_state(data)) == data


@pytest.mark.parametrize("n", [2, 3])
def test_bot_orders_parse_back_from_their_printed_form(n: int) -> None:
    for state, parsed in states(n, 60 + n):
        if parsed is None:
            continue
        printed = json.loads(json.dumps(dump_steps(parsed)))
        assert GAME.order_model(GAME.pending(state)[state.seat]).model_validate(printed) == parsed


@pytest.mark.parametrize("n", [2, 4])
def test_views_do_not_change_when_the_hidden_is_dealt_anew(n: int) -> None:
    resample = RandomChance(7)
    for i, (state, _) in enumerate(states(n, 70 + n)):
        if i % 3:
            continue
        for seat in [*state.seats, None]:
            other = GAME.resample_hidden(state, seat or state.seats[0], resample)
            assert GAME.view(other, seat) == GAME.view(state, seat)


def test_resolve_leaves_its_input_unchanged() -> None:
    for state, parsed in states(3, 80):
        if parsed is None:
            break
        before = GAME.dump_state(state)
        GAME.resolve(state, {state.seat: parsed}, RandomChance(1))
        assert GAME.dump_state(state) == before


def random_step(rng: random.Random, state: State) -> Any:
    spaces = sorted(SEA_MAP.terrain)
    kind = rng.choice(["plant", "place", "place", "place", "discard", "shell", "surface"])
    if kind == "plant":
        return {"plant": {"line": f"{rng.choice(['row', 'column'])} {rng.randint(1, 4)}"}}
    if kind == "place":
        near = sorted({q for c in state.tiles for q in SEA_MAP.orthogonal[c]} or spaces)
        return {"place": {"tile": rng.randint(1, 5), "at": rng.choice(near + spaces[:3])}}
    if kind == "discard":
        return {"discard": {"tile": rng.randint(1, 5)}}
    if kind == "shell":
        if rng.random() < 0.3:
            return {"shell": {"kind": "extra-tile", "row": rng.randint(1, 4), "column": rng.randint(1, 4)}}
        return {"shell": rng.choice(["pearl", "discount", "free-start"])}
    return {"surface": rng.sample(sorted(state.tiles) or ["a1"], k=min(2, len(state.tiles)))}


def verdict(state: State, parsed: Any) -> str:
    try:
        GAME.check(state, state.seat, parsed)
    except RulesError as err:
        return str(err)
    return "accepted"


def test_check_agrees_with_resolve_on_random_orders() -> None:
    """...and its verdict, errors included, does not depend on what the seat cannot see."""
    rng = random.Random(5)
    accepted = refused = 0
    for i, (state, _) in enumerate(states(3, 90)):
        if GAME.outcome(state) is not None or i % 2:
            continue
        others = [GAME.resample_hidden(state, state.seat, RandomChance(k)) for k in range(2)]
        for _ in range(30):
            steps = (
                [{"plant": {"line": rng.choice(["row 1", "row 2", "row 3", "column 2"])}}]
                if rng.random() < 0.7
                else []
            )
            steps += [random_step(rng, state) for _ in range(rng.randint(0, 5))]
            if not steps:
                # legal for a seat with no reef, refused for one with a reef
                steps = [{"surface": []}]
            parsed = GAME.order_model(GAME.pending(state)[state.seat]).model_validate(steps)
            assert {verdict(o, parsed) for o in others} == {verdict(state, parsed)}
            try:
                GAME.check(state, state.seat, parsed)
            except RulesError as err:
                refused += 1
                with pytest.raises(RulesError) as again:
                    GAME.resolve(state, {state.seat: parsed}, RandomChance(2))
                assert again.value.code == err.code
                assert str(err).startswith("orders")
                continue
            accepted += 1
            GAME.resolve(state, {state.seat: parsed}, RandomChance(2))
    assert accepted > 0 and refused > 0
