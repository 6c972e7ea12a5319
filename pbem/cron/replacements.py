"""Replacements (issue 32): a seat that needs a new player is offered to the standby list of its game
type and to the game's observers, each by a mail with a one-time code; the first to send the code back
from the address it went to takes the seat (:mod:`pbem.mail.lobby_confirm`).

A seat needs one when it is abandoned under the missed-orders policy (:mod:`pbem.cron.policy`, found
by :func:`open_vacancies` at each tick) or left by ``resign`` (opened at once by the confirmation). The
game's bot plays it meanwhile: an abandoned seat is the bot's (:func:`pbem.cron.policy.next_step`).

Once: a vacancy is a :class:`~pbem.storage.models.VacancyRow` numbered per seat, unique, and its offers
are queued in the transaction that writes it; two ticks opening the same one lose on the constraint,
and a tick that dies before its commit leaves nothing, so the next tick opens it again.

Also here: the one-time codes (:func:`issue_code`) and the short mails that tell a game's seats and
game master what became of a seat (:func:`tell_game`), each in its reader's language.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Engine, exists
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.core.i18n import _, language
from pbem.core.registry import games
from pbem.intake import addresses
from pbem.outbox import begin_write, queue
from pbem.outbox.message import header_fields, new_message, set_text
from pbem.outbox.queueing import address_key
from pbem.outbox.settings import MailSettings
from pbem.play import lobby
from pbem.render.reports import reader_languages
from pbem.storage.db import lock_game
from pbem.storage.models import (
    GameMasterRow,
    GameRow,
    LobbyCodeRow,
    ObserverRow,
    SeatRow,
    StandbyRow,
    VacancyRow,
)

log = logging.getLogger("pbem.cron")

#: why a seat is offered
REASONS = ("abandoned", "resigned", "conceded")


def issue_code(
    session: Session,
    settings: MailSettings,
    *,
    kind: str,
    game_id: str,
    email: str,
    now: datetime,
    words: Callable[[str], tuple[str, str]],
    seat: str | None = None,
    reader_language: str | None = None,
    vacancy_id: int | None = None,
) -> str:
    """Store a new one-time code for ``email`` and queue the mail carrying it, in the caller's
    transaction; ``words(code)`` gives that mail's subject and text (written in ``reader_language``)."""
    code = lobby.new_code()
    digest = lobby.code_digest(code)
    session.add(
        LobbyCodeRow(
            code_sha256=digest,
            kind=kind,
            game_id=game_id,
            seat=seat,
            email=email,
            language=reader_language,
            vacancy_id=vacancy_id,
            created_at=now,
        )
    )
    key = f"lobby-code:{digest[:40]}"
    with language(reader_language):
        subject, text = words(code)
        message = new_message(header_fields(settings, to=email, subject=subject, key=key, now=now))
        set_text(message, text)
    queue(session, key=key, to=email, message=message, now=now)
    return code


def code_subject(code: str, what: str) -> str:
    """The subject of a code's mail: the command word and the code first, untranslated, so that a
    reply's subject (``Re: [pbem] confirm K7QD-M2XA-9RTE · ...``) is itself the command."""
    return f"[pbem] confirm {code} · {what}"


def reply_line(code: str) -> str:
    """How a code goes back, as every code's mail says it."""
    return _(
        "Reply to this mail, keeping its subject (the code is in it), or send a mail whose first line is: "
        "confirm {code}",
        code=code,
    )


def open_vacancies(engine: Engine, settings: MailSettings, now: datetime) -> int:
    """Offer every abandoned seat of a running game that has no open vacancy; how many were opened.
    Each in a transaction of its own, so one failing game does not hold back the others."""
    offered = exists().where(
        VacancyRow.game_id == SeatRow.game_id,
        VacancyRow.seat == SeatRow.name,
        col(VacancyRow.filled_at).is_(None),
    )
    with Session(engine) as session:
        found = session.exec(
            select(SeatRow.game_id, SeatRow.name)
            .join(GameRow, col(GameRow.id) == col(SeatRow.game_id))
            .where(SeatRow.abandoned == True, col(GameRow.status).in_(("active", "paused")))  # noqa: E712
            .where(~offered)  # most ticks: nothing to do, and no write lock taken to find that out
            .order_by(col(SeatRow.game_id), col(SeatRow.position))
        ).all()
    opened = 0
    for game_id, seat in found:
        with Session(engine) as session:
            begin_write(session)
            if not lock_game(session, game_id):
                continue
            if open_vacancy(session, settings, game_id, seat, "abandoned", now) is None:
                session.rollback()
                continue
            try:
                session.commit()
            except IntegrityError:  # another tick opened it a moment ago
                session.rollback()
                continue
        opened += 1
        log.info("game %s: seat %s offered for replacement", game_id, seat)
    return opened


def open_vacancy(
    session: Session, settings: MailSettings, game_id: str, seat_name: str, reason: str, now: datetime
) -> VacancyRow | None:
    """Open a vacancy for the seat and queue its offers, in the caller's transaction (which holds the
    game's lock); ``None`` when the seat has one open already or the game is over."""
    game = session.get(GameRow, game_id)
    if game is None or game.status not in ("active", "paused"):
        return None
    vacancies = session.exec(
        select(VacancyRow).where(VacancyRow.game_id == game_id, VacancyRow.seat == seat_name)
    ).all()
    if any(v.filled_at is None for v in vacancies):
        return None
    vacancy = VacancyRow(
        game_id=game_id, seat=seat_name, number=len(vacancies) + 1, reason=reason, opened_at=now
    )
    session.add(vacancy)
    session.flush()
    assert vacancy.id is not None
    title = games()[game.game_type].title if game.game_type in games() else game.game_type
    for email, reader in offered_to(session, game):
        issue_code(
            session,
            settings,
            kind="offer",
            game_id=game_id,
            seat=seat_name,
            email=email,
            now=now,
            reader_language=reader or game.language,
            vacancy_id=vacancy.id,
            words=lambda code: _offer_words(title, game_id, seat_name, game.turn, reason, code),
        )
    return vacancy


def offered_to(session: Session, game: GameRow) -> list[tuple[str, str | None]]:
    """Who a seat of ``game`` is offered to, with the language they read: the standby list of its game
    type, then its observers; never an address that holds a seat of it already."""
    seated = {
        e.strip().lower() for e in session.exec(select(SeatRow.email).where(SeatRow.game_id == game.id)).all()
    }
    found: dict[str, str | None] = {}
    for email, reader in session.exec(
        select(StandbyRow.email, StandbyRow.language)
        .where(StandbyRow.game_type == game.game_type)
        .order_by(col(StandbyRow.created_at), col(StandbyRow.id))
    ).all():
        found.setdefault(email, reader)
    for email in session.exec(
        select(ObserverRow.email).where(ObserverRow.game_id == game.id).order_by(col(ObserverRow.id))
    ).all():
        found.setdefault(email, None)
    return [(e, lang) for e, lang in found.items() if e not in seated and addresses.is_valid(e)]


def _offer_words(title: str, game_id: str, seat: str, turn: int, reason: str, code: str) -> tuple[str, str]:
    why = {
        "abandoned": _("its player stopped sending orders"),
        "resigned": _("its player resigned"),
        "conceded": _("its player conceded"),
    }[reason]
    text = "\n".join(
        [
            _(
                "A seat is free in game {game} ({title}): seat {seat}, after turn {turn}; {why}. The game's "
                "bot plays it until someone takes it over.",
                game=game_id,
                title=title,
                seat=seat,
                turn=turn,
                why=why,
            ),
            "",
            _("To take the seat, send this code back from this address; the first to do so gets it:"),
            "",
            "    " + code,
            "",
            reply_line(code),
            "",
            _(
                "You then get the seat's welcome with a new password and its latest report. If you do not "
                "want it, do nothing."
            ),
        ]
    )
    return code_subject(code, _("a seat is free in game {game}", game=game_id)), text + "\n"


def tell_game(
    session: Session,
    settings: MailSettings,
    game_id: str,
    *,
    key: str,
    now: datetime,
    words: Callable[[], tuple[str, str]],
    skip: str | None = None,
) -> int:
    """Queue a short mail to every seat with an address (but ``skip``) and to the game master, each in
    their language; ``key`` makes each mail's dedupe key. How many were queued."""
    game = session.get(GameRow, game_id)
    assert game is not None
    readers = reader_languages(session, game_id)
    to: list[tuple[str, str, str]] = [
        (s.email.strip().lower(), readers.get(s.name) or game.language, s.name)
        for s in session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id).order_by(col(SeatRow.position))
        )
        if s.name != skip and addresses.is_valid(s.email.strip().lower())
    ]
    master = session.get(GameMasterRow, game_id)
    if master is not None:
        to.append((master.email, game.language, "@gm"))
    queued = 0
    for email, reader, who in to:
        mail_key = f"{key}:{who if who != '@gm' else 'gm=' + address_key(email)}"
        with language(reader):
            subject, text = words()
            message = new_message(header_fields(settings, to=email, subject=subject, key=mail_key, now=now))
            set_text(message, text)
        queued += queue(session, key=mail_key, to=email, message=message, now=now, game_id=game_id)
    return queued


def waiting_vacancy(session: Session, game_id: str, seat: str) -> VacancyRow | None:
    return session.exec(
        select(VacancyRow).where(
            VacancyRow.game_id == game_id, VacancyRow.seat == seat, col(VacancyRow.filled_at).is_(None)
        )
    ).first()
