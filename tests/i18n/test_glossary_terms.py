"""``make i18n`` takes a game's own words (the ``P_`` entries of its catalogs) from its glossary, so a
report says the word of the player's rulebook, the same word in every sentence."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from babel.support import Translations

from pbem.core import catalogs
from pbem.core.glossary import load_glossary
from pbem.core.i18n import compile_po

REEF = catalogs.ROOT / "games" / "reef_encounter" / "data" / "glossary"


def _po(tmp_path: Path, *messages: tuple[str, str, str | None, bool]) -> Path:
    catalog = Catalog(locale="hu", domain="reef_encounter")
    for msgid, string, context, fuzzy in messages:
        catalog.add(msgid, string, context=context, flags=("fuzzy",) if fuzzy else ())
    po = tmp_path / "reef_encounter.po"
    with po.open("wb") as handle:
        write_po(handle, catalog)
    return po


def test_a_term_entry_gets_the_glossary_word_and_the_others_stay(tmp_path: Path) -> None:
    po = _po(
        tmp_path,
        ("orange", "", "colour", False),
        ("grey", "szürkés", "colour", True),  # a stale, fuzzy guess is replaced and made final
        ("Scores", "Pontok", None, False),
        ("{n} {colour}", "", None, False),
    )
    assert catalogs.fill_terms(po, load_glossary(REEF), "hu") == 2
    with po.open("rb") as handle:
        back = {(m.context, m.id): m for m in read_po(handle) if m.id}
    assert back[("colour", "orange")].string == "narancssárga"
    assert back[("colour", "grey")].string == "szürke" and not back[("colour", "grey")].fuzzy
    assert back[(None, "Scores")].string == "Pontok"
    assert back[(None, "{n} {colour}")].string == ""
    compiled = Translations(io.BytesIO(compile_po(po)))
    assert compiled.pgettext("colour", "orange") == "narancssárga"


def test_a_term_the_glossary_lacks_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    po = _po(tmp_path, ("orange", "", "colour", False), ("mauve", "", "colour", False))
    before = po.read_bytes()
    with pytest.raises(catalogs.MissingTerms, match="colour/mauve"):
        catalogs.fill_terms(po, load_glossary(REEF), "hu")
    assert po.read_bytes() == before


def test_a_words_term_is_its_glossary_key() -> None:
    assert catalogs.term_key("orange") == "orange"
    assert catalogs.term_key("Open sea") == "open-sea"


def test_every_term_the_code_says_is_in_its_games_glossary() -> None:
    for package in catalogs.packages():
        terms = [m for m in catalogs.extracted(package) if m.id and m.context is not None]
        if not terms:
            continue
        assert package.glossary is not None, f"{package.domain}: P_ words but no data/glossary/"
        glossary = load_glossary(package.glossary)
        for lang in catalogs.TRANSLATED:
            missing = [m.id for m in terms if catalogs.term_key(m.id) not in glossary.terms[lang]]
            assert not missing, f"{package.domain}/{lang}: no glossary word for {missing}"


def test_the_reef_encounter_colours_are_terms() -> None:
    reef = next(p for p in catalogs.packages() if p.domain == "reef_encounter")
    terms = {(m.context, m.id) for m in catalogs.extracted(reef) if m.context is not None}
    for colour in ("grey", "orange", "pink", "white", "yellow", "blue", "green", "purple", "red"):
        assert ("colour", colour) in terms


def test_every_term_entry_of_every_catalog_is_its_glossary_word() -> None:
    for package in catalogs.packages():
        for lang in catalogs.TRANSLATED:
            if not package.po(lang).is_file():
                continue
            with package.po(lang).open("rb") as handle:
                terms = [m for m in read_po(handle) if m.id and m.context is not None]
            if not terms:
                continue
            assert package.glossary is not None, f"{package.domain}: P_ words but no data/glossary/"
            glossary = load_glossary(package.glossary)
            for m in terms:
                word = glossary.word(catalogs.term_key(m.id), lang)
                assert (m.string, m.fuzzy) == (word, False), f"{package.po(lang)}: {m.context}/{m.id}"


def test_filling_a_real_catalog_rewrites_it_as_pybabel_wrote_it(tmp_path: Path) -> None:
    # the fill runs between pybabel update and compile: it must not reflow what update wrote
    reef = next(p for p in catalogs.packages() if p.domain == "reef_encounter")
    copy = tmp_path / "reef_encounter.po"
    copy.write_bytes(reef.po("cs").read_bytes())
    catalogs.fill_terms(copy, load_glossary(REEF), "cs")
    with reef.po("cs").open("rb") as a, copy.open("rb") as b:
        original, filled = read_po(a), read_po(b)
    for message in original:
        if message.id and message.context is None:
            assert filled.get(message.id).string == message.string
    if not any(m.context for m in original if m.id):  # no terms yet: the very same bytes
        assert copy.read_bytes() == reef.po("cs").read_bytes()
