"""The proof part ``standins`` on the host's small test game (``make proof`` plays the shipped ones): a
game of a player under ``bot:LEVEL`` and stand-in seats finishes, records its level, replays, and its
archive imports and replays; a turn that records another level is found."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import update

from pbem.storage.models import TurnRow
from proof import standins
from proof.common import scratch_engine


def test_a_stand_in_game_of_each_level_finishes_and_replays_after_export_and_import(tmp_path: Path) -> None:
    engine, fresh = scratch_engine(tmp_path, "played"), scratch_engine(tmp_path, "fresh")
    for level in ("easy", "normal", "strong"):
        game_id = f"si-{level}"
        assert standins.play(engine, "pearl-dive", 3, level, 5, game_id) == []
        assert standins.reimported(engine, fresh, tmp_path, game_id) == []


def test_a_turn_that_records_another_level_is_found(tmp_path: Path) -> None:
    engine = scratch_engine(tmp_path, "played")
    assert standins.play(engine, "pearl-dive", 2, "normal", 5, "g") == []
    with engine.begin() as conn:  # as if the turn had said the stand-in played strong
        first = (TurnRow.game_id == "g") & (TurnRow.number == 1)
        conn.execute(update(TurnRow).where(first).values(by_bot_json='["bob=strong"]'))
    broken = standins.checked(engine, "g", ["ann", "bob"], "normal")
    assert any("other stand-ins than normal" in p for p in broken)
