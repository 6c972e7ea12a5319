"""Every game carries its rules for players, `RULES.md` beside its code: it shows every step the game's
orders know as YAML a player may copy, its README links it, and the wheel installs it."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from pbem.core import registry
from pbem.core.game import Game
from pbem.intake.schema import decisions

ROOT = Path(__file__).resolve().parents[2]
GAMES = {name: game for name, game in registry.games().items() if type(game).__module__.startswith("games.")}


def _folder(game: Game) -> Path:
    return Path(sys.modules[type(game).__module__].__file__ or "").resolve().parent


def _yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def _step_keywords(game: Game) -> dict[str, set[str]]:
    """Each decision kind's order model and the keywords of its steps."""
    return {
        kind: {step.keyword for step in getattr(game.order_model(d), "step_models", ())}
        for kind, d in decisions(game).items()
    }


def test_the_three_games_are_checked() -> None:
    assert set(GAMES) == {"reef-encounter", "mare-balticum", "coral-divers"}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_rules_show_every_step_as_orders_a_player_may_copy(name: str) -> None:
    game = GAMES[name]
    rules = _folder(game) / "RULES.md"
    assert rules.is_file(), f"{name} has no RULES.md"
    blocks = _yaml_blocks(rules.read_text(encoding="utf-8"))
    models = [game.order_model(d) for d in decisions(game).values()]
    written: set[str] = set()
    for block in blocks:
        orders = yaml.safe_load(block)["orders"]
        valid = 0
        for model in models:
            try:
                model.model_validate(orders)
                valid += 1
            except ValidationError:
                continue
        assert valid, f"{name} RULES.md: these orders fit no decision:\n{block}"
        for step in orders:
            written.add(step if isinstance(step, str) else next(iter(step)))
    every = set().union(*_step_keywords(game).values())
    assert every <= written, f"{name} RULES.md never shows {sorted(every - written)}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_readme_links_the_rules_and_not_a_file_outside_the_repository(name: str) -> None:
    readme = (_folder(GAMES[name]) / "README.md").read_text(encoding="utf-8")
    assert "](RULES.md)" in readme
    assert "shared/rules" not in readme
    folder = _folder(GAMES[name]).name
    assert f"](games/{folder}/RULES.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_wheel_installs_every_rules_file(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("pbem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for game in GAMES.values():
        package = type(game).__module__.split(".")
        assert "/".join([*package[:-1], "RULES.md"]) in names, package
