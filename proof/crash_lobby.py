"""The crash campaign's open games and replacements (issue 32): work a killed tick does for them.

Put into the crash template (:func:`proof.crash_mails.add_families`), for the tick to do:

- **join**: an open game with a seat free and a ``join`` mail for it: the tick mails the sender a code;
- **start**: an open game with all seats but one taken and the last one's code waiting, and the mail
  that sends it back: the tick takes the seat, sets the game up and queues every seat's welcome;
- **offer**: a running game with an abandoned seat and a standby list for its game type: the tick opens
  the seat's vacancy and mails each address on the list its code;
- **take over**: a running game whose abandoned seat is offered already, and the mail that sends the
  offer's code back: the tick gives the seat to the sender (a new password, its welcome) and tells the
  other seat.

The codes, and the passwords a start or a take-over issues, are drawn at random: the comparison of runs
masks them (:func:`mask`), so a code's mail or a welcome counts by its recipient and what it is.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.play import lobby
from pbem.play.create import create_game
from pbem.storage.models import LobbyCodeRow, LobbySeatRow, SeatRow, StandbyRow, VacancyRow

NOW = datetime.fromisoformat("2026-03-02T09:00:00+00:00")
HOST_ADDRESS = "pbem@example.org"
GAME_TYPE = "coral-divers"
STANDBY = ("standby-1@example.org", "standby-2@example.org")
_CODE = re.compile(r"\b[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}\b")
_RANDOM_KEY = re.compile(r"^(lobby-code:|welcome:crash-(?:lobby|taken)[^:]*:[^:]*:)[0-9a-f]+$")


def mask(value: object) -> object:
    """A value of a compared row or mail with what is drawn at random (a code, a welcome's key of a
    password issued by the tick) replaced by a mark."""
    if not isinstance(value, str):
        return value
    return _CODE.sub("CODE", _RANDOM_KEY.sub(r"\1*", value))


def _mail(inbox: Path, name: str, frm: str, subject: str, body: str) -> None:
    msg = EmailMessage()
    msg["From"] = frm
    msg["To"] = HOST_ADDRESS
    msg["Subject"] = subject
    msg["Date"] = format_datetime(NOW - timedelta(minutes=20))
    msg["Message-ID"] = make_msgid(idstring=name, domain="example.org")
    msg.set_content(body)
    (inbox / "new" / f"{name}.proof:2,").write_bytes(bytes(msg))


def _code(session: Session, code: str, kind: str, game_id: str, email: str, **more: object) -> None:
    session.add(
        LobbyCodeRow(
            code_sha256=lobby.code_digest(code),
            kind=kind,
            game_id=game_id,
            email=email,
            created_at=NOW - timedelta(hours=1),
            **more,
        )
    )


def lobby_work(engine: Engine, games: dict[str, dict[str, str]], inbox: Path) -> int:
    """The four kinds of work above; how many mails they put in the inbound Maildir."""
    del games
    before = NOW - timedelta(hours=2)
    lobby.open_game(engine, GAME_TYPE, "crash-lobby-join", 2, settings={"seed": 3}, now=before)
    _mail(inbox, "lobby-join", "joiner@example.org", "hello", "join crash-lobby-join")
    lobby.open_game(engine, GAME_TYPE, "crash-lobby-start", 3, settings={"seed": 4}, now=before)
    with Session(engine) as session:
        for position, name in enumerate(("ann", "bo")):
            session.add(
                LobbySeatRow(
                    game_id="crash-lobby-start",
                    seat=name,
                    email=f"{name}.lobby@example.org",
                    position=position,
                    joined_at=before,
                )
            )
        _code(session, "AAAA-BBBB-CCCC", "join", "crash-lobby-start", "cy.lobby@example.org", seat="cy")
        for email in STANDBY:
            session.add(StandbyRow(game_type=GAME_TYPE, email=email, created_at=before))
        session.commit()
    _mail(inbox, "lobby-start", "cy.lobby@example.org", "Re: [pbem] confirm AAAA-BBBB-CCCC · join", "")
    for game_id in ("crash-lobby-offer", "crash-taken"):
        create_game(
            engine,
            GAME_TYPE,
            game_id,
            [("ann", f"ann.{game_id}@example.org"), ("bo", f"bo.{game_id}@example.org")],
            seed=7,
            now=before,
        )
        with Session(engine) as session:
            seat = session.exec(
                select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == "ann")
            ).one()
            seat.abandoned = True
            session.add(seat)
            session.commit()
    with Session(engine) as session:  # the offer of crash-taken went out before: its code comes back
        vacancy = VacancyRow(
            game_id="crash-taken", seat="ann", number=1, reason="abandoned", opened_at=before
        )
        session.add(vacancy)
        session.flush()
        _code(
            session, "DDDD-EEEE-FFFF", "offer", "crash-taken", STANDBY[0], seat="ann", vacancy_id=vacancy.id
        )
        session.commit()
    _mail(inbox, "lobby-take", STANDBY[0], "Re: [pbem] confirm DDDD-EEEE-FFFF · a seat is free", "")
    return 3
