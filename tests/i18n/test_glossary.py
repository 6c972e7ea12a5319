"""Each game's glossary: every language has every term, words from the rulebook name it, and a broken
file is refused with a message naming the file and the term."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import games.coral_divers
import games.mare_balticum
import games.reef_encounter
from pbem.core.glossary import GlossaryError, load_glossary
from pbem.core.i18n import LANGUAGES

GAMES = {
    "reef_encounter": games.reef_encounter,
    "mare_balticum": games.mare_balticum,
    "coral_divers": games.coral_divers,
}
GAME_DIR = Path(games.reef_encounter.__file__).resolve().parent.parent


@pytest.mark.parametrize("name", GAMES)
def test_every_language_has_every_term(name: str) -> None:
    glossary = GAMES[name].GLOSSARY  # loaded and checked when the game was imported
    assert set(glossary.terms) == set(LANGUAGES)
    for lang in LANGUAGES:
        assert list(glossary.terms[lang]) == glossary.keys(), lang
        assert all(t.word for t in glossary.terms[lang].values())


# the rulebooks of shared/seeds/ (README.md there): which language each game has one in
RULEBOOKS = {
    "reef_encounter": {
        "hu": "000_3be1c3ec0a5fce24",
        "zh": "001_b6a8a105b9a701f7",
        "cs": "003_82d255eb30b1371e",
    },
    "mare_balticum": {"hu": "002_4416865070ddf1ca"},
    "coral_divers": {"ru": "004_1d51d6d2c99a7801"},
}


@pytest.mark.parametrize("name", GAMES)
def test_words_come_from_the_rulebook_of_that_language_where_there_is_one(name: str) -> None:
    glossary = GAMES[name].GLOSSARY
    for lang in LANGUAGES[1:]:
        origins = {t.origin for t in glossary.terms[lang].values()}
        if lang in RULEBOOKS[name]:
            assert RULEBOOKS[name][lang] in glossary.sources[lang]
            assert "rulebook" in origins, (name, lang)
        else:
            assert origins == {"translated"}, (name, lang)  # said so, term by term


def test_the_box_words() -> None:
    reef, baltic, divers = (GAMES[g].GLOSSARY for g in GAMES)
    assert reef.word("parrotfish", "hu") == "papagájhal"
    assert reef.word("parrotfish", "cs") == "ploskozubec"
    assert reef.word("parrotfish", "zh") == "鹦哥鱼"
    assert reef.word("shrimp", "cs") == "kreveta"
    assert baltic.word("warehouse", "hu") == "raktár"
    assert baltic.word("demand-token", "hu") == "kereslet zseton"
    assert divers.word("nursery", "ru") == "подводный питомник"
    assert divers.word("diver", "ru") == "водолаз"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    folder = tmp_path / "glossary"
    shutil.copytree(GAME_DIR / "reef_encounter" / "data" / "glossary", folder)
    return folder


def test_a_missing_term_is_named(copy: Path) -> None:
    path = copy / "cs.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("  shrimp: {word: kreveta, from: rulebook}\n", "")
    )
    with pytest.raises(GlossaryError, match=r"cs\.yaml: lacks the term\(s\) shrimp"):
        load_glossary(copy)


def test_a_missing_language_is_named(copy: Path) -> None:
    (copy / "zh.yaml").unlink()
    with pytest.raises(GlossaryError, match=r"zh\.yaml: missing"):
        load_glossary(copy)


def test_an_unknown_origin_is_refused(copy: Path) -> None:
    path = copy / "ru.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "{word: креветка, from: translated}", "{word: креветка, from: guess}"
        )
    )
    with pytest.raises(GlossaryError, match="term 'shrimp': 'from:' must be one of"):
        load_glossary(copy)
