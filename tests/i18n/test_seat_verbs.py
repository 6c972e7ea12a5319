"""No Czech or Russian sentence makes a verb agree with a seat's gender, which nobody knows (a seat is a
name the players chose; the host asks no one's gender). A past tense does agree ("alice nakrmil",
"alice скормил": masculine for every player), and so does a short adjective ("je nepřítomen",
"не должен"); so the games' logs speak in the historical present ("tah 4: alice krmí …", "ход 4: alice
скармливает …"), whose verb has no gender, and a sentence that needs a past names another subject
("ploskozubec hráče alice snědl …"). The test reads every catalog entry whose message names a seat and
looks at the word that says what the seat does."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from pbem.core import catalogs

#: placeholders that hold seat names: one seat, and (Czech plural pasts are gendered: -li, -ly) several
ONE_SEAT = ("seat", "active", "owner", "starting_player", "starting")
SEVERAL = ("seats", "others")
#: a seat placeholder where a clause starts, so the seat is its subject (not "hráče {seat}", "от {seat}")
SUBJECT = (
    r"(?:^|[:;,.]\s+|\bjen\s+)"
    r"(?:\{(?P<brace>%s)(?::[\w.]+)?(?:![rs])?\}|%%\((?P<percent>%s)\)s)\s+(?P<rest>.*)"
)
#: words between a subject and its verb that do not agree with it
NEUTRAL = {"si", "se", "teď", "už", "ještě", "nyní", "ся", "сейчас", "уже", "ещё", "не", "ничего", "теперь"}
#: copulas whose next word (a short adjective or participle) would agree with the seat
COPULA = {"je", "byl", "bude"}
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\([^)]*\)[sd]")
AGREES = {
    # a past tense (-l, -la, -lo, -li, -ly), or after "je" a short adjective (nepřítomen, povinen, …)
    "cs": (re.compile(r"\w+(?:l|la|lo|li|ly)"), re.compile(r"\w+(?:en|na|án|ána|ín|ina)")),
    # a past tense (-л, -ла, -ли, -лся, …) or a short adjective (должен, должна, готов, рад, …)
    "ru": (
        re.compile(r"\w+(?:л|ла|ло|ли|лся|лась|лось|лись|ен|на|ов|ова|ад|ада)"),
        re.compile(r"\w+(?:ен|на|ов|ова)"),
    ),
}


def entries(lang: str) -> list[tuple[str, str]]:
    """(message id, translation) of every catalog of ``lang``, one row per plural form."""
    rows = []
    for package in catalogs.packages():
        with package.po(lang).open("rb") as handle:
            for message in read_po(handle, locale=lang):
                if not message.id:
                    continue
                msgid = message.id if isinstance(message.id, str) else message.id[0]
                strings = [message.string] if isinstance(message.string, str) else list(message.string)
                rows.extend((msgid, text) for text in strings if text)
    return rows


def agreeing_word(lang: str, text: str) -> str | None:
    """The word of ``text`` that would agree with a seat that is its subject, if one does."""
    names = ONE_SEAT + SEVERAL if lang == "cs" else ONE_SEAT  # a Russian plural past has no gender
    pattern = re.compile(SUBJECT % ("|".join(names), "|".join(names)))
    verb, after_copula = AGREES[lang]
    for line in text.splitlines():
        for found in pattern.finditer(line):
            rest = PLACEHOLDER.sub(" ", found["rest"])  # another placeholder is no word of the sentence
            words = [w for w in re.findall(r"[^\W\d_]+", rest) if w.lower() not in NEUTRAL]
            if not words:
                continue
            if words[0] in COPULA:
                if len(words) > 1 and after_copula.fullmatch(words[1]):
                    return f"{words[0]} {words[1]}"
            elif verb.fullmatch(words[0]):
                return words[0]
    return None


@pytest.mark.parametrize(
    ("lang", "text", "word"),
    [
        ("cs", "{seat} nakrmil svého ploskozubce", "nakrmil"),
        ("cs", "{seat} si vzal kostičky larev", "vzal"),
        ("cs", "hra končí: {seat} nakrmil svůj čtvrtý korál", "nakrmil"),
        ("cs", "%(seat)s je nepřítomen do %(until)s.", "je nepřítomen"),
        ("cs", "{seats} uvedli", "uvedli"),
        ("ru", "{seat} скормил рыбе-попугаю", "скормил"),
        ("ru", "{seat} сейчас не должен присылать приказы", "должен"),
        ("ru", "{seat} не прислал приказов", "прислал"),
        ("cs", "{seat} krmí svého ploskozubce", None),
        ("cs", "ploskozubec hráče {seat} snědl čtvrtý korál", None),
        ("cs", "od hráče {seat} nepřišly žádné rozkazy", None),
        ("ru", "{seat} скармливает рыбе-попугаю", None),
        ("ru", "{seats} набрали по 3 очка", None),
        ("ru", "рыба-попугай игрока {seat} съела четвёртый коралл", None),
    ],
)
def test_the_check_finds_a_verb_that_agrees_with_the_seat(lang: str, text: str, word: str | None) -> None:
    assert agreeing_word(lang, text) == word


@pytest.mark.parametrize("lang", ["cs", "ru"])
def test_no_czech_or_russian_verb_agrees_with_a_seat(lang: str) -> None:
    wrong = [
        f"{msgid!r} -> {text!r} ({word})"
        for msgid, text in entries(lang)
        if (word := agreeing_word(lang, text)) is not None
    ]
    assert not wrong, "\n".join(wrong)


def test_the_logs_say_what_a_seat_does_in_the_present() -> None:
    """A few lines of the games' logs and the host's as a player reads them, whoever the seat is."""
    expected = {
        ("cs", "{seat} passed their final feeding turn"): "{seat} při posledním krmení pasuje",
        ("ru", "{seat} put a new shrimp on {space}"): "{seat} ставит новую креветку на {space}",
        (
            "cs",
            "{seat} took the seabed token at {at}: {what}",
        ): "{seat} bere žeton mořského dna na {at}: {what}",
        ("ru", "{seat} sailed a new ship to {to}"): "{seat} выводит новый корабль на {to}",
        ("cs", "{seat} sent no orders for this turn: the bot played for {seat}."): (
            "od hráče {seat} nepřišly na tento tah žádné rozkazy: hraje za něj bot."
        ),
        ("ru", "{seat} fed their fourth coral"): "рыба-попугай игрока {seat} съела четвёртый коралл",
    }
    found = {(lang, msgid): text for lang in ("cs", "ru") for msgid, text in entries(lang)}
    assert {key: found.get(key) for key in expected} == expected
