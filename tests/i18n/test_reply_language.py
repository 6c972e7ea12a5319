"""Every answer to a player's mail is in the reader's language, and says so (issue 29, E1–E4).

For each of the five languages and each mistake the host already answers (a wrong password, ``help``,
a password request, a mail with no orders, a wrong turn, an unknown game, a YAML error, an envelope
error, a rule error), the reply's ``Content-Language`` is the seat's language, the words are that
language's (:func:`tests.i18n.foreign.misdeclared`), and no English frame sentence is around them
(:func:`tests.i18n.foreign.english_words`, :func:`tests.i18n.foreign.latin_in_chinese`). The real
catalogs are used: the check is of what a player reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.i18n import LANGUAGES, language
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.mail import helptext, inbound, reading
from pbem.outbox import unpack_message
from pbem.outbox.settings import MailSettings
from pbem.play import orders, turns
from pbem.play.create import create_game
from pbem.storage.db import connect
from pbem.storage.models import OutboxRow
from tests.i18n import foreign
from tests.mail.conftest import HOST, START, mail

SETTINGS = MailSettings(from_addr=HOST, from_name="pbem test host", retry_seconds=60, max_attempts=3)
GAME, SEAT, ADDRESS = "rh", "ann", "ann@example.org"
#: names a reader meets that are no language's words: the game, its seats, the game's title; and the
#: mail commands, on the lines of the help that show what a player writes (as order keywords are)
NAMES = (GAME, SEAT, "bo", "Reef", "Encounter", *helptext.HELP)


class Hosted:
    """A Reef Encounter game whose readers all read one language, and the mail its host answers."""

    def __init__(self, engine: Engine, lang: str) -> None:
        self.engine, self.lang = engine, lang
        self.passwords = create_game(
            engine,
            "reef-encounter",
            GAME,
            [(SEAT, ADDRESS), ("bo", "bo@example.org")],
            seed=3,
            now=START,
            language=lang,
        )
        # the bot's legal orders, in the template as the seat's report carries it: in the seat's language
        # (a mistake's answer quotes the player's own lines, comments and all)
        with language(lang):
            self.template = orders.template(engine, GAME, SEAT, suggest=True)
        self.orders = self.template.replace(PASSWORD_PLACEHOLDER, self.passwords[SEAT])

    def next_turns_orders(self) -> str:
        """The setup played (the bot for every seat), the seat's legal orders for turn 2."""
        turns.process(self.engine, GAME, now=START, fill_missing=True)
        with language(self.lang):
            legal = orders.template(self.engine, GAME, SEAT, suggest=True)
        return legal.replace(PASSWORD_PLACEHOLDER, self.passwords[SEAT])

    def answer(self, body: str, *, subject: str = "orders") -> EmailMessage:
        """The one reply the host queues to ``body`` mailed from the seat's own address."""
        handled = inbound.handle(
            self.engine, mail(body, subject=subject).as_bytes(policy=policy.SMTP), SETTINGS, START
        )
        assert handled.replied, handled
        with Session(self.engine) as session:
            # the last one queued: a password request's new password goes to the same address first
            row = session.exec(
                select(OutboxRow).where(OutboxRow.to_addr == ADDRESS).order_by(OutboxRow.id.desc())  # type: ignore[union-attr]
            ).first()
            assert row is not None
        return message_from_bytes(unpack_message(row.message_z), policy=policy.default)  # type: ignore[return-value]


@pytest.fixture(params=LANGUAGES)
def hosted(request: pytest.FixtureRequest, tmp_path: Path) -> Hosted:
    engine = connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}")
    return Hosted(engine, request.param)


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    text = str(part.get_content()).replace("\r\n", "\n")
    return reading.unflow(text) if part.get_param("format") == "flowed" else text


#: the mistakes the host answers, each as the mail a player of the hosted game sends
MISTAKES: dict[str, Callable[[Hosted], str]] = {
    "wrong password": lambda h: h.orders.replace(h.passwords[SEAT], "tulip-frog-42"),
    "help": lambda h: "help\n",
    "password request": lambda h: f"password\ngame: {GAME}\nplayer: {SEAT}\n",
    "no orders": lambda h: "Hello, I will send my orders tomorrow.\n",
    "wrong turn": lambda h: h.orders.replace("turn: 1", "turn: 5"),
    "unknown game": lambda h: h.orders.replace(f"game: {GAME}", "game: zz-9"),
    "YAML error": lambda h: h.orders.replace("orders:", "orders:\n\t- larva: grey"),
    "envelope error": lambda h: h.template,  # the password left as the template's placeholder
    "missing turn": lambda h: h.orders.replace("turn: 1\n", ""),
    "rule error": lambda h: h.next_turns_orders().replace("larva: grey", "larva: pink"),  # pink: not held
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_the_answer_to_a_mistake_is_wholly_in_the_seats_language(hosted: Hosted, mistake: str) -> None:
    sent = MISTAKES[mistake](hosted)
    reply = hosted.answer(sent)
    text = text_of(reply)
    assert reply["Content-Language"] == hosted.lang, text
    assert foreign.misdeclared(reply) is None
    # a line of the player's own that the answer quotes back (to point at an error) is theirs, not prose
    shown = [line.strip() for line in sent.split("\n") if line.strip() and line.strip() in text]
    quoted = [word for line in shown for word in re.findall(r"\w+", line)]
    assert foreign.english_words(text, hosted.lang, (*NAMES, *quoted)) == [], text
    if hosted.lang == "zh":
        assert foreign.latin_in_chinese(text, (*NAMES, *quoted)) == [], text


def test_a_stranger_is_answered_in_english(tmp_path: Path) -> None:
    """Nobody to decide for: an address no seat has, naming no game the host knows."""
    hosted = Hosted(connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}"), "hu")
    handled = inbound.handle(
        hosted.engine,
        mail("help\n", frm="Zed <zed@example.net>").as_bytes(policy=policy.SMTP),
        SETTINGS,
        START,
    )
    assert handled.replied
    with Session(hosted.engine) as session:
        row = session.exec(select(OutboxRow).where(OutboxRow.to_addr == "zed@example.net")).one()
    reply = message_from_bytes(unpack_message(row.message_z), policy=policy.default)
    assert reply["Content-Language"] == "en"
    assert foreign.misdeclared(reply) is None


def test_a_game_named_in_the_mail_decides_before_the_senders_address(tmp_path: Path) -> None:
    """A mail naming a known game is answered in that game's language, though its sender's address is
    registered for a seat that reads another."""
    hosted = Hosted(connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}"), "cs")
    create_game(
        hosted.engine, "reef-encounter", "other", [("zed", "zed@example.net"), ("bo", "bo@example.org")],
        seed=1, now=START, language="hu",
    )  # fmt: skip
    wrong = hosted.orders.replace(hosted.passwords[SEAT], "tulip-frog-42").replace(
        f"player: {SEAT}", "player: zed"
    )
    handled = inbound.handle(
        hosted.engine, mail(wrong, frm="Zed <zed@example.net>").as_bytes(policy=policy.SMTP), SETTINGS, START
    )
    assert handled.replied
    with Session(hosted.engine) as session:
        row = session.exec(select(OutboxRow).where(OutboxRow.to_addr == "zed@example.net")).one()
    reply = message_from_bytes(unpack_message(row.message_z), policy=policy.default)
    assert reply["Content-Language"] == "cs"
    assert foreign.english_words(text_of(reply), "cs", (*NAMES, "zed")) == []


def test_a_stranger_naming_a_game_is_answered_in_english_with_nothing_of_the_mail(tmp_path: Path) -> None:
    """A stranger (:mod:`pbem.mail.backscatter`) has no registered seat to read in, and the seat the mail
    names is unproven: the host's fixed stranger text, in English, not in the named game's language."""
    hosted = Hosted(connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}"), "cs")
    wrong = hosted.orders.replace(hosted.passwords[SEAT], "tulip-frog-42")
    handled = inbound.handle(
        hosted.engine, mail(wrong, frm="Zed <zed@example.net>").as_bytes(policy=policy.SMTP), SETTINGS, START
    )
    assert handled.replied
    with Session(hosted.engine) as session:
        row = session.exec(select(OutboxRow).where(OutboxRow.to_addr == "zed@example.net")).one()
    reply = message_from_bytes(unpack_message(row.message_z), policy=policy.default)
    assert reply["Content-Language"] == "en"
    assert foreign.misdeclared(reply) is None
    assert GAME not in text_of(reply) and SEAT not in str(reply["Subject"])


def test_a_password_taken_out_of_the_subject_is_said_in_the_readers_words(tmp_path: Path) -> None:
    hosted = Hosted(connect(f"sqlite:///{tmp_path / 'pbem.sqlite'}"), "hu")
    secret = hosted.passwords[SEAT]
    reply = hosted.answer(hosted.orders, subject=f"my orders ({secret})")
    assert secret not in str(reply["Subject"])
    assert str(reply["Subject"]).startswith("Re: my orders (") and "password" not in str(reply["Subject"])


def test_a_mail_naming_no_game_is_answered_in_its_registered_senders_language(engine: Engine) -> None:
    """On SQLite and PostgreSQL: the sender's address is found among the seats (case and spaces aside),
    in the newest game still running."""
    create_game(
        engine,
        "reef-encounter",
        "old",
        [(SEAT, ADDRESS), ("bo", "bo@example.org")],
        seed=1,
        now=START - timedelta(days=1),
        language="cs",
    )
    hosted = Hosted(engine, "ru")  # made after "old": the newest game the address plays in
    handled = inbound.handle(
        engine, mail("Hello?\n", frm="Ann <ANN@Example.org>").as_bytes(policy=policy.SMTP), SETTINGS, START
    )
    assert handled.replied
    with Session(engine) as session:
        row = session.exec(select(OutboxRow).where(OutboxRow.to_addr == ADDRESS)).one()
    reply = message_from_bytes(unpack_message(row.message_z), policy=policy.default)
    assert reply["Content-Language"] == hosted.lang
    assert foreign.misdeclared(reply) is None
