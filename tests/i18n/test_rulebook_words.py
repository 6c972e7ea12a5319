"""A glossary word marked ``from: rulebook`` is the rulebook's: each is checked against the sentence of
that rulebook which uses it (``games/<g>/data/glossary/rulebook-quotes.yaml``, committed, so the check
runs where the rulebooks are not), and each sentence against the rulebook itself where its text is at
hand (``shared/seeds/`` beside the checkout)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pbem.core.glossary import Glossary, load_glossary

GAMES_DIR = Path(__file__).resolve().parents[2] / "games"
GAMES = ("reef_encounter", "mare_balticum", "coral_divers")


def _quotes(game: str) -> dict[str, Any]:
    return yaml.safe_load(
        (GAMES_DIR / game / "data" / "glossary" / "rulebook-quotes.yaml").read_text("utf-8")
    )


def _glossary(game: str) -> Glossary:
    return load_glossary(GAMES_DIR / game / "data" / "glossary")


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[\s\-\"'„”“]+", text.casefold()) if t]


def is_form_of(form: str, word: str) -> bool:
    """Whether ``form`` is ``word`` inflected: word by word, each keeps all of the word's letters but
    its last two and adds at most four (``larvy`` of ``larva``, ``otevřeného moře`` of ``otevřené
    moře``); Chinese does not inflect, so a Chinese word must stand as it is."""
    mine, theirs = _tokens(form), _tokens(word)
    if len(mine) != len(theirs) or (_CJK.search(word) and form != word):
        return False
    return all(
        f.startswith(w[: max(2, len(w) - 2)]) and len(f) <= len(w) + 4
        for f, w in zip(mine, theirs, strict=True)
    )


_CJK = re.compile(r"[\u3400-\u9fff]")


def test_is_form_of_tells_an_inflection_from_another_word() -> None:
    assert is_form_of("otevřeného moře", "otevřené moře")
    assert is_form_of("рыбы-клоуна", "рыба-клоун")
    assert not is_form_of("elfogyasztott polip", "megevett polip")
    assert not is_form_of("海藻圆柱", "海藻")


@pytest.mark.parametrize("game", GAMES)
def test_every_rulebook_word_stands_in_its_rulebook_sentence(game: str) -> None:
    glossary, quotes = _glossary(game), _quotes(game)
    for lang, terms in glossary.terms.items():
        claimed = {key for key, term in terms.items() if term.origin == "rulebook"}
        entry = quotes.get(lang) or {"seed": "", "terms": {}}
        assert set(entry["terms"]) == claimed, f"{game} {lang}: quotes and 'from: rulebook' terms differ"
        if claimed:
            assert entry["seed"] in glossary.sources[lang], f"{game} {lang}: another seed"
        for key, quote in entry["terms"].items():
            word = terms[key].word
            said = quote.get("as", word)
            assert said.casefold() in quote["quote"].casefold(), f"{game} {lang} {key}: {said!r} unquoted"
            assert said == word or is_form_of(said, word), f"{game} {lang} {key}: {said!r} is not {word!r}"


def _seeds() -> Path | None:
    for folder in Path(__file__).resolve().parents:
        if (folder / "shared" / "seeds").is_dir():
            return folder / "shared" / "seeds"
    return None


def _plain(text: str) -> str:
    return " ".join(text.split())


def test_every_quote_is_the_rulebooks_text_where_the_rulebooks_are_at_hand() -> None:
    seeds = _seeds()
    checked = 0
    for game in GAMES:
        for lang, entry in _quotes(game).items():
            if seeds is None:
                continue  # a checkout without shared/: the quotes stand for the rulebooks
            text = _plain((seeds / entry["seed"]).read_text("utf-8"))
            for key, quote in entry["terms"].items():
                for part in filter(None, (p.strip() for p in quote["quote"].split("…"))):
                    assert part in text, f"{game} {lang} {key}: not in {entry['seed']}: {part!r}"
                    checked += 1
    assert checked > 0 or seeds is None
