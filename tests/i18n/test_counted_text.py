"""TN_: a counted message kept for later (a stored event, a clause of one) picks its plural form in
the reader's language when shown, not the English form it had when it was written."""

from __future__ import annotations

import json

import pytest

from pbem.core import i18n
from pbem.core.game import Event
from pbem.core.i18n import T_, TN_
from pbem.storage.history import dump_events, load_event

# Russian-like forms: 1 / 2-4 / 5-20 (as Russian and Czech count), so the test can tell them apart
FORMS = {"{n} polyp": ("{n} полип", "{n} полипа", "{n} полипов")}
WORDS = {"{seat} took {polyps}": "{seat} взял {polyps}"}


def _russian_form(n: int) -> int:
    if n % 10 == 1 and n % 100 != 11:
        return 0
    return 1 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 2


@pytest.fixture
def catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    def plural(singular: str, plural_form: str, n: int) -> str:
        forms = FORMS.get(singular)
        if forms is None:
            return singular if n == 1 else plural_form
        return forms[_russian_form(n)]

    monkeypatch.setattr(i18n, "plural", plural)
    monkeypatch.setattr(i18n, "gettext", lambda message: WORDS.get(message, message))


def test_the_english_is_the_singular_or_the_plural_now() -> None:
    assert TN_("{n} polyp", "{n} polyps", 1) == "1 polyp"
    assert TN_("{n} polyp", "{n} polyps", 0) == "0 polyps"
    assert TN_("{n} polyp of {colour}", "{n} polyps of {colour}", 3, colour="grey") == "3 polyps of grey"
    assert TN_("{n} polyp", "{n} polyps", 3).params == {"n": 3}


@pytest.mark.parametrize(
    ("n", "said"), [(1, "1 полип"), (3, "3 полипа"), (5, "5 полипов"), (22, "22 полипа")]
)
def test_the_reader_gets_the_form_of_their_language(catalog: None, n: int, said: str) -> None:
    assert i18n._(TN_("{n} polyp", "{n} polyps", n)) == said


def test_a_counted_clause_in_a_stored_event_keeps_its_count_and_both_forms(catalog: None) -> None:
    event = Event(T_("{seat} took {polyps}", seat="ann", polyps=TN_("{n} polyp", "{n} polyps", 5)))
    stored = json.loads(json.dumps(dump_events([event])))
    back = load_event(stored[0])
    assert back.text == "ann took 5 polyps"
    assert i18n._(back.text) == "ann взял 5 полипов"


def test_a_counted_sentence_is_stored_and_shown_whole(catalog: None) -> None:
    stored = json.loads(json.dumps(dump_events([Event(TN_("{n} polyp", "{n} polyps", 2))])))
    back = load_event(stored[0])
    assert back.text == "2 polyps" and i18n._(back.text) == "2 полипа"


def test_a_count_that_is_not_a_number_shows_the_english_plural() -> None:
    broken = i18n.Text(TN_("{n} polyp", "{n} polyps", 2).msgid, {"n": "two"})
    assert i18n._(broken) == "two polyps"


def test_the_forms_may_not_hold_the_separator() -> None:
    with pytest.raises(ValueError, match="separator"):
        TN_("a" + i18n.PLURAL_SEPARATOR + "b", "c", 1)


def test_the_counted_keyword_is_extracted_as_a_plural_message() -> None:
    import io

    from babel.messages.extract import extract

    from pbem.core.catalogs import KEYWORDS

    keywords = dict(k.split(":", 1) if ":" in k else (k, None) for k in KEYWORDS[1::2])
    assert keywords["TN_"] == "1,2"
    source = b'from pbem.core.i18n import TN_\nx = TN_("{n} polyp", "{n} polyps", 3)\n'
    found = list(extract("python", io.BytesIO(source), keywords={"TN_": (1, 2)}))
    assert [m[1] for m in found] == [("{n} polyp", "{n} polyps")]
