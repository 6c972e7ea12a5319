"""Every game's report mail as Gmail shows it, in headless Chromium: the mail parsed back with ``email``,
sanitised as Gmail and Outlook do (no ``<svg>``, ``<style>`` or ``<script>``, only the CSS properties
they keep), its ``cid:`` pictures resolved. The seat's every hidden holding and every public piece must
be there as words, each board picture must load and be wider than 300 px, and nothing may stick out
sideways at 375 px."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browser.mailview import as_gmail_shows, parse, unsupported
from browser.played import play
from pbem.core import registry
from pbem.outbox import compose
from pbem.outbox.settings import MailSettings
from pbem.render.reports import context
from pbem.render.tables import render

SEATS = ["alice", "bob", "carol", "dave"]
GAMES = ["reef-encounter", "mare-balticum", "coral-divers"]
SETTINGS = MailSettings(from_addr="host@example.org")
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def reef_facts(view: dict[str, Any], seat: str) -> list[str]:
    facts = []
    for board in view["boards"]:
        for row in board["rows"]:
            for space, _kind, polyp, shrimp, _colour in row:  # games/reef_encounter/view.py's Cell
                if polyp:
                    facts.append(f"{space[1:]} {polyp}")
                if shrimp:
                    facts.append(f"{space[1:]} {shrimp}")
    for space in view["open_sea"]:
        facts.append(f"polyps: {', '.join(space['polyps'])}" if space["polyps"] else "polyps: none")
    for tile in view["tiles"]:
        facts.append(f"{tile['strong']} beats {tile['weak']}")
    me = view["me"]
    for holding in ("screen", "parrotfish", "larvae"):
        counts = [f"{c} {n}" for c, n in me[holding].items() if n]  # "grey 4", as the text report says
        facts.append(", ".join(counts) if counts else "none")
    return facts


def baltic_facts(view: dict[str, Any], seat: str) -> list[str]:
    facts = []
    for area in view["areas"]:
        facts.append(area["name"])
        facts += [f"{', '.join(area['goods'])}"] if area["goods"] else []
        facts += [", ".join(area["ships"])] if area["ships"] else []
        facts.append(", ".join(area["adjacent"]))
    me = view["players"][seat]
    for goods in (me["hold"], me["warehouse"]):
        for good in set(goods):
            facts.append(
                f"{good} ×{goods.count(good)}"
            )  # "cod ×2": a count beside the word reads in every language
    facts += [fish for fish in me["market"]]
    facts.append(", ".join(me["tokens"]) or "none")
    return facts


def divers_facts(view: dict[str, Any], seat: str) -> list[str]:
    facts = []
    for row in view["board"]:
        for cell in row:
            if cell["tile"]:
                facts.append(f"{cell['at']} {cell['tile']['coral']} ({cell['owner'] or 'neutral'})")
            if cell["diver"]:
                facts.append(f"{cell['owner']}'s diver")
            if cell["token"]:
                facts.append(f"{cell['at']} ")
    me = next(p for p in view["players"] if p["seat"] == seat)
    facts.append(f"{me['coins']} coins")
    facts += me["shells"]
    return facts


FACTS = {"reef-encounter": reef_facts, "mare-balticum": baltic_facts, "coral-divers": divers_facts}


def report_mail(
    game_name: str, *, last: bool = False, lang: str | None = None, dice: dict[str, Any] | None = None
) -> tuple[bytes, dict[str, Any], str]:
    """(mail bytes, the seat's view, the seat) of the first seat after the middle turn of a bot game
    (``last``: after its last turn, the game over and scored), in ``lang`` (default: English), with
    ``dice`` (:func:`pbem.core.dice.report_data`) when given."""
    from pbem.core import i18n

    game = registry.get_game(game_name)
    seats = SEATS[: game.max_players]
    history = play(game_name, seats)
    turn = len(history) - 1 if last else len(history) // 2
    state, events = history[turn]
    seat = seats[0]
    with i18n.language(lang):
        ctx = context(game, "look-1", state, turn, seat, events, dice=dice)
        raw = compose.report_mail(
            SETTINGS,
            to=f"{seat}@example.org",
            key=f"report:look-1:0:{turn}:{seat}",
            game_id="look-1",
            turn=turn,
            seat=seat,
            text=render(game_name, "txt", ctx),
            html=render(game_name, "html", ctx),
            now=NOW,
        )
    return raw, ctx["view"], seat


@pytest.fixture(scope="module", params=GAMES)
def mail(request: pytest.FixtureRequest) -> tuple[str, bytes, dict[str, Any], str]:
    return (request.param, *report_mail(request.param))


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    # offline: a mail that fetched anything from outside would fail here
    context = browser.new_context(offline=True)
    yield context.new_page()
    context.close()


def show(page: Page, raw: bytes, width: int, tmp_path: Path) -> None:
    path = tmp_path / f"mail-{width}.html"
    path.write_text(as_gmail_shows(raw), encoding="utf-8")
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(path.as_uri())
    page.wait_for_load_state("load")


def test_the_mail_html_uses_nothing_gmail_or_outlook_drops(mail: tuple[str, bytes, dict, str]) -> None:
    _game, raw, _view, _seat = mail
    _msg, html, _pictures = parse(raw)
    assert unsupported(html) == []
    assert 'src="http' not in html and "<link" not in html and "@import" not in html


def test_every_piece_and_holding_is_there_in_words(
    mail: tuple[str, bytes, dict, str], page: Page, tmp_path: Path
) -> None:
    game, raw, view, seat = mail
    show(page, raw, 600, tmp_path)
    # what the page shows with every picture turned off: the words alone
    page.evaluate("document.querySelectorAll('img').forEach(i => i.remove())")
    shown = " ".join(page.inner_text("body").split())
    missing = [fact for fact in FACTS[game](view, seat) if fact not in shown]
    assert missing == []


def test_each_board_picture_loads_and_is_wider_than_300_px(
    mail: tuple[str, bytes, dict, str], page: Page, tmp_path: Path
) -> None:
    _game, raw, _view, _seat = mail
    _msg, html, pictures = parse(raw)
    assert pictures, "each game's report draws its board"
    assert html.count('src="cid:') == len(pictures)
    show(page, raw, 600, tmp_path)
    images = page.eval_on_selector_all(
        "img", "els => els.map(e => ({ok: e.complete, w: e.naturalWidth, alt: e.alt, shown: e.width}))"
    )
    assert len(images) == len(pictures)
    for image in images:
        assert image["ok"] and image["w"] > 300, image
        assert image["alt"], image


def test_nothing_sticks_out_sideways_at_375_px(
    mail: tuple[str, bytes, dict, str], page: Page, tmp_path: Path
) -> None:
    _game, raw, _view, _seat = mail
    assert_fits(page, raw, tmp_path)


@pytest.mark.parametrize("lang", ["en", "hu", "cs", "zh", "ru"])
@pytest.mark.parametrize("game_name", GAMES)
def test_the_last_report_sticks_out_nowhere_at_375_px(
    game_name: str, lang: str, page: Page, tmp_path: Path
) -> None:
    # the game over: the outcome and the final scoring (Mare Balticum's once had nine columns, Coral
    # Divers' seven of Hungarian headings), in every language a player reads
    raw, _view, _seat = report_mail(game_name, last=True, lang=lang)
    assert_fits(page, raw, tmp_path)


@pytest.mark.parametrize("lang", ["hu", "cs", "zh", "ru"])
@pytest.mark.parametrize("game_name", GAMES)
def test_a_report_in_play_sticks_out_nowhere_at_375_px_in_any_language(
    game_name: str, lang: str, page: Page, tmp_path: Path
) -> None:
    # Coral Divers' nursery once made the Hungarian mail 442 px wide ('szarvasagancs-korall' four times)
    raw, _view, _seat = report_mail(game_name, lang=lang)
    assert_fits(page, raw, tmp_path)


def assert_fits(page: Page, raw: bytes, tmp_path: Path) -> None:
    show(page, raw, 375, tmp_path)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    out = page.evaluate(
        """() => [...document.body.querySelectorAll('*')]
            .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
            .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 40))"""
    )
    assert out == []


def test_the_sanitiser_drops_what_gmail_drops() -> None:
    html = (
        '<style>p{}</style><svg><rect/></svg><p style="display:flex;color:#111;gap:2px;fill:var(--x)">a</p>'
    )
    assert unsupported(html) == [
        "<style>p{}</style>",
        "<svg><rect/></svg>",
        "display:flex",
        "gap:2px",
        "fill:var(--x)",
    ]


def test_the_facts_looked_for_are_many(mail: tuple[str, bytes, dict, str]) -> None:
    game, _raw, view, seat = mail
    assert len(FACTS[game](view, seat)) > 20  # the board's pieces and the seat's holdings, not a token few


@pytest.mark.parametrize("lang", ["hu", "en"])
def test_the_dice_line_breaks_its_hash_not_its_words_at_375_px(lang: str, page: Page, tmp_path: Path) -> None:
    """The commitment (64 hex digits) must break anywhere to fit a phone; the sentence around it must
    break between words only (it once broke 'nyil-vános' and 'r-ögzítéssel' mid-word)."""
    from pbem.core.dice import report_data

    dice = report_data(2, 123456789, over=True)
    raw, _view, _seat = report_mail("coral-divers", last=True, lang=lang, dice=dice)
    assert_fits(page, raw, tmp_path)
    broken = page.evaluate(
        """() => {
            const line = document.querySelector('.dice');
            const found = [];
            const walk = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
            for (let node = walk.nextNode(); node; node = walk.nextNode()) {
                if (node.parentElement.closest('code')) continue;
                for (const m of node.data.matchAll(/\\S+/g)) {
                    const range = document.createRange();
                    range.setStart(node, m.index);
                    range.setEnd(node, m.index + m[0].length);
                    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
                    if (tops.size > 1) found.push(m[0]);
                }
            }
            return found;
        }"""
    )
    assert broken == []
    assert (
        page.evaluate("document.querySelector('.dice code').getClientRects().length") > 1
    )  # the hash did break
