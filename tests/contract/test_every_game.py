"""One property suite over every registered game (STYLE.md, point 11).

Whatever the game: bot playouts end; every bot order passes the game's own shape and rules checks and
parses back from its printed form; ``resolve`` never changes its input; states round-trip through their
dumped form; a seat's view does not change when every holding hidden from it is dealt anew; the same
seed and orders give the same states.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from pbem.core.codec import canonical_json, sha256_hex
from pbem.core.game import Game, Outcome
from pbem.core.registry import games
from pbem.core.steps import dump_steps

#: turns (resolutions) after which a playout counts as never ending; far above any real game's length
TURN_LIMIT = 5_000
SEEDS = range(3)


class RandomChance:
    """A seeded chance for tests; the host's own recorder is tested in tests/host."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def pick(self, label: str, n: int) -> int:
        assert n >= 1, f"pick({label!r}, {n}): nothing to pick from"
        return self._random.randrange(n)


def shipped_games() -> list[Game]:
    return [g for g in games().values() if g.__class__.__module__.startswith("games.")]


def cases() -> Iterator[Any]:
    for game in shipped_games():
        for n in range(game.min_players, game.max_players + 1):
            for seed in SEEDS:
                yield pytest.param(game, n, seed, id=f"{game.name}-{n}p-seed{seed}")


def seats(n: int) -> list[str]:
    return ["ann", "bob", "cy", "dee", "eve"][:n]


def play(game: Game, n: int, seed: int, each_state: Any = None) -> tuple[list[str], Outcome]:
    """Play one bot game; call ``each_state(state, chance)`` before every resolution. Returns the hash of
    every state and the outcome."""
    chance = RandomChance(seed)
    state = game.setup(seats(n), game.options_model(), chance)
    hashes = [sha256_hex(canonical_json(game.dump_state(state)))]
    for _ in range(TURN_LIMIT):
        outcome = game.outcome(state)
        if outcome is not None:
            assert game.pending(state) == {}, "a finished game still asks for orders"
            return hashes, outcome
        pending = game.pending(state)
        assert pending, "a game that is not over must ask someone for orders"
        if each_state is not None:
            each_state(state, chance)
        orders = {}
        for seat, decision in sorted(pending.items()):
            data = game.bot(state, seat, chance)
            model = game.order_model(decision)
            parsed = model.model_validate(data)
            printed = dump_steps(parsed)
            assert model.model_validate(json.loads(json.dumps(printed))) == parsed, "orders must parse back"
            game.check(state, seat, parsed)
            orders[seat] = parsed
        before = canonical_json(game.dump_state(state))
        resolution = game.resolve(state, orders, chance)
        assert canonical_json(game.dump_state(state)) == before, "resolve changed its input state"
        state = resolution.state
        hashes.append(sha256_hex(canonical_json(game.dump_state(state))))
    raise AssertionError(f"{game.name} with {n} players did not end within {TURN_LIMIT} resolutions")


def test_the_three_games_are_registered() -> None:
    assert {g.name for g in shipped_games()} == {"reef-encounter", "mare-balticum", "coral-divers"}


@pytest.mark.parametrize(("game", "n", "seed"), list(cases()))
def test_bot_playout_ends_with_every_seat_placed(game: Game, n: int, seed: int) -> None:
    _, outcome = play(game, n, seed)
    assert set(outcome.places) == set(seats(n)) == set(outcome.scores)
    assert min(outcome.places.values()) == 1
    assert outcome.reason


@pytest.mark.parametrize(("game", "n", "seed"), list(cases()))
def test_same_seed_same_states(game: Game, n: int, seed: int) -> None:
    first, _ = play(game, n, seed)
    second, _ = play(game, n, seed)
    assert first == second


@pytest.mark.parametrize(("game", "n", "seed"), list(cases()))
def test_state_round_trips_through_its_dump(game: Game, n: int, seed: int) -> None:
    def check(state: Any, chance: RandomChance) -> None:
        dumped = game.dump_state(state)
        text = canonical_json(dumped)
        again = game.dump_state(game.load_state(json.loads(text)))
        assert canonical_json(again) == text

    play(game, n, seed, check)


@pytest.mark.parametrize(("game", "n", "seed"), list(cases()))
def test_view_does_not_depend_on_hidden_holdings(game: Game, n: int, seed: int) -> None:
    resample = RandomChance(10_000 + seed)

    def check(state: Any, chance: RandomChance) -> None:
        snapshot = copy.deepcopy(game.dump_state(state))
        public = canonical_json(game.view(state, None))
        for seat in seats(n):
            mine = canonical_json(game.view(state, seat))
            other = game.resample_hidden(state, seat, resample)
            assert canonical_json(game.view(other, seat)) == mine, f"{seat}'s view leaks a hidden holding"
            assert canonical_json(game.view(other, None)) == public, "the public view leaks a hidden holding"
        assert game.dump_state(state) == snapshot, "resample_hidden changed its input state"

    play(game, n, seed, check)


@pytest.mark.parametrize("game", shipped_games(), ids=lambda g: g.name)
def test_order_templates_sit_two_spaces_under_orders(game: Game) -> None:
    import yaml

    from pbem.core import markers
    from pbem.intake.envelope import order_template, orders_yaml

    chance = RandomChance(7)
    state = game.setup(seats(game.min_players), game.options_model(), chance)
    for _ in range(6):  # the first decisions, setup ones included
        for seat, decision in sorted(game.pending(state).items()):
            for text in (game.template(state, seat), orders_yaml(game.bot(state, seat, chance))):
                framed = order_template(
                    title=game.title, game_id="g-1", seat=seat, turn=1, decision=decision, orders_text=text
                )
                assert framed.startswith(markers.BEGIN + "\n") and framed.endswith(markers.END + "\n")
                whole = markers.inside(framed)
                assert yaml.safe_load(framed) == yaml.safe_load(whole)  # the markers are YAML comments
                body = [line for line in whole.split("\norders:\n", 1)[1].splitlines() if line.strip()]
                margin = min(len(line) - len(line.lstrip(" ")) for line in body)
                assert margin == 2, whole
                assert isinstance(yaml.safe_load(whole), dict)
        pending = game.pending(state)
        orders = {
            s: game.order_model(d).model_validate(game.bot(state, s, chance)) for s, d in pending.items()
        }
        state = game.resolve(state, orders, chance).state
