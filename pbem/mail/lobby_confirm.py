"""``confirm CODE``: a one-time code sent back (:mod:`pbem.mail.lobby`), and what it does; the start of
an open game; the tick's part (open games due to start, seats to offer).

A code is taken only from the address it was mailed to, once, within :data:`CODE_DAYS`. What it does is
written in one transaction with the code marked used: a seat taken (and when it was the last one, the
game set up, its welcomes with the passwords queued and the open game marked started), a seat given
back, a standby entry, a seat resigned (the bot plays it, it is offered for replacement, everyone is
told), or an offered seat taken (a new password, its welcome, the seat's address changed; the game
master and the other seats told). A run that dies before the commit leaves the code unused, so the
mail read again does it then; one that dies after finds the code used and answers "done already".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from pbem.core import clock
from pbem.core.errors import UserError
from pbem.core.i18n import _, language
from pbem.cron import replacements
from pbem.intake import passwords
from pbem.mail.commands import Answer, Command, handles
from pbem.mail.welcome import queue_welcomes_in
from pbem.outbox import begin_write, queue
from pbem.outbox.message import header_fields, new_message, set_text, subject_line
from pbem.outbox.queueing import address_key
from pbem.outbox.settings import MailSettings, load_settings
from pbem.play import create, lobby
from pbem.storage.db import lock_game
from pbem.storage.models import GameRow, LobbyCodeRow, LobbyGameRow, LobbySeatRow, SeatRow, StandbyRow

log = logging.getLogger("pbem.mail")

#: how long a code stays good
CODE_DAYS = 7
#: the seat's column that the web's sign-in links carry, where the web has given seats one
SIGNIN_GENERATION = "signin_generation"


@dataclass(frozen=True)
class CodeAnswer(Answer):
    """The answer to a code sent back: from the address it was mailed to, it proves that address."""

    proven: bool = False


def _answer(ok: bool, text: str, *, reader: str | None) -> Answer:
    if not ok:
        return Answer(False, _("[pbem] your request was not carried out"), "", errors=[text], language=reader)
    return CodeAnswer(True, _("[pbem] confirmed"), text + "\n", language=reader, proven=True)


@handles("confirm", argument=True)
def confirm(
    engine: Engine,
    command: Command,
    from_address: str,
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """Carry out what the code sent back asks, when it comes from the address it was mailed to."""
    words = command.argument.split()
    code = words[0] if words else ""
    moment = clock.utc(now)
    email = from_address.strip().lower()
    with Session(engine) as session:
        row = lobby.find_code(session, code) if lobby.is_code(code) else None
        if (
            row is None
            or row.email != email
            or moment - clock.utc(row.created_at) > timedelta(days=CODE_DAYS)
        ):
            # the same answer whatever is wrong: a code tells nothing to one who guesses
            return _answer(
                False, _("that code is not one this host mailed to this address, or it ran out"), reader=None
            )
        reader, used = row.language, row.used_at
    with language(reader):
        if used is not None:
            return _answer(True, _("this code was used already; nothing was done again"), reader=reader)
        try:
            said = _carry_out(engine, settings or load_settings(), code, email, moment)
        except UserError as exc:
            return _answer(False, str(exc), reader=reader)
    return _answer(True, said, reader=reader)


def _carry_out(engine: Engine, settings: MailSettings, code: str, email: str, now: datetime) -> str:
    with Session(engine) as session:
        begin_write(session)
        row = lobby.find_code(session, code)
        assert row is not None
        if row.kind in ("join", "leave"):
            said = _lobby_change(session, settings, row, now)
        elif row.kind == "standby":
            said = _standby(session, row, now)
        else:
            said = _seat_change(session, settings, row, now)
        row.used_at = now
        session.add(row)
        session.commit()
    return said


def _lobby_change(session: Session, settings: MailSettings, row: LobbyCodeRow, now: datetime) -> str:
    game = lobby.lock_lobby(session, row.game_id)
    if game is None or game.status != "open":
        raise UserError(_("game {game} is not open any more", game=row.game_id))
    seats = lobby.taken(session, game.id)
    held = next((s for s in seats if s.email == row.email), None)
    if row.kind == "leave":
        if held is None:
            raise UserError(_("this address holds no seat in game {game}", game=game.id))
        session.delete(held)
        return _("You left game {game}: your seat is free again.", game=game.id)
    if held is not None:
        raise UserError(_("this address has a seat in game {game} already", game=game.id))
    if len(seats) >= game.seats:
        raise UserError(_("game {game} has no free seat left", game=game.id))
    name = lobby.seat_name(session, game, row.seat)
    position = max((s.position for s in seats), default=-1) + 1
    session.add(
        LobbySeatRow(
            game_id=game.id,
            seat=name,
            email=row.email,
            language=row.language,
            position=position,
            joined_at=now,
        )
    )
    session.flush()
    if len(seats) + 1 < game.seats:
        return _(
            "You have seat {seat} in game {game}. It starts when every seat is taken; your welcome with "
            "your password comes then.",
            seat=name,
            game=game.id,
        )
    start(session, settings, game, now)
    return _(
        "You have seat {seat} in game {game}, its last free seat: the game starts now, and your welcome "
        "with your password is on its way.",
        seat=name,
        game=game.id,
    )


def start(session: Session, settings: MailSettings, game: LobbyGameRow, now: datetime) -> list[str]:
    """Set up the open game with its seats in the order they were taken (bots in the free ones), queue
    their welcomes and mark it started, in the caller's transaction (which holds its lock)."""
    seats = lobby.taken(session, game.id)
    players = [(s.seat, s.email) for s in seats]
    names = {s.seat for s in seats}
    n = 0
    while len(players) < game.seats:
        n += 1
        bot = lobby.BOT_SEAT.format(n=n)
        if bot not in names:
            players.append((bot, ""))
    kw = lobby.settings_of(game)
    issued = create.create_game(
        session.get_bind(),  # type: ignore[arg-type]
        game.game_type,
        game.id,
        players,
        seed=kw.pop("seed"),
        options=kw.pop("options", None),
        seat_languages={s.seat: s.language for s in seats if s.language},
        now=now,
        session=session,
        **kw,
    )
    bots = {name for name, email in players if not email}
    for seat in session.exec(select(SeatRow).where(SeatRow.game_id == game.id)):
        if seat.name in bots:  # the game's bot plays it (pbem.cron.policy); offered to the standby list
            seat.abandoned = True
            session.add(seat)
    welcomed = queue_welcomes_in(
        session, game.id, {k: v for k, v in issued.items() if k not in bots}, settings=settings, now=now
    )
    game.status, game.closed_at = "started", now
    session.add(game)
    log.info("open game %s started: %d seats, %d bots", game.id, len(players), len(bots))
    return welcomed


def _standby(session: Session, row: LobbyCodeRow, now: datetime) -> str:
    found = session.exec(
        select(StandbyRow).where(StandbyRow.game_type == row.game_id, StandbyRow.email == row.email)
    ).first()
    if found is None:
        session.add(StandbyRow(game_type=row.game_id, email=row.email, language=row.language, created_at=now))
    return _(
        "This address is on the standby list of {game}: a seat of that game that needs a new player is "
        "offered to you by mail. To be taken off: standby off.",
        game=row.game_id,
    )


def _seat_change(session: Session, settings: MailSettings, row: LobbyCodeRow, now: datetime) -> str:
    if not lock_game(session, row.game_id):
        raise UserError(_("there is no game {game}", game=row.game_id))
    game = session.get(GameRow, row.game_id)
    seat = session.exec(
        select(SeatRow).where(SeatRow.game_id == row.game_id, SeatRow.name == row.seat)
    ).first()
    assert game is not None
    if seat is None or game.status not in ("active", "paused"):
        raise UserError(_("game {game} is over", game=row.game_id))
    if row.kind == "offer":
        return _take_over(session, settings, game, seat, row, now)
    if seat.email.strip().lower() != row.email or replacements.waiting_vacancy(session, game.id, seat.name):
        raise UserError(_("seat {seat} of game {game} is not yours any more", seat=seat.name, game=game.id))
    reason = "resigned" if row.kind == "resign" else "conceded"
    seat.abandoned, seat.email = True, ""
    seat.password_hash, seat.pending_password_hash = passwords.hash_password(passwords.generate()), None
    session.add(seat)
    replacements.open_vacancy(session, settings, game.id, seat.name, reason, now)
    name = seat.name
    replacements.tell_game(
        session,
        settings,
        game.id,
        key=f"lobby-left:{game.id}:{name}:{int(now.timestamp())}",
        now=now,
        skip=name,
        words=lambda: (
            subject_line(game.id, _("seat {seat} resigned", seat=name)),
            _(
                "Seat {seat} resigned from game {game}. The game's bot plays it until a new player takes "
                "it over; you will be told.",
                seat=name,
                game=game.id,
            )
            + "\n",
        ),
    )
    return _(
        "You left game {game}: your seat {seat} is offered to a new player, and the game's bot plays it "
        "meanwhile. Your password no longer works. Thank you for playing.",
        game=game.id,
        seat=name,
    )


def _take_over(
    session: Session, settings: MailSettings, game: GameRow, seat: SeatRow, row: LobbyCodeRow, now: datetime
) -> str:
    vacancy = replacements.waiting_vacancy(session, game.id, seat.name)
    if vacancy is None or vacancy.id != row.vacancy_id:
        raise UserError(_("seat {seat} of game {game} has been taken already", seat=seat.name, game=game.id))
    password = passwords.generate()
    seat.email, seat.password_hash, seat.pending_password_hash = (
        row.email,
        passwords.hash_password(password),
        None,
    )
    seat.misses, seat.abandoned, seat.language = 0, False, row.language
    generation = getattr(seat, SIGNIN_GENERATION, None)
    if generation is not None:  # the web's sign-in links of the old player stop working (issue 30)
        setattr(seat, SIGNIN_GENERATION, generation + 1)
    session.add(seat)
    vacancy.filled_at, vacancy.filled_by = now, row.email
    session.add(vacancy)
    session.flush()
    queue_welcomes_in(session, game.id, {seat.name: password}, settings=settings, now=now, replaced=True)
    name = seat.name
    replacements.tell_game(
        session,
        settings,
        game.id,
        key=f"lobby-filled:{game.id}:{name}:{vacancy.number}",
        now=now,
        skip=name,
        words=lambda: (
            subject_line(game.id, _("seat {seat} has a new player", seat=name)),
            _(
                "Seat {seat} of game {game} has a new player, who plays it from now on.",
                seat=name,
                game=game.id,
            )
            + "\n",
        ),
    )
    return _(
        "Seat {seat} of game {game} is yours: its welcome with your password is on its way.",
        seat=name,
        game=game.id,
    )


def due(engine: Engine, settings: MailSettings, now: datetime) -> int:
    """The tick's part: open games whose start date has come started (bots in the free seats, where
    their settings allow and someone joined) or cancelled (the joined told); abandoned seats offered.
    How many games and seats it changed."""
    moment = clock.utc(now)
    with Session(engine) as session:
        ids = session.exec(
            select(LobbyGameRow.id).where(
                LobbyGameRow.status == "open",
                col(LobbyGameRow.start_by).is_not(None),
                LobbyGameRow.start_by <= moment,
            )
        ).all()
    changed = 0
    for game_id in ids:
        with Session(engine) as session:
            begin_write(session)
            game = lobby.lock_lobby(session, game_id)
            if game is None or game.status != "open":
                continue
            if game.fill_with_bots and lobby.taken(session, game.id):
                start(session, settings, game, moment)
            else:
                _cancel(session, settings, game, moment)
            session.commit()
        changed += 1
    return changed + replacements.open_vacancies(engine, settings, moment)


def _cancel(session: Session, settings: MailSettings, game: LobbyGameRow, now: datetime) -> None:
    """An open game not full by its start date, which bots may not fill: cancelled, the joined told."""
    for seat in lobby.taken(session, game.id):
        key = f"lobby-cancelled:{game.id}:{address_key(seat.email)}"
        with language(seat.language or lobby.language_of(game)):
            message = new_message(
                header_fields(
                    settings, to=seat.email, subject=subject_line(game.id, _("cancelled")), key=key, now=now
                )
            )
            set_text(
                message,
                _(
                    "Game {game} did not fill its seats by its start date and is cancelled; nothing more "
                    "comes of it. Send games for the games open now.",
                    game=game.id,
                )
                + "\n",
            )
        queue(session, key=key, to=seat.email, message=message, now=now)
    game.status, game.closed_at = "cancelled", now
    session.add(game)
    log.info("open game %s cancelled: not full by its start date", game.id)
