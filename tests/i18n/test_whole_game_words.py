"""A whole game of each game, read in Hungarian and in Chinese, holds no English word and (Chinese) no
Latin letters inside Chinese text: every report of ``pbem demo --lang`` (text with its order template,
and the HTML page), scanned line by line by the foreign-word scanners (tests/i18n/foreign.py). What
may stay Latin is what a player writes or reads as a name: the order grammar, ids, the seats, the
map's places, the reef boards' letters and a title no edition translates."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from games.mare_balticum.board import BOARD
from pbem.cli.demo import run_demo
from pbem.core import i18n
from tests.i18n.foreign import english_words, latin_in_chinese

#: each game, its players, and the names a reader meets as names (beside the seats and the game id)
GAMES = {
    "reef-encounter": (4, ("A", "B", "C", "D")),  # the reef boards
    "mare-balticum": (
        3,
        ("Mare", "Balticum", *BOARD.spaces, *(s for n in BOARD.spaces for s in n.split("-"))),
    ),
    "coral-divers": (2, ("Coral", "Divers")),
}
SEATS = ("alice", "bob", "carol", "dave", "demo-1")


def _page_text(page: str) -> str:
    """The words of an HTML report, a block of the page a line (styles and scripts left out)."""
    page = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", page)
    page = re.sub(r"<(?:br|p|/p|tr|/tr|li|/li|div|/div|h\d|/h\d)\b[^>]*>", "\n", page)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _foreign(text: str, lang: str, allowed: tuple[str, ...]) -> list[tuple[str, str]]:
    found = []
    for line in text.splitlines():  # a line at a time: a word is on one line, and so is a YAML line
        words = english_words(line, lang, allowed=allowed)
        if lang == "zh":
            words += latin_in_chinese(line, allowed=allowed)
        found += [(word, line.strip()) for word in words]
    return found


@pytest.mark.parametrize(
    ("game", "lang"),
    [
        pytest.param(game, lang, marks=[] if game == "coral-divers" else [pytest.mark.slow])
        for game in GAMES
        for lang in ("hu", "zh")
    ],
)
def test_a_whole_game_reads_without_english(tmp_path: Path, game: str, lang: str) -> None:
    players, names = GAMES[game]
    i18n.reload()
    run_demo(game_type=game, players=players, seed=5, out=tmp_path, say=lambda _line: None, language=lang)
    reports = sorted(tmp_path.glob("*/turn-*.txt")) + sorted(tmp_path.glob("*/turn-*.html"))
    assert len(reports) > 40
    found: dict[tuple[str, str], int] = {}
    for report in reports:
        text = report.read_text(encoding="utf-8")
        text = _page_text(text) if report.suffix == ".html" else text
        for hit in _foreign(text, lang, (*SEATS, *names)):
            found[hit] = found.get(hit, 0) + 1
    assert not found, f"{game} in {lang}: foreign words (word, line): {sorted(found)[:12]}"
