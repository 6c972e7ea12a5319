"""``pbem tick`` keeps every game's archive page up to date in ``[archive] dir``: written when missing,
rewritten when a turn resolved, left alone otherwise."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

from pbem.archive.page import MARK
from pbem.cli.cron import app
from tests.cron.conftest import START, new_game, send_orders


def tick(db_url: str, config: Path, now: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["tick", "--db", db_url, "--now", now, "--no-mail", "--config", str(config), "-q"]
    )
    return result.exit_code, result.stdout + result.stderr


def shown(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    start = text.index(f'<meta name="{MARK}" content="') + len(f'<meta name="{MARK}" content="')
    return text[start : text.index('"', start)]


def test_tick_writes_and_refreshes_archive_pages(engine: Engine, db_url: str, tmp_path: Path) -> None:
    passwords = new_game(engine, "g")
    pages = tmp_path / "pages"
    config = tmp_path / "pbem.toml"
    config.write_text(f'[archive]\ndir = "{pages}"\n', encoding="utf-8")
    code, out = tick(db_url, config, START.isoformat())
    assert code == 0, out
    page = pages / "g.html"
    assert shown(page) == "0:0:active"
    first = page.stat().st_mtime_ns
    code, out = tick(db_url, config, START.isoformat())
    assert code == 0, out
    assert page.stat().st_mtime_ns == first  # nothing new: the page stays as it was
    for seat, password in passwords.items():
        send_orders(engine, "g", seat, password, START)
    code, out = tick(db_url, config, (START + timedelta(hours=1)).isoformat())  # past the last claim
    assert code == 0, out
    assert shown(page) == "0:1:active"
    assert not list(pages.glob("*.part"))


def test_a_bad_archive_table_is_refused(engine: Engine, db_url: str, tmp_path: Path) -> None:
    config = tmp_path / "pbem.toml"
    config.write_text('[archive]\nfolder = "x"\n', encoding="utf-8")
    code, out = tick(db_url, config, START.isoformat())
    assert code == 1
    assert "[archive] knows only dir" in out


def test_a_page_that_cannot_be_written_fails_the_tick_and_not_the_others(
    engine: Engine, db_url: str, tmp_path: Path
) -> None:
    new_game(engine, "a")
    new_game(engine, "b")
    pages = tmp_path / "pages"
    (pages / "a.html.part").mkdir(parents=True)  # in the way of a's page
    config = tmp_path / "pbem.toml"
    config.write_text(f'[archive]\ndir = "{pages}"\n', encoding="utf-8")
    code, out = tick(db_url, config, START.isoformat())
    assert code == 1
    assert "archive page not written: a: UserError: cannot write" in out
    assert (pages / "b.html").is_file()
