"""The ``press`` mail command: players write each other through the host (issue 14).

    press
    game: reef-7
    player: ann
    password: tulip-frog-42
    to: [bo, cy]          # or: to: bo, cy · or: to: all

    Bo, Cy: shall we leave the orange coral alone this turn?

The message is the rest of the player's own text (a quoted reply below it and a signature are cut off,
as for orders: :func:`pbem.mail.extract.own_part`). The host mails it to each recipient seat's
registered address from its own address, signed with the sender's seat name and never with any
address, in the recipient's language and thread; the sender gets a receipt naming who it went to.

A game's ``press`` option (njudge's): ``none`` refuses press, ``public`` allows only ``to: all`` (the
game's observers get it too), ``private`` allows ``all`` and chosen seats. Private press is hidden
information of its sender and readers while the game runs; :mod:`pbem.archive.files` shows all press once
the game is over.

At-least-once without doubles: the press row and its mails are written by :meth:`Press.write`, which
:mod:`pbem.mail.inbound` calls in the transaction that marks the inbound mail done, with keys derived
from the inbound mail's key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import yaml
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.core import clock
from pbem.core.clock import utc
from pbem.core.codec import sha256_hex
from pbem.core.errors import UserError
from pbem.core.i18n import _, language, ngettext
from pbem.intake import addresses, away, orderfile
from pbem.mail import commands, extract, reading
from pbem.outbox import address_key, queue, readers
from pbem.outbox.message import header_fields, new_message, set_text, subject_line, thread_root
from pbem.outbox.settings import MailSettings, load_settings
from pbem.storage.models import GameRow, ObserverRow, PressRow, SeatRow

DEFAULT_PRESS = "private"
#: a press message's longest text, in characters: a long letter, not a book
MAX_PRESS_CHARS = 8000
#: press mails one seat may send in an hour: the host mails on the seat's behalf, so it is bounded
MAX_PER_HOUR = 10
RATE_WINDOW = timedelta(hours=1)

_ENVELOPE_KEY = re.compile(r"^\s*(game|player|password|to|turn)\s*:", re.IGNORECASE)
_WORD = re.compile(r"^\s*press\s*[.!:]?\s*$", re.IGNORECASE)


def command_of(msg: reading.EmailMessage) -> commands.Command:
    """The press command of a message: its whole own text (the order reader keeps only the lines that
    read as YAML, and a message is prose). The word ``press`` on the first line is dropped."""
    lines = extract.own_part(reading.body_text(msg)).split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if first < len(lines) and _WORD.match(lines[first]):
        first += 1
    # a NUL is no prose, and PostgreSQL refuses it in a text column where SQLite keeps it
    return commands.Command("press", "\n".join(lines[first:]).strip("\n").replace("\x00", ""))


def split(text: str) -> tuple[list[str], str]:
    """(the envelope lines, the message): the envelope is the run of ``game:``, ``player:``,
    ``password:``, ``to:`` lines at the top (blank lines between them allowed), the message the rest.

    >>> split("game: g\\nto: all\\n\\nHello,\\nAnn")
    (['game: g', 'to: all'], 'Hello,\\nAnn')
    """
    lines = text.split("\n")
    envelope: list[str] = []
    at = 0
    while at < len(lines) and (not lines[at].strip() or _ENVELOPE_KEY.match(lines[at])):
        if lines[at].strip():
            envelope.append(lines[at].strip())
        at += 1
    return envelope, "\n".join(line.rstrip() for line in lines[at:]).strip("\n")


@dataclass(frozen=True)
class Delivery:
    """One press mail: to a seat (``seat``) or an observer (``seat`` empty), in its language."""

    seat: str
    address: str
    language: str


@dataclass(frozen=True)
class Press:
    """Press checked and ready to send; :meth:`write` stores it and queues its mails."""

    settings: MailSettings
    game_id: str
    epoch: int
    turn: int
    sender: str
    to_all: bool
    recipients: list[str]
    text: str
    now: datetime
    deliveries: list[Delivery] = field(default_factory=list)

    def write(self, session: Session, inbound_key: str) -> None:
        """Store the press and queue one mail per delivery, in the caller's transaction."""
        key = "press:" + sha256_hex(inbound_key)[:40]
        if session.exec(select(PressRow.id).where(PressRow.key == key)).first() is not None:
            return
        session.add(
            PressRow(
                key=key,
                game_id=self.game_id,
                epoch=self.epoch,
                turn=self.turn,
                sender=self.sender,
                to_all=self.to_all,
                recipients_json=json.dumps(self.recipients),
                sent_at=self.now,
                text=self.text,
            )
        )
        away.back(session, self.game_id, self.sender, self.now)  # a seat that writes is back
        for delivery in self.deliveries:
            # an observer's address as its digest: a 254-character one must not make the key overflow
            mail_key = f"{key}:{delivery.seat or 'observer=' + address_key(delivery.address)}"
            with language(delivery.language):
                message = self._message(delivery, mail_key)
            queue(
                session,
                key=mail_key,
                to=delivery.address,
                message=message,
                now=self.now,
                game_id=self.game_id,
            )

    def _message(self, delivery: Delivery, key: str) -> reading.EmailMessage:
        message = new_message(
            header_fields(
                self.settings,
                to=delivery.address,
                subject=subject_line(self.game_id, _("press from {seat}", seat=self.sender)),
                key=key,
                now=self.now,
                thread=thread_root(self.settings, self.game_id, delivery.seat) if delivery.seat else None,
            )
        )
        set_text(message, self.body(delivery.seat))
        return message

    def body(self, reader: str) -> str:
        """The press mail's text for ``reader`` (a seat, or ``""`` for an observer): the frame in the
        reader's language, the message as its sender wrote it."""
        if self.to_all:
            head = _(
                "Press from {seat} to every player in game {game} (turn {turn}):",
                seat=self.sender,
                game=self.game_id,
                turn=self.turn,
            )
        else:
            others = [seat for seat in self.recipients if seat != reader]
            head = (
                _(
                    "Press from {seat} to you and {others} in game {game} (turn {turn}):",
                    seat=self.sender,
                    others=", ".join(others),
                    game=self.game_id,
                    turn=self.turn,
                )
                if others
                else _(
                    "Press from {seat} to you alone in game {game} (turn {turn}):",
                    seat=self.sender,
                    game=self.game_id,
                    turn=self.turn,
                )
            )
        foot = _(
            "Sent through the game's host, signed by seat {seat}; no address is shown. To answer, send "
            "a press mail of your own (press, then game:, player:, password:, to: {seat}).",
            seat=self.sender,
        )
        # signed with the seat's name alone: a word around it ("seat bo") is English in every language
        return f"{head}\n\n{self.text}\n\n-- \n{self.sender}\n{foot}\n"


@dataclass(frozen=True)
class PressAnswer(commands.Answer):
    """The sender's receipt, and the press to write with the inbound mail's record."""

    write: Callable[[Session, str], None] | None = None


@commands.handles("press")
def run(
    engine: Engine,
    command: commands.Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> commands.Answer:
    """Check a press mail; the receipt (with the press to write) or the refusal, in the sender's words."""
    lines, text = split(command.envelope_text)
    try:
        envelope = orderfile.load("\n".join(lines)) if lines else {}
    except (orderfile.OrderFileError, yaml.YAMLError) as exc:
        return commands._refused(
            _("the lines after 'press' could not be read: {problem}", problem=str(exc).splitlines()[0])
        )
    if not isinstance(envelope, dict):
        return commands._refused(_("after 'press', give the lines game:, player:, password: and to:"))
    try:
        game_id, seat = commands._authenticate(engine, envelope, from_address, clock.utc(now))
    except commands._Held:  # held against password guessing: no answer, as for every seat command
        return commands.Answer(False, "", "", silent=True)
    except UserError as exc:
        return commands._refused(str(exc))
    reader = readers.reader_of(engine, game_id, seat)
    lang = reader.language
    with reader.speaking():
        try:
            press = _check(
                engine, settings or load_settings(), game_id, seat, envelope, text, now, from_address
            )
        except UserError as exc:
            return replace(commands._refused(str(exc)), language=lang, game_id=game_id, seat=seat)
        reached = press.recipients if not press.to_all else [_("every player")]
        said = _(
            "Your press in game {game} went to: {seats}. It is signed {seat}; no address is shown.",
            game=game_id,
            seats=", ".join(reached),
            seat=seat,
        )
        if press.to_all and any(not d.seat for d in press.deliveries):
            said += " " + _("The game's observers read it too.")
        missing = [s for s in press.recipients if s not in {d.seat for d in press.deliveries}]
        if missing:
            said += " " + _(
                "These seats have no address the host can mail, so they read it only in the archive of "
                "the finished game: {seats}.",
                seats=", ".join(missing),
            )
        subject = subject_line(game_id, _("press sent"))
    return PressAnswer(
        True, subject, said + "\n", game_id=game_id, language=lang, seat=seat, write=press.write
    )


def _check(
    engine: Engine,
    settings: MailSettings,
    game_id: str,
    sender: str,
    envelope: dict[str, Any],
    text: str,
    now: datetime | None,
    from_address: str = "",
) -> Press:
    moment = utc(now)
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        assert game is not None  # authenticated
        seats = list(
            session.exec(select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.position))
        )
        observers = list(session.exec(select(ObserverRow.email).where(ObserverRow.game_id == game_id)))
        sent = session.exec(
            select(func.count())
            .select_from(PressRow)
            .where(
                PressRow.game_id == game_id,
                PressRow.sender == sender,
                PressRow.sent_at > moment - RATE_WINDOW,  # type: ignore[operator]
            )
        ).one()
    mode = game.press or DEFAULT_PRESS
    if mode == "none":
        raise UserError(
            _(
                "game {game} takes no press: its players do not write each other through the host",
                game=game_id,
            )
        )
    if game.status == "finished":
        raise UserError(_("game {game} is over: press is no longer sent", game=game_id))
    to_all, recipients = _recipients(envelope.get("to"), [s.name for s in seats], sender)
    if mode == "public" and not to_all:
        raise UserError(
            _("game {game} takes only public press: write to: all instead of naming seats", game=game_id)
        )
    if not text.strip():
        raise UserError(_("press: the message is empty: write it below the to: line"))
    if len(text) > MAX_PRESS_CHARS:
        raise UserError(
            ngettext(
                "press: the message is {n} character long; at most {limit} are sent: shorten it or "
                "send it in parts",
                "press: the message is {n} characters long; at most {limit} are sent: shorten it or "
                "send it in parts",
                len(text),
                limit=MAX_PRESS_CHARS,
            )
        )
    if sent >= MAX_PER_HOUR:
        raise UserError(
            ngettext(
                "press: seat {seat} has sent {n} press message in the last hour, the most the host "
                "sends for one seat; send this one later",
                "press: seat {seat} has sent {n} press messages in the last hour, the most the host "
                "sends for one seat; send this one later",
                sent,
                seat=sender,
            )
        )
    by_name = {s.name: s for s in seats}
    deliveries = [
        Delivery(seat, address, readers.reader_of(engine, game_id, seat).language)
        for seat in recipients
        for address in [by_name[seat].email.strip().lower()]
        if addresses.is_valid(address)
    ]
    if to_all and mode == "public":
        observer_language = readers.reader_of(engine, game_id, None).language
        own = {s.email.strip().lower() for s in seats}
        deliveries += [
            Delivery("", address, observer_language)
            for address in sorted({o.strip().lower() for o in observers})
            if addresses.is_valid(address) and address not in own
        ]
    return Press(
        settings,
        game_id,
        game.epoch,
        game.turn + 1,
        sender,
        to_all,
        recipients,
        _scrub(text, [from_address, *(s.email for s in seats if s.name == sender)]),
        moment,
        deliveries,
    )


def prepare(
    engine: Engine, game_id: str, sender: str, to: Any, text: str, now: datetime | None = None
) -> Press:
    """Press from an authenticated seat checked by the same rules and limits as a mailed one (the web
    host's form, :mod:`pbem.web`): :meth:`Press.write` stores it. A :class:`UserError` in the current
    language says what is wrong."""
    return _check(engine, load_settings(), game_id, sender, {"to": to}, text.replace("\x00", ""), now)


def _recipients(wanted: Any, seats: list[str], sender: str) -> tuple[bool, list[str]]:
    """(to every seat, the recipient seats in seating order, the sender left out) from ``to:``."""
    if wanted is None or wanted == "" or wanted == []:
        raise UserError(_("press: the to: line is missing: write to: all, or to: followed by seat names"))
    names = wanted if isinstance(wanted, list) else re.split(r"[,\s]+", str(wanted))
    names = [str(n).strip() for n in names if str(n).strip()]
    if [n.lower() for n in names] == ["all"]:
        return True, [s for s in seats if s != sender]
    by_lower = {s.lower(): s for s in seats}
    unknown = [n for n in names if n.lower() not in by_lower]
    if unknown:
        raise UserError(
            _(
                "press: to: names {unknown}, which is no seat of this game; seats: {seats} "
                "(or write to: all)",
                unknown=", ".join(unknown),
                seats=", ".join(seats),
            )
        )
    chosen = {by_lower[n.lower()] for n in names} - {sender}
    if not chosen:
        raise UserError(_("press: to: names only your own seat; name another seat, or write to: all"))
    return False, [s for s in seats if s in chosen]


def _scrub(text: str, addresses: list[str]) -> str:
    """The message without the sender's addresses (the one it wrote from, the seat's registered one: a
    signature may carry them): press never shows the sender's address."""
    for address in addresses:
        if address.strip():
            text = re.sub(re.escape(address.strip()), _("[address removed]"), text, flags=re.IGNORECASE)
    return text
