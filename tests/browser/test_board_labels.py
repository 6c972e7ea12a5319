"""Every label drawn on a board's space stays inside that space, in every language the host speaks.

A space of a board drawing (a ``<g data-sprite="x y w h">``) is drawn for the mail's picture within its
box alone (:mod:`pbem.render.pictures`), so a word wider than its space is cut there ("pontozv" for the
Hungarian "pontozva"); on the web page it runs into the next space. The words are the translators', so
the check runs every language, in Chromium with the picture's own font (DejaVu Sans, wider than the
Arial a browser finds for the page).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browser.played import GAMES, NAMES, play
from pbem.core import i18n, registry
from pbem.render.pictures import LATIN_FONTS
from pbem.render.reports import context
from pbem.render.tables import render

#: the font resvg draws the mail's pictures with (pbem.render.pictures), forced on the page's drawings
PICTURE_FONT = "svg text { font-family: 'DejaVu Sans' !important; }"
#: how far a label may reach past its space: antialiasing, not a cut a reader sees
SLACK_PX = 0.5

# Each label of a space, against the space's box mapped to the page as the drawing is shown
_ESCAPING = """
(slack) => {
  const out = [];
  for (const g of document.querySelectorAll('svg [data-sprite]')) {
    const svg = g.ownerSVGElement, m = svg.getScreenCTM();
    const [x, y, w, h] = g.getAttribute('data-sprite').split(' ').map(Number);
    const at = (a, b) => { const p = svg.createSVGPoint(); p.x = a; p.y = b; return p.matrixTransform(m); };
    // a box overlaps its neighbours' by a pixel each side (borders drawn twice): a label there is
    // drawn over by the next space
    const from = at(x + 1, y + 1), to = at(x + w - 1, y + h - 1);
    for (const t of g.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const r = t.getBoundingClientRect();
      const over = Math.max(from.x - r.left, r.right - to.x, from.y - r.top, r.bottom - to.y);
      if (over > slack) out.push(`"${t.textContent.trim()}" by ${over.toFixed(1)} px`);
    }
  }
  return [...new Set(out)];
}
"""


@pytest.fixture(scope="module")
def page(browser: Browser) -> Page:
    return browser.new_page()


#: the bot games looked at: each game at its fewest and most players, from three seeds (what is left
#: face down at the end, and so named on the board, differs from game to game)
SEEDS = (1, 2, 3)


@pytest.fixture(scope="module")
def histories() -> dict[str, list[list[tuple[Any, list[Any]]]]]:
    """Every state of each game's bot games (:data:`SEEDS`, fewest and most players)."""
    found: dict[str, list[list[tuple[Any, list[Any]]]]] = {}
    for name in GAMES:
        game = registry.get_game(name)
        found[name] = [
            play(name, list(NAMES[:count]), seed)
            for count in sorted({game.min_players, game.max_players})
            for seed in SEEDS
        ]
    return found


def escaping(page: Page, html: str) -> list[str]:
    page.set_content(html)
    page.add_style_tag(content=PICTURE_FONT)
    return page.evaluate(_ESCAPING, SLACK_PX)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("game_name", GAMES)
def test_no_label_reaches_out_of_its_space(
    page: Page, histories: dict[str, list[list[tuple[Any, list[Any]]]]], game_name: str, lang: str
) -> None:
    game = registry.get_game(game_name)
    found: dict[str, list[str]] = {}
    for played, history in enumerate(histories[game_name]):
        # the middle of a game and its end, where the most is scored and every token turned
        for turn in (len(history) // 2, len(history) - 1):
            state, events = history[turn]
            with i18n.language(lang):
                html = render(game_name, "html", context(game, "look-1", state, turn, NAMES[0], events))
            assert "data-sprite" in html  # its spaces are marked, or the check would see nothing
            found[f"game {played}, turn {turn}"] = escaping(page, html)
    assert {moment: labels for moment, labels in found.items() if labels} == {}


def test_the_check_sees_a_label_wider_than_its_space(page: Page) -> None:
    wide = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60">'
        '<g data-sprite="10 10 40 40" transform="translate(10 10)">'
        '<text x="20" y="30" text-anchor="middle" font-size="11">pontozva-pontozva</text></g>'
        '<g data-sprite="60 10 40 40" transform="translate(60 10)">'
        '<text x="20" y="30" text-anchor="middle" font-size="11">ok</text></g></svg>'
    )
    assert [problem.split(" by ")[0] for problem in escaping(page, wide)] == ['"pontozva-pontozva"']
    assert LATIN_FONTS[0] == "DejaVuSans.ttf"  # the font forced above is the pictures' own
