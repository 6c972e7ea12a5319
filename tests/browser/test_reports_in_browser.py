"""Every game's HTML reports in headless Chromium, at a desktop and a phone width: self-contained,
nothing sticking out sideways, boards drawn at a real size, text large enough, and what a player must
read (header, board, own holdings, order template, final scores) there and visible.

Reports of the fewest and the most players, at the start, the middle and the end of a bot game, and of
the longest names allowed (see :mod:`browser.played`); each page is loaded and measured once per width
(see :mod:`browser.measure`). ``PBEM_SHOTS=DIR`` also saves a full-page screenshot of each into DIR.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browser.measure import MIN_CONTRAST, MIN_TEXT_PX, WIDTHS, Look, Viewer
from browser.played import LONG_ID, LONG_NAMES, Report, planned
from pbem.core import registry
from pbem.play.create import GAME_ID, SEAT_NAME

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

#: a report and its looks at each width (desktop, then phone)
Seen = tuple[Report, list[Look]]


@pytest.fixture(scope="module")
def viewer(browser: Browser) -> Iterator[Viewer]:
    shots = os.environ.get("PBEM_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
    yield Viewer(browser, WATCH, Path(shots) if shots else None)


@pytest.fixture(scope="module", params=[plan.name for plan in planned()])
def seen(request: pytest.FixtureRequest, viewer: Viewer, reports: dict[str, Report]) -> Seen:
    """Each report in turn, as laid out at each width. Module-scoped so that pytest runs every test of one
    report together, and xdist sends them to one worker, which then loads the page once."""
    report = reports[request.param]
    return report, [viewer.look(report.path, width) for width in WIDTHS.values()]


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


def test_report_requests_nothing_but_its_own_file(seen: Seen) -> None:
    _, looks = seen
    for look in looks:
        assert look.requests == [look.url], look.width
        assert look.console_errors == [], look.width


def test_report_does_not_overflow_sideways(seen: Seen) -> None:
    _, looks = seen
    for look in looks:
        assert look.sticking_out == [], look.width
        assert look.scroll_width <= look.client_width, look.width


def test_every_svg_is_drawn_within_the_viewport(seen: Seen) -> None:
    _, looks = seen
    for look in looks:
        assert look.svgs, "a report draws its table as SVG"
        assert look.svg_problems() == [], look.width


def test_board_labels_are_neither_cut_off_nor_drawn_over_each_other(seen: Seen) -> None:
    _, looks = seen
    for look in looks:
        assert look.labels_cut == [], look.width
        assert look.labels_overlapping == [], look.width


def test_no_text_is_smaller_than_11px(seen: Seen) -> None:
    _, looks = seen
    for look in looks:
        assert look.text_sizes, "the page has text"
        assert look.small_text() == [], f"text under {MIN_TEXT_PX} px at {look.width} px"


def test_text_stands_out_from_its_background(seen: Seen) -> None:
    _, looks = seen
    for look in looks:
        assert look.faint_text() == [], f"contrast under {MIN_CONTRAST}:1 at {look.width} px"


def test_header_names_the_game_the_turn_and_the_seat(seen: Seen) -> None:
    report, looks = seen
    for look in looks:
        [title], [meta] = look.shown[TITLE], look.shown[META]
        assert registry.get_game(report.game).title in title.text and report.game_id in title.text
        assert f"Turn {report.turn}" in meta.text
        assert (f"report for {report.seat}" if report.seat else "public report") in meta.text
        assert unreadable(look, TITLE) + unreadable(look, META) == []


def test_board_is_drawn_and_visible(seen: Seen) -> None:
    report, looks = seen
    for look in looks:
        assert look.shown[BOARD[report.game]], "the board is in the report"
        assert unreadable(look, BOARD[report.game]) == []


def test_own_holdings_show_for_a_seat_and_never_in_the_public_report(seen: Seen) -> None:
    report, looks = seen
    for look in looks:
        if report.seat is None:
            assert look.shown[OWN] == []
            assert "Yours alone" not in [h.text for h in look.shown[HEADINGS]]
        else:
            [own] = look.shown[OWN]
            assert own.text.startswith("Yours alone")
            assert unreadable(look, OWN) == []


def test_order_template_shows_when_the_seat_owes_orders(seen: Seen) -> None:
    report, looks = seen
    for look in looks:
        if report.owes_orders:
            [orders] = look.shown[ORDERS]
            assert f"player: {report.seat}" in orders.text
            assert f"turn: {report.turn + 1}" in orders.text
            assert unreadable(look, ORDERS) == []
        else:
            assert look.shown[ORDERS] == []


def test_final_scores_show_on_the_last_turn_only(seen: Seen) -> None:
    report, looks = seen
    for look in looks:
        if report.scores is None:
            assert look.shown[OUTCOME] == []
            continue
        assert report.moment == "end"
        assert unreadable(look, OUTCOME) + unreadable(look, OUTCOME_ROWS) == []
        [_header, *rows] = [row.text.split() for row in look.shown[OUTCOME_ROWS]]
        assert {seat: int(points) for _place, seat, points in rows} == report.scores


def test_every_moment_has_a_seat_that_owes_orders_until_the_end(reports: dict[str, Report]) -> None:
    """The order-template test above is not vacuous: some seat owes orders at the start and the middle."""
    owing = {(r.plan.game, r.plan.players, r.plan.names, r.moment) for r in reports.values() if r.owes_orders}
    for plan in planned():
        table = (plan.game, plan.players, plan.names, plan.moment)
        assert (table in owing) == (plan.moment != "end"), table


def test_long_names_are_the_longest_pbem_new_accepts() -> None:
    assert GAME_ID.fullmatch(LONG_ID) and not GAME_ID.fullmatch(LONG_ID + "x")
    for name in LONG_NAMES:
        assert SEAT_NAME.fullmatch(name) and not SEAT_NAME.fullmatch(name + "x")


def test_demo_index_links_only_to_files_that_exist(
    browser: Browser, viewer: Viewer, demo_index: Path
) -> None:
    for width in WIDTHS.values():
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
    files |= {p.resolve().as_uri() for p in demo_index.parent.glob("archive-*.html")}  # pages to watch
    files |= {p.resolve().as_uri() for p in demo_index.parent.glob("mail/*")}  # the mails and their pictures
    assert links, "the index links to the reports"
    assert [url for url in links if url not in files] == []
    assert set(links) == files  # every report the demo wrote is reachable from the index


def test_demo_reports_stored_by_the_host_pass_the_same_checks(viewer: Viewer, demo_index: Path) -> None:
    """The reports above are rendered the host's way without its database; these went through it."""
    folder = demo_index.parent
    for seat in ("alice", "public"):
        stored = sorted((folder / seat).glob("turn-*.html"))
        for path in (stored[0], stored[len(stored) // 2], stored[-1]):
            for width in WIDTHS.values():
                look = viewer.look(path, width)
                assert look.requests == [look.url] and look.console_errors == [], look
                assert look.sticking_out == [] and look.svg_problems() == [], look
                assert look.small_text() == [] and look.faint_text() == [], look
                assert look.labels_cut == [] and look.labels_overlapping == [], look
                assert len(look.shown[OWN]) == (seat != "public"), look
