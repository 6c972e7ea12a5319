"""The easy bot's habits mended (issue 31): it exchanges a spare larva cube for a polyp (action 8), takes a
shrimp back behind its screen when that lets two of its corals join, chooses its parrotfish's polyp by
value, and feeds before the end strands its corals."""

from __future__ import annotations

from collections import Counter

from games.reef_encounter import GAME
from games.reef_encounter.reef import coral, values

from .conftest import SeededChance, make_state
from .test_bot import bot_turn


def test_a_spare_larva_cube_is_exchanged_for_a_polyp_from_the_bag() -> None:
    state = make_state(
        polyps={"Ba2": "yellow", "Ba3": "yellow"},
        screens={"purple": {"yellow": 2}},
        larvae={"purple": {"yellow": 2}},
    )
    data, after, _ = bot_turn(state)
    assert data[0] == {"polyp_for_larva": "yellow"}
    # the one cube left places all three yellow polyps
    assert sum(c == "yellow" for c in after.polyps.values()) == 2 + 3


def test_a_shrimp_is_taken_back_when_that_joins_two_guarded_corals_into_one_worth_feeding() -> None:
    state = make_state(
        polyps={"Bb5": "grey", "Bc5": "grey", "Be5": "grey", "Bf5": "grey"},
        shrimp={"Bb5": "purple", "Bf5": "purple"},
        screens={"purple": {"grey": 1}},
        larvae={"purple": {"grey": 1}},
    )
    data, after, _ = bot_turn(state)
    back = [s for s in data if isinstance(s, dict) and s.get("move_shrimp", {}).get("to") == "screen"]
    assert back and after.polyps.get("Bd5") == "grey"
    assert len(coral(after, "Bb5")) >= 5


def test_the_parrotfish_polyp_is_chosen_by_value() -> None:
    state = GAME.setup(["ann", "bob"], GAME.options_model(), SeededChance(3))
    for tile in state.up:
        state.up[tile] = not state.up[tile]
    v = values(state)
    for seat in state.seats:
        (step,) = GAME.bot(state, seat, SeededChance(1))
        fish = step["setup"]["parrotfish"]
        held = [c for c, n in state.players[seat].screen.items() if n]
        assert v[fish] >= max(v[c] for c in held) - 1


def test_no_colour_is_the_parrotfishs_by_habit() -> None:
    chosen: Counter[str] = Counter()
    for seed in range(200):
        state = GAME.setup(["ann", "bob"], GAME.options_model(), SeededChance(seed))
        (step,) = GAME.bot(state, "ann", SeededChance(seed + 1))
        chosen[step["setup"]["parrotfish"]] += 1
    assert max(chosen.values()) < 80 and len(chosen) == 5


def test_the_bot_feeds_a_small_coral_when_the_end_is_near() -> None:
    five = dict.fromkeys(("Ba2", "Bb2", "Bc2", "Bd2", "Bd3"), "grey")
    data, after, _ = bot_turn(make_state(polyps=five, shrimp={"Bb2": "purple"}, fed={"green": 3}))
    assert data[0] == {"feed": "Bb2"} and after.players["purple"].parrotfish["grey"] == 1
