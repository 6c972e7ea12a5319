"""The seed rulebook's situations as data: ``examples/seed.yaml``, each a position, orders and the
expected result, played through ``check`` and ``resolve``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import line, play, position, refused

EXAMPLES = yaml.safe_load((Path(__file__).parent / "examples" / "seed.yaml").read_text(encoding="utf-8"))


def build(spec: dict[str, Any]) -> Any:
    kw = dict(spec)
    if "nursery_line" in kw:
        kw["nursery"] = line(kw.pop("nursery_line"))
    if "stations" in kw:
        kw["stations"] = {k: tuple(v) for k, v in kw["stations"].items()}
    kw["reefs"] = [(owner, cells) for owner, cells in kw.get("reefs", [])]
    return position(**kw)


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_seed_example(example: dict[str, Any]) -> None:
    state = build(example["position"])
    expect = example["expect"]
    if "error" in expect:
        assert refused(state, *example["orders"]).code == expect["error"]
        return
    after, events = play(state, *example["orders"])
    for seat, n in expect.get("points", {}).items():
        assert after.players[seat].points == n, seat
    for seat, n in expect.get("coins", {}).items():
        assert after.players[seat].coins == n, seat
    for seat, n in expect.get("divers", {}).items():
        assert after.divers_on_board(seat) == n, seat
    for space, (owner, size) in expect.get("reef", {}).items():
        reef = after.reefs[after.reef_at[space]]
        assert (reef.owner, len(reef.cells)) == (owner, size), space
    for text in expect.get("events", []):
        assert text in events
