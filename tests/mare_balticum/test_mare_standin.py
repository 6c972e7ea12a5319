"""The stand-in's hooks: hidden holdings dealt from the seat's view alone, candidates, evaluate, the
search's levels, and a decision that never depends on what the seat cannot see."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Iterator
from typing import Any

from games.mare_balticum import GAME
from games.mare_balticum.board import PORTS
from games.mare_balticum.state import State, dump_state
from pbem.core.search import LEVELS, Budget, decide

from .helpers import SEATS, SeededChance, act, bot_positions, parse, position
from .test_mare_time import paused

#: a search small enough for a test: it still compares several candidates in several worlds
SMALL = Budget(candidates=4, worlds=3, horizon=2)


def test_resample_hidden_depends_on_the_seats_view_and_the_chance_only() -> None:
    compared = 0
    for options in ({}, {"contracts": True}):
        for state, seat, _bot in list(bot_positions(options, seed=4))[5::9]:
            # the same view for seat, other secrets: other warehouses, the bag, tokens, contracts
            twin = GAME.resample_hidden(state, seat, SeededChance(99))
            assert GAME.view(twin, seat) == GAME.view(state, seat)
            if dump_state(twin) == dump_state(state):
                continue
            for seed in (1, 2):
                assert dump_state(GAME.resample_hidden(state, seat, SeededChance(seed))) == dump_state(
                    GAME.resample_hidden(twin, seat, SeededChance(seed))
                )
            compared += 1
    assert compared >= 6


def _port_phase(seed: int, seats: int) -> Iterator[tuple[State, str]]:
    chance = SeededChance(seed)
    state = GAME.setup(SEATS[seats], GAME.options_model(), chance)
    while state.phase == "port":
        seat = state.active
        yield state, seat
        state, _events = act(state, {seat: GAME.bot(state, seat, chance)}, chance)


def test_the_bot_considers_every_start_port() -> None:
    chosen = Counter(
        GAME.bot(state, seat, SeededChance(seed))[0]["port"]
        for seed in range(100)
        for state, seat in _port_phase(seed, 3 + seed % 3)
    )
    # the isolated ports (one sea area each) are chosen when the rich ones are crowded
    assert set(chosen) == set(PORTS), chosen


def test_the_bot_starts_where_the_goods_are() -> None:
    state = GAME.setup(SEATS[3], GAME.options_model(starting_player="red"), SeededChance(3))
    state.board = {area: {} for area in state.board}
    state.board["gulf-of-riga"] = {"amber": 1}
    state.board["irbe-strait"] = {"cod": 1}
    assert GAME.bot(state, "red", SeededChance(1)) == [{"port": "riga"}]
    state.board["gulf-of-finland-east"] = {"salmon": 1}
    state.board["gulf-of-finland-west"] = {"salmon": 2}
    assert GAME.bot(state, "red", SeededChance(1)) == [{"port": "sankt-peterburg"}]


def _sample(options: dict[str, Any], seed: int, every: int) -> list[tuple[State, str, Any]]:
    return list(bot_positions(options, seed=seed))[3::every]


def test_candidates_are_distinct_legal_plans_the_heuristics_first() -> None:
    sizes = []
    for options in ({}, {"demand": "placed"}, {"contracts": True}):
        for state, seat, _bot in _sample(options, seed=8, every=4):
            found = GAME.candidates(state, seat, SeededChance(1), 8)
            assert found[0] == GAME.bot(state, seat, SeededChance(1))
            assert 1 <= len(found) <= 8
            for orders in found:
                GAME.check(state, seat, parse(state, seat, orders))
            plans = {json.dumps(sorted(json.dumps(s, sort_keys=True) for s in o)) for o in found}
            assert len(plans) == len(found), "the same steps reshuffled are one plan"
            if GAME.pending(state)[seat].kind == "turn":
                sizes.append(len(found))
    assert statistics.mean(sizes) >= 5, sizes


def test_every_port_and_a_different_token_are_candidates() -> None:
    state = GAME.setup(SEATS[3], GAME.options_model(starting_player="red"), SeededChance(3))
    ports = GAME.candidates(state, "red", SeededChance(1), 8)
    assert sorted(o[0]["port"] for o in ports) == sorted(PORTS)
    paused_state = paused(warehouse={"red": {"cod": 3, "salmon": 1}}, hold={"red": {"herring": 1}})
    company = [o[0]["company"] for o in GAME.candidates(paused_state, "red", SeededChance(1), 8)]
    assert company[0] == {"token": "x3", "fish": "cod"}
    assert {"token": "x3", "fish": "salmon"} in company and {"token": "x0", "fish": "flatfish"} in company


def test_evaluate_says_who_stands_ahead() -> None:
    state = position(warehouse={"red": {"amber": 6}, "blue": {"amber": 1}, "green": {"amber": 3}})
    worth = {seat: GAME.evaluate(state, seat) for seat in state.order}
    assert worth["red"] > worth["green"] > worth["blue"]
    assert all(0.0 <= w <= 1.0 for w in worth.values())
    # the same gap counts for more when the bag is nearly empty: less can still change
    late = state.copy()
    late.bag = {"time": 1, "cod": 2}
    assert GAME.evaluate(late, "red") > worth["red"]


def test_decide_at_every_level_gives_orders_check_accepts() -> None:
    for state, seat, _bot in _sample({"contracts": True}, seed=2, every=25):
        for level in LEVELS:
            orders = decide(
                GAME, state, seat, SeededChance(5), level, budget=SMALL if level != "easy" else None
            )
            GAME.check(state, seat, parse(state, seat, orders))


def test_the_strong_stand_in_never_cheats() -> None:
    """Every secret the seat cannot see changed (other warehouses, the bag, other company tokens, the
    contract pile and cards): the same decision."""
    decided = 0
    for options in ({}, {"contracts": True}):
        for state, seat, _bot in _sample(options, seed=6, every=17):
            mine = decide(GAME, state, seat, SeededChance(9), "strong")
            for seed in (1, 2):
                twin = GAME.resample_hidden(state, seat, SeededChance(100 + seed))
                assert GAME.view(twin, seat) == GAME.view(state, seat)
                assert decide(GAME, twin, seat, SeededChance(9), "strong") == mine
            decided += 1
    assert decided >= 4


def test_evaluate_counts_the_number_tokens_where_the_seat_will_place_them() -> None:
    """Three cod with the x3 still in hand are worth nine, not three times the tokens' mean: the seat puts
    its highest token on the fish it owns most of, so it stands ahead of five amber (worth five)."""
    state = position(warehouse={"red": {"cod": 3}, "blue": {"amber": 5}, "green": {}})
    assert GAME.evaluate(state, "red") > GAME.evaluate(state, "blue")
    placed = state.copy()
    placed.players["red"].market = {"cod": "x0"}  # the x0 already lies on cod: now the cod scores nothing
    placed.players["red"].tokens = ["x3", "x2", "x1", "tax"]
    assert GAME.evaluate(placed, "red") < GAME.evaluate(placed, "blue")


class _NoEvaluate:
    """Mare Balticum with an ``evaluate`` that must not be called."""

    def __getattr__(self, name: str) -> Any:
        return getattr(GAME, name)

    def evaluate(self, state: State, seat: str) -> float:
        raise AssertionError("a search to the end values the outcome, never a position")


def test_the_levels_search_to_the_end_of_the_game_and_value_its_outcome() -> None:
    assert all(GAME.budgets[level].horizon is None for level in ("normal", "strong"))
    state, seat = next((s, seat) for s, seat, _bot in _sample({}, seed=3, every=7) if s.phase == "turn")
    assert len(GAME.candidates(state, seat, SeededChance(2), 3)) == 3  # a real comparison, played out
    orders = decide(_NoEvaluate(), state, seat, SeededChance(2), "normal", budget=Budget(3, 2, None))  # type: ignore[arg-type]
    GAME.check(state, seat, parse(state, seat, orders))
