"""The archive page (``pbem archive``) of every game in headless Chromium, opened from disk: the slider
goes to every turn, the buttons and arrow keys step, play moves on by itself and pause stops it, each
turn shows that turn's report (its board changing as the game goes), the final scores are there, the
archive downloads, a finished game's seats can be switched, a running game's page shows the public
table only, and the page asks the network for nothing.
"""

from __future__ import annotations

import base64
import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser, Page
from sqlmodel import Session, select

from pbem.archive import files
from pbem.archive.page import write_page
from pbem.cli.demo import play_bots
from pbem.core import registry
from pbem.core.codec import unpack_json
from pbem.core.game import Event
from pbem.play.status import status
from pbem.render import reports
from pbem.storage.db import connect
from pbem.storage.models import TurnRow

GAMES = ["reef-encounter", "mare-balticum", "coral-divers"]
BOARD = {
    "reef-encounter": 'svg[aria-label^="reef board"]',
    "mare-balticum": 'svg[aria-label="map of the Baltic Sea"]',
    "coral-divers": 'svg[aria-label="Coral Divers sea floor"]',
}
RUNNING_TURNS = 4


class Opened:
    """A page opened from disk, with every request it made."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.page: Page = browser.new_page(viewport={"width": 1100, "height": 900}, accept_downloads=True)
        self.requests: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready=yes]", timeout=20_000)

    def turn(self) -> int:
        return int(self.page.evaluate("document.body.dataset.turn"))

    def shown(self) -> str:
        """The report the frame shows now."""
        return self.page.eval_on_selector("#report", "frame => frame.srcdoc")

    def board(self, game: str) -> str:
        return self.page.frame_locator("#report").locator(BOARD[game]).first.evaluate("e => e.outerHTML")

    def network(self) -> list[str]:
        """Every request but the page's own file and the archive download's blob."""
        return [url for url in self.requests if url != self.url and not url.startswith("blob:")]


def expected_pages(db: str, game_id: str, seat: str | None) -> list[str]:
    """Each turn's report of ``seat`` as the page must show it, rendered here from the stored turns."""
    engine = connect(db)
    [entry] = status(engine, game_id)
    game = registry.require(entry["game_type"])
    with Session(engine) as session:
        rows = session.exec(select(TurnRow).where(TurnRow.game_id == game_id).order_by(TurnRow.number))
        pages = []
        for row in rows:
            state = game.load_state(unpack_json(row.state_z))
            events = [Event(e["text"], e["to"], e["data"]) for e in unpack_json(row.events_z)]
            ctx = reports.context(game, game_id, state, row.number, seat, events)
            ctx["order_template"] = None
            pages.append(reports.render(game.name, "html", ctx))
    return pages


def packed(page: str) -> dict:
    """What the page carries, unpacked as its script does."""
    start = page.index('<script type="application/octet-stream" id="pbem-data">')
    text = page[page.index(">", start) + 1 : page.index("</script>", start)]
    return json.loads(zlib.decompress(base64.b64decode(text)))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, Path, Path]]:
    """Per game: the database, the page of a finished bot game and that of a game still running."""
    made = {}
    for name in GAMES:
        folder = tmp_path_factory.mktemp(name)
        db = f"sqlite:///{folder / 'games.sqlite'}"
        engine = connect(db)
        game = registry.require(name)
        play_bots(engine, name, "done", game.min_players, 5)
        play_bots(engine, name, "running", game.min_players, 6, turns=RUNNING_TURNS)
        write_page(engine, "done", folder / "done.html")
        write_page(engine, "running", folder / "running.html")
        made[name] = (db, folder / "done.html", folder / "running.html")
    return made


@pytest.fixture()
def opened(browser: Browser) -> Iterator[list[Opened]]:
    pages: list[Opened] = []
    yield pages
    for page in pages:
        page.page.close()


@pytest.mark.parametrize("name", GAMES)
def test_the_slider_shows_every_turn_and_the_board_changes(
    name: str, browser: Browser, played: dict, opened: list[Opened]
) -> None:
    db, done, _running = played[name]
    view = Opened(browser, done)
    opened.append(view)
    expected = expected_pages(db, "done", None)
    boards = []
    for turn in range(len(expected)):
        view.page.locator("#slider").fill(str(turn))
        assert view.turn() == turn
        assert view.page.locator("#turn-label").text_content() == f"Turn {turn} of {len(expected) - 1}"
        assert view.shown() == expected[turn]
        boards.append(view.board(name))
    assert len(set(boards)) > len(boards) // 4, "the board hardly ever changed"
    assert boards[0] != boards[-1]
    if os.environ.get("PBEM_SHOTS"):
        view.page.screenshot(path=str(Path(os.environ["PBEM_SHOTS"]) / f"archive-{name}.png"))
    assert view.network() == []


@pytest.mark.parametrize("name", GAMES)
def test_keys_buttons_and_play_step_through_the_turns(
    name: str, browser: Browser, played: dict, opened: list[Opened]
) -> None:
    db, done, _running = played[name]
    view = Opened(browser, done)
    opened.append(view)
    expected = expected_pages(db, "done", None)
    page = view.page
    assert view.turn() == 0
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert view.turn() == 2 and view.shown() == expected[2]
    page.keyboard.press("ArrowLeft")
    assert view.turn() == 1 and view.shown() == expected[1]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # no turn before the setup
    assert view.turn() == 0
    page.click("#next")
    assert view.turn() == 1
    page.click("#prev")
    assert view.turn() == 0
    page.locator("#slider").fill(str(len(expected) - 1))
    page.keyboard.press("ArrowRight")  # none after the last
    assert view.turn() == len(expected) - 1
    page.locator("#slider").fill("3")
    page.click("#play")
    page.wait_for_selector('body[data-turn="5"]', timeout=10_000)
    page.click("#play")  # pause
    stopped = view.turn()
    page.wait_for_timeout(2_600)
    assert view.turn() == stopped
    assert view.shown() == expected[stopped]
    assert view.network() == []


@pytest.mark.parametrize("name", GAMES)
def test_a_finished_game_shows_scores_every_seat_and_its_archive(
    name: str, browser: Browser, played: dict, opened: list[Opened]
) -> None:
    db, done, _running = played[name]
    view = Opened(browser, done)
    opened.append(view)
    page = view.page
    [entry] = status(connect(db), "done")
    rows = page.locator("#scores tr").evaluate_all("rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert rows[1:] == [[str(entry["places"][s]), s, str(entry["scores"][s])] for s in entry["ranking"]]
    seats = page.locator("#seat option").evaluate_all("os => os.map(o => o.value)")
    assert seats == ["", *entry["seats"]]
    for seat in seats[1:]:
        page.select_option("#seat", seat)
        page.locator("#slider").fill("2")
        assert view.shown() == expected_pages(db, "done", seat)[2]
        own = page.frame_locator("#report").locator("section.private")
        assert own.count() >= 1 and own.first.is_visible()
    with page.expect_download() as download:
        page.click("#download")
    got = Path(download.value.path()).read_text(encoding="utf-8")
    assert got == files.public_archive(connect(db), "done")
    assert "@example.org" not in got  # a page a host may serve to the world: no one's address
    assert [p["seat"] for p in yaml.safe_load(got)["players"]] == entry["seats"]
    assert view.network() == []


@pytest.mark.parametrize("name", GAMES)
def test_a_running_game_shows_the_public_table_only(
    name: str, browser: Browser, played: dict, opened: list[Opened]
) -> None:
    db, _done, running = played[name]
    text = running.read_text(encoding="utf-8")
    view = Opened(browser, running)
    opened.append(view)
    page = view.page
    expected = expected_pages(db, "running", None)
    assert len(expected) == RUNNING_TURNS + 1
    assert page.locator("#seat").count() == 0
    assert page.locator("#download").count() == 0
    assert page.locator("#scores").count() == 0
    assert page.frame_locator("#report").locator("section.private").count() == 0
    page.locator("#slider").fill(str(RUNNING_TURNS + 5))  # the slider ends at the last turn played
    assert view.turn() == RUNNING_TURNS and view.shown() == expected[RUNNING_TURNS]
    assert set(packed(text)) == {"lines", "pages", "events"}  # no archive: its seed tells the future
    assert list(packed(text)["pages"]) == [""]
    assert view.network() == []
