"""Generic properties over bot games: determinism, purity, round trips, secrets, templates."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from games.mare_balticum import GAME
from pbem.core.game import Game
from pbem.core.steps import dump_steps

from .helpers import SEATS, ScriptedChance, SeededChance, play_bot_game

OPTIONS = [
    {},
    {"demand": "placed"},
    {"contracts": True},
    {"demand": "placed", "contracts": True},
]


def states_of(seed: int, n: int, options: dict) -> list:
    seen: list = []
    play_bot_game(SEATS[n], options, seed, after_each=lambda s, _e: seen.append(s))
    return seen


@pytest.fixture(scope="module")
def sample() -> list:
    """States from a few complete games, every option combination and player count."""
    out = []
    for i, options in enumerate(OPTIONS):
        out += states_of(100 + i, 3 + i % 3, options)
    return out


def test_game_satisfies_the_protocol() -> None:
    assert isinstance(GAME, Game)
    assert GAME.name == "mare-balticum" and (GAME.min_players, GAME.max_players) == (3, 5)
    assert GAME.options_model().model_dump() == {
        "demand": "fixed",
        "contracts": False,
        "starting_player": None,
    }
    with pytest.raises(ValueError):
        GAME.options_model(colour="red")


def test_same_seed_same_game() -> None:
    a = play_bot_game(SEATS[4], {"contracts": True}, 7)
    b = play_bot_game(SEATS[4], {"contracts": True}, 7)
    assert GAME.dump_state(a) == GAME.dump_state(b)


def test_dump_and_load_round_trip(sample: list) -> None:
    for state in sample:
        data = GAME.dump_state(state)
        assert json.loads(json.dumps(data)) == data
        assert GAME.dump_state(GAME.load_state(data)) == data
        assert GAME.load_state(data) == state


def test_resolve_leaves_its_input_unchanged_and_replays_from_recorded_chance(sample: list) -> None:
    for state in sample[::3]:
        pend = GAME.pending(state)
        if not pend:
            continue
        before = copy.deepcopy(GAME.dump_state(state))
        chance = SeededChance(3)
        orders = {
            seat: GAME.order_model(d).model_validate(GAME.bot(state, seat, chance))
            for seat, d in pend.items()
        }
        recording = SeededChance(9)
        first = GAME.resolve(state, orders, recording)
        assert GAME.dump_state(state) == before
        replay = GAME.resolve(state, orders, ScriptedChance([o for *_, o in recording.record]))
        assert GAME.dump_state(replay.state) == GAME.dump_state(first.state)
        assert [e.text for e in replay.events] == [e.text for e in first.events]


def test_orders_dumped_with_dump_steps_parse_back(sample: list) -> None:
    chance = SeededChance(5)
    for state in sample[::2]:
        for seat, decision in GAME.pending(state).items():
            model = GAME.order_model(decision)
            orders = model.model_validate(GAME.bot(state, seat, chance))
            dumped = dump_steps(orders)
            assert model.model_validate(dumped) == orders
            assert model.model_validate(yaml.safe_load(yaml.safe_dump(dumped))) == orders


def test_views_are_json_and_unchanged_by_resampling_hidden_holdings(sample: list) -> None:
    chance = SeededChance(1)
    for state in sample[::2]:
        for seat in [*state.order, None]:
            view = GAME.view(state, seat)
            assert json.loads(json.dumps(view)) == view
            if seat is None:
                continue
            other = GAME.resample_hidden(state, seat, chance)
            assert GAME.view(other, seat) == view


def test_resampling_really_deals_hidden_holdings_anew() -> None:
    state = states_of(3, 3, {"contracts": True})[-2]
    changed = False
    for seed in range(10):
        other = GAME.resample_hidden(state, "red", SeededChance(seed))
        changed |= other.players["blue"].warehouse != state.players["blue"].warehouse
        changed |= other.bag != state.bag
        assert sum(other.players["blue"].warehouse.values()) == sum(state.players["blue"].warehouse.values())
    assert changed


def test_check_errors_do_not_depend_on_other_players_secrets(sample: list) -> None:
    from pbem.core.game import RulesError

    probes = [
        [{"contract": [6]}],
        [{"contract": [1, 2, 3, 4, 5, 6]}],
        [{"contract": [6, 5, 4, 3]}],
        [{"unload": {"port": "gdansk", "fish": ["cod"]}}],
        [{"sail": {"to": "riga"}}],
    ]
    for state in sample[::5]:
        for seat, decision in GAME.pending(state).items():
            if decision.kind != "turn":
                continue
            other = GAME.resample_hidden(state, seat, SeededChance(2))
            for data in probes:
                model = GAME.order_model(decision).model_validate(data)
                messages = []
                for s in (state, other):
                    try:
                        GAME.check(s, seat, model)
                        messages.append(None)
                    except RulesError as err:
                        messages.append(str(err))
                assert messages[0] == messages[1]


def test_templates_are_valid_yaml_for_every_pending_decision(sample: list) -> None:
    for state in sample[::2]:
        for seat, decision in GAME.pending(state).items():
            text = GAME.template(state, seat)
            assert all(line.startswith("  ") for line in text.splitlines())
            doc = yaml.safe_load(f"game: mb-1\nplayer: {seat}\nturn: 3\norders:\n{text}")
            if decision.kind == "turn":
                assert doc["orders"] == []
                GAME.check(state, seat, GAME.order_model(decision).model_validate(doc["orders"]))
            elif doc["orders"] is not None:  # a forced choice, written out
                GAME.check(state, seat, GAME.order_model(decision).model_validate(doc["orders"]))


def test_template_examples_are_legal_steps(sample: list) -> None:
    from pbem.core.game import RulesError

    for state in sample:
        for seat, decision in GAME.pending(state).items():
            for line in GAME.template(state, seat).splitlines():
                body = line.strip()
                if not body.startswith("# - "):
                    continue
                steps = yaml.safe_load(body[2:])
                model = GAME.order_model(decision).model_validate(steps)
                try:
                    GAME.check(state, seat, model)
                except RulesError as err:  # pragma: no cover - shows which example failed
                    raise AssertionError(f"{body}: {err}") from err
