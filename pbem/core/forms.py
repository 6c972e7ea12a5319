"""A game's terms in the case, number and gender a sentence needs (Czech and Russian decline them).

The design, and why: *Fluent-style terms with case forms*, asked for by the translation. The English
message keeps a plain placeholder (``{seat} fed the {colour} coral``); the Russian translation names the
form it needs in the placeholder's format spec (``{seat} скормил {colour:m.acc} коралл``), the Czech
one its own (``{colour:m.acc} korál``); a template's ``%(colour)s`` is asked the same way,
``%(colour:f.acc)s``. Only the translation knows which case its preposition or verb governs and
which gender its noun has, so the choice belongs there and nowhere else: the engine, the stored
events and the English stay as they are, and a language without case (Hungarian suffixes aside,
Chinese, English) never writes a spec. gettext contexts per case (``msgctxt "colour:gen"``) were the
alternative: one catalog entry per term, case and gender (some 24 forms of each colour) that the
extraction would have to invent, and a sentence could still not ask for the form it needs.

A form is named by its parts joined by dots: a gender or number (``m``, ``f``, ``n``, ``pl``; ``ma``:
masculine animate, whose accusative is the genitive), then a case (``nom``, ``gen``, ``dat``, ``acc``,
``ins``, ``loc``). A noun's forms are its cases (``gen``, ``pl.acc``); an adjective's (a colour) agree
with the noun of the sentence (``f.acc``: ``оранжевую``), a bare case being the masculine.

Where the forms come from: each term of a game's glossary (``games/<g>/data/glossary/<lang>.yaml``)
may list its ``forms:``, or say ``adjective: <masculine nominative>``, whose forms :func:`adjective_forms`
writes out (the Czech hard adjectives in ``-ý`` and the Russian in ``-ый``/``-ий``/``-ой``: every
colour of the games; a colour is the one word that needs two dozen forms, and a table would be
two dozen chances of a typo). The glossary registers them by the term's word in that language
(:func:`register`), so the form is found from the word the sentence is given, however it got there
(a term translated with its sentence, or a word a template already holds).

What cannot go wrong: a form that is not listed, a word that has no forms, a spec that is no form name
(or a value that is not a word) gives the word as it is, the nominative: a report never crashes on a
spec and never prints one.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

#: a format spec that names a form (``gen``, ``f.acc``, ``pl.ins``), not a number's format (``>4``, ``.2f``)
FORM_SPEC = re.compile(r"[a-z]+(?:\.[a-z]+)*")
GENDERS = ("m", "ma", "f", "n", "pl")
_SINGULAR = frozenset(GENDERS) - {"pl"}
CASES = ("nom", "gen", "dat", "acc", "ins", "loc")

#: language → the word as that language writes its nominative → form name → form
_forms: dict[str, dict[str, dict[str, str]]] = {}


class FormsError(ValueError):
    """An adjective whose forms cannot be written out (its ending is not a regular one)."""


def register(lang: str, word: str, forms: Mapping[str, str]) -> None:
    """Let sentences of ``lang`` ask ``word`` for its ``forms`` (a game's glossary does it)."""
    if forms:
        _forms.setdefault(lang, {}).setdefault(word, {}).update(forms)
        _decline.cache_clear()


def forms_of(lang: str, word: str) -> dict[str, str]:
    """The forms ``word`` has in ``lang`` (empty: none registered)."""
    return dict(_forms.get(lang, {}).get(word, {}))


def decline(lang: str, value: Any, spec: str) -> str:
    """``value`` (a term's word in ``lang``) in the form ``spec``; the word itself where ``spec`` is no
    form name, or ``value`` has no such form (see the module's docstring for the fallbacks)."""
    return _decline(lang, str(value), spec)


@lru_cache(maxsize=4096)
def _decline(lang: str, word: str, spec: str) -> str:
    forms = _forms.get(lang, {}).get(word)
    if not forms:
        return word
    found = forms.get(spec)
    gender, _, rest = spec.partition(".")
    if found is None and rest and gender in _SINGULAR:  # a gender asked of a noun: its case is what matters
        found = forms.get(rest)
    return found if found is not None else word


class _Formatter(string.Formatter):
    """``str.format`` whose format specs may name a form (``{colour:gen}``) of the current language."""

    def __init__(self, lang: str) -> None:
        super().__init__()
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> Any:
        if format_spec and FORM_SPEC.fullmatch(format_spec):
            return decline(self.lang, value, format_spec)
        try:
            return format(value, format_spec)
        except (TypeError, ValueError):  # a spec a translation got wrong: the value as it is
            return str(value)


@lru_cache(maxsize=4096)
def asks_forms(text: str) -> bool:
    """Whether ``text`` asks a placeholder for a form (``{colour:gen}``, ``%(colour:gen)s``)."""
    return bool(_BRACE_FORM.search(text) or _PERCENT_FORM.search(text))


_BRACE_FORM = re.compile(r"(?<!\{)\{[A-Za-z_]\w*:[a-z]+(?:\.[a-z]+)*\}")
_PERCENT_FORM = re.compile(r"%\(([A-Za-z_]\w*):([a-z]+(?:\.[a-z]+)*)\)s")


def format_with_forms(lang: str, text: str, params: Mapping[str, Any]) -> str:
    """``text.format(**params)``, each ``{name:form}`` the form of ``params[name]`` in ``lang``."""
    return _Formatter(lang).vformat(text, (), dict(params))


def with_forms(lang: str, text: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` and, for each ``%(name:form)s`` of ``text`` (a template's message), the key
    ``name:form`` with that form of ``params[name]``: what ``text % …`` needs (a name ``params`` lacks
    is left out, so ``%`` reports it as it would any missing name)."""
    found = dict(params)
    for name, spec in _PERCENT_FORM.findall(text):
        if name in params:
            found[f"{name}:{spec}"] = decline(lang, params[name], spec)
    return found


# --------------------------------------------------------------------------- adjectives written out

#: the endings of a regular adjective, by form, after its stem: Czech hard (``bílý``), Russian hard
#: (``белый``), Russian soft (``синий``); the Russian hard endings after г к х take и for ы (``мягкий``)
_ENDINGS: dict[str, dict[str, str]] = {
    "cs": {
        **{"m.nom": "ý", "m.gen": "ého", "m.dat": "ému", "m.acc": "ý", "m.ins": "ým", "m.loc": "ém"},
        **{"ma.nom": "ý", "ma.gen": "ého", "ma.dat": "ému", "ma.acc": "ého", "ma.ins": "ým", "ma.loc": "ém"},
        **{"f.nom": "á", "f.gen": "é", "f.dat": "é", "f.acc": "ou", "f.ins": "ou", "f.loc": "é"},
        **{"n.nom": "é", "n.gen": "ého", "n.dat": "ému", "n.acc": "é", "n.ins": "ým", "n.loc": "ém"},
        **{"pl.nom": "é", "pl.gen": "ých", "pl.dat": "ým", "pl.acc": "é", "pl.ins": "ými", "pl.loc": "ých"},
        **{"ma.pl.nom": "í"},
    },
    "ru": {
        **{"m.nom": "ый", "m.gen": "ого", "m.dat": "ому", "m.acc": "ый", "m.ins": "ым", "m.loc": "ом"},
        **{"ma.nom": "ый", "ma.gen": "ого", "ma.dat": "ому", "ma.acc": "ого", "ma.ins": "ым", "ma.loc": "ом"},
        **{"f.nom": "ая", "f.gen": "ой", "f.dat": "ой", "f.acc": "ую", "f.ins": "ой", "f.loc": "ой"},
        **{"n.nom": "ое", "n.gen": "ого", "n.dat": "ому", "n.acc": "ое", "n.ins": "ым", "n.loc": "ом"},
        **{"pl.nom": "ые", "pl.gen": "ых", "pl.dat": "ым", "pl.acc": "ые", "pl.ins": "ыми", "pl.loc": "ых"},
    },
    "ru-soft": {
        **{"m.nom": "ий", "m.gen": "его", "m.dat": "ему", "m.acc": "ий", "m.ins": "им", "m.loc": "ем"},
        **{"ma.nom": "ий", "ma.gen": "его", "ma.dat": "ему", "ma.acc": "его", "ma.ins": "им", "ma.loc": "ем"},
        **{"f.nom": "яя", "f.gen": "ей", "f.dat": "ей", "f.acc": "юю", "f.ins": "ей", "f.loc": "ей"},
        **{"n.nom": "ее", "n.gen": "его", "n.dat": "ему", "n.acc": "ее", "n.ins": "им", "n.loc": "ем"},
        **{"pl.nom": "ие", "pl.gen": "их", "pl.dat": "им", "pl.acc": "ие", "pl.ins": "ими", "pl.loc": "их"},
    },
}
_RU_VELAR = "гкх"


def adjective_forms(lang: str, lemma: str) -> dict[str, str]:
    """Every form of the regular adjective ``lemma`` (its masculine nominative) in ``lang``, each
    case also under its bare name (the masculine: ``gen`` is ``m.gen``)."""
    if lang == "cs" and lemma.endswith("ý"):
        stem, table = lemma[:-1], _ENDINGS["cs"]
    elif lang == "ru" and (lemma.endswith(("ый", "ой")) or (lemma.endswith("ий") and lemma[-3] in _RU_VELAR)):
        stem, table = lemma[:-2], _ENDINGS["ru"]
    elif lang == "ru" and lemma.endswith("ий"):
        stem, table = lemma[:-2], _ENDINGS["ru-soft"]
    else:
        raise FormsError(f"{lemma!r}: no regular {lang} adjective ending to decline it by")
    forms = {name: stem + ending for name, ending in table.items()}
    if lang == "ru" and stem[-1:] in _RU_VELAR:
        forms = {name: stem + _ENDINGS["ru"][name].replace("ы", "и") for name in table}
    if lang == "ru" and lemma.endswith("ой"):  # stressed: голубой, голубого
        forms["m.nom"] = forms["m.acc"] = forms["ma.nom"] = lemma
    forms.update({name.split(".", 1)[1]: form for name, form in forms.items() if name.startswith("m.")})
    return forms
