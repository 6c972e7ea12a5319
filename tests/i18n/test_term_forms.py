"""A translation asks a game's term for the case and gender its sentence needs (pbem.core.forms):
``{colour:f.acc}`` in Python messages, ``%(colour:f.acc)s`` in templates; a form that is missing
falls back to the word, and no spec, however wrong, can crash a report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import games.coral_divers
import games.mare_balticum
import games.reef_encounter
from pbem.core import catalogs, forms, i18n
from pbem.core.glossary import GlossaryError, load_glossary
from pbem.core.i18n import P_, T_
from pbem.render.environment import environment

GAMES = (games.reef_encounter, games.mare_balticum, games.coral_divers)


def test_regular_adjectives_are_written_out_in_every_gender_and_case() -> None:
    bily = forms.adjective_forms("cs", "bílý")
    assert (bily["f.acc"], bily["m.gen"], bily["gen"], bily["pl.gen"], bily["n.nom"]) == (
        "bílou",
        "bílého",
        "bílého",
        "bílých",
        "bílé",
    )
    assert forms.adjective_forms("ru", "оранжевый")["f.ins"] == "оранжевой"
    assert forms.adjective_forms("ru", "синий")["f.acc"] == "синюю"
    assert forms.adjective_forms("ru", "синий")["gen"] == "синего"
    assert forms.adjective_forms("ru", "мягкий")["pl.nom"] == "мягкие"  # и after к, not ы
    assert forms.adjective_forms("ru", "голубой")["m.nom"] == "голубой"
    assert forms.adjective_forms("ru", "голубой")["f.nom"] == "голубая"
    with pytest.raises(forms.FormsError):
        forms.adjective_forms("cs", "bílá")  # the feminine is no lemma: the glossary names the masculine


def test_the_games_glossaries_give_their_colours_and_goods_forms() -> None:
    assert forms.decline("ru", "жёлтый", "gen") == "жёлтого"  # "жёлтый сильнее белого"
    assert forms.decline("ru", "белый", "gen") == "белого"
    assert forms.decline("cs", "oranžová", "m.acc") == "oranžový"  # "oranžový polyp"
    assert forms.decline("cs", "modrá", "f.ins") == "modrou"  # "zamčeno modrou řasou"
    assert forms.decline("cs", "losos", "acc") == "lososa"  # "loví lososa"
    assert forms.decline("cs", "treska", "acc") == "tresku"
    assert forms.decline("ru", "камбала", "acc") == "камбалу"
    assert forms.decline("ru", "мозговой коралл", "gen") == "мозгового коралла"


def test_a_missing_form_and_a_word_without_forms_fall_back_to_the_word() -> None:
    assert forms.decline("ru", "треска", "pl.gen") == "треска"  # no plural given: the word
    assert forms.decline("cs", "losos", "f.acc") == "lososa"  # a gender asked of a noun: its case
    assert forms.decline("ru", "bornholm", "gen") == "bornholm"  # an id has no forms
    assert forms.decline("hu", "narancssárga", "gen") == "narancssárga"  # a language without forms


def test_a_translation_asks_its_placeholder_for_a_form(monkeypatch: pytest.MonkeyPatch) -> None:
    words = {
        "{seat} played their {colour} larva cube": "{seat} сыграл {colour:m.acc} кубик, {colour:f.acc} доску"
    }
    terms = {"orange": "оранжевый"}
    monkeypatch.setattr(i18n, "gettext", lambda message: words.get(message, message))
    monkeypatch.setattr(i18n, "pgettext", lambda context, message: terms.get(message, message))
    text = T_("{seat} played their {colour} larva cube", seat="ann", colour=P_("colour", "orange"))
    assert text == "ann played their orange larva cube"  # the English needs no form
    with i18n.language("ru"):
        assert i18n._(text) == "ann сыграл оранжевый кубик, оранжевую доску"


@pytest.mark.parametrize(
    "translation",
    [
        "{colour:nonsense} {seat}",  # a form no term has
        "{colour:f.acc.x.y} {seat}",
        "{colour:>} {seat}",  # a spec that is no form and formats nothing
        "{colour:!!} {seat}",
        "{colour:d} {seat}",  # a number's spec for a word: str.format raises, the report does not
        "{seat:gen} {colour}",  # a form asked of a seat's name: it has none
    ],
)
def test_a_bad_spec_cannot_crash_a_sentence(monkeypatch: pytest.MonkeyPatch, translation: str) -> None:
    monkeypatch.setattr(i18n, "gettext", lambda message: translation if "{colour}" in message else message)
    with i18n.language("ru"):
        shown = i18n._(T_("{colour} and {seat}", colour="белый", seat="ann"))
    assert "ann" in shown and "{" not in shown


def test_a_template_asks_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    words = {
        "locked by a %(colour)s alga": "закреплён %(colour:f.ins)s водорослью",
        "%(strong)s beats %(weak)s": "%(strong)s сильнее %(weak:gen)s <%(weak:nonsense)s>",
    }
    monkeypatch.setattr(i18n, "gettext", lambda message: words.get(message, message))
    env = environment()
    source = (
        "{% trans colour=c %}locked by a {{ colour }} alga{% endtrans %}|"
        '{{ _("%(strong)s beats %(weak)s", strong=s, weak=w) }}'
    )
    with i18n.language("ru"):
        shown = env.from_string(source).render(c="синий", s="жёлтый", w="белый")
    assert shown == "закреплён синей водорослью|жёлтый сильнее белого <белый>"


def test_a_glossary_form_must_name_a_case(tmp_path: Path) -> None:
    folder = tmp_path / "glossary"
    folder.mkdir()
    for lang in i18n.LANGUAGES:
        extra = ", forms: {genitive: lososa}" if lang == "cs" else ""
        (folder / f"{lang}.yaml").write_text(
            f"language: {lang}\nterms:\n  salmon: {{word: salmon-{lang}, from: translated{extra}}}\n",
            encoding="utf-8",
        )
    with pytest.raises(GlossaryError, match="'genitive' is not a case"):
        load_glossary(folder)


def test_every_colour_of_a_declining_language_has_its_forms() -> None:
    for game in GAMES:
        for lang in ("cs", "ru"):
            colours = [t for k, t in game.GLOSSARY.terms["en"].items() if k in _COLOURS]
            for term in colours:
                word = game.GLOSSARY.terms[lang][term.key]
                assert {"gen", "f.acc", "pl.gen"} <= set(word.forms), f"{game.__name__} {lang} {term.key}"


_COLOURS = {"white", "yellow", "orange", "pink", "grey", "blue", "green", "purple", "red", "black"}


def test_every_form_a_translation_asks_for_is_one_some_term_has() -> None:
    # a misspelt form ("f.akk") would quietly fall back to the nominative: every spec written in a
    # catalog must be a form the glossaries give some word of that language
    spec = re.compile(r"\{\w+:([a-z.]+)\}|%\(\w+:([a-z.]+)\)s")
    for package in catalogs.packages():
        for lang in catalogs.TRANSLATED:
            known = {name for word in forms._forms.get(lang, {}).values() for name in word}
            with package.po(lang).open("rb") as handle:
                for message in read_po(handle):
                    strings = [message.string] if isinstance(message.string, str) else message.string
                    for text in strings:
                        for brace, percent in spec.findall(text or ""):
                            assert (brace or percent) in known, f"{package.domain} {lang}: {text!r}"
