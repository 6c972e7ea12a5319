"""Order files a player can send at a position: the bot's legal orders and illegal variants of them.

The variants are what a player probing for secrets would try: steps dropped, repeated or swapped,
values replaced by other words of the game (another colour, another seat's goods), coordinates off the
board, steps borrowed from another seat's orders (taking what the player does not have), unknown steps.
They are made from the position as it stands, once, and then sent unchanged against every resampled
variant of it, so any difference in the answers comes from the hidden holdings alone.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import yaml

from pbem.core.game import Decision, Game

OFF_BOARD = ("Zz9", "a0", "A0", "k11", "z99", "Ba1", "Ef9", "row 0", "column 99", "nowhere", "")
ODD_NUMBERS = (0, -1, 99, 10**6)


def envelope(game_id: str, seat: str, turn: int, password: str, orders: Any) -> str:
    """An order file as a player writes it."""
    data = {"game": game_id, "player": seat, "turn": turn, "password": password, "orders": orders}
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True)


def schema_words(game: Game, decision: Decision) -> list[str]:
    """Every enumerated word of the decision's order model (colours, goods, step names)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "enum" and isinstance(value, list):
                    found.update(v for v in value if isinstance(v, str))
                elif key == "const" and isinstance(value, str):
                    found.add(value)
                elif key == "properties" and isinstance(value, dict):
                    found.update(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(game.order_model(decision).model_json_schema())
    return sorted(found)


def _leaves(value: Any) -> list[tuple[list[Any], Any]]:
    """(path, leaf) for every scalar in ``value``."""
    if isinstance(value, dict):
        return [([key, *path], leaf) for key, item in value.items() for path, leaf in _leaves(item)]
    if isinstance(value, list):
        return [([i, *path], leaf) for i, item in enumerate(value) for path, leaf in _leaves(item)]
    return [([], value)]


def _set(value: Any, path: list[Any], new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return out


def mutations(
    orders: Any, words: list[str], borrowed: list[Any], rng: random.Random, count: int
) -> list[Any]:
    """``count`` variants of ``orders`` (plain data), each one change away from it."""
    steps = orders if isinstance(orders, list) else [orders]
    out: list[Any] = []
    for _ in range(count * 3):
        if len(out) >= count:
            break
        kind = rng.choice(("drop", "repeat", "swap", "word", "off_board", "number", "borrow", "unknown"))
        new: Any = None
        if kind == "drop" and steps:
            i = rng.randrange(len(steps))
            new = steps[:i] + steps[i + 1 :]
        elif kind == "repeat" and steps:
            i = rng.randrange(len(steps))
            new = [*steps[: i + 1], copy.deepcopy(steps[i]), *steps[i + 1 :]]
        elif kind == "swap" and len(steps) >= 2:
            i = rng.randrange(len(steps) - 1)
            new = [*steps[:i], steps[i + 1], steps[i], *steps[i + 2 :]]
        elif kind in ("word", "off_board", "number"):
            leaves = [(p, v) for p, v in _leaves(steps) if (isinstance(v, int) == (kind == "number"))]
            if leaves:
                path, _leaf = rng.choice(leaves)
                pool: Any = ODD_NUMBERS if kind == "number" else words if kind == "word" else OFF_BOARD
                if pool:
                    new = _set(steps, path, rng.choice(pool))
        elif kind == "borrow" and borrowed:
            other = rng.choice(borrowed)
            other_steps = other if isinstance(other, list) else [other]
            if other_steps:
                new = [*steps, copy.deepcopy(rng.choice(other_steps))]
        elif kind == "unknown":
            new = [*steps, {rng.choice(("fly", "steal", "peek", "reveal")): rng.choice(words or ["x"])}]
        if new is not None and new != steps and new not in out:
            out.append(new)
    return out
