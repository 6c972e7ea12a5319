"""The web host in the machine's Chromium: a player signs in by the link their report mail carries, reads
the seat's page, sends press that another player reads in their own browser; the pages at 375 and 1280 px
are written for a person to look at (``$PBEM_SHOTS``, else a temporary folder), and axe finds no
serious or critical violation on the seat's page or the archive page."""

from __future__ import annotations

import email
import os
import re
from collections.abc import Iterator
from email import policy
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page
from sqlmodel import Session, col, select
from web.conftest import SECRET, Host, make_host

from browser.webhost import serving
from pbem.outbox.queueing import enqueue_reports, unpack_message
from pbem.outbox.settings import MailSettings
from pbem.outbox.signin import LinkSettings
from pbem.storage.models import OutboxRow
from pbem.web.app import create_app

WIDTHS = (375, 1280)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Host, str]]:
    """The web host on a loopback port, over a fresh game, its report mails queued with links to it."""
    host = make_host(tmp_path)
    with serving(create_app(host.settings)) as base:
        enqueue_reports(host.engine, settings=MailSettings(), links=LinkSettings(base, SECRET))
        yield host, base
    host.engine.dispose()


def mailed_link(host: Host, address: str) -> str:
    """The sign-in link in the plain text of the report mail sent to ``address``."""
    with Session(host.engine) as session:
        row = session.exec(
            select(OutboxRow).where(
                OutboxRow.to_addr == address, col(OutboxRow.dedupe_key).startswith("report:")
            )
        ).one()
    message = email.message_from_bytes(unpack_message(row.message_z), policy=policy.default)
    text = message.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
    found = re.search(r"http://127\.0\.0\.1:\d+/in/\S+", text.replace("\n", ""))
    assert found, "the report mail carries no sign-in link"
    return found.group(0)


def shots_dir(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("PBEM_SHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shoot(page: Page, folder: Path, name: str) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        path = folder / f"{name}-{width}.png"
        page.screenshot(path=str(path), full_page=True)
        assert int.from_bytes(path.read_bytes()[16:20], "big") == width
        # nothing wider than the screen but what scrolls in its own box (the board, a wide table)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{name} at {width} px is {overflow} px wider than the screen"


def serious(page: Page) -> list[str]:
    found = Axe().run(page).response["violations"]
    return [
        f"{v['id']}: {v['help']} ({len(v['nodes'])})" for v in found if v["impact"] in ("serious", "critical")
    ]


def test_a_player_signs_in_by_the_mailed_link_reads_and_sends_press(
    served: tuple[Host, str], browser: Browser, tmp_path: Path
) -> None:
    host, base = served
    folder = shots_dir(tmp_path)
    ann = browser.new_context().new_page()
    ann.goto(mailed_link(host, "ann@example.org"))
    assert ann.url == f"{base}/g/reef-1/ann"
    assert ann.locator("h1").first.inner_text().startswith("Reef Encounter")
    assert ann.get_by_text("Your orders are awaited.").is_visible()
    assert ann.locator("svg[data-picture]").count() >= 1  # the board as SVG
    shoot(ann, folder, "web-seat")
    assert serious(ann) == []

    ann.get_by_role("checkbox", name="bo", exact=True).check()
    ann.get_by_role("textbox", name="Message").fill("Bo: shall we leave the orange coral alone?")
    ann.get_by_role("button", name="Send press").click()
    ann.wait_for_url(re.compile(r".*/g/reef-1/ann\?said=.*"))
    assert ann.get_by_role("status").inner_text() == "Your press went to: bo."

    bo = browser.new_context().new_page()
    bo.goto(mailed_link(host, "bo@example.org"))
    assert "shall we leave the orange coral alone?" in bo.locator("#press").inner_text()
    cy = browser.new_context().new_page()
    cy.goto(mailed_link(host, "cy@example.org"))
    assert "orange coral" not in cy.locator("#press").inner_text()
    cy.goto(f"{base}/g/reef-1/ann")
    assert cy.locator("h1").inner_text() == "Not yours"


def test_the_archive_and_the_sign_in_page_read_well(
    served: tuple[Host, str], browser: Browser, tmp_path: Path
) -> None:
    _host, base = served
    folder = shots_dir(tmp_path)
    page = browser.new_context().new_page()
    page.goto(f"{base}/archive/reef-1")
    page.wait_for_selector("body[data-ready=yes]", timeout=20_000)
    shoot(page, folder, "web-archive")
    assert serious(page) == []
    page.goto(f"{base}/sign-in?lang=hu")
    assert page.locator("html").get_attribute("lang") == "hu"
    shoot(page, folder, "web-sign-in-hu")
    assert serious(page) == []
