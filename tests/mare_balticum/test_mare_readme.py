"""The README's order examples are valid orders of the decision they illustrate."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from games.mare_balticum import GAME
from pbem.core.game import Decision

README = Path(__file__).resolve().parents[2] / "games" / "mare_balticum" / "README.md"
KIND_OF_STEP = {"port": "port", "company": "company"}


def blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_every_yaml_example_parses_as_orders_of_its_decision() -> None:
    found = 0
    for block in blocks():
        doc = yaml.safe_load(block)
        steps = doc["orders"] if isinstance(doc, dict) else doc
        first = next(iter(steps[0])) if isinstance(steps[0], dict) else steps[0]
        kind = KIND_OF_STEP.get(first, "turn")
        GAME.order_model(Decision(kind, "")).model_validate(steps)
        found += 1
    assert found >= 6


def test_readme_shows_every_step_keyword() -> None:
    text = README.read_text(encoding="utf-8")
    for keyword in ("- port:", "- sail:", "- fish:", "- unload:", "- discard:", "- contract:", "- company:"):
        assert keyword in text, keyword


def test_readme_lists_every_error_code_the_rules_raise() -> None:
    text = README.read_text(encoding="utf-8")
    root = README.parent
    codes = set()
    for path in root.glob("*.py"):
        codes |= set(
            re.findall(
                r'"((?:sail|fish|unload|discard|contract|turn|company|decision|setup)\.[a-z_]+)"',
                path.read_text(),
            )
        )
    assert codes and all(f"`{code}`" in text for code in codes), sorted(
        c for c in codes if f"`{c}`" not in text
    )
