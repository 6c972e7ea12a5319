"""The README's order examples are valid orders, and it documents every step and every error code."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from games.coral_divers.orders import TurnOrders

README = Path(__file__).resolve().parents[2] / "games" / "coral_divers" / "README.md"
ENGINE = Path(__file__).resolve().parents[2] / "games" / "coral_divers"


def test_every_yaml_example_parses_as_orders() -> None:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    for block in blocks:
        TurnOrders.model_validate(yaml.safe_load(block)["orders"])
    rows = re.findall(r"^\| `\w+` \| `(- .*?)` \|", text, re.M)
    for row in rows:
        TurnOrders.model_validate(yaml.safe_load(row))
    assert {r.split(":")[0][2:] for r in rows} == {"plant", "place", "discard", "shell"}


def test_every_error_code_is_documented() -> None:
    text = README.read_text(encoding="utf-8")
    source = "".join(p.read_text(encoding="utf-8") for p in ENGINE.glob("*.py"))
    codes = set(re.findall(r'"((?:turn|plant|place|shell|surface)\.[a-z_]+)"', source))
    assert codes
    missing = sorted(c for c in codes if f"`{c}`" not in text)
    assert not missing, missing
