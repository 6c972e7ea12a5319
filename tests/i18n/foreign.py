"""What a reader of one language should never meet in a text written for them: English words, Latin
letters inside Chinese, a ``Content-Language`` that is not the language of the words.

A check that an entry is translated cannot see English built outside the catalogs, an English frame
around a translated line, or a reply that never asked the catalogs; these scan the *output* instead:

    >>> english_words("Nothing changed: a pálya nem üres.", "hu")
    ['Nothing', 'changed']
    >>> latin_in_chinese("打出了 orange 珊瑚幼虫")
    ['orange']
    >>> language_of("Ваши приказы на ход 3 приняты.")
    'ru'

What may stay Latin in any language: the order grammar as a player writes it (a YAML line of an order
file, not its comment; a word in backticks; a step keyword in brackets after the reader's word for it,
"ültetés (plant)"), what is code-shaped (tokens with digits, hyphens, ``@``, ``/``, ``_``, ``:`` or dots:
ids, addresses, coordinates, links), and what the caller allows (seat names, game ids, a title that has
no translation). A keyword anywhere else is an English word like any other.

The English vocabulary is the catalogs' own source: every word of an English message of the host's and
the games' catalogs (the ``.pot`` files), with the words English shares with another language's
spelling removed, plus the common words a hand-written English sentence is made of.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterable
from email.message import EmailMessage, Message
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

import games.coral_divers
import games.mare_balticum
import games.reef_encounter
from pbem.core.steps import Step

#: the games whose order grammar (their step models, defined when each is imported) is not prose
GAMES = (games.coral_divers, games.mare_balticum, games.reef_encounter)

ROOT = Path(__file__).resolve().parents[2]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: the small words a hand-written English sentence cannot do without, whatever the catalogs hold
COMMON = _words(
    """the and for you your not was were are is this that with from have has had will would can cannot
    could should must may nothing changed accepted rejected orders order turn game player please
    correct line marked reply read between put here there when what which who whom why how been being
    into onto than then them they their our its all any each every some none only also just yet still
    no yes if or but as at by of on in to it be do does did done an a"""
)
#: words spelled alike in English and in one of the other languages (or a name every language keeps)
SHARED = _words("""a e i o u pbem bot yaml email e-mail ok html pdf png svg imap smtp utc gmt id """)
#: words of the other languages that an English word list also holds (hu "most" is "now")
FALSE_FRIENDS = {
    "hu": _words(
        "larva polyp most alga extra re ra is be el le ki fel meg had hat vagy a az egy de fog sok tan test"
    ),
    "cs": _words(
        "larva polyp alga extra to na do i on pro ten ta a se si no list most let pod po od body start"
    ),
}

#: a keyword or value as written; an address or a tag; a command line (``pbem verify``)
_BACKTICKS = re.compile(r"`[^`\n]*`|<[^>\n]*>|\bpbem(?: [a-z-]+)+")
#: inside a token (its edges' punctuation stripped), what makes it code: ids, coordinates, links, keys
_CODE_MARK = re.compile(r"[\d@/_\\=+#%&.:-]")
_KEYWORD_IN_BRACKETS = re.compile(r"[(（]\s*([A-Za-z_]+)\s*[)）]")
_EDGES = ".,:;!?()[]{}\"'«»„“”‘’…·—–*"
#: a YAML line of an order file (or an example of one, commented out): its key and value are the order
#: grammar; its comment is prose
_YAML_LINE = re.compile(
    # (spaces, never a line break: a line ending in "key:" must not swallow the line after it)
    r"^([ \t]*(?:#[ \t]*)?(?:-[ \t]+)?[A-Za-z_][\w-]*:(?:[ \t][^#\n]*)?"
    r"|[ \t]*(?:#[ \t]*)?-[ \t]+[A-Za-z_][\w-]*[ \t\r]*$)",
    re.MULTILINE,
)
#: a word in any script; only the ones in Latin letters are looked up (hu "legalább" is not "legal")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f']+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")


def _step_models() -> Iterable[type]:
    pending = list(Step.__subclasses__())
    while pending:
        model = pending.pop()
        pending.extend(model.__subclasses__())
        yield model


def _field_names(annotation: object) -> Iterable[str]:
    for arg in typing.get_args(annotation):
        yield from _field_names(arg)
    fields = getattr(annotation, "model_fields", None)
    if isinstance(fields, dict):
        for name, info in fields.items():
            yield name
            if info.alias:
                yield info.alias
            yield from _field_names(info.annotation)


@cache
def order_words() -> frozenset[str]:
    """The three games' order keywords: their steps' and their fields' names (``place``, ``at``).

    A value (``orange``, ``cod``) is not among them: in prose it is a word of the game, to be said in the
    reader's words; written as the player writes it, it stands in backticks or on a YAML line.
    """
    words: set[str] = set()
    for model in _step_models():
        words.update(_field_names(model))
    return frozenset(w.lower() for text in words for w in _WORD.findall(text))


@cache
def english_vocabulary() -> frozenset[str]:
    """The words of every English message of the catalogs, lower-case, with :data:`COMMON` added."""
    words: set[str] = set(COMMON)
    for pot in [ROOT / "pbem/locale/pbem.pot", *sorted(ROOT.glob("games/*/locale/*.pot"))]:
        with pot.open("rb") as handle:
            for message in read_po(handle):
                for text in message.id if isinstance(message.id, tuple) else (message.id,):
                    plain = re.sub(r"\{[^}]*\}|%\([^)]*\)s", " ", text or "")
                    words.update(w.lower() for w in _WORD.findall(plain) if len(w) > 1)
    return frozenset(words - SHARED)


def _code_shaped(token: str) -> bool:
    return bool(_CODE_MARK.search(token.strip(_EDGES)))


def _prose(text: str) -> str:
    """``text`` with what is code-shaped blanked out: YAML lines (not their comments), backticks, ids,
    addresses, links."""
    text = _YAML_LINE.sub(" ", text)
    text = _BACKTICKS.sub(" ", text)
    text = _KEYWORD_IN_BRACKETS.sub(lambda m: " " if m.group(1).lower() in order_words() else m.group(), text)
    return re.sub(r"\S+", lambda m: " " if _code_shaped(m.group()) else m.group(), text)


def english_words(text: str, language: str, allowed: Iterable[str] = ()) -> list[str]:
    """The English words of ``text``, a text for a reader of ``language`` (not English), in order.

    Order-grammar words, code-shaped tokens and ``allowed`` (seat names, game ids) are not counted.
    """
    if language == "en":
        return []
    exempt = {a.lower() for a in allowed} | SHARED | FALSE_FRIENDS.get(language, frozenset())
    vocabulary = english_vocabulary()
    found = []
    for word in _WORD.findall(_prose(text)):
        low = word.lower()
        if not word.isascii():
            continue
        if low in vocabulary and low not in exempt:
            found.append(word)
    return found


def latin_in_chinese(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """Latin words (a single letter too) in the lines of ``text`` that hold Chinese, code aside."""
    exempt = {a.lower() for a in allowed} | SHARED
    found = []
    for line in text.splitlines():
        if not _CJK.search(line):
            continue
        words = [w for w in _WORD.findall(_prose(line)) if _LATIN.fullmatch(w)]
        found += [w for w in words if w.lower() not in exempt]
    return found


#: each language's own letters (á é í ó ú are both Hungarian and Czech: counted for Hungarian, they
#: made half of the Czech catalog's longer entries read as Hungarian) and small words
_MARKS = {
    "hu": (set("őűöü"), {"a", "az", "és", "nem", "hogy", "egy", "vagy", "meg", "van", "ez"}),
    "cs": (set("ěščřžůňťďý"), {"a", "je", "se", "na", "že", "nebo", "ve", "do", "jste", "tah"}),
    "en": (set(), {"the", "and", "your", "you", "is", "are", "of", "to", "was", "not"}),
}


def language_of(text: str) -> str:
    """The language ``text`` is mostly written in (en, hu, cs, zh or ru), by its letters and small words."""
    text = _prose(text)  # ids, sea areas and order lines are Latin in every language: not its words
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "en"
    if sum(1 for c in letters if _CJK.match(c)) * 4 > len(letters) // 2:
        return "zh"
    if sum(1 for c in letters if "\u0400" <= c <= "\u04ff") * 2 > len(letters):
        return "ru"
    words = [w.lower() for w in re.findall(r"\w+", _prose(text))]
    score = {}
    for lang, (marks, small) in _MARKS.items():
        score[lang] = sum(3 for c in text.lower() if c in marks) + sum(1 for w in words if w in small)
    return max(score, key=lambda lang: score[lang])


def text_parts(message: Message) -> list[str]:
    """The decoded text of every ``text/*`` part of ``message`` (HTML with its tags and styles removed)."""
    texts = []
    for part in message.walk():
        if part.get_content_maintype() != "text":
            continue
        body = part.get_content() if isinstance(part, EmailMessage) else part.get_payload(decode=True)
        if isinstance(body, bytes):
            body = body.decode(part.get_content_charset() or "utf-8", "replace")
        if part.get_content_subtype() == "html":
            body = re.sub(r"(?s)<(style|script)\b.*?</\1>|<[^>]+>", " ", body)
        texts.append(body)
    return texts


def misdeclared(message: Message) -> str | None:
    """Why ``message``'s ``Content-Language`` is not the language of its words, or None when it is."""
    declared = (message.get("Content-Language") or "").split(",")[0].strip().lower()[:2]
    body = "\n".join(text_parts(message))
    actual = language_of(body)
    if declared != actual:
        return f"Content-Language {declared or 'missing'}, but the text reads as {actual}"
    return None
