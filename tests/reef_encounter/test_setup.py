"""Rules section 2: setup, and its secret decision."""

from __future__ import annotations

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.data import BOARDS, OPEN_SEA
from games.reef_encounter.orders import SetupOrders
from games.reef_encounter.state import dump
from pbem.core.game import GameError, RulesError

from .conftest import SeededChance, check_invariants

SEATS = ["ann", "bob", "cy", "dee"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_lays_out_boards_bonus_row_open_sea_and_starting_polyps(n: int) -> None:
    state = GAME.setup(SEATS[:n], GAME.options_model(starting_player=SEATS[1]), SeededChance(n))
    check_invariants(state)
    assert len(state.boards) == n
    assert state.polyps == {s: c for b in state.boards for s, c in BOARDS[b].printed.items()}
    assert state.bonus == dict.fromkeys(state.bonus, 1)
    assert all(state.sea[s].larva for s in OPEN_SEA)
    assert sorted(sum(state.sea[s].polyps.values()) for s in OPEN_SEA) == [1, 2, 3, 3, 3]
    assert len(set(state.up.values())) == 1  # every tile on the same side
    order = SEATS[1:n] + SEATS[:1]
    expected = {2: [6, 9], 3: [6, 7, 9], 4: [6, 7, 8, 9]}[n]
    assert [sum(state.players[s].screen.values()) for s in order] == expected
    assert state.active == "bob" and state.phase == "setup"
    assert [state.players[s].colour for s in SEATS[:n]] == ["purple", "green", "red", "yellow"][:n]


def test_the_opening_polyps_go_three_three_three_two_one_clockwise_from_the_drawn_space() -> None:
    for seed in range(10):
        state = GAME.setup(SEATS[:2], GAME.options_model(), SeededChance(seed))
        sizes = [sum(state.sea[s].polyps.values()) for s in OPEN_SEA]
        start = sizes.index(1) - 4
        assert [sizes[(start + k) % 5] for k in range(5)] == [3, 3, 3, 2, 1]


def test_setup_is_deterministic_for_the_same_chance() -> None:
    a = GAME.setup(SEATS[:3], GAME.options_model(), SeededChance(7))
    b = GAME.setup(SEATS[:3], GAME.options_model(), SeededChance(7))
    assert dump(a) == dump(b)
    c = GAME.setup(SEATS[:3], GAME.options_model(), SeededChance(8))
    assert dump(a) != dump(c)


def test_the_starting_player_is_drawn_when_not_chosen() -> None:
    starters = {GAME.setup(SEATS[:4], GAME.options_model(), SeededChance(s)).active for s in range(30)}
    assert starters == set(SEATS)
    with pytest.raises(GameError) as info:
        GAME.setup(SEATS[:2], GAME.options_model(starting_player="zed"), SeededChance(0))
    assert info.value.code == "options.starting_player"
    with pytest.raises(GameError) as info:
        GAME.setup(SEATS[:1], GAME.options_model(), SeededChance(0))
    assert info.value.code == "setup.seats"


def test_options_forbid_unknown_keys_and_default_to_the_basic_game() -> None:
    assert GAME.options_model().advanced is False and GAME.options_model().starting_player is None
    with pytest.raises(ValueError):
        GAME.options_model(colour="blue")


def test_the_setup_decision_is_simultaneous_and_secret() -> None:
    state = GAME.setup(SEATS[:2], GAME.options_model(starting_player="ann"), SeededChance(1))
    assert {s: d.kind for s, d in GAME.pending(state).items()} == {"ann": "setup", "bob": "setup"}
    orders = {}
    for seat in ("ann", "bob"):
        held = next(c for c, n in state.players[seat].screen.items() if n)
        orders[seat] = SetupOrders.model_validate(
            [{"setup": {"parrotfish": held, "larvae": ["white", "white"]}}]
        )
        GAME.check(state, seat, orders[seat])
    res = GAME.resolve(state, orders, SeededChance(2))
    after = res.state
    check_invariants(after)
    assert after.phase == "play" and GAME.pending(after) == {"ann": GAME.pending(after)["ann"]}
    assert all(sum(p.parrotfish.values()) == 1 and p.larvae["white"] == 2 for p in after.players.values())
    public = [e.text for e in res.events if e.to is None]
    assert "ann took larva cubes: white and white" in public
    assert not any("parrotfish" in t for t in public)
    assert any(e.to == "bob" and "parrotfish" in e.text for e in res.events)


def test_the_parrotfish_polyp_must_be_held() -> None:
    state = GAME.setup(SEATS[:2], GAME.options_model(), SeededChance(1))
    missing = "grey"
    state.bag["grey"] += state.players["ann"].screen["grey"]
    state.players["ann"].screen["grey"] = 0
    with pytest.raises(RulesError) as info:
        GAME.check(
            state,
            "ann",
            SetupOrders.model_validate([{"setup": {"parrotfish": missing, "larvae": ["grey", "pink"]}}]),
        )
    assert (info.value.code, info.value.step) == ("setup.no_polyp", 0)


def test_setup_orders_have_exactly_one_step_with_two_larvae() -> None:
    with pytest.raises(ValueError):
        SetupOrders.model_validate([{"setup": {"parrotfish": "grey", "larvae": ["grey"]}}])
    with pytest.raises(ValueError):
        SetupOrders.model_validate([])
