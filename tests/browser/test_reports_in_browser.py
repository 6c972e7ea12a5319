"""Every game's HTML reports in headless Chromium, at a desktop and a phone width: self-contained,
nothing sticking out sideways, boards drawn at a real size, text large enough, and what a player must
read (header, board, own holdings, order template, final scores) there and visible.

Reports of two and of the most players, at the start, the middle and the end of a bot game; each page
is loaded and measured once per width (see :mod:`browser.measure`). ``PBEM_SHOTS=DIR`` also saves a
full-page screenshot of each into DIR, to look at.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browser.measure import MIN_TEXT_PX, WIDTHS, Look, Viewer
from browser.played import Report, planned, report_name
from pbem import registry

BOARD = {
    "reef-encounter": 'svg[aria-label^="reef board"]',
    "mare-balticum": 'svg[aria-label="map of the Baltic Sea"]',
    "coral-divers": 'svg[aria-label="Coral Divers sea floor"]',
}
TITLE = "header.report h1"
META = "header.report .meta"
HEADINGS = "h2"
OWN = "section.private"
ORDERS = "pre.orders"
OUTCOME = "section.outcome"
OUTCOME_ROWS = "section.outcome tr"
WATCH = [TITLE, META, HEADINGS, OWN, ORDERS, OUTCOME, OUTCOME_ROWS, *BOARD.values()]

REPORTS = [report_name(*plan) for plan in planned()]
AT_WIDTHS = pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())


@pytest.fixture(scope="module")
def viewer(browser: Browser) -> Iterator[Viewer]:
    shots = os.environ.get("PBEM_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
    yield Viewer(browser, WATCH, Path(shots) if shots else None)


def look(viewer: Viewer, reports: dict[str, Report], name: str, width: int) -> tuple[Report, Look]:
    report = reports[name]
    return report, viewer.look(report.path, width)


def unreadable(look: Look, selector: str) -> list[str]:
    """Why each element matching ``selector`` cannot be read, if it cannot."""
    problems = []
    for shown in look.shown[selector]:
        if not shown.visible:
            problems.append(f"{shown.what} is hidden")
        if not shown.inside:
            problems.append(f"{shown.what} sticks out of the {look.width} px viewport")
        if shown.clipped_by:
            problems.append(f"{shown.what} is cut off by {shown.clipped_by}")
    return problems


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_report_requests_nothing_but_its_own_file(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    _, seen = look(viewer, reports, name, width)
    assert seen.requests == [seen.url]
    assert seen.console_errors == []


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_report_does_not_overflow_sideways(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    _, seen = look(viewer, reports, name, width)
    assert seen.sticking_out == []
    assert seen.scroll_width <= seen.client_width


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_every_svg_is_drawn_within_the_viewport(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    _, seen = look(viewer, reports, name, width)
    assert seen.svgs, "a report draws its table as SVG"
    assert seen.svg_problems() == []


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_no_text_is_smaller_than_11px(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    _, seen = look(viewer, reports, name, width)
    assert seen.text_sizes, "the page has text"
    assert seen.small_text() == [], f"text under {MIN_TEXT_PX} px"


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_header_names_the_game_the_turn_and_the_seat(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    report, seen = look(viewer, reports, name, width)
    [title], [meta] = seen.shown[TITLE], seen.shown[META]
    assert registry.get_game(report.game).title in title.text
    assert f"Turn {report.turn}" in meta.text
    assert (f"report for {report.seat}" if report.seat else "public report") in meta.text
    assert unreadable(seen, TITLE) + unreadable(seen, META) == []


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_board_is_drawn_and_visible(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    report, seen = look(viewer, reports, name, width)
    assert seen.shown[BOARD[report.game]], "the board is in the report"
    assert unreadable(seen, BOARD[report.game]) == []


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_own_holdings_show_for_a_seat_and_never_in_the_public_report(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    report, seen = look(viewer, reports, name, width)
    headings = [h.text for h in seen.shown[HEADINGS]]
    if report.seat is None:
        assert seen.shown[OWN] == []
        assert "Yours alone" not in headings
    else:
        [own] = seen.shown[OWN]
        assert own.text.startswith("Yours alone")
        assert unreadable(seen, OWN) == []


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_order_template_shows_when_the_seat_owes_orders(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    report, seen = look(viewer, reports, name, width)
    if report.owes_orders:
        [orders] = seen.shown[ORDERS]
        assert f"player: {report.seat}" in orders.text
        assert f"turn: {report.turn + 1}" in orders.text
        assert unreadable(seen, ORDERS) == []
    else:
        assert seen.shown[ORDERS] == []


@AT_WIDTHS
@pytest.mark.parametrize("name", REPORTS)
def test_final_scores_show_on_the_last_turn_only(
    viewer: Viewer, reports: dict[str, Report], name: str, width: int
) -> None:
    report, seen = look(viewer, reports, name, width)
    if report.scores is None:
        assert seen.shown[OUTCOME] == []
        return
    assert report.moment == "end"
    assert unreadable(seen, OUTCOME) + unreadable(seen, OUTCOME_ROWS) == []
    [_header, *rows] = [row.text.split() for row in seen.shown[OUTCOME_ROWS]]
    assert {seat: int(points) for _place, seat, points in rows} == report.scores


def test_every_moment_has_a_seat_that_owes_orders_until_the_end(reports: dict[str, Report]) -> None:
    """The order-template test above is not vacuous: some seat owes orders at the start and the middle."""
    owing = {(r.game, r.players, r.moment) for r in reports.values() if r.owes_orders}
    for game, count, moment, _seat in planned():
        assert ((game, count, moment) in owing) == (moment != "end"), (game, count, moment)


@AT_WIDTHS
def test_demo_index_links_only_to_report_files_that_exist(
    browser: Browser, viewer: Viewer, demo_index: Path, width: int
) -> None:
    seen = viewer.look(demo_index, width)
    assert seen.requests == [seen.url] and seen.console_errors == []
    assert seen.sticking_out == [] and seen.small_text() == []
    page = browser.new_page()
    try:
        page.goto(demo_index.resolve().as_uri())
        links = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    finally:
        page.close()
    files = {p.resolve().as_uri() for p in demo_index.parent.glob("*/turn-*.*")}
    assert links, "the index links to the reports"
    assert [url for url in links if url not in files] == []
    assert set(links) == files  # every report the demo wrote is reachable from the index
