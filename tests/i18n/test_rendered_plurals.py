"""Every counted message the host and the games say (an event "placed 3 polyps", a score "5 points", a
duration "2 hours"), rendered with 0, 1, 2, 5, 11, 21 and 101 in each language, takes the form the
language's grammar asks of that number:

- cs: one form for 1, one for 2-4, one for 0 and 5 and more (21 and 101 too);
- ru: one form for 1, 21 and 101; one for 2-4 (22...); one for 0, 5-20 and 11-14;
- hu: after a number the noun stays singular: 1, 2, 5, 21 and 101 read alike;
- zh: a number meets no noun without its measure word (3 个, 5 分, 2 只...).

The catalog-level test (helper "grammar") checks the entries; this one renders them as a reader gets
them (the reader's catalog chooses the form for the number, placeholders filled), so a form that is
missing, the same where the language has two, or a number glued to a bare noun shows here, message by
message. The messages are every plural entry of the host's and the games' catalogs (``.pot``): the
events' ``TN_``, the templates' ``ngettext``, the host's durations.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from pbem.core import i18n
from pbem.core.i18n import language

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = (0, 1, 2, 3, 4, 5, 11, 21, 22, 101)
POTS = [ROOT / "pbem/locale/pbem.pot", *sorted(ROOT.glob("games/*/locale/*.pot"))]
#: Chinese measure words (and the units that are their own): what stands between a number and a noun
#: (局 counts games and rounds)
MEASURES = set("个只枚张块名位条艘点次天轮分秒颗件份种片株头尾箱袋堆格处座组人步项层行列回张局")
MEASURES_LONG = ("小时", "分钟", "回合")


def _plural_messages() -> list[tuple[str, str, str]]:
    """(catalog, singular, plural) of every counted message."""
    found = []
    for pot in POTS:
        with pot.open("rb") as handle:
            for message in read_po(handle):
                if message.id and isinstance(message.id, tuple):
                    found.append((pot.stem, message.id[0], message.id[1]))
    return found


MESSAGES = _plural_messages()


def _rendered(singular: str, plural_form: str, n: int) -> str:
    """The form the reader's catalog gives for ``n``, its count written as ``N`` and every other
    placeholder as ``X``: two numbers compare by their words alone."""
    form = i18n.plural(singular, plural_form, n)
    form = re.sub(r"\{n\}|%\(num\)s|%\(n\)s", "N", form)
    return re.sub(r"\{[^{}]*\}|%\([^)]*\)[sd]", "X", form)


def _forms(lang: str, singular: str, plural_form: str) -> dict[int, str]:
    with language(lang):
        return {n: _rendered(singular, plural_form, n) for n in NUMBERS}


def _ids(messages: list[tuple[str, str, str]]) -> list[str]:
    return [f"{domain}:{singular[:40]}" for domain, singular, _ in messages]


#: the English forms differ: the noun after the number has a plural (not "{n} back to the bag")
COUNTED_NOUNS = [m for m in MESSAGES if m[1] != m[2]]


# the classes a language's numbers fall in, not three different words: "2 mince" is "1 mince" in Czech
# (a soft feminine), and after a preposition 2 and 5 share a case ("po 2/5 zmeškaných termínech")
@pytest.mark.parametrize(("domain", "singular", "plural_form"), COUNTED_NOUNS, ids=_ids(COUNTED_NOUNS))
def test_czech_says_1_and_2_to_4_and_0_5_21_101_each_alike(
    domain: str, singular: str, plural_form: str
) -> None:
    f = _forms("cs", singular, plural_form)
    assert f[2] == f[3] == f[4], f
    assert f[0] == f[5] == f[11] == f[21] == f[22] == f[101], f
    assert f[1] != f[5], f


@pytest.mark.parametrize(("domain", "singular", "plural_form"), COUNTED_NOUNS, ids=_ids(COUNTED_NOUNS))
def test_russian_says_1_21_101_and_2_4_22_and_0_5_11_each_alike(
    domain: str, singular: str, plural_form: str
) -> None:
    f = _forms("ru", singular, plural_form)
    assert f[1] == f[21] == f[101], f
    assert f[2] == f[3] == f[4] == f[22], f
    assert f[0] == f[5] == f[11], f
    # (1 and 5 may read alike: "1 байт, 5 байт", "1 раз, 5 раз"; the catalog test sees copied forms)


@pytest.mark.parametrize(("domain", "singular", "plural_form"), MESSAGES, ids=_ids(MESSAGES))
def test_hungarian_keeps_the_noun_singular_after_any_number(
    domain: str, singular: str, plural_form: str
) -> None:
    f = _forms("hu", singular, plural_form)
    assert f[2] == f[5] == f[21] == f[101], f
    if "N" in f[1]:  # "1 polip" as "5 polip"; a singular that names no count ("the last step") may differ
        assert f[1] == f[2], f


@pytest.mark.parametrize(("domain", "singular", "plural_form"), MESSAGES, ids=_ids(MESSAGES))
def test_chinese_puts_a_measure_word_between_a_number_and_its_noun(
    domain: str, singular: str, plural_form: str
) -> None:
    text = _forms("zh", singular, plural_form)[5]
    # what is written as the player writes it is not English: a key before its colon ("orders："), a
    # keyword in backticks, an error's code in brackets ([orders.too_few])
    prose = re.sub(r"\b[a-z_]+[:：]|`[^`]*`|\[[a-z_.]+\]|\bN\b|\bX\b", "", text)
    assert not re.search(r"[A-Za-z]{2,}", prose), f"English left: {text}"
    for match in re.finditer(r"N\s?([\u3400-\u9fff]{1,2})", text):
        word = match.group(1)
        assert word[0] in MEASURES or word.startswith(MEASURES_LONG), (
            f"no measure word after the number: {text}"
        )


def test_the_messages_are_found_in_the_catalogs() -> None:
    domains = {domain for domain, _, _ in MESSAGES}
    assert {"pbem", "coral_divers", "reef_encounter"} <= domains
    assert ("pbem", "{n} day", "{n} days") in MESSAGES


#: a placeholder that holds a count, directly before a word: "{n} polyps", "%(points)s points" (not a
#: number that names a thing, "tile {number} is", nor one before a preposition, "{n} in supply")
_COUNT_THEN_WORD = re.compile(
    r"(?:\{(?:n|k|count|num|number|days|left|divers|income|coins|points|misses|tiles|size|limit)\}"
    r"|%\((?:num|n|points|count)\)[sd])\s+(?!(?:is|are|was|in|of|to|at|face|paid)\b)[a-z]"
)


def _counts_outside_plural_messages() -> list[tuple[str, str]]:
    found = []
    for pot in POTS:
        with pot.open("rb") as handle:
            for message in read_po(handle):
                if message.id and isinstance(message.id, str) and _COUNT_THEN_WORD.search(message.id):
                    found.append((pot.stem, message.id))
    return found


def test_a_number_meets_a_noun_only_in_a_plural_message() -> None:
    # a count before its noun in a message with one form reads "5 монеты", "1 garnélák" in some language
    # for some number; a plural message (TN_, ngettext), or the count beside a label ("tiles: 3"), does not
    found = _counts_outside_plural_messages()
    assert not found, f"{len(found)} messages put a count before a noun with one form:\n" + "\n".join(
        f"  {domain}: {text[:120]!r}" for domain, text in found
    )
