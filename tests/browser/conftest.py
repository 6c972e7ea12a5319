"""Fixtures of the browser tests: the machine's Chromium driven by Playwright (one browser per test
module), and the reports it looks at, written once per session into a temporary folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from browser.played import Report, planned, write_reports
from pbem.cli.demo import run_demo

CHROMIUM = Path(os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium"))
# quiet and offline: no updates, no sync, no first-run pages; no sandbox, as CI runs tests as root
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require_chromium(path: Path) -> None:
    """Fail (never skip) when the browser is missing: a suite that quietly skips its browser tests would
    pass on a machine where nobody ever looked at a report."""
    if not path.is_file():
        pytest.fail(
            f"Chromium is missing ({path}): the HTML reports must be looked at in a real browser; "
            "install it with scripts/system-deps.sh (Debian's chromium package)",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_chromium(CHROMIUM)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Report]:
    """Every report of :func:`browser.played.planned`, by name."""
    made = write_reports(planned(), tmp_path_factory.mktemp("reports"))
    return {report.plan.name: report for report in made}


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The index page of ``pbem demo`` (the default game, two players), played through the host."""
    return run_demo(players=2, seed=1, out=tmp_path_factory.mktemp("demo"), say=lambda _line: None)
