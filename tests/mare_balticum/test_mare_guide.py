"""Orders by clicking (``next_steps``): every choice legal, the bot's orders buildable, ``complete`` as
``check`` says, errors as ``check`` raises them, and nothing read that the seat cannot see."""

from __future__ import annotations

from typing import Any

import pytest

from games.mare_balticum import GAME
from games.mare_balticum.state import State
from pbem.core.game import NextSteps, RulesError, StepGuide
from pbem.core.i18n import _, language

from .helpers import SeededChance, bot_positions, parse, position
from .test_mare_time import paused

VARIANTS = [{}, {"demand": "placed"}, {"contracts": True}, {"demand": "placed", "contracts": True}]


def _passes(state: State, seat: str, orders: list[Any]) -> bool:
    try:
        GAME.check(state, seat, parse(state, seat, orders))
    except (RulesError, ValueError):
        return False
    return True


@pytest.mark.parametrize(
    "options", VARIANTS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()) or "base"
)
def test_the_bots_orders_are_built_choice_by_choice_and_every_choice_is_legal(
    options: dict[str, Any],
) -> None:
    decisions = 0
    for state, seat, bot in bot_positions(options, seed=11):
        chosen: list[Any] = []
        for step in [*bot, None]:
            steps = GAME.next_steps(state, seat, chosen)
            assert steps.complete == _passes(state, seat, chosen), chosen
            for choice in steps.choices:
                assert _passes(state, seat, [*chosen, choice.step]), (chosen, choice.step)
                assert choice.keyword == next(iter(choice.step))
            if step is None:
                break
            assert step in [c.step for c in steps.choices], (chosen, step)
            chosen.append(step)
        decisions += 1
    assert decisions > 40


def test_the_choices_are_distinct_and_labelled_in_the_readers_words() -> None:
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"]},
        hold={"red": {"herring": 2, "cod": 1}},
        board={"gdansk-deep": {"salmon": 1, "amber": 1}},
        demand={"gdansk": ["herring", "cod"]},
    )
    steps = GAME.next_steps(state, "red", [])
    assert len({str(c.step) for c in steps.choices}) == len(steps.choices)
    labels = {str(c.step): c.label for c in steps.choices}
    unload = {"unload": {"port": "gdansk", "fish": ["herring", "herring", "cod"]}}
    assert labels[str(unload)] == "unload herring ×2 and cod ×1 at gdansk"
    salmon = labels[str({"fish": {"at": "gdansk-deep", "goods": "salmon"}})]
    with language("hu"):
        assert _(salmon) == "halássz ezt: lazac, itt: gdansk-deep (a raktérbe)"
    with language("ru"):
        assert _(salmon) == "поймайте лосося на gdansk-deep (в трюм)"
    # the hold holds 2 herring and 1 cod: every part of it may be unloaded, or thrown overboard
    assert sum(c.keyword == "unload" for c in steps.choices) == 3 * 2 - 1
    assert sum(c.keyword == "discard" for c in steps.choices) == 3 * 2 - 1


def test_a_full_hold_offers_fish_only_after_a_discard_and_discards_stay_free_after_three_actions() -> None:
    state = position(
        ships={"red": ["gdansk", "gdansk-deep"]},
        hold={"red": {"cod": 5}},
        board={"gdansk-deep": {"salmon": 1, "amber": 1}},
        demand={"gdansk": ["herring", "flatfish"]},
    )
    fish = [c.step for c in GAME.next_steps(state, "red", []).choices if c.keyword == "fish"]
    assert fish == [{"fish": {"at": "gdansk-deep", "goods": "amber"}}]
    after = GAME.next_steps(state, "red", [{"discard": ["cod"]}])
    assert {"fish": {"at": "gdansk-deep", "goods": "salmon"}} in [c.step for c in after.choices]
    three = [{"sail": {"to": "gdansk-bay"}}, {"sail": {"to": "bornholm"}}, {"sail": {"to": "arkona"}}]
    last = GAME.next_steps(state, "red", three)
    assert last.complete and {c.keyword for c in last.choices} == {"discard"}


def test_variant_one_offers_each_slot_for_a_new_demand_token_where_the_rules_allow_it() -> None:
    state = position(
        options={"demand": "placed"},
        ships={"red": ["gdansk", "gdansk-deep"]},
        hold={"red": {"cod": 1, "herring": 2}},
        demand={p: [None] * len(s) for p, s in position().demand.items()},
    )
    state.demand_supply = {"salmon": 2, "flatfish": 2, "herring": 2, "cod": 2}
    unloads = [c.step["unload"] for c in GAME.next_steps(state, "red", []).choices if c.keyword == "unload"]
    # a lone cod may not take the -1 slot; two herring may
    assert {"port": "gdansk", "fish": ["cod"], "slot": 0} in unloads
    assert {"port": "gdansk", "fish": ["cod"], "slot": -1} not in unloads
    assert {"port": "gdansk", "fish": ["herring", "herring"], "slot": -1} in unloads
    assert {"port": "gdansk", "fish": ["herring", "herring", "cod"], "slot": -1} in unloads
    assert {"port": "gdansk", "fish": ["cod", "herring", "herring"], "slot": -1} not in unloads
    for unload in unloads:
        assert _passes(state, "red", [{"unload": unload}]), unload


def test_company_choices_are_every_token_on_every_free_slot_and_every_way_to_pay_tax() -> None:
    state = paused(warehouse={"red": {"cod": 1, "amber": 1}}, hold={"red": {"cod": 1}})
    red = state.players["red"]
    red.tokens = ["x1", "x0", "tax"]
    red.market = {"salmon": "x3", "herring": "x2"}
    steps = GAME.next_steps(state, "red", [])
    assert not steps.complete
    numbers = [c.step for c in steps.choices if c.step["company"]["token"] != "tax"]
    assert len(numbers) == 2 * 2
    taxes = [c.step["company"]["discard"] for c in steps.choices if c.step["company"]["token"] == "tax"]
    # cod from the hold or the warehouse, amber: {hold cod, warehouse cod}, {hold cod, amber},
    # {warehouse cod, amber}
    assert taxes == [["cod", "cod"], ["cod", "amber"], [{"goods": "cod", "from": "warehouse"}, "amber"]]
    for choice in steps.choices:
        assert _passes(state, "red", [choice.step])
    done = GAME.next_steps(state, "red", [{"company": {"token": "x1", "fish": "cod"}}])
    assert done == NextSteps(choices=(), complete=True)


def test_an_illegal_start_raises_what_check_raises() -> None:
    state = position(ships={"red": ["gdansk"]})
    bad = [{"fish": {"at": "bornholm", "goods": "cod"}}]
    with pytest.raises(RulesError) as raised:
        GAME.next_steps(state, "red", bad)
    with pytest.raises(RulesError) as expected:
        GAME.check(state, "red", parse(state, "red", bad))
    assert (raised.value.code, raised.value.step) == (expected.value.code, expected.value.step)
    with pytest.raises(RulesError) as not_yours:
        GAME.next_steps(state, "blue", [])
    assert not_yours.value.code == "decision.not_pending"


def test_the_choices_are_a_function_of_what_the_seat_sees() -> None:
    for state, seat, _bot in list(bot_positions({"contracts": True}, seed=5))[::7]:
        mine = GAME.next_steps(state, seat, [])
        for seed in (1, 2):
            other = GAME.resample_hidden(state, seat, SeededChance(seed))
            assert GAME.next_steps(other, seat, []) == mine


def test_the_game_is_a_step_guide() -> None:
    assert isinstance(GAME, StepGuide)
