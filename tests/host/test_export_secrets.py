"""``pbem export`` of a game not finished yet is refused without ``--include-secrets``: its seed and
draws would let anyone replay another seat's screen (``pbem replay ARCHIVE --turn N --player OTHER``).
Players get the watchable page (``pbem archive``) instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine

from host.conftest import Ran
from pbem.cli.demo import play_bots


def test_exporting_a_running_game_is_refused_and_writes_nothing(
    engine: Engine, pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    play_bots(engine, "pearl-dive", "g", 3, 2, turns=2)
    path = tmp_path / "g.yaml"
    ran = pbem("export", "g", "-o", str(path))
    assert ran.code == 1
    assert ran.err.strip() == (
        "pbem: game g is not finished: its archive holds the seed and every draw, which tell each seat's "
        "hidden holdings. Give players its watchable page instead (pbem archive g -o g.html); to move the "
        "game to another host, add --include-secrets"
    )
    assert not path.exists()
    assert pbem("export", "g").code == 1  # to stdout neither
    assert "seed" not in pbem("export", "g").out


def test_a_game_master_may_export_a_running_game_with_its_secrets(
    engine: Engine, pbem: Callable[..., Ran], tmp_path: Path
) -> None:
    play_bots(engine, "pearl-dive", "g", 3, 2, turns=2)
    path = tmp_path / "g.yaml"
    ran = pbem("export", "g", "-o", str(path), "--include-secrets")
    assert ran.code == 0, ran.err
    assert "seed: 2" in path.read_text(encoding="utf-8")


def test_a_finished_game_exports_without_asking(engine: Engine, pbem: Callable[..., Ran]) -> None:
    play_bots(engine, "pearl-dive", "g", 3, 2)
    ran = pbem("export", "g")
    assert ran.code == 0, ran.err
    assert "seed: 2" in ran.out
