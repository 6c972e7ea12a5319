"""The bot: legal (the campaign checks every decision) and sensible (these positions)."""

from __future__ import annotations

import statistics

from games.mare_balticum import GAME

from .helpers import SEATS, SeededChance, act, position
from .test_mare_time import paused


def test_bot_unloads_where_its_fish_are_demanded() -> None:
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"]},
        hold={"red": {"herring": 3, "salmon": 1}},
        demand={"gdansk": ["herring", "flatfish"]},
    )
    state.players["red"].market = {"herring": "x3"}
    orders = GAME.bot(state, "red", SeededChance(1))
    assert {"unload": {"port": "gdansk", "fish": ["herring", "herring", "herring"]}} in orders
    act(state, {"red": orders})


def test_bot_fishes_what_its_companies_value() -> None:
    state = position(ships={"red": ["gdansk", "gdansk-deep"]}, board={"gdansk-deep": {"salmon": 1, "cod": 1}})
    state.players["red"].market = {"salmon": "x3", "cod": "x0"}
    orders = GAME.bot(state, "red", SeededChance(1))
    fished = [step["fish"]["goods"] for step in orders if "fish" in step]
    assert fished[0] == "salmon" and "cod" not in fished


def test_bot_makes_room_in_a_full_hold_for_a_better_fish() -> None:
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"]},
        hold={"red": {"cod": 5}},
        board={"gdansk-deep": {"salmon": 1}},
        demand={"gdansk": ["herring", "flatfish"]},
    )
    state.players["red"].market = {"salmon": "x3", "cod": "x0"}
    orders = GAME.bot(state, "red", SeededChance(1))
    assert orders[:2] == [{"discard": ["cod"]}, {"fish": {"at": "gdansk-deep", "goods": "salmon"}}]


def test_bot_puts_its_highest_token_on_the_fish_it_holds_most() -> None:
    state = paused(warehouse={"red": {"cod": 3, "salmon": 1}}, hold={"red": {"herring": 1}})
    state.players["red"].warehouse = {"cod": 3, "salmon": 1}
    assert GAME.bot(state, "red", SeededChance(1)) == [{"company": {"token": "x3", "fish": "cod"}}]


def test_bot_pays_tax_with_its_cheapest_goods() -> None:
    state = paused(warehouse={"red": {"salmon": 2, "amber": 1}}, hold={"red": {"cod": 1}})
    red = state.players["red"]
    red.tokens = ["x0", "tax"]
    red.market = {"salmon": "x3", "herring": "x2", "flatfish": "x1"}
    orders = GAME.bot(state, "red", SeededChance(1))
    assert orders == [{"company": {"token": "tax", "discard": ["cod", "amber"]}}]
    act(state, {"red": orders, "blue": GAME.bot(state, "blue", SeededChance(2)),
                "green": GAME.bot(state, "green", SeededChance(3))})  # fmt: skip


def test_bots_outscore_a_player_who_never_acts() -> None:
    """Three bots against one seat that passes every turn (its company tokens chosen by the bot)."""
    bot_scores, idle_scores = [], []
    for seed in range(12):
        chance = SeededChance(seed)
        state = GAME.setup(SEATS[4], GAME.options_model(), chance)
        while GAME.pending(state):
            orders = {}
            for seat, decision in GAME.pending(state).items():
                data = [] if decision.kind == "turn" and seat == "red" else GAME.bot(state, seat, chance)
                orders[seat] = GAME.order_model(decision).model_validate(data)
            state = GAME.resolve(state, orders, chance).state
        outcome = GAME.outcome(state)
        assert outcome is not None
        idle_scores.append(outcome.scores["red"])
        bot_scores += [outcome.scores[s] for s in ("blue", "green", "yellow")]
    assert statistics.mean(bot_scores) > 3 * statistics.mean(idle_scores) + 5
