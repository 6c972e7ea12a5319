"""Mail commands: a player asks for their latest report again, or for the order template.

A command is one word (``report``, ``template``, ``help``) as the subject or as the first line of the
text, followed by the envelope without orders::

    report
    game: reef-7
    player: red
    password: tulip-frog-42
    turn: 3            # report only, optional: an older turn

A YAML ``command: report`` key works too. Two commands are a key of their own beside the envelope
(issue 17): ``timezone: Asia/Shanghai`` (the zone the seat reads its deadlines in) and
``away: {until: 2026-12-20}`` (time away; the game's absence policy applies). Any request from a
seat that is away, but ``away`` itself, ends its absence early. The password is checked as for
orders; when the game requires it, the From address must be the seat's.

``language: cs`` as the first line (the envelope below it) sets the language the seat reads from
then on: its reports, templates, receipts and replies (one of :data:`pbem.core.i18n.LANGUAGES`). Every
answer to a known seat is in that seat's language.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import yaml
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import clock, zones
from pbem.core.errors import UserError
from pbem.core.i18n import LANGUAGES, NAMES, UnknownLanguage, _, check_language, current_language
from pbem.intake import away, guessing, orderfile, seatpass
from pbem.mail.helptext import help_text
from pbem.outbox import readers
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from pbem.render import reports
from pbem.render.mail_html import mail_page
from pbem.render.pictures import Picture
from pbem.storage.db import lock_game
from pbem.storage.models import GameRow, SeatRow

#: the last three: issue 32 (pbem.mail.record), a player's record, a game master's excuse, notice URLs
COMMANDS = (
    "report",
    "template",
    "help",
    "password",
    "language",
    "timezone",
    "away",
    "press",
    "record",
    "excuse",
    "notify",
)
#: the game master's commands (issue 14), carried out by :mod:`pbem.mail.gm`
GM_COMMANDS = ("pause", "resume", "extend", "replace", "rollback", "observe", "announce", "gm")
_LANGUAGE_LINE = re.compile(r"^\s*language\s*:\s*\S+\s*$", re.IGNORECASE)
#: commands given as a key of the envelope: ``timezone: Europe/Budapest``, ``away: {until: ...}``
_KEYED = re.compile(r"^(timezone|away|notify)\s*:", re.MULTILINE | re.IGNORECASE)

#: commands that need no password (their answer goes to the seat's registered address, or is public)
WITHOUT_PASSWORD = ("password",)
_SUBJECT_NOISE = re.compile(r"^\s*((re|fwd?|aw|wg|sv|tr)\s*:\s*|\[[^\]]*\]\s*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Command:
    name: str
    envelope_text: str
    #: what follows the word on its line, for the commands that take it there (``join reef-9``)
    argument: str = ""


def detect(subject: str, text: str) -> Command | None:
    """The command a message carries, or ``None`` when it is (or tries to be) orders.

    >>> detect("report", "game: g").name
    'report'
    >>> detect("", "template\\ngame: g\\nplayer: red").envelope_text
    'game: g\\nplayer: red'
    >>> detect("report", "game: g\\norders:\\n  - pass") is None
    True
    """
    if re.search(r"^orders\s*:", text, re.MULTILINE):
        return None
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and _LANGUAGE_LINE.match(lines[first]):
        # ``language: cs`` is itself a line of the envelope: the whole text is read as YAML
        return Command("language", "\n".join(lines[first:]).strip("\n"))
    if first is not None and lines[first].strip().lower().rstrip(".!:") in words():
        return Command(lines[first].strip().lower().rstrip(".!:"), "\n".join(lines[first + 1 :]).strip("\n"))
    if first is not None:
        with_argument = _with_argument(lines[first])
        if with_argument is not None:
            return replace(with_argument, envelope_text="\n".join(lines[first + 1 :]).strip("\n"))
    topic = _SUBJECT_NOISE.sub("", subject).strip().lower()
    if topic in words():
        return Command(topic, text)
    if _with_argument(topic) is not None and not text.strip():  # a reply to a code's mail, left empty
        return _with_argument(topic)
    keyed = _KEYED.search(text)
    if keyed:
        return Command(keyed.group(1).lower(), text)
    found = re.search(r"^command\s*:\s*['\"]?(\w+)['\"]?\s*$", text, re.MULTILINE | re.IGNORECASE)
    if found:
        return Command(found.group(1).lower(), text)
    return None


def words() -> tuple[str, ...]:
    """Every command word: :data:`COMMANDS`, the game master's, and those other modules register."""
    return (*COMMANDS, *GM_COMMANDS, *sorted(set(_handlers) - set(COMMANDS) - set(GM_COMMANDS)))


def _with_argument(line: str) -> Command | None:
    """``join reef-9`` or ``confirm K7QD-M2XA-9RTE: join reef-9``: a registered command that takes
    what follows it on its line (:func:`handles` with ``argument=True``)."""
    word, _sep, rest = line.strip().partition(" ")
    name = word.lower().rstrip(".!:")
    if name in _taking_argument and rest.strip():
        return Command(name, "", rest.strip())
    return None


@dataclass(frozen=True)
class Answer:
    """What to mail back: a body (plain text), optionally the HTML alternative (mail-safe, its board
    ``pictures`` beside it by Content-ID) and an attachment."""

    ok: bool
    subject: str
    text: str
    html: str | None = None
    attachment: tuple[str, str] | None = None
    errors: list[str] = field(default_factory=list)
    pictures: tuple[Picture, ...] = ()
    game_id: str | None = None
    #: the reader's, once the seat is known (:mod:`pbem.outbox.readers`); None: the language decided
    #: for the mail it answers
    language: str | None = None
    seat: str | None = None  # the thread the answer joins (a seat's, or the game master's)
    #: not to be answered at all: password guessing (a seat held by pbem.intake.guessing, a sender past its
    #: limit)
    silent: bool = False


#: the commands other modules of the mail package answer, by name: each registers its own
#: (:func:`handles`) when ``pbem.mail`` is imported, so this module stays below them
_handlers: dict[str, Callable[..., Answer]] = {}
#: those among them that are given the envelope already read (game, player, password), not the command
_reading_envelope: set[str] = set()
#: those that take a word after them on their line (``join reef-9``: :attr:`Command.argument`)
_taking_argument: set[str] = set()


def handles(
    *names: str, envelope: bool = False, argument: bool = False
) -> Callable[[Callable[..., Answer]], Callable[..., Answer]]:
    """Register the decorated function as the answer to the commands ``names``: called as
    ``handler(engine, command, from_address, settings=, now=)``, or with ``envelope=True`` as
    ``handler(engine, envelope, settings=, now=)`` once the lines after the command are read.
    ``argument``: the command may be followed on its line by what it is about (``join reef-9``)."""

    def register(handler: Callable[..., Answer]) -> Callable[..., Answer]:
        for name in names:
            _handlers[name] = handler
            if envelope:
                _reading_envelope.add(name)
            if argument:
                _taking_argument.add(name)
        return handler

    return register


def run(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """Carry out a command for ``from_address``; bad input becomes an :class:`Answer` with errors.
    ``settings`` and ``now`` serve commands that queue mail of their own (``password``)."""
    if command.name == "help":
        return Answer(True, _("[pbem] how to play by mail"), help_text())
    handler = _handlers.get(command.name)
    if handler is not None and command.name not in _reading_envelope:
        return handler(engine, command, from_address, settings=settings, now=now)
    if command.name not in COMMANDS:
        return _refused(
            _(
                "unknown command {command}: known commands are {commands}",
                command=repr(command.name),
                commands=", ".join(COMMANDS),
            )
        )
    try:
        envelope = read_envelope(command)
    except UserError as exc:
        return _refused(str(exc))
    if not isinstance(envelope, dict):
        return _refused(
            _("after {command}, give the lines game:, player: and password:", command=repr(command.name))
        )
    if handler is not None:
        return handler(engine, envelope, settings=settings, now=now)
    try:
        game_id, seat = _authenticate(engine, envelope, from_address, clock.utc(now))
    except _Held:
        return Answer(False, "", "", silent=True)
    except UserError as exc:
        return _refused(str(exc))
    if command.name == "language":
        return _language(engine, game_id, seat, envelope.get("language"))
    reader = readers.reader_of(engine, game_id, seat)
    with reader.speaking():
        if command.name in ("timezone", "away"):
            answer = _seat_setting(engine, command.name, game_id, seat, envelope)
        else:
            _back(engine, game_id, seat)  # a mail from a seat that is away ends its absence
            if command.name == "report":
                answer = _report(engine, game_id, seat, envelope.get("turn"))
            else:
                answer = _template(engine, game_id, seat)
    return replace(answer, language=reader.language)


def _language(engine: Engine, game_id: str, seat: str, wanted: Any) -> Answer:
    """Set the seat's own language; the answer is in the new one."""
    try:
        code = check_language(str(wanted or ""))
    except UnknownLanguage:
        reader = readers.reader_of(engine, game_id, seat)
        with reader.speaking():
            refused = _refused(
                _(
                    "language: '{wanted}' is not a language this host writes; write one of {codes}",
                    wanted=wanted,
                    codes=", ".join(LANGUAGES),
                )
            )
        return replace(refused, language=reader.language)
    with Session(engine) as session:
        row = session.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat)).one()
        row.language = code
        session.add(row)
        session.commit()
    with readers.Reader(code, game_id, seat).speaking():
        text = _(
            "From now on you read {game} in {name}: reports, order templates and answers to your mail.\n",
            game=game_id,
            name=NAMES[code],
        )
        subject = _("[pbem {game}] language for {seat}: {name}", game=game_id, seat=seat, name=NAMES[code])
    return Answer(True, subject, text, game_id=game_id, language=code)


def _back(engine: Engine, game_id: str, seat: str) -> None:
    with Session(engine) as session:
        if away.back(session, game_id, seat, clock.utc()):
            session.commit()


def _seat_setting(
    engine: Engine, name: str, game_id: str, seat_name: str, envelope: dict[str, Any]
) -> Answer:
    """``timezone:`` or ``away:`` for the authenticated seat, in one transaction."""
    value = envelope.get(name)
    with Session(engine) as session:
        lock_game(session, game_id)
        game = session.get(GameRow, game_id)
        seat = session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
        ).one()
        assert game is not None
        try:
            if name == "timezone":
                seat.timezone = zones.check(str(value or ""))
                session.add(seat)
                away.back(session, game_id, seat_name, clock.utc())
                said = _(
                    "From now on your deadlines in game {game} are shown in {zone}, with UTC beside them.",
                    game=game_id,
                    zone=seat.timezone,
                )
                if game.deadline_at is not None and game.status == "active":
                    said += " " + _(
                        "The current one: {deadline}.", deadline=zones.show(game.deadline_at, seat.timezone)
                    )
            else:
                until = value.get("until") if isinstance(value, dict) else value
                if until is None:
                    raise UserError(
                        _(
                            "away: give the last day you are away, e.g. away: {example}",
                            example="{until: 2026-12-20}",
                        )
                    )
                said = away.set_away(session, game, seat, until, clock.utc())
        except UserError as exc:
            session.rollback()
            return _refused(str(exc))
        session.commit()
    subject = (
        _("[pbem {game}] timezone for {seat}", game=game_id, seat=seat_name)
        if name == "timezone"
        else _("[pbem {game}] away for {seat}", game=game_id, seat=seat_name)
    )
    return Answer(True, subject, said + "\n", game_id=game_id)


def read_envelope(command: Command) -> Any:
    """The lines after the command, as YAML (``None`` for none); a :class:`UserError` in the sender's words
    when they cannot be read."""
    try:
        return orderfile.load(command.envelope_text)
    except (orderfile.OrderFileError, yaml.YAMLError) as exc:  # the reader lets some YAML errors through
        raise UserError(
            _(
                "the lines after {command} could not be read: {problem}",
                command=repr(command.name),
                problem=str(exc).splitlines()[0],
            )
        ) from exc


def _refused(message: str) -> Answer:
    return Answer(False, _("[pbem] your request was not carried out"), "", errors=[message])


class _Held(Exception):
    """A wrong password for a seat held against guessing: not answered (pbem.intake.guessing)."""


def _authenticate(
    engine: Engine, envelope: dict[str, Any], from_address: str, now: datetime
) -> tuple[str, str]:
    missing = [k for k in ("game", "player", "password") if not envelope.get(k)]
    if missing:
        raise UserError(
            _(
                "missing {keys}: a request needs the lines game:, player: and password:",
                keys=", ".join(missing),
            )
        )
    game_id, seat_name, password = (str(envelope[k]) for k in ("game", "player", "password"))
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        seat = session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
        ).first()
        # the same answer, and the same time spent, whatever is wrong: nobody learns which seats exist
        matches = seatpass.check(session, seat, password)  # a requested new password counts too
        if not matches or game is None or seat is None:
            guessing.wrong(session, game_id, seat_name, from_address, now)
        require_from = bool(game and game.require_from_match)
        seat_email = seat.email if seat else ""
        session.commit()  # its first use makes it the seat's password
        if (not matches or game is None or seat is None) and guessing.silenced(
            session, game_id, seat_name, from_address, now
        ):
            raise _Held
    if not matches or game is None or seat is None:
        raise UserError(
            _(
                "game {game}, player {seat} and that password do not match",
                game=repr(game_id),
                seat=repr(seat_name),
            )
        )
    if require_from and seat_email.strip().lower() != from_address.lower():
        raise UserError(
            _(
                "game {game} accepts mail for {seat} only from the player's own address",
                game=game_id,
                seat=seat_name,
            )
        )
    return game_id, seat_name


def _report(engine: Engine, game_id: str, seat: str, turn: Any) -> Answer:

    if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int) or turn < 0):
        return _refused(_("turn must be a whole number, not {turn}", turn=repr(turn)))
    # the turn's report mail, rendered now in the reader's language (the seat may have chosen another
    # since the turn was stored): its text, and its page made mail (CSS inlined, boards as PNG pictures)
    lang = current_language()
    try:
        text = reports.report(engine, game_id, seat, turn=turn, fmt="txt", lang=lang, as_mailed=True)
        html = reports.report(engine, game_id, seat, turn=turn, fmt="html", lang=lang, as_mailed=True)
        page = mail_page(html)
    except UserError as exc:
        return _refused(str(exc))
    subject = (
        _("[pbem {game}] turn {turn} report for {seat}", game=game_id, turn=turn, seat=seat)
        if turn is not None
        else _("[pbem {game}] latest report for {seat}", game=game_id, seat=seat)
    )
    return Answer(True, subject, text, page.html, game_id=game_id, seat=seat, pictures=page.pictures)


def _template(engine: Engine, game_id: str, seat: str) -> Answer:

    try:
        text = orders.template(engine, game_id, seat)
    except UserError as exc:
        return _refused(str(exc))
    body = (
        _(
            "The order template for {seat} in {game}: fill in your password and orders, and send it back "
            "as the body of a plain-text mail (or as the attached file).",
            seat=seat,
            game=game_id,
        )
        + "\n\n"
        + text
    )
    return Answer(
        True,
        _("[pbem {game}] order template for {seat}", game=game_id, seat=seat),
        body,
        attachment=(f"{game_id}-{seat}.yaml", text),
        game_id=game_id,
        seat=seat,
    )
