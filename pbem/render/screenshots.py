"""Screenshots of report mails as a mail client shows them, at a desktop mail width and a phone's, for
people to look at (``make demo``). Needs Playwright and the machine's Chromium (the test extra); the
demo goes on without them, and says so."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pbem.render.mail_html import mail_page, viewable

#: the widths a report mail is looked at: a desktop client's reading pane, a phone
WIDTHS = (600, 375)
CHROMIUM = Path(os.environ.get("PBEM_CHROMIUM", "/usr/bin/chromium"))


def write_mail_looks(pages: Iterable[tuple[str, str, slice | None]], folder: Path) -> list[Path] | str:
    """For each (name, web report page, where it holds its table or ``None``): ``folder/NAME.html``,
    the mail rendering with its pictures written in, and ``NAME-600.png`` / ``NAME-375.png``, full-page
    screenshots of it. Returns the screenshots, or why none could be taken."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for name, page, table in pages:
        path = folder / f"{name}.html"
        path.write_text(viewable(mail_page(page, table)), encoding="utf-8")
        files.append(path)
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        return "no screenshots of the mail: Playwright is not installed (pip install -e '.[test]')"
    if not CHROMIUM.is_file():
        return f"no screenshots of the mail: no Chromium at {CHROMIUM} (scripts/system-deps.sh installs it)"
    shots = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
            context = browser.new_context(offline=True)  # a mail that fetched anything would show it
            view = context.new_page()
            for path in files:
                for width in WIDTHS:
                    view.set_viewport_size({"width": width, "height": 800})
                    view.goto(path.resolve().as_uri())
                    shot = path.with_name(f"{path.stem}-{width}.png")
                    view.screenshot(path=str(shot), full_page=True)
                    shots.append(shot)
            browser.close()
    except Error as exc:
        return f"no screenshots of the mail: Chromium failed ({str(exc).splitlines()[0]})"
    return shots
