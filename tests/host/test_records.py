"""Games recorded elsewhere (``docs/records.md``): a record of each game, without hashes and without a
seed, imports, replays and verifies, marked as recorded elsewhere; the same record with one illegal
order is refused, naming that order and the rule, and nothing is stored."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from host.conftest import Ran
from pbem.archive.page import build_page
from pbem.render.reports import report
from pbem.storage.models import GameRow, ReportRow, TurnRow

RECORDS = Path(__file__).resolve().parents[1] / "fixtures" / "records"
GAMES = ["reef-encounter", "mare-balticum", "coral-divers"]


def record(name: str) -> dict[str, Any]:
    return yaml.safe_load((RECORDS / f"{name}.yaml").read_text(encoding="utf-8"))


def write(tmp_path: Path, data: dict[str, Any], name: str = "club.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", GAMES)
def test_a_record_without_hashes_or_seed_imports_replays_and_verifies(
    name: str, pbem: Callable[..., Ran], engine: Engine
) -> None:
    data = record(name)
    assert "seed" not in data and "sha256" not in (RECORDS / f"{name}.yaml").read_text()
    ran = pbem("import", str(RECORDS / f"{name}.yaml"))
    assert ran.code == 0, ran.err
    game_id = f"club-{name}"
    assert ran.out.startswith(f"imported {game_id}; new passwords, shown this once:")
    verified = pbem("replay", game_id, "--verify")
    assert verified.code == 0, verified.err
    assert (
        verified.out.strip()
        == f"{game_id}: {len(data['turns']) + 1} turns replayed; every state hash matches"
    )
    entry = json.loads(pbem("status", game_id, "--json").out)
    assert entry["finished"] and entry["recorded_elsewhere"] is True
    assert "(recorded elsewhere)" in pbem("status", game_id).out
    assert "recorded elsewhere" in report(engine, game_id, data["seats"][0], turn=3)
    assert "recorded elsewhere" in build_page(engine, game_id)
    exported = yaml.safe_load(pbem("export", game_id).out)
    assert exported["game"]["seed"] is None and exported["game"]["recorded_elsewhere"] is True


def test_an_exported_record_elsewhere_imports_again_still_marked_and_seedless(
    pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    assert pbem("import", str(RECORDS / "coral-divers.yaml")).code == 0
    archive = tmp_path / "a.yaml"
    assert pbem("export", "club-coral-divers", "-o", str(archive)).code == 0
    assert pbem("import", str(archive), "--id", "again").code == 0
    assert pbem("replay", "again", "--verify").code == 0
    again = json.loads(pbem("status", "again", "--json").out)
    assert again["recorded_elsewhere"] is True


ILLEGAL = {
    # (turn index, seat, the change, what the refusal says)
    "reef-encounter": (
        4,
        "alice",
        lambda orders: [{"larva": "grey"}, *orders[1:]],
        "turns[4] (turn 5): alice's orders[0] (larva: grey): action 2: you have no grey larva cube behind "
        "your screen [larva.none]",
    ),
    "mare-balticum": (
        6,
        "bob",
        lambda orders: [*orders[:2], {"fish": {"at": "bornholm", "goods": "herring"}}],
        "turns[6] (turn 7): bob's orders[2] (fish: {at: bornholm, goods: herring}): action fishing: you "
        "have no ship on bornholm [fish.no_ship]",
    ),
    "coral-divers": (
        4,
        "bob",
        lambda orders: [{"surface": ["e5"]}],
        "turns[4] (turn 5): bob's orders[0] (surface: [e5]): action surface: e5 holds no reef, not "
        "one of your reefs; write `- surface: [h6, i8]`: one space of each of your reefs to close "
        "[surface.not_your_reef]",
    ),
}


def _counts(engine: Engine) -> tuple[int, int, int]:
    with Session(engine) as session:
        return tuple(
            session.exec(select(func.count()).select_from(t)).one() for t in (GameRow, TurnRow, ReportRow)
        )  # type: ignore[return-value]


@pytest.mark.parametrize("name", GAMES)
def test_a_record_with_one_illegal_order_is_refused_naming_it(
    name: str, pbem: Callable[..., Ran], engine: Engine, tmp_path: Path
) -> None:
    turn, seat, change, message = ILLEGAL[name]
    data = copy.deepcopy(record(name))
    data["turns"][turn]["orders"][seat] = change(data["turns"][turn]["orders"][seat])
    path = write(tmp_path, data)
    pbem("status")  # the database exists, empty
    before = _counts(engine)
    ran = pbem("import", str(path))
    assert ran.code == 1
    assert ran.err.strip() == f"pbem: {path}: {message}"
    assert _counts(engine) == before


def test_a_record_whose_draws_run_short_is_refused(pbem: Callable[..., Ran], tmp_path: Path) -> None:
    data = record("coral-divers")
    data["setup"]["draws"] = data["setup"]["draws"][:5]
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 1
    assert "setup: the game asked for a draw (bag of 75) beyond the 5 recorded" in ran.err


def test_a_misspelt_key_is_refused_naming_it(pbem: Callable[..., Ran], tmp_path: Path) -> None:
    data = record("coral-divers")
    data["turns"][0]["drawz"] = []
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 1
    assert "is not a pbem record: turns.0.drawz: Extra inputs are not permitted" in ran.err


def test_a_record_without_seed_of_an_unfinished_game_is_refused(
    pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    data = record("coral-divers")
    data["turns"] = data["turns"][:5]
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 1
    assert "the record gives no seed and its game is not over" in ran.err


def test_a_record_with_its_seed_has_its_draws_checked_against_it(
    pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    data = record("coral-divers")  # made by make.py from a bot game of seed 23
    data["seed"] = 23
    ran = pbem("import", str(write(tmp_path, data)))
    assert ran.code == 0, ran.err
    assert pbem("replay", "club-coral-divers", "--verify").code == 0
    data["seed"] = 24
    ran = pbem("import", str(write(tmp_path, data)), "--id", "other")
    assert ran.code == 1
    assert "setup: the recorded draws are not those seed 24 gives" in ran.err


def test_an_archive_without_seed_of_an_unfinished_game_is_refused(
    pbem: Callable[..., Ran], engine: Engine, tmp_path: Path
) -> None:
    from pbem.cli.demo import play_bots

    play_bots(engine, "pearl-dive", "run", 2, 3, turns=2)
    data = yaml.safe_load(pbem("export", "run", "--include-secrets").out)
    data["game"]["seed"] = None
    ran = pbem("import", str(write(tmp_path, data)), "--id", "copy")
    assert ran.code == 1
    assert "the archive gives no seed and its game is not over" in ran.err
