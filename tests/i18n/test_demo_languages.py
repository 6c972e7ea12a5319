"""``pbem demo --lang``: a whole game played through the pipeline, every report in that language,
with the game's own words (its prompts, its rules' sentences) from the real catalogs."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from pbem.cli.demo import run_demo
from pbem.core import catalogs, i18n
from tests.host.conftest import run_pbem

# a sentence every report of a Coral Divers seat whose turn it is shows, in each language
YOUR_TURN = {
    "hu": "Te következel: ültetés",
    "cs": "Jste na tahu: sázení",
    "zh": "轮到你了：种植",
    "ru": "Ваш ход: «Посадка»",
}
ENGLISH = "Your turn: Plant (take a nursery line and place its tiles) or Surface (close reefs)."


@pytest.mark.parametrize("lang", sorted(YOUR_TURN))
def test_demo_in_a_language_writes_every_report_in_it(tmp_path: Path, lang: str) -> None:
    i18n.reload()
    started = time.monotonic()
    run_demo(game_type="coral-divers", players=2, seed=3, out=tmp_path, say=lambda _line: None, language=lang)
    texts = [p.read_text(encoding="utf-8") for p in sorted(tmp_path.glob("*/turn-*.txt"))]
    assert len(texts) > 10
    # one seat of two acts each turn; a third of the reports (seats and public) say whose turn it is
    assert sum(YOUR_TURN[lang] in t for t in texts) >= len(texts) // 4
    assert not any(ENGLISH in t for t in texts)
    assert time.monotonic() - started < 300


def test_demo_refuses_an_unknown_language(tmp_path: Path) -> None:
    ran = run_pbem("demo", "--game", "pearl-dive", "--lang", "xx", "--out", str(tmp_path))
    assert ran.returncode == 1
    assert "unknown language 'xx': use one of en, hu, cs, zh, ru" in ran.stderr + ran.stdout
    assert "Traceback" not in ran.stderr


def _english_sentences() -> set[str]:
    """The fixed words of every message the code has now, a game's terms aside (a fresh extraction, so
    a sentence written since the catalogs were last made is looked for too; both forms of a counted
    one): the longest run between placeholders, long enough that finding one in a report means it was
    left in English."""
    found: set[str] = set()
    for package in catalogs.packages():
        for message in catalogs.extracted(package):
            if message.context is not None:
                continue  # a game's term (a title: Mare Balticum): its word is the glossary's, on purpose
            forms = message.id if isinstance(message.id, tuple) else (message.id,)
            for form in filter(None, forms):
                parts = [p.strip() for p in re.split(r"\{[^{}]*\}|%\([^)]*\)s", form)]
                longest = max(parts, key=len)
                if len(longest) >= 12:
                    found.add(longest)
    return found


GAMES = {"coral-divers": 2, "reef-encounter": 2, "mare-balticum": 3}


@pytest.mark.parametrize(
    ("game", "lang"),
    [
        pytest.param(g, lang, marks=[] if g == "coral-divers" else [pytest.mark.slow])
        for g in GAMES
        for lang in sorted(YOUR_TURN)
    ],
)
def test_no_report_of_a_whole_game_keeps_an_english_message(tmp_path: Path, game: str, lang: str) -> None:
    i18n.reload()
    run_demo(game_type=game, players=GAMES[game], seed=5, out=tmp_path, say=lambda _line: None, language=lang)
    texts = [p.read_text(encoding="utf-8") for p in sorted(tmp_path.glob("*/turn-*.*"))]
    assert len(texts) > 20
    english = _english_sentences()
    left = sorted({s for s in english for t in texts if s in t})
    assert not left, f"{game} in {lang}: English left in the reports: {left[:10]}"
