"""A clause made by T_ inside another T_ sentence (an event inside an event) is translated with it,
also after the event was stored and loaded again."""

from __future__ import annotations

import io
import json

import pytest

from pbem.core import i18n
from pbem.core.game import Event
from pbem.core.i18n import T_, Text
from pbem.storage.history import dump_events, load_event

WORDS = {
    "{seat} planted: {clauses}": "{seat} ültetett: {clauses}",
    "used a pearl (+{coins} coins)": "gyöngyöt használt (+{coins} érme)",
}


@pytest.fixture
def catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    # a stand-in catalog, so the test does not depend on which catalog entries are filled in yet
    monkeypatch.setattr(i18n, "gettext", lambda message: WORDS.get(message, message))


def sentence() -> Text:
    return T_("{seat} planted: {clauses}", seat="ann", clauses=T_("used a pearl (+{coins} coins)", coins=2))


def test_the_english_words_stay_as_they_were() -> None:
    assert sentence() == "ann planted: used a pearl (+2 coins)"


def test_a_nested_clause_is_translated_with_its_sentence(catalog: None) -> None:
    assert i18n._(sentence()) == "ann ültetett: gyöngyöt használt (+2 érme)"


def test_a_stored_event_keeps_its_nested_clause_translatable(catalog: None) -> None:
    stored = json.loads(json.dumps(dump_events([Event(sentence())])))
    back = load_event(stored[0])
    assert back.text == "ann planted: used a pearl (+2 coins)"
    assert i18n._(back.text) == "ann ültetett: gyöngyöt használt (+2 érme)"


def test_a_list_of_clauses_is_translated_clause_by_clause(catalog: None) -> None:
    clauses = i18n.join_texts([T_("used a pearl (+{coins} coins)", coins=2), "fan d6"])
    text = T_("{seat} planted: {clauses}", seat="ann", clauses=clauses)
    assert text == "ann planted: used a pearl (+2 coins), fan d6"
    assert i18n._(text) == "ann ültetett: gyöngyöt használt (+2 érme), fan d6"


TERMS = {("colour", "orange"): "narancssárga"}


def test_a_term_is_the_english_word_until_shown_and_the_readers_word_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(i18n, "pgettext", lambda context, message: TERMS.get((context, message), message))
    colour = i18n.P_("colour", "orange")
    said = T_("you have no {colour} larva cube behind your screen", colour=colour)
    assert said == "you have no orange larva cube behind your screen"
    assert colour == "orange" and colour.context == "colour"
    assert i18n._(colour) == "narancssárga"
    assert "narancssárga" in i18n._(said)
    stored = json.loads(json.dumps(dump_events([Event(said)])))
    assert "narancssárga" in i18n._(load_event(stored[0]).text)


def test_the_term_keyword_is_extracted_with_its_context() -> None:
    from babel.messages.extract import extract

    from pbem.core.catalogs import KEYWORDS

    keywords = dict(k.split(":", 1) if ":" in k else (k, None) for k in KEYWORDS[1::2])
    assert keywords["P_"] == "1c,2"
    source = b'from pbem.core.i18n import P_\nCOLOURS = {"orange": P_("colour", "orange")}\n'
    found = list(extract("python", io.BytesIO(source), keywords={"P_": ((1, "c"), 2)}))
    assert [(m[3], m[1]) for m in found] == [("colour", "orange")]
