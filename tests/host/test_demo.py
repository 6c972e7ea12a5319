"""``pbem demo``: a whole game by bots through submit and process, every report on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from host.conftest import run_pbem
from pbem.archive.replay import from_database, verify
from pbem.cli.demo import run_demo
from pbem.render import screenshots
from pbem.storage.db import connect


def test_demo_plays_to_the_end_and_writes_every_report(tmp_path: Path) -> None:
    said: list[str] = []
    index = run_demo(game_type="pearl-dive", players=4, seed=9, out=tmp_path / "out", say=said.append)
    assert index == tmp_path / "out" / "index.html"
    turns = 7  # Pearl Dive's three rounds of two turns, after the setup
    for seat in ("alice", "bob", "carol", "dave", "public"):
        folder = tmp_path / "out" / seat
        assert sorted(p.name for p in folder.glob("*.html")) == [f"turn-{n:04d}.html" for n in range(turns)]
        assert len(list(folder.glob("*.txt"))) == turns
    page = index.read_text()
    assert 'href="alice/turn-0006.html"' in page and "1. " in page
    assert said[-1] == f"reports: {index.resolve()}"
    # each seat's report mail of the middle and last turn, as a mail client shows it, at 600 and 375 px
    mail = tmp_path / "out" / "mail"
    assert said[-2] == f"report mails as a mail client shows them: {mail}"
    for seat in ("alice", "bob", "carol", "dave"):
        for turn in (3, 6):
            assert "<svg" not in (mail / f"{seat}-turn-{turn:04d}.html").read_text()
            for width in (600, 375):
                shot = (mail / f"{seat}-turn-{turn:04d}-{width}.png").read_bytes()
                assert shot.startswith(b"\x89PNG") and int.from_bytes(shot[16:20], "big") == width
                assert f'href="mail/{seat}-turn-{turn:04d}-{width}.png"' in page  # linked from the index
            assert f'href="mail/{seat}-turn-{turn:04d}.html"' in page
    engine = connect(f"sqlite:///{tmp_path / 'out' / 'demo.sqlite'}")
    assert verify(from_database(engine, "demo-9"))["ok"]


def test_demo_starts_afresh_each_time(tmp_path: Path) -> None:
    for _ in range(2):
        run_demo(game_type="pearl-dive", players=2, seed=1, out=tmp_path, say=lambda _line: None)


def test_demo_refuses_a_player_count_the_game_does_not_take(tmp_path: Path) -> None:
    ran = run_pbem("demo", "--game", "pearl-dive", "--players", "9", "--out", str(tmp_path))
    assert ran.returncode == 1
    assert ran.stderr.strip() == "pbem: Pearl Dive takes 2 to 4 players, not 9"


def test_without_chromium_the_index_says_why_there_are_no_mail_screenshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(screenshots, "CHROMIUM", tmp_path / "no-chromium")
    index = run_demo(game_type="pearl-dive", players=2, seed=2, out=tmp_path / "out", say=lambda _line: None)
    page = index.read_text()
    assert "scripts/system-deps.sh installs it" in page
    assert 'href="mail/alice-turn-0006.html"' in page and ".png" not in page
