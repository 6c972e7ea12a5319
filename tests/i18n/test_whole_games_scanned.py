"""A whole bot game of each game, read in every language as its players read it: no English word outside
code, ids and the order grammar; no Latin inside Chinese; ``<html lang>`` and ``Content-Language``
matching the words.

The games are bench/digest.py's (fixed seeds, the host's clock passed in): the seats between them
speak all five languages, and the public report is in a sixth seat's place, the game's own language.
Every stored report page (text and HTML, each seat's in its language, the public one in the game's,
with the order template it carries) and every report mail queued (each in its reader's language) is
scanned with tests/i18n/foreign.py. (The bots' own filled order files are not: no player reads them; a
player's ``pbem template`` is checked in test_reply_language_commands.py.) A finding is
reported by word, with how often and one place it stands, so one test run shows a language's whole
list.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

import bench.digest
import bench.play
from bench.digest import GAMES
from bench.play import cheap_passwords
from games.mare_balticum.board import BOARD
from pbem import outbox
from pbem.core import registry
from pbem.core.codec import unpack
from pbem.core.i18n import _, language
from pbem.storage.db import connect
from pbem.storage.models import GameRow, OutboxRow, ReportRow, SeatRow
from tests.i18n.foreign import english_words, latin_in_chinese, misdeclared, text_parts

LANGUAGES = ("hu", "cs", "zh", "ru")
#: what a page may hold in Latin letters whatever its language: the seats' names, the games' ids, the
#: host's address (the order grammar and code-shaped tokens foreign.py sets aside itself)
NAMES = (
    *("ann", "bob", "cy", "dee", "eve", "pbem"),
    *(game_id for _, game_id, *_ in GAMES),
    *("A", "B", "C", "D"),  # Reef Encounter's reef boards, named by their letters on the table
    *BOARD.spaces,  # Mare Balticum's sea areas and ports: ids the orders name (sail: {to: riga})
    *("UTC", "GMT", "CET", "CEST", "EET", "EEST", "MSK", "CST"),  # the zones' own abbreviations
)


def _kept_titles(lang: str) -> tuple[str, ...]:
    """The words of the titles no edition in ``lang`` translates (the glossary's word is the English):
    a title is a name, so "Mare Balticum" is Hungarian as it is, where "Reef Encounter" is Korallkaland."""
    kept: list[str] = []
    for game in registry.games().values():
        with language(lang):
            if str(_(game.title)) == str(game.title):
                kept += str(game.title).split()
    return tuple(kept)


_HTML_LANG = re.compile(r"<html[^>]*\blang=\"([^\"]*)\"")
_MARKUP = re.compile(r"(?s)<(style|script)\b.*?</\1>|<!--.*?-->|<[^>]+>")


def _calendar_words(ics: str) -> str:
    """What a calendar program shows of an event: its SUMMARY and DESCRIPTIONs (the rest is keys)."""
    unfolded = re.sub(r"\r?\n[ \t]", "", ics)
    shown = re.findall(r"(?m)^(?:SUMMARY|DESCRIPTION)(?:;[^:]*)?:(.*)$", unfolded)
    return "\n".join(line.replace("\\,", ",").replace("\\;", ";").strip() for line in shown)


def _mail_text(mail: EmailMessage) -> str:
    """The subject and every text a reader of ``mail`` sees: its text parts (HTML without its markup)
    and its calendar events' words."""
    texts = [str(mail["Subject"])]
    for part in mail.walk():
        if part.get_content_type() == "text/calendar":
            texts.append(_calendar_words(part.get_content()))
        elif part.get_content_maintype() == "text":
            texts += text_parts(part)
    return "\n".join(texts)


@dataclass
class Reading:
    """What one language's readers were given, and what a reader of that language stumbled on."""

    texts: list[tuple[str, str]] = field(default_factory=list)  # (where, text)
    declared: list[str] = field(default_factory=list)  # a page's or mail's language that is not its words'


def _pages(engine: Engine, readings: dict[str, Reading]) -> None:
    """Every stored report page and queued mail, each under the language of its reader: a seat's own
    (else the game's), the game's for the public report and the observer's mail."""
    with Session(engine) as session:
        games = {g.id: g.language or "en" for g in session.exec(select(GameRow)).all()}
        seat_rows = session.exec(select(SeatRow)).all()
        by_name = {(s.game_id, s.name): s.language or games[s.game_id] for s in seat_rows}
        by_address = {(s.game_id, s.email): s.language or games[s.game_id] for s in seat_rows}
        for row in session.exec(select(ReportRow)).all():
            lang = by_name[(row.game_id, row.seat)] if row.seat else games[row.game_id]
            where = f"{row.game_id} turn {row.turn} report for {row.seat or 'the public'}"
            readings[lang].texts.append((where + " (text)", unpack(row.text_z)))
            html = unpack(row.html_z)
            declared = _HTML_LANG.search(html)
            if declared is None or declared.group(1)[:2] != lang:
                readings[lang].declared.append(f"{where}: <html lang={declared and declared.group(1)!r}>")
            readings[lang].texts.append((where + " (html)", _MARKUP.sub(" ", html)))
        for row in session.exec(select(OutboxRow)).all():
            lang = by_address.get((row.game_id, row.to_addr), games.get(row.game_id or "", "en"))
            mail = message_from_bytes(outbox.unpack_message(row.message_z), policy=default)
            assert isinstance(mail, EmailMessage)
            wrong = misdeclared(mail)
            said = (mail.get("Content-Language") or "")[:2]
            if wrong is not None or said != lang:
                readings[lang].declared.append(
                    f"mail {row.dedupe_key}: {wrong or f'Content-Language {said}'}"
                )
            readings[lang].texts.append((f"mail {row.dedupe_key}", _mail_text(mail)))


@pytest.fixture(scope="module")
def readings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Reading]]:
    """The three games played to their end; every text they gave a reader, by the reader's language."""
    found: dict[str, Reading] = defaultdict(Reading)
    folder: Path = tmp_path_factory.mktemp("whole-games")
    with cheap_passwords():
        engine = connect(f"sqlite:///{folder / 'games.sqlite'}")
        try:
            for game in GAMES:
                bench.digest.play(engine, *game)
            _pages(engine, found)
            yield found
        finally:
            engine.dispose()


def _summary(hits: dict[str, list[str]]) -> str:
    counted = sorted(hits.items(), key=lambda item: -len(item[1]))
    return "\n".join(f"  {word!r} x{len(places)}, e.g. in {places[0]}" for word, places in counted)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_whole_game_of_each_game_has_no_english_for_its_readers(
    readings: dict[str, Reading], lang: str
) -> None:
    hits: dict[str, list[str]] = defaultdict(list)
    allowed = (*NAMES, *_kept_titles(lang))
    for where, text in readings[lang].texts:
        for word in english_words(text, lang, allowed=allowed):
            hits[word].append(where)
    assert readings[lang].texts, f"no {lang} reader was given anything"
    assert not hits, (
        f"English words in what {lang} readers got ({sum(map(len, hits.values()))}):\n" + _summary(hits)
    )


def test_a_whole_game_of_each_game_has_no_latin_inside_chinese(readings: dict[str, Reading]) -> None:
    hits: dict[str, list[str]] = defaultdict(list)
    allowed = (*NAMES, *_kept_titles("zh"))
    for where, text in readings["zh"].texts:
        for word in latin_in_chinese(text, allowed=allowed):
            hits[word].append(where)
    assert not hits, "Latin inside Chinese lines:\n" + _summary(hits)


@pytest.mark.parametrize("lang", ("en", *LANGUAGES))
def test_every_page_and_mail_says_the_language_it_is_written_in(
    readings: dict[str, Reading], lang: str
) -> None:
    wrong = readings[lang].declared
    assert not wrong, f"{len(wrong)} pages or mails in {lang} declared otherwise:\n  " + "\n  ".join(
        sorted(Counter(wrong))[:20]
    )
