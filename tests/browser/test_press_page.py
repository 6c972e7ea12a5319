"""Press on the archive page, in headless Chromium: a finished game's page shows what its players wrote
each other; a running game's page shows none of it (private press is hidden information until the end)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser
from sqlalchemy import Engine

from pbem.archive.page import write_page
from pbem.core.registry import register
from pbem.mail import inbound
from pbem.storage.db import connect
from tests.host.pearl_dive import GAME as PEARL_DIVE
from tests.mail.conftest import START
from tests.mail.test_press import SETTINGS, finish, new_game, press_mail


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    register(PEARL_DIVE)
    eng = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
    yield eng
    eng.dispose()


def open_page(browser: Browser, path: Path) -> tuple[str, bool]:
    """(the press section's text, whether the page has one) as Chromium shows it."""
    page = browser.new_page()
    try:
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("body[data-ready=yes]", timeout=20_000)
        section = page.locator("#press")
        if section.count() == 0:
            return "", False
        return section.inner_text(), section.is_visible()
    finally:
        page.close()


def test_a_finished_games_page_shows_its_press_and_a_running_ones_does_not(
    engine: Engine, browser: Browser, tmp_path: Path
) -> None:
    issued = new_game(engine)
    inbound.handle(
        engine, press_mail(issued, "Bo, let us <b>share</b> the gold.", to="[bo]"), SETTINGS, START
    )
    running = tmp_path / "running.html"
    write_page(engine, "pr-1", running)
    shown, present = open_page(browser, running)
    assert not present and "share" not in running.read_text(encoding="utf-8")

    finish(engine, issued)
    finished = tmp_path / "finished.html"
    write_page(engine, "pr-1", finished)
    shown, visible = open_page(browser, finished)
    assert visible
    assert "Turn 1: ann to bo" in shown
    assert "Bo, let us <b>share</b> the gold." in shown  # as written, not as markup
