"""Random orders against real positions: ``check`` answers with a RulesError or accepts, never crashes;
orders it accepts resolve without error and leave a legal position."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.reef_encounter import GAME
from games.reef_encounter.data import ALGAE_COLOURS, CORAL_COLOURS, TILES
from pbem.core.game import RulesError

from .conftest import SeededChance, check_invariants
from .test_properties import positions


def random_space(rng: random.Random, boards: list[str]) -> str:
    letter = rng.choice(boards) if rng.random() < 0.95 else rng.choice("ABCD")
    return f"{letter}{rng.choice('abcdefg')}{rng.randint(1, 6)}"


def random_step(rng: random.Random, state: Any) -> Any:
    boards, colour = state.boards, rng.choice(CORAL_COLOURS)
    mine = [s for s, w in state.shrimp.items() if w == state.active]
    kind = rng.choice(
        ["feed", "larva", "place", "place", "place", "front", "shrimp", "move", "6", "7", "8", "pass"]
    )
    if kind == "feed":
        return {"feed": rng.choice(mine) if mine and rng.random() < 0.7 else random_space(rng, boards)}
    if kind == "larva":
        return {"larva": colour}
    if kind == "place":
        return {"place": random_space(rng, boards)}
    if kind == "front":
        return {"place": {"at": random_space(rng, boards), "from": "front"}}
    if kind == "shrimp":
        return {"shrimp": rng.choice(sorted(state.polyps)) if state.polyps else random_space(rng, boards)}
    if kind == "move":
        src = rng.choice(mine) if mine else random_space(rng, boards)
        return {
            "move_shrimp": {"from": src, "to": "screen" if rng.random() < 0.2 else random_space(rng, boards)}
        }
    if kind == "6":
        return {"larva_for_polyp": colour}
    if kind == "7":
        to = "space" if rng.random() < 0.5 else rng.choice(sorted(TILES))
        return {"algae": {"pay": colour, "colour": rng.choice(ALGAE_COLOURS), "to": to}}
    if kind == "8":
        return {"polyp_for_larva": colour}
    return "pass"


@pytest.mark.parametrize("seed", range(4))
def test_random_orders_are_refused_cleanly_or_resolve_legally(seed: int) -> None:
    rng = random.Random(seed)
    accepted = refused = 0
    for state in positions(seed + 20, 2 + seed % 3, advanced=seed % 2 == 1):
        if [d.kind for d in GAME.pending(state).values()] != ["turn"]:
            continue
        for _ in range(25):
            data = [random_step(rng, state) for _ in range(rng.randint(0, 6))]
            data.append({"take": rng.choice(CORAL_COLOURS)})
            orders = GAME.order_model(GAME.pending(state)[state.active]).model_validate(data)
            try:
                GAME.check(state, state.active, orders)
            except RulesError as err:
                refused += 1
                assert err.code and err.message and (err.step is None or 0 <= err.step < len(data))
                continue
            accepted += 1
            after = GAME.resolve(state, {state.active: orders}, SeededChance(seed)).state
            check_invariants(after)
    assert accepted > 20 and refused > 100
