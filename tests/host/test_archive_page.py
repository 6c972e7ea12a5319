"""The archive page's file: small enough to mail for a long game, one per game in the demo, and a
running game's page carrying the public table only (the browser tests look at it in Chromium)."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine

from host.conftest import Ran
from pbem.archive.page import build_page
from pbem.cli.demo import play_bots, run_demo
from pbem.play.status import status

#: 4-player Reef Encounter bot game with seed 4: 49 turns (longer than the 45 the issue names)
LONG_SEED = 4


def packed(page: str) -> dict:
    start = page.index('<script type="application/octet-stream" id="pbem-data">')
    text = page[page.index(">", start) + 1 : page.index("</script>", start)]
    return json.loads(zlib.decompress(base64.b64decode(text)))


def test_a_long_four_player_reef_game_page_stays_under_two_megabytes(engine: Engine) -> None:
    play_bots(engine, "reef-encounter", "long", 4, LONG_SEED)
    [entry] = status(engine, "long")
    assert entry["finished"] and entry["turns_resolved"] >= 45
    page = build_page(engine, "long")
    size = len(page.encode("utf-8"))
    assert size < 2_000_000, size
    data = packed(page)
    assert list(data["pages"]) == ["", "alice", "bob", "carol", "dave"]
    assert all(len(turns) == entry["turns_resolved"] + 1 for turns in data["pages"].values())
    print(f"archive page of a {entry['turns_resolved']}-turn 4-player Reef Encounter game: {size:,} bytes")


def test_a_running_game_page_has_only_the_public_table_and_no_archive(engine: Engine) -> None:
    play_bots(engine, "pearl-dive", "run", 3, 4, turns=3)
    data = packed(build_page(engine, "run"))
    assert set(data) == {"lines", "pages", "events"}
    assert list(data["pages"]) == [""] and len(data["pages"][""]) == 4
    play_bots(engine, "pearl-dive", "over", 3, 4)
    page = build_page(engine, "over")
    assert "seed" in packed(page)["archive"]
    assert "@example.org" not in packed(page)["archive"]  # a page a host may serve: no addresses


def test_pbem_archive_writes_the_page_and_refuses_an_unknown_game(
    pbem: Callable[..., Ran], engine: Engine, tmp_path: Path
) -> None:
    play_bots(engine, "pearl-dive", "g", 2, 1)
    ran = pbem("archive", "g", "-o", str(tmp_path / "g.html"))
    assert ran.code == 0, ran.err
    assert (tmp_path / "g.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    ran = pbem("archive", "nope", "-o", str(tmp_path / "n.html"))
    assert ran.code == 1 and ran.err.strip() == "pbem: there is no game 'nope'"
    assert not (tmp_path / "n.html").exists()


def test_the_demo_writes_an_archive_page_and_links_it(tmp_path: Path) -> None:
    index = run_demo(game_type="pearl-dive", players=2, seed=3, out=tmp_path, say=lambda _line: None)
    assert (tmp_path / "archive-demo-3.html").is_file()
    assert 'href="archive-demo-3.html"' in index.read_text(encoding="utf-8")


def test_the_pages_archive_imports_and_verifies_elsewhere(engine: Engine, tmp_path: Path) -> None:
    from pbem.archive.files import import_archive
    from pbem.archive.replay import from_database, verify
    from pbem.storage.db import connect

    play_bots(engine, "pearl-dive", "over", 3, 4)
    path = tmp_path / "over.yaml"
    path.write_text(packed(build_page(engine, "over"))["archive"], encoding="utf-8")
    elsewhere = connect(f"sqlite:///{tmp_path / 'elsewhere.sqlite'}")
    import_archive(elsewhere, str(path))
    assert verify(from_database(elsewhere, "over"))["ok"]
