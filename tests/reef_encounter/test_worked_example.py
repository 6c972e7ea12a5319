"""The rulebook's worked example (Czech rules p. 8, "Útok na jiné korály"), set up and checked step by step.

Red holds 3 yellow and 4 white polyps, a yellow and a white larva, and one eaten white polyp. White and
yellow beat orange, pink beats white, yellow beats pink (all tiles starfish side up). Red plays a yellow
larva and 3 polyps (the first makes its coral 3 polyps, the next two eat two orange polyps), pays an
eaten orange polyp for a purple alga locking yellow-pink (pink-white turns over: white now beats pink),
plays a white larva with its 4 white polyps and its eaten white one (a new coral of 2, which eats two
orange polyps and a pink one), puts a shrimp on the new coral and takes from the open sea.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from games.reef_encounter import GAME
from games.reef_encounter import orders as o
from games.reef_encounter.reef import beats, coral, values
from games.reef_encounter.state import State
from games.reef_encounter.turn import TurnRunner

from .conftest import SeededChance, check_invariants, make_state, rejected, turn

EXAMPLE = yaml.safe_load((Path(__file__).parent / "examples" / "red_turn.yaml").read_text(encoding="utf-8"))
STEPS: list[Any] = EXAMPLE["orders"]


@pytest.fixture
def before() -> State:
    return make_state(**{k: tuple(v) if isinstance(v, list) else v for k, v in EXAMPLE["position"].items()})


def test_the_position_before_red_plays(before: State) -> None:
    assert beats(before, "white", "orange") and beats(before, "yellow", "orange")
    assert beats(before, "pink", "white") and beats(before, "yellow", "pink")
    assert len(coral(before, "Ba2")) == 2


def test_worked_example_step_by_step(before: State) -> None:
    state = before.clone()
    runner = TurnRunner(state, "red", SeededChance(1))
    red = state.players["red"]

    def step(i: int) -> None:
        runner.apply(i, o.TurnOrders.model_validate([STEPS[i]]).root[0])

    step(0)  # action 2: the yellow larva goes back to the supply
    assert red.larvae["yellow"] == 0 and state.larva_supply["yellow"] == before.larva_supply["yellow"] + 1
    step(1)  # growth: the yellow coral now has 3 polyps
    assert coral(state, "Bb2") == {"Ba2", "Ba3", "Bb2"}
    step(2)  # attack: yellow beats orange, the orange polyp is eaten by red
    step(3)
    assert state.polyps["Bc2"] == state.polyps["Bb3"] == "yellow"
    assert red.front["orange"] == 2 and red.screen["yellow"] == 0
    assert coral(state, "Ba2") == {"Ba2", "Ba3", "Bb2", "Bc2", "Bb3"}
    assert state.polyps["Bc3"] == "orange"  # the rest of the orange coral stays
    assert not beats(state, "white", "pink")
    step(4)  # action 7: the purple alga locks yellow-pink and turns pink-white over
    assert state.locks == {"yellow-pink": "purple"}
    assert beats(state, "white", "pink") and beats(state, "yellow", "pink")
    assert red.front["orange"] == 1 and state.algae_supply["purple"] == 4
    assert values(state)["white"] == 4 and values(state)["pink"] == 2
    step(5)  # action 3: the white larva
    step(6)
    step(7)  # a new white coral of 2: it may attack now
    assert coral(state, "Bb6") == {"Bb6", "Bc6"}
    step(8)
    step(9)
    step(10)  # the eaten white polyp from in front of the screen eats the pink polyp
    assert [state.polyps[s] for s in ("Bb6", "Bc6", "Bb5", "Ba5", "Bc5")] == ["white"] * 5
    assert red.screen["white"] == 0 and red.front == {
        "grey": 0,
        "orange": 3,
        "pink": 1,
        "white": 0,
        "yellow": 0,
    }
    step(11)  # action 4: a shrimp protects the new white coral
    assert state.shrimp == {"Bb6": "red"} and red.shrimp == 2
    step(12)  # action 10
    assert red.larvae["white"] == 1 and red.screen["white"] == 1
    runner.finish()
    assert not runner.ended
    check_invariants(state)


def test_worked_example_as_one_turn(before: State) -> None:
    after, events = turn(before, STEPS)
    check_invariants(after)
    expected = EXAMPLE["expected"]
    assert {c: n for c, n in after.players["red"].front.items() if n} == expected["front"]["red"]
    assert all(after.polyps[space] == colour for space, colour in expected["polyps"].items())
    assert after.shrimp == expected["shrimp"] and after.locks == expected["locks"]
    assert values(after) == expected["values"]
    red = after.players["red"]
    assert red.front["orange"] == 3 and red.front["pink"] == 1
    assert after.active == "purple"
    assert (
        events[0] == "red played their yellow larva cube and 3 polyps: Bb2, Bc2 (attack, ate orange), "
        "Bb3 (attack, ate orange)"
    )
    assert "locked yellow-pink (now yellow > pink); turned over: white-pink (now white > pink)" in events[1]
    assert events[2] == (
        "red played their white larva cube and 5 polyps: Bb6, Bc6, Bb5 (attack, ate orange), "
        "Ba5 (attack, ate orange), Bc5 (an eaten polyp; attack, ate pink)"
    )
    assert events[3] == "red put a new shrimp on Bb6"
    assert events[4].startswith("red took the white open-sea space: the white larva and 1 polyp (1 white)")


def test_white_could_not_eat_the_pink_polyp_before_the_alga(before: State) -> None:
    early = [
        *STEPS[:4],
        STEPS[5],
        STEPS[6],
        STEPS[7],
        {"place": {"at": "Bc5", "from": "front"}},
        {"take": "white"},
    ]
    err = rejected(before, early)
    assert (err.code, err.step, err.action) == ("attack.weaker", 7, "3")


def test_the_lock_needs_the_open_sea_shrimp(before: State) -> None:
    before.players["red"].sea_shrimp = False
    before.players["red"].feedings = 0
    before.players["red"].shrimp += 1
    err = rejected(before, STEPS)
    assert (err.code, err.step, err.action) == ("algae.no_key", 4, "7")
    check_invariants(before)


def test_check_agrees_with_resolve_on_the_example(before: State) -> None:
    model = GAME.order_model(GAME.pending(before)["red"]).model_validate(STEPS)
    GAME.check(before, "red", model)
    GAME.resolve(before, {"red": model}, SeededChance(3))


README = Path(__file__).resolve().parents[2] / "games" / "reef_encounter" / "README.md"


def test_the_readme_shows_these_orders_and_this_refusal(before: State) -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("The rulebook's worked example (red's turn), as orders:")[1].split("```yaml")[1]
    orders = yaml.safe_load(block.split("```")[0])["orders"]
    assert orders == STEPS
    early = [*STEPS[:4], *STEPS[5:8], {"place": {"at": "Bc5", "from": "front"}}, {"take": "white"}]
    assert str(rejected(before, early)) in text


def test_the_readme_lists_every_rule_code() -> None:
    text = README.read_text(encoding="utf-8")
    sources = (Path(__file__).resolve().parents[2] / "games" / "reef_encounter").glob("*.py")
    codes = set()
    for src in sources:
        codes |= set(re.findall(r'"([a-z_]+\.[a-z_]+)"', src.read_text(encoding="utf-8")))
    codes = {c for c in codes if not c.endswith((".yaml", ".py", ".md"))}
    assert codes and all(c in text for c in codes), sorted(c for c in codes if c not in text)


def test_every_step_example_of_the_readme_parses() -> None:
    text = README.read_text(encoding="utf-8")
    examples = re.findall(r"\| `(- [a-z_]+(?:: [^`]+)?)` \|", text)
    assert len(examples) >= 13
    for example in examples:
        parsed = o.TurnOrders.model_validate(yaml.safe_load(example))
        assert parsed.root[0].keyword in example
