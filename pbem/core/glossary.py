"""A game's own words in every language: ``games/<g>/data/glossary/<lang>.yaml``.

Each file maps the game's terms (``polyp``, ``company-token``, …) to the word a player of that
language knows from the box. ``en.yaml`` is the reference list: every other file has exactly its
terms. Each entry says where its word comes from: ``rulebook`` (that language's published rulebook,
named by the file's ``source``), ``rules`` (our English rules) or ``translated`` (no rulebook in that
language: translated with care, ``note`` says from what). The translation pass takes the game's words
from here, so a Hungarian report says *papagájhal* as the Hungarian box does::

    terms:
      parrotfish: {word: papagájhal, from: rulebook}

A term of a language that declines (Czech, Russian) may also give the forms a sentence asks for
(:mod:`pbem.core.forms`): a noun its ``forms:`` by name, an adjective (a colour) its masculine
nominative, whose forms are written out by rule::

      salmon: {word: losos, from: translated, forms: {gen: lososa, acc: lososa, pl.acc: lososy}}
      white: {word: bílá, from: rulebook, adjective: bílý}

A game loads and checks its glossary when it is imported (:func:`load_glossary`), and so lets its
sentences ask for those forms: a missing term or language, or a form name that is no gender and case,
is a :class:`GlossaryError` naming the file and the term, not a silent English word.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from pbem.core import forms as term_forms
from pbem.core.i18n import LANGUAGES

ORIGINS = ("rulebook", "rules", "translated")


class GlossaryError(ValueError):
    """A glossary file that is missing, unreadable, or lacks (or adds) a term."""


@dataclass(frozen=True)
class Term:
    key: str
    word: str
    origin: str  # rulebook | rules | translated
    note: str = ""
    #: the forms a sentence may ask of the word (``gen``, ``f.acc``: pbem.core.forms); none: the word
    forms: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Glossary:
    """One game's terms: ``terms[lang][key]``; ``sources[lang]`` names the rulebook, if any."""

    terms: dict[str, dict[str, Term]]
    sources: dict[str, str]

    def word(self, key: str, lang: str) -> str:
        return self.terms[lang][key].word

    def keys(self) -> list[str]:
        return list(self.terms["en"])


def _read(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise GlossaryError(f"{path}: cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("terms"), dict):
        raise GlossaryError(f"{path}: needs a 'terms:' mapping")
    if data.get("language") != path.stem:
        raise GlossaryError(f"{path}: says language {data.get('language')!r}, its name says {path.stem!r}")
    return data


def _term(path: Path, key: str, entry: Any) -> Term:
    if not isinstance(entry, dict) or not isinstance(entry.get("word"), str) or not entry["word"].strip():
        raise GlossaryError(f"{path}: term {key!r} needs a non-empty 'word:'")
    origin = entry.get("from")
    if origin not in ORIGINS:
        raise GlossaryError(
            f"{path}: term {key!r}: 'from:' must be one of {', '.join(ORIGINS)}, not {origin!r}"
        )
    return Term(key, entry["word"].strip(), origin, str(entry.get("note") or ""), _forms(path, key, entry))


def _forms(path: Path, key: str, entry: dict[str, Any]) -> dict[str, str]:
    lang = path.stem
    found: dict[str, str] = {}
    if "adjective" in entry:
        try:
            found.update(term_forms.adjective_forms(lang, str(entry["adjective"]).strip()))
        except term_forms.FormsError as exc:
            raise GlossaryError(f"{path}: term {key!r}: {exc}") from None
    given = entry.get("forms") or {}
    if not isinstance(given, dict):
        raise GlossaryError(f"{path}: term {key!r}: 'forms:' must map form names to words")
    for name, form in given.items():
        parts = str(name).split(".")
        if parts[-1] not in term_forms.CASES or not set(parts[:-1]) <= set(term_forms.GENDERS):
            raise GlossaryError(
                f"{path}: term {key!r}: form {name!r} is not a case ({', '.join(term_forms.CASES)}), "
                f"led by a gender or number ({', '.join(term_forms.GENDERS)})"
            )
        if not isinstance(form, str) or not form.strip():
            raise GlossaryError(f"{path}: term {key!r}: form {name!r} needs a word")
        found[str(name)] = form.strip()
    return found


def load_glossary(folder: Path) -> Glossary:
    """The glossary in ``folder``, checked: one file per language, each with exactly ``en``'s terms;
    a file whose terms come from a rulebook names it (``source:``)."""
    terms: dict[str, dict[str, Term]] = {}
    sources: dict[str, str] = {}
    for lang in LANGUAGES:
        path = folder / f"{lang}.yaml"
        if not path.is_file():
            raise GlossaryError(f"{path}: missing (every language needs its glossary)")
        data = _read(path)
        terms[lang] = {str(k): _term(path, str(k), v) for k, v in data["terms"].items()}
        sources[lang] = str(data.get("source") or "")
        if any(t.origin == "rulebook" for t in terms[lang].values()) and not sources[lang]:
            raise GlossaryError(f"{path}: words 'from: rulebook' need the file's 'source:' (which rulebook)")
    reference = list(terms["en"])
    for lang in LANGUAGES[1:]:
        path = folder / f"{lang}.yaml"
        missing = [k for k in reference if k not in terms[lang]]
        extra = [k for k in terms[lang] if k not in terms["en"]]
        if missing:
            raise GlossaryError(f"{path}: lacks the term(s) {', '.join(missing)} (see en.yaml)")
        if extra:
            raise GlossaryError(f"{path}: has term(s) {', '.join(extra)} that en.yaml does not")
    for lang, words in terms.items():
        for term in words.values():
            term_forms.register(lang, term.word, term.forms)
    return Glossary(terms, sources)


@cache
def _cached(folder: Path) -> Glossary:
    return load_glossary(folder)


def aliases(folder: Path, keys: Iterable[str]) -> dict[str, str]:
    """Every language's word for each of ``keys`` (casefolded, also without its accents' case), mapped
    to the key itself: the keyword the order grammar knows (``sárga`` → ``yellow``). A word that would
    mean two keys is a :class:`GlossaryError`: an alias must never change what an order means."""
    glossary = _cached(Path(folder).resolve())
    found: dict[str, str] = {}
    for key in keys:
        for lang in LANGUAGES:
            word = _folded(glossary.word(key, lang))
            if found.get(word, key) != key:
                raise GlossaryError(f"{folder}: {word!r} would mean both {found[word]} and {key}")
            found[word] = key
    return found


def _folded(word: str) -> str:
    # Russian is written with ё or е alike (жёлтый, желтый)
    return word.strip().casefold().replace("ё", "е")


def alias_validator(folder: Path, keys: Iterable[str]) -> Callable[[Any], Any]:
    """A pydantic ``BeforeValidator`` function: a glossary word of one of ``keys``, in any language,
    becomes its keyword; anything else is left for the field's own validation (and its message)."""
    table = aliases(folder, tuple(keys))

    def to_keyword(value: Any) -> Any:
        if isinstance(value, str):
            return table.get(_folded(value), value)
        return value

    return to_keyword
