"""Wherever a number counts a noun, every language says it in its own plural form.

Read over the catalogs themselves (every message of the host and of the three games): a count placeholder
followed by a noun is a plural entry (``ngettext``, ``TN_``, ``{% pluralize %}``), never a plain message
("1 креветки", "4 polypů", "1 garnélák"); a plain message says its count beside a label ("tiles: {n}").
Every plural entry is then said for 0, 1, 2, 5, 21 and 101 in every language, and a few sentences of
each game and of the host are read whole, as a native reader would check them."""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterator

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

import games.coral_divers
import games.mare_balticum
import games.reef_encounter  # noqa: F401 - the games' catalogs and glossaries
from pbem.core import catalogs, i18n
from pbem.core.i18n import P_, T_, TN_
from pbem.render.environment import environment

NUMBERS = (0, 1, 2, 5, 21, 101)
#: the names a message gives a number that counts something
COUNTS = frozenset(
    [
        "n",
        "num",
        "count",
        "points",
        "coins",
        "cost",
        "income",
        "divers",
        "days",
        "left",
        "due",
        "size",
        "polyps",
        "shrimp",
        "tiles",
        "used",
        "discarded",
        "clownfish",
        "held",
        "have",
        "owned",
        "named",
        "filled",
        "total",
        "reefs",
        "supply",
    ]
)
#: words that may follow a count without being what it counts ("{n} in supply", "{n} face down"):
#: English, Czech and Russian prepositions and conjunctions
NOT_NOUNS = frozenset(
    [
        "in",
        "on",
        "at",
        "and",
        "or",
        "of",
        "to",
        "is",
        "are",
        "x",
        "more",
        "face",
        "v",
        "ve",
        "na",
        "do",
        "z",
        "ze",
        "s",
        "se",
        "k",
        "ke",
        "po",
        "o",
        "u",
        "za",
        "a",
        "i",
        "в",
        "во",
        "на",
        "из",
        "с",
        "со",
        "к",
        "по",
        "о",
        "у",
        "за",
        "и",
        "а",
    ]
)
_COUNT_THEN_WORD = re.compile(r"(?:\{(\w+)\}|%\((\w+)(?::[a-z.]+)?\)s) ([^\W\d_]+)")


def _catalogs() -> Iterator[tuple[catalogs.Package, str, Catalog]]:
    for package in catalogs.packages():
        for lang in catalogs.TRANSLATED:
            with package.po(lang).open("rb") as handle:
                yield package, lang, read_po(handle, locale=lang)


CATALOGS = list(_catalogs())


def _counted_nouns(text: str) -> list[str]:
    """``{n} polyps``-like places of ``text``: a count, then a word that is no preposition."""
    found = []
    for brace, percent, word in _COUNT_THEN_WORD.findall(text):
        if (brace or percent) in COUNTS and word.lower() not in NOT_NOUNS:
            found.append(f"{brace or percent} {word}")
    return found


def _plain(catalog: Catalog) -> Iterator[Message]:
    for message in catalog:
        if message.id and not message.context and isinstance(message.id, str):
            yield message


def test_a_count_before_a_noun_is_always_a_plural_entry_in_english() -> None:
    wrong = {
        f"{package.domain}: {message.id!r} ({', '.join(_counted_nouns(message.id))})"
        for package, _lang, catalog in CATALOGS
        for message in _plain(catalog)
        if _counted_nouns(message.id)
    }
    assert not wrong, "make these ngettext/TN_ entries, or put the count beside a label:\n" + "\n".join(
        sorted(wrong)
    )


@pytest.mark.parametrize("lang", ["cs", "ru"])
def test_a_plain_translation_puts_no_noun_after_its_count(lang: str) -> None:
    # a plain message has one form for every count: in Czech and Russian its count must stand beside a
    # label ("полипов: {n}"), or the noun is wrong for most numbers
    wrong = [
        f"{package.domain}: {message.string!r}"
        for package, code, catalog in CATALOGS
        if code == lang
        for message in _plain(catalog)
        if _counted_nouns(message.string)
    ]
    assert not wrong, "\n".join(wrong)


def _plural_entries() -> Iterator[tuple[str, str, Catalog, Message]]:
    for package, lang, catalog in CATALOGS:
        for message in catalog:
            if message.id and isinstance(message.id, tuple | list):
                yield package.domain, lang, catalog, message


PLURALS = list(_plural_entries())


def test_there_are_plural_entries_in_every_catalog() -> None:
    assert {(domain, lang) for domain, lang, _c, _m in PLURALS} == {
        (p.domain, lang) for p in catalogs.packages() for lang in catalogs.TRANSLATED
    }


@pytest.mark.parametrize("n", NUMBERS)
def test_every_plural_entry_has_a_filled_form_for_the_count(n: int) -> None:
    for domain, lang, catalog, message in PLURALS:
        form = message.string[gettext.c2py(catalog.plural_expr)(n)]
        where = f"{domain} {lang} {message.id[0]!r} for {n}"
        assert form, where
        assert i18n.placeholders(form) <= i18n.placeholders(" ".join(message.id)), where


@pytest.mark.parametrize("lang", ["cs", "ru"])
def test_a_czech_or_russian_plural_entry_has_more_than_one_form(lang: str) -> None:
    # the three forms of "1 polyp / 2 polypy / 5 polypů" copied as one would read wrong for most counts
    same = [
        f"{domain}: {message.id[0]!r}"
        for domain, code, _catalog, message in PLURALS
        if code == lang and message.id[0] != message.id[1] and len(set(message.string)) == 1
    ]
    assert not same, "\n".join(same)


def said(lang: str, text: object) -> str:
    with i18n.language(lang):
        return i18n._(text)  # type: ignore[arg-type]


#: whole sentences as a native reader checks them: (message, n) → the words in each language
SENTENCES = {
    "ru": {
        0: "(0 полипов вернутся в мешочек):",
        1: "(1 полип вернётся в мешочек):",
        2: "(2 полипа вернутся в мешочек):",
        5: "(5 полипов вернутся в мешочек):",
        21: "(21 полип вернётся в мешочек):",
        101: "(101 полип вернётся в мешочек):",
    },
    "cs": {
        0: "(0 polypů se vrátí do pytlíku):",
        1: "(1 polyp se vrátí do pytlíku):",
        2: "(2 polypy se vrátí do pytlíku):",
        5: "(5 polypů se vrátí do pytlíku):",
        21: "(21 polypů se vrátí do pytlíku):",
        101: "(101 polypů se vrátí do pytlíku):",
    },
    "hu": {n: f"({n} polip visszakerül a zsákba):" for n in NUMBERS},
    "zh": {n: f"（{n} 个珊瑚虫放回袋子）：" for n in NUMBERS},
    "en": {
        n: f"({n} polyp goes back to the bag):" if n == 1 else f"({n} polyps go back to the bag):"
        for n in NUMBERS
    },
}


@pytest.mark.parametrize("n", NUMBERS)
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_polyps_back_to_the_bag_in_every_language(lang: str, n: int) -> None:
    text = TN_("({n} polyp goes back to the bag):", "({n} polyps go back to the bag):", n)
    assert said(lang, text) == SENTENCES[lang][n]


PEARL = {
    "ru": {
        0: "+0 монет",
        1: "+1 монета",
        2: "+2 монеты",
        5: "+5 монет",
        21: "+21 монета",
        101: "+101 монета",
    },
    "cs": {0: "+0 mincí", 1: "+1 mince", 2: "+2 mince", 5: "+5 mincí", 21: "+21 mincí", 101: "+101 mincí"},
    "hu": {n: f"+{n} érme" for n in NUMBERS},
}


@pytest.mark.parametrize("n", NUMBERS)
@pytest.mark.parametrize("lang", sorted(PEARL))
def test_a_coral_divers_pearl_counts_its_coins(lang: str, n: int) -> None:
    assert PEARL[lang][n] in said(lang, TN_("used a pearl (+{n} coin)", "used a pearl (+{n} coins)", n))


TAX = {
    "ru": {
        1: "сбросить 1 товар;",
        2: "сбросить 2 товара;",
        5: "сбросить 5 товаров;",
        21: "сбросить 21 товар;",
    },
    "cs": {
        1: "odhazuje 1 kus zboží;",
        2: "odhazuje 2 kusy zboží;",
        5: "odhazuje 5 kusů zboží;",
        21: "21 kusů",
    },
}


@pytest.mark.parametrize("n", [1, 2, 5, 21])
@pytest.mark.parametrize("lang", sorted(TAX))
def test_mare_balticum_counts_goods_in_pieces(lang: str, n: int) -> None:
    text = TN_(
        "tax discards {n} good; you named {named}", "tax discards {n} goods; you named {named}", n, named=3
    )
    assert TAX[lang][n] in said(lang, text)


SHRIMP = {
    "ru": {
        0: "0 креветок на рифе",
        1: "1 креветка на рифе",
        2: "2 креветки на рифе",
        5: "5 креветок на рифе",
        21: "21 креветка на рифе",
        101: "101 креветка на рифе",
    },
    "cs": {
        0: "0 krevet na útesu",
        1: "1 kreveta na útesu",
        2: "2 krevety na útesu",
        5: "5 krevet na útesu",
        21: "21 krevet na útesu",
        101: "101 krevet na útesu",
    },
    "hu": {n: f"{n} garnéla a korallzátonyon" for n in NUMBERS},
    "zh": {n: f"珊瑚礁上有 {n} 只虾子" for n in NUMBERS},
}


@pytest.mark.parametrize("n", NUMBERS)
@pytest.mark.parametrize("lang", sorted(SHRIMP))
def test_a_template_counts_shrimp_on_the_reef(lang: str, n: int) -> None:
    source = '{{ ngettext("%(num)s shrimp on the reef", "%(num)s shrimp on the reef", n) }}'
    with i18n.language(lang):
        assert environment().from_string(source).render(n=n) == SHRIMP[lang][n]


BYTES = {
    "ru": {1: "размер файла — 1 байт;", 2: "размер файла — 2 байта;", 5: "размер файла — 5 байт;"},
    "cs": {1: "soubor má 1 bajt;", 2: "soubor má 2 bajty;", 5: "soubor má 5 bajtů;"},
}


@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("lang", sorted(BYTES))
def test_the_host_counts_bytes(lang: str, n: int) -> None:
    with i18n.language(lang):
        text = i18n.ngettext(
            "the file has {size} byte; orders may have at most {limit}",
            "the file has {size} bytes; orders may have at most {limit}",
            n,
            size=n,
            limit=100,
        )
    assert text.startswith(BYTES[lang][n])


# ----------------------------------------------------------------------------- case, from the catalogs


CASES = [
    (
        "ru",
        T_(
            "{colour} does not beat {target} now, so it cannot attack {space}",
            colour=P_("colour", "yellow"),
            target=P_("colour", "white"),
            space="Ab3",
        ),
        "жёлтый сейчас не сильнее белого",
    ),
    (
        "cs",
        T_("{seat} played their {colour} larva cube and no polyp", seat="ann", colour=P_("colour", "orange")),
        "ann hraje svou oranžovou kostičku larvy",
    ),
    (
        "ru",
        T_("{seat} played their {colour} larva cube and no polyp", seat="ann", colour=P_("colour", "orange")),
        "ann играет свой оранжевый кубик личинки",
    ),
    (
        "cs",
        T_("{seat} fished {goods} at {at} (into the hold)", seat="ann", goods=P_("goods", "salmon"), at="x"),
        "ann loví lososa na x",
    ),
    (
        "cs",
        T_("{seat} fished {goods} at {at} (into the hold)", seat="ann", goods=P_("goods", "cod"), at="x"),
        "ann loví tresku na x",
    ),
    (
        "ru",
        T_(
            "{seat} fished {goods} at {at} (into the hold)", seat="ann", goods=P_("goods", "flatfish"), at="x"
        ),
        "ann ловит камбалу на x",
    ),
    ("ru", T_("there is no {goods} on {at}", goods=P_("goods", "cod"), at="x"), "на x нет трески"),
]


@pytest.mark.parametrize(("lang", "text", "words"), CASES)
def test_a_term_takes_the_case_its_sentence_asks_for(lang: str, text: object, words: str) -> None:
    assert words in said(lang, text)


def test_a_colour_in_a_template_agrees_with_its_noun() -> None:
    source = "{% trans colour=c %}locked by a {{ colour }} alga{% endtrans %}"
    with i18n.language("ru"):
        assert (
            environment().from_string(source).render(c=i18n._(P_("colour", "blue")))
            == "закреплён синей водорослью"
        )
    with i18n.language("cs"):
        assert (
            environment().from_string(source).render(c=i18n._(P_("colour", "blue"))) == "zamčeno modrou řasou"
        )
