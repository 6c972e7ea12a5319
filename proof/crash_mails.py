"""The crash campaign's other mails: what a killed tick handles besides orders and reports.

Each family puts into the crash template (:func:`proof.crash.build_template`) work that the next tick
does, so that the SIGKILLs also land while it is done:

- **welcome**: every seat's welcome queued (:mod:`pbem.mail.welcome`), sent by the tick;
- **password reset**: a ``password`` request mail in the inbound Maildir, answered by the tick with a
  reply to the sender and the new password to the registered address (:mod:`pbem.mail.password_reset`);
- **bounce**: a welcome that went out before, and a DSN for it in the inbound Maildir: the tick marks
  that outbox mail bounced (:mod:`pbem.mail.bounces`);
- **reminder**: a game whose deadline is within the reminding window with orders missing: the tick
  mails the seats that owe them (:mod:`pbem.cron.notices`);
- **game master**: a game of each game type with a game master (:mod:`pbem.mail.gm`) and an ``extend``
  mail from them in the inbound Maildir: the tick moves the deadline once, answers the game master and
  mails each seat its calendar event moved. Games of their own, whose turn does not resolve at the
  tick: a mail whose claim a killed tick held is handled ten minutes later, and an extension applied
  after a turn resolved would move the next turn's deadline instead (a true difference, not a crash's).

The uninterrupted and the killed runs are compared as for the rest (:func:`proof.crash.differences`):
every outbox row (its key, recipient, subject and status, ``bounced`` included) and every delivered mail.

- **lobby**: joins, an open game's start, seats offered and taken over (:mod:`proof.crash_lobby`).

Press and game-master mail are built elsewhere: each is a function ``(engine, layout, inbox) -> int``
added to :data:`FAMILIES` that leaves its mails (or the mail that asks for them) in the template.
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import outbox
from pbem.mail.gm import set_game_master
from pbem.mail.welcome import queue_welcomes
from pbem.outbox.settings import load_settings
from pbem.outbox.transport import MaildirTransport
from pbem.play.create import create_game
from pbem.storage.models import GameRow, SeatRow
from proof import crash_lobby

NOW = datetime.fromisoformat("2026-03-02T09:00:00+00:00")
HOST_ADDRESS = "pbem@example.org"


def _mail(inbox: Path, name: str, raw: bytes) -> None:
    (inbox / "new" / f"{name}.proof:2,").write_bytes(raw)


def _settings() -> Any:
    return load_settings(env={"PBEM_MAIL_FROM": HOST_ADDRESS})


def welcomes(engine: Engine, games: dict[str, dict[str, str]], inbox: Path) -> int:
    """Every game's welcomes queued, for the tick to send; how many."""
    del inbox
    return sum(
        len(queue_welcomes(engine, game_id, issued, settings=_settings(), now=NOW))
        for game_id, issued in games.items()
    )


def password_resets(engine: Engine, games: dict[str, dict[str, str]], inbox: Path) -> int:
    """A ``password`` request from one seat of each game; how many requests."""
    n = 0
    for game_id, issued in games.items():
        seat = sorted(issued)[0]
        msg = EmailMessage()
        msg["From"] = f"{seat}@example.org"
        msg["To"] = HOST_ADDRESS
        msg["Subject"] = "password"
        msg["Date"] = format_datetime(NOW - timedelta(minutes=30))
        msg["Message-ID"] = make_msgid(idstring=f"reset-{game_id}", domain="example.org")
        msg.set_content(f"password\ngame: {game_id}\nplayer: {seat}\n")
        _mail(inbox, f"reset-{game_id}", bytes(msg))
        n += 1
    return n


def _dsn(recipient: str, message_id: str, n: int) -> bytes:
    """Postfix's RFC 3464 report of a permanent failure, quoting the returned message's headers."""
    return (
        "Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.example.org (Mail Delivery System)\r\n"
        f"To: {HOST_ADDRESS}\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        f"Message-Id: <bounce-{n}@mx.example.org>\r\nDate: Mon, 2 Mar 2026 08:30:00 +0000\r\n"
        "Auto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B1"\r\n\r\n'
        "--B1\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
        f"<{recipient}>: host mx.example.org said: 550 5.1.1 user unknown\r\n\r\n"
        "--B1\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {recipient}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 user unknown\r\n\r\n"
        "--B1\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"From: pbem <{HOST_ADDRESS}>\r\nTo: {recipient}\r\nSubject: welcome\r\n"
        f"Message-ID: {message_id}\r\n\r\n"
        "--B1--\r\n"
    ).encode()


def bounces(engine: Engine, games: dict[str, dict[str, str]], inbox: Path) -> int:
    """One game whose welcomes went out before the tick (to a folder the runs do not compare), and a
    DSN for one of them in the inbound Maildir; how many DSNs."""
    game_id = sorted(games)[0]
    queue_welcomes(engine, game_id, games[game_id], settings=_settings(), now=NOW - timedelta(hours=2))
    before = inbox.parent / "sent-before-the-tick"
    outbox.send(engine, MaildirTransport(before), NOW - timedelta(hours=2), settings=_settings())
    sent = sorted((before / "new").iterdir())
    assert sent, "the welcome to bounce was never sent"
    returned = email.message_from_bytes(sent[0].read_bytes(), policy=email.policy.default)
    message_id, to = str(returned["Message-ID"]), str(returned["To"])
    _mail(inbox, "bounce-1", _dsn(to, message_id, 1))
    return 1


def reminders(engine: Engine, games: dict[str, dict[str, str]], inbox: Path) -> int:
    """A game of the first game type with a day per turn, begun 20 hours before the tick and no orders
    in: at the tick its deadline is 4 hours off, inside the 12-hour reminding window, so each seat that
    owes orders is reminded; how many such games."""
    del inbox
    with Session(engine) as session:
        game = session.get(GameRow, sorted(games)[0])
        assert game is not None
        game_type = game.game_type
        seats = [s.name for s in session.exec(select(SeatRow).where(SeatRow.game_id == game.id)).all()]
    create_game(
        engine,
        game_type,
        "crash-reminded",
        [(s, f"{s}@example.org") for s in seats],
        seed=77,
        turn_seconds=86400,
        now=NOW - timedelta(hours=20),
    )
    return 1


GM_ADDRESS = "gm@example.org"


def game_masters(engine: Engine, games: dict[str, dict[str, str]], inbox: Path) -> int:
    """For each game type, a game begun an hour before the tick with a day per turn and no orders in
    (its deadline far off: no turn resolves, no reminder is due), a game master, and an ``extend`` mail
    from them; how many mails."""
    with Session(engine) as session:
        rows = [session.get(GameRow, game_id) for game_id in sorted(games)]
        types: dict[str, list[str]] = {}
        for row in rows:
            assert row is not None
            if row.game_type not in types:
                seats = session.exec(select(SeatRow).where(SeatRow.game_id == row.id)).all()
                types[row.game_type] = [s.name for s in sorted(seats, key=lambda s: s.position)]
    for game_type, seats in sorted(types.items()):
        game_id = f"crash-gm-{game_type}"
        create_game(
            engine,
            game_type,
            game_id,
            [(s, f"{s}.{game_type}@example.org") for s in seats],
            seed=91,
            turn_seconds=86400,
            now=NOW - timedelta(hours=1),
        )
        password = set_game_master(engine, game_id, GM_ADDRESS)
        msg = EmailMessage()
        msg["From"] = GM_ADDRESS
        msg["To"] = HOST_ADDRESS
        msg["Subject"] = "extend"
        msg["Date"] = format_datetime(NOW - timedelta(minutes=20))
        msg["Message-ID"] = make_msgid(idstring=f"gm-{game_id}", domain="example.org")
        msg.set_content(f"extend\ngame: {game_id}\ngm: {GM_ADDRESS}\npassword: {password}\nby: 1d\n")
        _mail(inbox, f"gm-{game_id}", bytes(msg))
    return len(types)


#: each family's work put into the template, in this order (press mail is built in proof.crash)
FAMILIES: dict[str, Callable[[Engine, dict[str, dict[str, str]], Path], int]] = {
    "bounce": bounces,  # first: it sends its game's welcomes before the others are queued
    "welcome": welcomes,
    "password_reset": password_resets,
    "reminder": reminders,
    "game_master": game_masters,
    "lobby": crash_lobby.lobby_work,  # open games and replacements (issue 32)
}


def add_families(engine: Engine, games: dict[str, dict[str, str]], inbox: Path) -> dict[str, int]:
    """Put every family's work into the template; how much of each."""
    return {name: family(engine, games, inbox) for name, family in FAMILIES.items()}
