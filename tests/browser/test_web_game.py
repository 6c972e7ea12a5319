"""Whole games through the browser: for each shipped game, three players in three browser contexts sign
in by the link their mail carries, and every turn each player whose orders are awaited opens the orders
form, chooses every step by clicking (the steps the game's bot would choose, each a button the form
offers), sees the preview, sends, and after the turn resolves reads the next report. The orders form
is looked at (375 and 1280 px screenshots), checked by axe, and one turn is played by keyboard alone."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from sqlalchemy import Engine
from web.conftest import PLAYERS, SECRET

from browser.test_web_pages import mailed_link, serious, shoot, shots_dir
from browser.webhost import serving
from pbem.core import caches
from pbem.intake.orderfile import load
from pbem.outbox.queueing import enqueue_reports
from pbem.outbox.settings import MailSettings
from pbem.outbox.signin import LinkSettings
from pbem.play import builder, orders
from pbem.play.create import create_game
from pbem.play.status import status
from pbem.play.turns import process
from pbem.storage.db import connect
from pbem.web.app import create_app
from pbem.web.settings import WebSettings

#: the shipped games, each at its smallest settings (their defaults), with three players
GAMES = ("reef-encounter", "mare-balticum", "coral-divers")
#: a whole game clicks through hundreds of steps: a generous bound on each wait, never an assertion
WAIT_MS = 30_000


@dataclass
class Table:
    engine: Engine
    base: str
    game_id: str


@contextmanager
def served_game(tmp_path: Path, game_type: str, seed: int = 5) -> Iterator[Table]:
    """A new game of ``game_type`` and the web host over it on a loopback port (limits raised: one
    test's clicks are many requests of one client), its first report mails queued with their links."""
    db = f"sqlite:///{tmp_path / 'web.sqlite'}"
    engine = connect(db)
    game_id = f"{game_type.split('-')[0]}-1"
    create_game(engine, game_type, game_id, PLAYERS, seed=seed)
    caches.clear_all()
    settings = WebSettings(db_url=db, secret_key=SECRET, requests_per_minute=100_000)
    with serving(create_app(settings)) as base:
        enqueue_reports(engine, settings=MailSettings(), links=LinkSettings(base, SECRET))
        try:
            yield Table(engine, base, game_id)
        finally:
            engine.dispose()


def bot_steps(table: Table, seat: str) -> list[Any]:
    """The steps this player will click: the ones the game's bot would send (deterministic)."""
    steps = load(orders.template(table.engine, table.game_id, seat, suggest=True))["orders"]
    return steps if isinstance(steps, list) else [steps]


def choice(page: Page, step: Any) -> Locator:
    return page.locator(f"#orders button[name=add][value={json.dumps(builder.step_token(step))}]")


def chosen(page: Page) -> Locator:
    """The steps chosen so far, as the form carries them."""
    return page.locator("#orders [data-step] input[name=step]")


def click_orders(page: Page, table: Table, seat: str) -> int:
    """Open the form from the seat's page, click the bot's steps, see the preview, send; the clicks."""
    page.get_by_role("link", name="Give your orders").click()
    page.wait_for_selector("#orders [data-step]")
    steps = bot_steps(table, seat)
    for n, step in enumerate(steps, start=1):
        button = choice(page, step)
        expect(button).to_have_count(1)
        button.click()
        expect(chosen(page)).to_have_count(n, timeout=WAIT_MS)
    expect(page.locator("#orders pre.preview")).to_contain_text("Preview of your orders")
    page.locator("#orders button.send").click()
    expect(page.locator("#orders .notice")).to_contain_text("Your orders are accepted", timeout=WAIT_MS)
    return len(steps)


@pytest.mark.parametrize("game_type", GAMES)
def test_a_whole_game_is_played_in_the_browser_by_clicks(
    game_type: str, browser: Browser, tmp_path: Path
) -> None:
    started = time.monotonic()
    with served_game(tmp_path, game_type) as table:
        pages = {}
        for seat, address in PLAYERS:
            pages[seat] = browser.new_context().new_page()
            pages[seat].goto(mailed_link_of(table, address))
            assert pages[seat].url.endswith(f"/g/{table.game_id}/{seat}")
        turns = clicks = 0
        while not (where := status(table.engine, table.game_id)[0])["finished"]:
            for seat in where["awaited"]:
                clicks += click_orders(pages[seat], table, seat)
            resolved = process(table.engine, table.game_id)  # what pbem tick does with orders all in
            assert resolved, f"turn {where['turn']} did not resolve with every order in"
            turns += len(resolved)
            for seat in where["awaited"]:  # the next report, on the seat's page
                pages[seat].get_by_role("link", name="Back to your page").click()
                expect(pages[seat].locator(".turns [aria-current=page]")).to_have_text(str(turns))
                expect(pages[seat].locator("#report")).to_be_visible()
        final = status(table.engine, table.game_id)[0]
        for seat, page in pages.items():
            page.goto(f"{table.base}/g/{table.game_id}/{seat}")
            expect(page.locator("#report")).to_be_visible()
    took = time.monotonic() - started
    print(f"\n{game_type}: {turns} turns, {clicks} steps clicked, {took:.0f} s; ranking {final['ranking']}")
    assert final["finished"] and len(final["ranking"]) == 3


def mailed_link_of(table: Table, address: str) -> str:
    return mailed_link(_HostView(table.engine), address)  # type: ignore[arg-type]


@dataclass
class _HostView:
    """What :func:`mailed_link` reads of a host: its engine."""

    engine: Engine


def test_the_orders_form_reads_well_at_375_and_1280_px_and_axe_finds_nothing_serious(
    browser: Browser, tmp_path: Path
) -> None:
    folder = shots_dir(tmp_path)
    with served_game(tmp_path, "reef-encounter") as table:
        page = browser.new_context().new_page()
        page.goto(mailed_link_of(table, "ann@example.org"))
        page.get_by_role("link", name="Give your orders").click()
        first = bot_steps(table, "ann")[0]
        choice(page, first).click()
        expect(page.locator("#orders pre.preview")).to_be_visible(timeout=WAIT_MS)
        shoot(page, folder, "orders")
        assert serious(page) == []
        page.locator("#orders-text").fill(
            "game: reef-1\nplayer: ann\nturn: 1\npassword: x\norders:\n  - nonsense: 1\n"
        )
        expect(page.locator("#yaml-result .refusal")).to_be_visible(timeout=WAIT_MS)  # checked as typed
        shoot(page, folder, "orders-yaml")
        assert serious(page) == []


def test_a_turn_is_played_with_the_keyboard_alone(browser: Browser, tmp_path: Path) -> None:
    with served_game(tmp_path, "coral-divers") as table:
        seat = status(table.engine, table.game_id)[0]["awaited"][0]
        address = dict(PLAYERS)[seat]
        page = browser.new_context().new_page()
        page.goto(mailed_link_of(table, address))
        page.goto(f"{table.base}/g/{table.game_id}/{seat}/orders")
        for step in bot_steps(table, seat):
            token = builder.step_token(step)
            tab_to(page, f"document.activeElement.value === {json.dumps(token)}")
            outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
            assert outline != "none", "the focused step shows no focus"
            before = chosen(page).count()
            page.keyboard.press("Enter")
            expect(chosen(page)).to_have_count(before + 1, timeout=WAIT_MS)
        tab_to(page, "document.activeElement.classList.contains('send')")
        page.keyboard.press("Enter")
        expect(page.locator("#orders .notice")).to_contain_text("Your orders are accepted", timeout=WAIT_MS)
        assert builder.standing_orders(table.engine, table.game_id, seat) == bot_steps(table, seat)


def tab_to(page: Page, reached: str, most: int = 400) -> None:
    """Press Tab until ``reached`` (JavaScript) holds of the focused element."""
    for _press in range(most):
        if page.evaluate(reached):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached the element ({reached})")
