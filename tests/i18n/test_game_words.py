"""Mare Balticum's goods and Coral Divers' corals inside a sentence, a list or a table: shown in the
reader's words (a stand-in catalog here, so the test does not wait for the translators), the counts
beside them in a form every language can say, and the English ids kept for orders and storage."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.coral_divers import GLOSSARY as DIVERS_GLOSSARY
from games.coral_divers.words import COLOUR_WORDS as DIVERS_COLOURS
from games.coral_divers.words import CORAL_WORDS, SHELL_WORDS
from games.mare_balticum import GLOSSARY as BALTIC_GLOSSARY
from games.mare_balticum.words import COLOUR_WORDS as BALTIC_COLOURS
from games.mare_balticum.words import GOODS_WORDS
from pbem.core import i18n
from pbem.core.game import Event
from pbem.core.i18n import T_
from pbem.render.tables import render
from pbem.storage.history import dump_events, load_event
from tests.coral_divers.conftest import play
from tests.coral_divers.conftest import position as divers_position
from tests.mare_balticum.helpers import position as baltic_position
from tests.mare_balticum.helpers import turn
from tests.mare_balticum.test_mare_reports import context, secret_position

HUNGARIAN = {
    "{seat} unloaded {goods} at {port}": "{seat} kirakodott itt: {port}: {goods}",
    "{goods} ×{n}": "{n} db {goods}",
    "{items}, {item}": "{items}, {item}",
    "{items}; {item}": "{items}; {item}",
    "refill: {areas}": "utántöltés: {areas}",
    "{area}: {goods}": "{area}: {goods}",
}
HUNGARIAN_TERMS = {
    ("goods", "herring"): "hering",
    ("goods", "flatfish"): "lepényhal",
    ("goods", "salmon"): "lazac",
    ("goods", "cod"): "tőkehal",
    ("goods", "amber"): "borostyán",
    ("colour", "red"): "piros",
}
RUSSIAN = {
    "{seat} surfaced: closed {reefs}; divers home: {divers}; income: {income} (coins now: {coins})": (
        "{seat} всплывает: закрыто — {reefs}; водолазов вернулось: {divers}; доход в монетах: {income} "
        "(монет теперь: {coins})"
    ),
    "{coral} reef at {diver} (tiles: {tiles}, points: {points})": (
        "риф ({coral}) у {diver} (жетонов: {tiles}, очков: {points})"
    ),
}
RUSSIAN_TERMS = {("coral", "brain"): "мозговой коралл", ("coral", "fan"): "веерный коралл"}


def stand_in(monkeypatch: pytest.MonkeyPatch, words: dict[str, str], terms: dict[Any, str]) -> None:
    monkeypatch.setattr(i18n, "gettext", lambda message: words.get(message, message))
    monkeypatch.setattr(i18n, "pgettext", lambda context, message: terms.get((context, message), message))


def stored(event: Event) -> Event:
    return load_event(json.loads(json.dumps(dump_events([event])))[0])


def test_an_unload_with_goods_and_counts_is_one_hungarian_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    fixed = {"gdansk": ["herring", "flatfish"], "riga": ["salmon", "cod"], "kobenhavn": ["cod"]}
    state = baltic_position(
        ships={"red": ["gdansk"]}, hold={"red": {"herring": 2, "flatfish": 1}}, demand=fixed
    )
    _after, events = turn(state, {"unload": {"port": "gdansk", "fish": ["herring", "herring", "flatfish"]}})
    (event,) = events
    assert event.text == "red unloaded herring ×2 and flatfish ×1 at gdansk"  # the English, as stored
    stand_in(monkeypatch, HUNGARIAN, HUNGARIAN_TERMS)
    with i18n.language("hu"):  # the list's "és" is the language's (CLDR's), not a catalog's
        for shown in (event, stored(event)):
            assert i18n._(shown.text) == "red kirakodott itt: gdansk: 2 db hering és 1 db lepényhal"


def test_a_refill_names_each_areas_goods_in_the_readers_words(monkeypatch: pytest.MonkeyPatch) -> None:
    from games.mare_balticum.seasons import _area_got
    from games.mare_balticum.words import separated

    text = T_(
        "refill: {areas}",
        areas=separated([_area_got("skagerrak", ["salmon", "cod"]), _area_got("kattegat", ["amber"])]),
    )
    assert text == "refill: skagerrak: salmon and cod; kattegat: amber"
    stand_in(monkeypatch, HUNGARIAN, HUNGARIAN_TERMS)
    with i18n.language("hu"):
        said = i18n._(stored(Event(text)).text)
    assert said == "utántöltés: skagerrak: lazac és tőkehal; kattegat: borostyán"


def test_the_report_tables_show_goods_and_colours_in_the_readers_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = secret_position()
    english = render("mare-balticum", "txt", context(state, "red"))
    stand_in(monkeypatch, HUNGARIAN, HUNGARIAN_TERMS)
    text = render("mare-balticum", "txt", context(state, "red"))
    assert "Report for red (colour: piros)" in text  # the template's words: the real catalog's
    assert "gdansk-deep            D  tőkehal borostyán" in text  # the area id stays: orders name it
    assert "lazac ×3" in text and "salmon ×3" in english
    assert "Market: lazac=x3" in text


def test_a_surface_closing_two_reefs_is_one_russian_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    reefs = [("red", {"f4": "brain", "f3": "brain*", "f2": "brain"}), ("red", {"e5": "fan", "d5": "fan*"})]
    _after, events = play(divers_position(reefs=reefs, coins=0), {"surface": ["f2", "d5"]})
    event = Event(events[0])  # the first of the turn's event texts
    assert event.text.startswith(
        "red surfaced: closed brain reef at f4 (tiles: 3, points: 4) and fan reef at e5 (tiles: 2, points: 3)"
    )
    stand_in(monkeypatch, RUSSIAN, RUSSIAN_TERMS)
    for shown in (event, stored(event)):
        with i18n.language("ru"):
            said = i18n._(shown.text)
        assert said.startswith(
            "red всплывает: закрыто — риф (мозговой коралл) у f4 (жетонов: 3, очков: 4) и "
            "риф (веерный коралл) у e5 (жетонов: 2, очков: 3); водолазов вернулось: 5"
        ), said
        assert not any(word in said for word in ("reef", "brain", "fan ", "tiles", "points", " and "))


def test_an_event_stored_before_the_words_were_terms_still_loads_and_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # as a turn stored it before: the goods already English words inside a plain parameter
    old = T_("{seat} unloaded {goods} at {port}", seat="red", goods="2 herring, 1 flatfish", port="gdansk")
    back = stored(Event(old))
    assert back.text == "red unloaded 2 herring, 1 flatfish at gdansk"
    stand_in(monkeypatch, HUNGARIAN, HUNGARIAN_TERMS)
    assert i18n._(back.text) == "red kirakodott itt: gdansk: 2 herring, 1 flatfish"


@pytest.mark.parametrize(
    ("glossary", "words"),
    [
        (BALTIC_GLOSSARY, {**GOODS_WORDS, **BALTIC_COLOURS}),
        (DIVERS_GLOSSARY, {**CORAL_WORDS, **DIVERS_COLOURS, **SHELL_WORDS}),
    ],
    ids=["mare-balticum", "coral-divers"],
)
def test_every_term_a_game_shows_is_in_its_glossary_in_every_language(
    glossary: Any, words: dict[str, Any]
) -> None:
    for key, term in words.items():
        assert term == key and term.context is not None  # the English id, kept for orders and storage
        for lang in i18n.LANGUAGES:
            assert glossary.word(key, lang), (key, lang)


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("en", "ann, bob and cy"),  # British: no comma before "and", as the host's "colour"
        ("cs", "ann, bob a\u00a0cy"),  # a one-letter word never ends a Czech line: a no-break space
        ("ru", "ann, bob и cy"),
        ("hu", "ann, bob és cy"),
        ("zh", "ann、bob和cy"),
    ],
)
def test_a_list_is_joined_when_shown_in_the_readers_language(code: str, said: str) -> None:
    names = i18n.listed(["ann", "bob", "cy"])
    assert names == "ann, bob and cy"  # the English, as stored and compared
    with i18n.language(code):
        assert i18n._(names) == said
        assert i18n._(stored(Event(T_("{seats} won", seats=names))).text).startswith(said)
        assert i18n._(stored(Event(names)).text) == said  # a list as the whole event keeps its kind too
        assert i18n._(i18n.listed(["bob", "cy"])) == said.replace("ann, ", "").replace("ann、", "")


def test_a_list_stored_before_lists_were_cldrs_still_shows_in_the_catalogs_words() -> None:
    old = T_("{items} and {item}", items=T_("{items}, {item}", items="ann", item="bob"), item="cy")
    with i18n.language("hu"):
        assert i18n._(stored(Event(T_("{seats} won", seats=old))).text).startswith("ann, bob és cy")
