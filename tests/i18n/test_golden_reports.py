"""A golden text report per game and language: one seat's report of a fixed bot game, compared byte for
byte with the file kept in ``golden/``. A deliberate change of words or layout is made by rewriting
them (``PBEM_UPDATE_GOLDEN=1 pytest tests/i18n/test_golden_reports.py``) and reading the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sqlalchemy import Engine

from pbem.cli.demo import play_bots
from pbem.core import i18n
from pbem.render.reports import report
from pbem.storage.db import connect

GOLDEN = Path(__file__).parent / "golden"
#: game -> seats; each game played by bots for TURNS turns from seed 11
GAMES = {"reef-encounter": 4, "mare-balticum": 3, "coral-divers": 2}
TURNS = 4


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    i18n.reload()
    engine = connect(f"sqlite:///{tmp_path_factory.mktemp('golden') / 'g.sqlite'}")
    for game, seats in GAMES.items():
        play_bots(engine, game, game, seats, 11, turns=TURNS)
    return engine


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_text_report_is_the_golden_one(played: Engine, game: str, lang: str) -> None:
    text = report(played, game, "alice", turn=TURNS, lang=lang)
    path = GOLDEN / f"{game}.{lang}.txt"
    if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
