"""A running solo game moved to another host (``pbem export --include-secrets``, then ``pbem import``)
keeps its stand-in seats and their levels: without them the imported game would wait for ever for seats
nobody plays. A level the stand-in does not have is refused by the archive's reader."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive.files import export, import_archive, read_archive
from pbem.core.errors import UserError
from pbem.play.create import create_game
from pbem.play.status import status
from pbem.play.turns import process
from pbem.storage.db import connect
from pbem.storage.models import SeatRow

PLAYERS = [("ann", "ann@example.org"), ("bo", ""), ("cy", "")]


def _levels(engine: Engine, game_id: str) -> dict[str, str | None]:
    with Session(engine) as session:
        return {s.name: s.bot_level for s in session.exec(select(SeatRow).where(SeatRow.game_id == game_id))}


def test_an_imported_solo_game_keeps_its_stand_ins_and_plays_on(engine: Engine, tmp_path: Path) -> None:
    create_game(engine, "coral-divers", "solo-1", PLAYERS, seed=11, bots={"bo": "strong", "cy": "easy"})
    path = str(tmp_path / "solo-1.yaml")
    export(engine, "solo-1", path, include_secrets=True)
    elsewhere = connect(f"sqlite:///{tmp_path / 'elsewhere.sqlite'}")
    game_id, passwords = import_archive(elsewhere, path)
    assert _levels(elsewhere, game_id) == {"ann": None, "bo": "strong", "cy": "easy"}
    here, there = status(engine, "solo-1")[0], status(elsewhere, game_id)[0]
    assert there["stand_ins"] == here["stand_ins"] == {"bo": "strong", "cy": "easy"}
    assert set(there["awaited"]) <= {"ann"} and there["awaited"] == here["awaited"]  # stand-ins owe nothing
    assert process(elsewhere, game_id, fill_missing=True)  # ann's turn by the policy; the rest by level
    assert set(passwords) == {"ann", "bo", "cy"}
    elsewhere.dispose()


def test_a_level_the_stand_in_does_not_have_is_refused(engine: Engine, tmp_path: Path) -> None:
    create_game(engine, "coral-divers", "solo-2", PLAYERS, seed=12, bots={"bo": "strong", "cy": "easy"})
    path = tmp_path / "solo-2.yaml"
    export(engine, "solo-2", str(path), include_secrets=True)
    path.write_text(path.read_text(encoding="utf-8").replace("bot_level: strong", "bot_level: grandmaster"))
    with pytest.raises((UserError, ValueError)):
        read_archive(str(path))
