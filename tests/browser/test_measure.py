"""The measurements of :mod:`browser.measure` on small pages made to pass or to break each rule: a check
that never fires would let every report through."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browser.conftest import CHROMIUM, require_chromium
from browser.measure import Look, Viewer

PHONE = 400
#: writes a page (its body, extra CSS, a width) and measures it
Open = Callable[..., Look]
FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body {{ margin: 0; padding: 8px; font: 15px sans-serif; }} {style}</style></head>
<body>{body}</body></html>"""
BOARD = '<svg width="200" height="100" viewBox="0 0 200 100"><rect width="200" height="100"/></svg>'


@pytest.fixture(scope="module")
def viewer(browser: Browser) -> Viewer:
    return Viewer(browser, ["#target"])


@pytest.fixture
def page(tmp_path: Path, viewer: Viewer) -> Open:
    def look(body: str, style: str = "", width: int = PHONE) -> Look:
        path = tmp_path / f"page-{len(list(tmp_path.iterdir()))}.html"
        path.write_text(FRAME.format(style=style, body=body), encoding="utf-8")
        return viewer.look(path, width)

    return look


def test_a_plain_page_passes_every_check(page: Open) -> None:
    seen = page(f'<h1 id="target">Turn 3</h1><p>Some text.</p>{BOARD}')
    assert seen.requests == [seen.url] and seen.console_errors == []
    assert seen.sticking_out == [] and seen.scroll_width <= seen.client_width
    assert seen.svg_problems() == [] and seen.small_text() == [] and seen.faint_text() == []
    assert seen.labels_cut == [] and seen.labels_overlapping == []
    [target] = seen.shown["#target"]
    assert target.readable and target.text == "Turn 3"


def test_a_font_image_or_script_by_url_is_a_request_of_its_own(page: Open) -> None:
    seen = page(
        '<p>text in a font from afar</p><img src="https://example.org/fish.png" alt="">',
        style="@font-face { font-family: F; src: url(https://example.org/f.woff2); } p { font-family: F; }",
    )
    assert "https://example.org/fish.png" in seen.requests
    assert "https://example.org/f.woff2" in seen.requests
    assert seen.console_errors, "the refused loads are logged as errors"
    assert "https://example.org/s.js" in page('<script src="https://example.org/s.js"></script>').requests


def test_a_console_error_is_recorded(page: Open) -> None:
    assert page("<script>console.error('no such polyp')</script>").console_errors == ["no such polyp"]
    assert page("<script>console.log('fine')</script>").console_errors == []


def test_a_wide_block_sticks_out_unless_it_scrolls_on_purpose(page: Open) -> None:
    wide = '<div style="width: 600px">wide</div>'
    seen = page(wide)
    assert len(seen.sticking_out) == 1 and seen.sticking_out[0].startswith('div "wide" spans x 8..608')
    assert seen.scroll_width > seen.client_width
    assert page(f'<div style="overflow-x: auto">{wide}</div>').sticking_out == []


def test_a_word_too_long_to_wrap_sticks_out_of_its_box(page: Open) -> None:
    seen = page(f"<h1>{'x' * 60}</h1>")
    assert len(seen.sticking_out) == 1 and seen.sticking_out[0].startswith('text of h1 "xxx')
    assert page(f'<h1 style="overflow-wrap: anywhere">{"x" * 60}</h1>').sticking_out == []


def test_an_svg_needs_a_size_and_must_fit_the_viewport(page: Open) -> None:
    assert page('<svg width="0" height="0"><rect width="9" height="9"/></svg>').svg_problems() != []
    wide = '<svg width="600" height="10"><rect width="600" height="10"/></svg>'
    assert page(wide).svg_problems() != []
    framed = f'<div style="overflow-x: auto">{wide}</div>'
    assert page(framed).svg_problems() == []
    defs_only = '<svg width="0" height="0"><defs><pattern id="p" width="4" height="4"/></defs></svg>'
    assert page(defs_only).svg_problems() == []


def test_svg_labels_past_the_edge_or_on_each_other_are_found(page: Open) -> None:
    def board(*labels: tuple[int, int, str]) -> str:
        texts = "".join(f'<text x="{x}" y="{y}" font-size="12">{t}</text>' for x, y, t in labels)
        return f'<svg width="120" height="60" aria-label="sea">{texts}</svg>'

    fine = page(board((5, 20, "gdansk"), (5, 45, "riga")))
    assert fine.labels_cut == [] and fine.labels_overlapping == []
    assert page(board((90, 20, "gulf-of-finland-east"))).labels_cut == ['"gulf-of-finland-east" in sea']
    on_top = page(board((5, 20, "arkona"), (20, 22, "oresund")))
    assert on_top.labels_overlapping == ['"arkona" and "oresund" in sea']


def test_text_under_11px_is_found_in_html_and_in_scaled_svg(page: Open) -> None:
    assert page('<p style="font-size: 10px">tiny</p>').small_text() == ['p "tiny" @ 10.0px']
    assert page('<p style="font-size: 11px">fine</p>').small_text() == []
    # 14 px text in an SVG drawn at half its size reads as 7 px
    halved = '<svg width="100" height="20" viewBox="0 0 200 40"><text y="20" font-size="14">cod</text></svg>'
    assert page(halved).small_text() == ['text "cod" @ 7.0px']
    whole = '<svg width="200" height="40" viewBox="0 0 200 40"><text y="20" font-size="14">cod</text></svg>'
    assert page(whole).small_text() == []
    assert page('<p style="font-size: 8px; display: none">unseen</p>').small_text() == []


def test_faint_text_is_found_against_the_background_behind_it(page: Open) -> None:
    seen = page(
        '<p style="color: #9aa4b1">grey on white</p>'
        '<div style="background: #1d2430"><p style="color: #5b6675">slate on ink</p></div>'
        '<div style="background: #1d2430"><p style="color: #ffffff">white on ink</p></div>'
    )
    assert [faint.split(" at ")[0] for faint in seen.faint_text()] == [
        'p "grey on white"',
        'p "slate on ink"',
    ]
    assert page('<p style="color: #5b6675">muted on white</p>').faint_text() == []


def test_faint_svg_text_is_found_against_the_shape_painted_under_it(page: Open) -> None:
    def label(text: str, ink: str, under: str = "#9aa7b5") -> str:
        return (
            f'<svg width="120" height="40"><rect width="120" height="40" fill="#ffffff"/>'
            f'<rect x="10" y="5" width="100" height="30" fill="{under}"/>'
            f'<text x="60" y="25" text-anchor="middle" font-size="14" fill="{ink}">{text}</text></svg>'
        )

    assert [f.split(" at ")[0] for f in page(label("5/3", "#ffffff")).faint_text()] == ['text "5/3"']
    assert page(label("5/3", "#11161d")).faint_text() == []
    # a symbol is a graphic: 3:1 will do (white on this grey is 2.4:1, on a darker grey 3.5:1)
    assert page(label("★", "#ffffff")).faint_text() != []
    assert page(label("★", "#ffffff", under="#808890")).faint_text() == []
    assert page(label("5/3", "#ffffff", under="#808890")).faint_text() != []
    pattern = (
        '<svg width="120" height="40"><defs><pattern id="p" width="4" height="4" '
        'patternUnits="userSpaceOnUse"><rect width="4" height="4" fill="#eee"/></pattern></defs>'
        '<rect width="120" height="40" fill="url(#p)"/>'
        '<text x="10" y="25" font-size="14" fill="#ffffff">on sand</text></svg>'
    )
    assert page(pattern).faint_text() == []  # a pattern's colours are not known: not judged


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('<p id="target" style="visibility: hidden">seat</p>', "hidden"),
        ('<p id="target" style="opacity: 0">seat</p>', "hidden"),
        ('<div style="display: none"><p id="target">seat</p></div>', "hidden"),
        ('<p id="target" style="margin-left: 500px; width: 100px">seat</p>', "sticks out"),
        ('<div style="height: 5px; overflow: hidden"><p id="target">seat</p></div>', "cut off"),
    ],
)
def test_an_element_a_player_must_read_is_unreadable_when_hidden_or_cut_off(
    page: Open,
    body: str,
    why: str,
) -> None:
    [target] = page(body).shown["#target"]
    assert not target.readable
    assert {
        "hidden": not target.visible,
        "sticks out": not target.inside,
        "cut off": bool(target.clipped_by),
    }[why]


def test_a_missing_chromium_fails_and_names_the_install_script(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"scripts/system-deps\.sh"):
        require_chromium(tmp_path / "chromium")
    require_chromium(CHROMIUM)
