"""The step guide (orders by clicking): every choice it offers extends to legal orders, the bot's orders
can be built one choice at a time, and ``complete`` says exactly what ``check`` says."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.state import State
from pbem.core.game import RulesError

from .conftest import SeededChance

#: what ``check`` says of orders that are legal so far and only need more steps
MORE_STEPS = {"take.missing", "shrimp.on_rock"}


def positions(seed: int, players: int, every: int = 1) -> Iterator[tuple[State, str, list[Any]]]:
    """Each decision of a seeded bot game: the state, the seat, and the bot's orders for it."""
    seats = ["ann", "bob", "cy", "dee"][:players]
    chance = SeededChance(seed)
    state = GAME.setup(seats, GAME.options_model(advanced=seed % 2 == 1), chance)
    for n in range(400):
        if GAME.outcome(state) is not None:
            return
        orders = {}
        for seat, decision in GAME.pending(state).items():
            bot = GAME.bot(state, seat, chance)
            if n % every == 0:
                yield state, seat, bot
            orders[seat] = GAME.order_model(decision).model_validate(bot)
        state = GAME.resolve(state, orders, chance).state


def verdict(state: State, seat: str, steps: list[Any]) -> str | None:
    """``None`` when ``check`` accepts ``steps``, else the code of its refusal."""
    model = GAME.order_model(GAME.pending(state)[seat])
    try:
        GAME.check(state, seat, model.model_validate(steps))
    except RulesError as exc:
        return exc.code
    except ValueError:
        return "orders.shape"
    return None


@pytest.mark.parametrize("seed", range(4))
def test_the_bots_orders_can_be_built_choice_by_choice(seed: int) -> None:
    built = 0
    for state, seat, bot in positions(seed, players=2 + seed % 3):
        for i, step in enumerate(bot):
            guide = GAME.next_steps(state, seat, bot[:i])
            assert step in [c.step for c in guide.choices], (i, step)
            assert guide.complete == (verdict(state, seat, bot[:i]) is None) if i else not guide.complete
        assert GAME.next_steps(state, seat, bot).complete
        built += 1
    assert built > 20


@pytest.mark.parametrize("seed", range(3))
def test_every_choice_extends_to_legal_orders_and_complete_agrees_with_check(seed: int) -> None:
    """Random walks through the choices: each choice check refuses at most for wanting more steps, and
    a walk that stops when ``complete`` sends orders check accepts."""
    rng = random.Random(seed)
    walks = 0
    for state, seat, _ in positions(seed, players=2 + seed % 3, every=3):
        chosen: list[Any] = []
        for _ in range(40):
            guide = GAME.next_steps(state, seat, chosen)
            assert guide.complete == (verdict(state, seat, chosen) is None) if chosen else not guide.complete
            if not guide.choices or (guide.complete and rng.random() < 0.3):
                break
            for choice in rng.sample(list(guide.choices), min(8, len(guide.choices))):
                assert verdict(state, seat, [*chosen, choice.step]) in MORE_STEPS | {None}, choice
                assert choice.keyword in (choice.step if isinstance(choice.step, dict) else {choice.step: 0})
                assert choice.label
            takes = [c for c in guide.choices if c.keyword == "take"]
            pick = rng.choice(takes if takes and len(chosen) >= rng.randint(2, 8) else list(guide.choices))
            chosen.append(pick.step)
        if chosen and GAME.next_steps(state, seat, chosen).complete:
            assert verdict(state, seat, chosen) is None
            walks += 1
    assert walks > 5


def test_a_start_that_is_not_legal_is_refused_as_check_refuses_it() -> None:
    state, seat, _ = next(p for p in positions(0, players=2) if p[2][0] != "pass" and len(p[2]) > 2)
    wrong = [{"take": "white"}, {"take": "grey"}]
    with pytest.raises(RulesError) as guided:
        GAME.next_steps(state, seat, wrong)
    assert guided.value.code == verdict(state, seat, wrong) == "take.not_last"
    with pytest.raises(RulesError) as shape:
        GAME.next_steps(state, seat, [{"fly": "Bd5"}])
    assert shape.value.code == "orders.shape"
    other = next(s for s in state.seats if s != seat)
    with pytest.raises(RulesError) as idle:
        GAME.next_steps(state, other, [])
    assert idle.value.code == "turn.not_pending"


def test_setup_and_final_feeding_offer_whole_steps() -> None:
    state, seat, bot = next(positions(1, players=3))
    guide = GAME.next_steps(state, seat, [])
    assert bot[0] in [c.step for c in guide.choices] and not guide.complete
    assert all(c.keyword == "setup" for c in guide.choices)
    done = GAME.next_steps(state, seat, bot)
    assert done.complete and not done.choices


def test_labels_say_the_step_in_words() -> None:
    state, seat, bot = next(p for p in positions(2, players=2) if any("place" in s for s in p[2][:-1]))
    i = next(i for i, s in enumerate(bot) if isinstance(s, dict) and "place" in s)
    choice = next(c for c in GAME.next_steps(state, seat, bot[:i]).choices if c.step == bot[i])
    at = bot[i]["place"] if isinstance(bot[i]["place"], str) else bot[i]["place"]["at"]
    assert choice.keyword == "place" and at in choice.label and "polyp" in choice.label


def test_labels_are_read_in_the_players_language_with_the_rulebooks_words() -> None:
    from pbem.core.i18n import _, language

    state, seat, bot = next(p for p in positions(2, players=2) if any("place" in s for s in p[2][:-1]))
    guide = GAME.next_steps(state, seat, bot[:1])
    larva = next(c for c in GAME.next_steps(state, seat, []).choices if c.keyword == "larva")
    take = next(c for c in guide.choices if c.keyword == "take")
    with language("ru"):
        assert "кубик личинки" in _(larva.label) and "клетку открытого моря" in _(take.label)
    with language("hu"):
        assert "lárvakockát" in _(larva.label) and "akció" in _(larva.label)
    with language("cs"):
        assert "kostičku larvy" in _(larva.label)
    with language("zh"):
        assert "珊瑚幼虫小方块" in _(larva.label) and "公海" in _(take.label)
