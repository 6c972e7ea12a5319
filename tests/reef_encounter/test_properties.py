"""Generic properties over positions of real bot games: round trips, purity, secrecy, templates."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from games.reef_encounter import GAME
from games.reef_encounter.state import State
from pbem.core.game import Game, RulesError
from pbem.core.steps import dump_steps

from .conftest import SeededChance


def positions(seed: int, players: int, advanced: bool = False) -> Iterator[State]:
    chance = SeededChance(seed)
    state = GAME.setup(["ann", "bob", "cy", "dee"][:players], GAME.options_model(advanced=advanced), chance)
    while GAME.outcome(state) is None:
        yield state
        orders = {
            seat: GAME.order_model(d).model_validate(GAME.bot(state, seat, chance))
            for seat, d in GAME.pending(state).items()
        }
        state = GAME.resolve(state, orders, chance).state
    yield state


GAMES = [(1, 2), (2, 3), (3, 4)]


def test_the_game_satisfies_the_protocol() -> None:
    assert isinstance(GAME, Game)
    assert (GAME.name, GAME.min_players, GAME.max_players) == ("reef-encounter", 2, 4)


@pytest.mark.parametrize(("seed", "players"), GAMES)
def test_states_round_trip_through_json(seed: int, players: int) -> None:
    for state in positions(seed, players):
        data = GAME.dump_state(state)
        again = json.loads(json.dumps(data, sort_keys=True))
        assert GAME.dump_state(GAME.load_state(again)) == data
        assert GAME.load_state(again) == state


@pytest.mark.parametrize(("seed", "players"), GAMES)
def test_resolve_leaves_its_input_unchanged_and_is_deterministic(seed: int, players: int) -> None:
    chance = SeededChance(seed + 100)
    for state in positions(seed, players):
        if GAME.outcome(state) is not None:
            break
        before = json.dumps(GAME.dump_state(state), sort_keys=True)
        orders = {
            s: GAME.order_model(d).model_validate(GAME.bot(state, s, chance))
            for s, d in GAME.pending(state).items()
        }
        a = GAME.resolve(state, orders, SeededChance(5))
        b = GAME.resolve(state, orders, SeededChance(5))
        assert json.dumps(GAME.dump_state(state), sort_keys=True) == before
        assert GAME.dump_state(a.state) == GAME.dump_state(b.state) and a.events == b.events


@pytest.mark.parametrize(("seed", "players"), GAMES)
def test_bot_orders_parse_back_from_their_printed_form(seed: int, players: int) -> None:
    chance = SeededChance(seed)
    for state in positions(seed, players):
        for seat, decision in GAME.pending(state).items():
            model = GAME.order_model(decision)
            parsed = model.model_validate(GAME.bot(state, seat, chance))
            printed = yaml.safe_dump(dump_steps(parsed))
            assert model.model_validate(yaml.safe_load(printed)) == parsed


@pytest.mark.parametrize(("seed", "players"), GAMES)
def test_a_view_does_not_change_when_hidden_holdings_are_dealt_anew(seed: int, players: int) -> None:
    for k, state in enumerate(positions(seed, players)):
        for seat in [*state.seats, None]:
            if seat is None:
                continue
            other = GAME.resample_hidden(state, seat, SeededChance(k))
            assert GAME.view(state, seat) == GAME.view(other, seat)
        if k == 3:
            # the resample really deals anew (the check would be empty otherwise)
            others = [s for s in state.seats if s != state.seats[0]]
            moved = GAME.resample_hidden(state, state.seats[0], SeededChance(99))
            assert any(moved.players[s].screen != state.players[s].screen for s in others)


def test_a_view_shows_only_ones_own_screen_and_parrotfish() -> None:
    state = list(positions(4, 3))[6]
    view = GAME.view(state, "ann")
    text = json.dumps(view)
    assert view["me"]["screen"] == state.players["ann"].screen
    assert view["me"]["parrotfish"] == state.players["ann"].parrotfish
    assert "revealed" not in view and GAME.view(state, None)["me"] is None
    assert view["colours"] == {"ann": "purple", "bob": "green", "cy": "red"}
    for key in ("screen", "parrotfish", "larvae"):
        assert all(key not in p for p in view["players"].values())
    assert "bag" in text and isinstance(view["bag"], int)


def test_the_final_view_reveals_everything() -> None:
    last = list(positions(5, 2))[-1]
    assert GAME.outcome(last) is not None
    view = GAME.view(last, None)
    assert set(view["revealed"]) == {"ann", "bob"}
    assert view["revealed"]["ann"]["score"] == GAME.outcome(last).scores["ann"]


def test_error_messages_do_not_depend_on_other_players_secrets() -> None:
    wrong: list[Any] = [
        [{"larva": "grey"}, {"place": "Aa1"}],
        [{"place": "Bd5"}],
        [{"feed": "Cc3"}],
        [{"algae": {"pay": "pink", "colour": "red", "to": "white-grey"}}],
        [{"shrimp": "Dd2"}, {"take": "grey"}],
        ["pass"],
    ]
    for k, state in enumerate(positions(6, 4)):
        if [d.kind for d in GAME.pending(state).values()] != ["turn"]:
            continue
        seat = state.active
        other = GAME.resample_hidden(state, seat, SeededChance(k))
        for data in wrong:
            errors = []
            for s in (state, other):
                try:
                    GAME.check(s, seat, GAME.order_model(GAME.pending(s)[seat]).model_validate(data))
                    errors.append(None)
                except RulesError as e:
                    errors.append(str(e))
            assert errors[0] == errors[1]


@pytest.mark.parametrize(("seed", "players"), GAMES)
def test_the_template_is_valid_yaml_and_its_order_is_legal(seed: int, players: int) -> None:
    for state in positions(seed, players):
        for seat, decision in GAME.pending(state).items():
            lines = GAME.template(state, seat)
            assert all(line.startswith("  ") and len(line) <= 78 for line in lines.splitlines())
            # the examples name spaces of this game's own boards
            assert {m[0] for m in re.findall(r"\b[A-D][a-g][1-6]\b", lines)} <= set(state.boards)
            doc = yaml.safe_load("game: reef-1\nplayer: ann\nturn: 1\norders:\n" + lines)
            orders = GAME.order_model(decision).model_validate(doc["orders"])
            GAME.check(state, seat, orders)
