"""Game master commands: pause and resume, extend a deadline, give a seat to someone else, roll a game
back to an earlier turn, and observers who receive the public report.

Each command is one transaction that first takes the game's lock (:func:`pbem.storage.db.lock_game`), so it
never interleaves with a tick resolving the same game, and leaves a
:class:`~pbem.storage.cron_models.GmActionRow` behind. Bad requests raise
:class:`~pbem.core.errors.UserError`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine, update
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.core.codec import unpack_json
from pbem.core.errors import UserError
from pbem.core.game import Event
from pbem.core.i18n import N_, T_, _, ngettext
from pbem.core.search import LEVELS
from pbem.cron.deadlines import show_duration
from pbem.intake import addresses, passwords
from pbem.render.reports import write_reports
from pbem.storage.cron_models import ClockRow, GmActionRow
from pbem.storage.db import lock_game
from pbem.storage.history import game_of, intact_state
from pbem.storage.models import GameRow, ObserverRow, SeatRow, SubmissionRow, TurnRow


def _game(session: Session, game_id: str) -> GameRow:
    if not lock_game(session, game_id):
        raise UserError(_("there is no game {game}", game=repr(game_id)))
    game = session.get(GameRow, game_id)
    assert game is not None
    return game


def _clock(session: Session, game: GameRow) -> ClockRow:
    return session.get(ClockRow, game.id) or ClockRow(game_id=game.id, epoch=game.epoch, turn=game.turn)


def _note(
    session: Session, game_id: str, action: str, detail: str, now: datetime, ref: str = "", was: str = ""
) -> None:
    """The record of a command; ``ref`` names the mail that asked for it (:func:`done_by_mail`) and
    ``was`` where the deadline stood before it (:func:`_was`), so that a run that died after this record
    and before the calendar notices were queued can queue them on recovery (:func:`deadline_before`)."""
    mark = f" {WAS_MARK.format(was=was) if was else ''}{MAIL_MARK.format(ref=ref)}" if ref else ""
    session.add(GmActionRow(game_id=game_id, at=now, action=action, detail=detail[: 1000 - len(mark)] + mark))


#: how a command's record names the mail that asked for it
MAIL_MARK = "[mail {ref}]"
#: how it keeps where the deadline stood before it: epoch/due turn/ISO time or ``-`` (none ran)
WAS_MARK = "[was {was}] "


def _was(game: GameRow) -> str:
    """Where ``game``'s deadline stands, as :func:`pbem.cron.notices.deadline_now` sees it, for the record."""
    running = game.status == "active" and game.deadline_at is not None
    at = game.deadline_at.isoformat() if running else "-"  # type: ignore[union-attr]
    return f"{game.epoch}/{game.turn + 1}/{at}"


def deadline_before(engine: Engine, game_id: str, ref: str) -> tuple[int, int, datetime | None] | None:
    """Where the deadline stood before the command the mail ``ref`` asked for, as its record keeps it
    (epoch, due turn, time or ``None``); ``None`` without such a record or one that kept nothing."""
    with Session(engine) as session:
        detail = session.exec(
            select(GmActionRow.detail).where(
                GmActionRow.game_id == game_id,
                GmActionRow.detail.endswith(MAIL_MARK.format(ref=ref)),  # type: ignore[attr-defined]
            )
        ).first()
    head = "[was "
    if detail is None or head not in detail:
        return None
    epoch, turn, at = detail[detail.rindex(head) + len(head) :].split("]", 1)[0].split("/", 2)
    return int(epoch), int(turn), None if at == "-" else datetime.fromisoformat(at)


def done_by_mail(engine: Engine, game_id: str, ref: str) -> bool:
    """Whether the mail ``ref`` names had its command carried out already: the record is written in
    the command's own transaction, so a run that died after it and is recovered does not do it twice."""
    with Session(engine) as session:
        found = session.exec(
            select(GmActionRow.id).where(
                GmActionRow.game_id == game_id,
                GmActionRow.detail.endswith(MAIL_MARK.format(ref=ref)),  # type: ignore[attr-defined]
            )
        ).first()
    return found is not None


#: why a game that is not active cannot be paused, by its status
NOT_ACTIVE = {
    "paused": N_("game {game} is paused, not active: only an active game can be paused"),
    "finished": N_("game {game} is finished, not active: only an active game can be paused"),
}
#: why a game that is not paused cannot be resumed, by its status
NOT_PAUSED = {
    "active": N_("game {game} is active, not paused"),
    "finished": N_("game {game} is finished, not paused"),
}


def pause(engine: Engine, game_id: str, now: datetime, *, ref: str = "") -> str:
    """Stop the game's clock: no deadline runs, no turn resolves, orders are refused until ``resume``.
    The time left on the deadline is kept and given back on resume."""
    with Session(engine) as session:
        game = _game(session, game_id)
        was = _was(game)
        if game.status != "active":
            raise UserError(_(NOT_ACTIVE.get(game.status, NOT_ACTIVE["finished"]), game=game_id))
        clock = _clock(session, game)
        left = None
        if game.deadline_at is not None:
            left = max(0, int((game.deadline_at - utc(now)).total_seconds()))  # type: ignore[operator]
        clock.epoch, clock.turn, clock.paused_left = game.epoch, game.turn, left
        game.status, game.deadline_at = "paused", None
        session.add_all([game, clock])
        # the record keeps the English (a Text is its English string); the answer is the reader's
        said = (
            T_("game {game} paused with {time} left", game=game_id, time=show_duration(left))
            if left is not None
            else T_("game {game} paused", game=game_id)
        )
        _note(session, game_id, "pause", said.removeprefix(f"game {game_id} "), now, ref, was)
        session.commit()
    return _(said)


def resume(engine: Engine, game_id: str, now: datetime, *, ref: str = "") -> str:
    """Start the clock again: the deadline gets back the time it had left when paused."""
    with Session(engine) as session:
        game = _game(session, game_id)
        was = _was(game)
        if game.status != "paused":
            raise UserError(_(NOT_PAUSED.get(game.status, NOT_PAUSED["finished"]), game=game_id))
        clock = _clock(session, game)
        left = clock.paused_left
        if left is None and game.turn_seconds:
            left = game.turn_seconds
        game.status = "active"
        game.deadline_at = utc(now) + timedelta(seconds=left) if left is not None else None  # type: ignore[operator]
        clock.epoch, clock.turn, clock.paused_left = game.epoch, game.turn, None
        session.add_all([game, clock])
        said = (
            T_("game {game} resumed; deadline in {time}", game=game_id, time=show_duration(left))
            if left is not None
            else T_("game {game} resumed", game=game_id)
        )
        _note(session, game_id, "resume", said.removeprefix(f"game {game_id} "), now, ref, was)
        session.commit()
    return _(said)


def extend(engine: Engine, game_id: str, seconds: int, now: datetime, *, ref: str = "") -> str:
    """Move the current deadline later by ``seconds`` (counted from now if it has passed already)."""
    if seconds <= 0:
        raise UserError(_("an extension must be more than zero"))
    with Session(engine) as session:
        game = _game(session, game_id)
        was = _was(game)
        if game.status == "finished":
            raise UserError(_("game {game} is finished: there is no deadline to extend", game=game_id))
        clock = _clock(session, game)
        if game.status == "paused":
            clock.paused_left = (clock.paused_left or 0) + seconds
            said = T_(
                "deadline extended by {by} (paused: it runs again on resume)", by=show_duration(seconds)
            )
        else:
            base = max(game.deadline_at or utc(now), utc(now))  # type: ignore[type-var]
            game.deadline_at = base + timedelta(seconds=seconds)  # type: ignore[operator]
            clock.epoch, clock.turn = game.epoch, game.turn
            said = T_(
                "deadline extended by {by} to {deadline} UTC",
                by=show_duration(seconds),
                deadline=f"{game.deadline_at:%Y-%m-%d %H:%M}",
            )
        session.add_all([game, clock])
        _note(session, game_id, "extend", said, now, ref, was)
        session.commit()
    return _("game {game}: {said}", game=game_id, said=said)


def replace(engine: Engine, game_id: str, seat_name: str, email: str, now: datetime, *, ref: str = "") -> str:
    """Give ``seat_name`` to the player at ``email``: a new password (returned, shown once), the misses
    forgotten, the seat no longer abandoned. The old password stops working."""
    return _give(engine, game_id, seat_name, _address(email), None, now, ref)


def replace_by_standin(
    engine: Engine, game_id: str, seat_name: str, level: str, now: datetime, *, ref: str = ""
) -> None:
    """Give ``seat_name`` to the stand-in at ``level``: no address, a password nobody is told (the old
    one stops working), and from the next turn on the seat's orders are the stand-in's."""
    if level not in LEVELS:  # the commands read the level as bot:LEVEL (pbem.core.search.policy_level)
        raise ValueError(f"unknown stand-in level {level!r}")
    _give(engine, game_id, seat_name, "", level, now, ref)


def _give(
    engine: Engine, game_id: str, seat_name: str, email: str, level: str | None, now: datetime, ref: str
) -> str:
    with Session(engine) as session:
        game = _game(session, game_id)
        if game.status == "finished":
            raise UserError(_("game {game} is finished: its seats cannot change hands", game=game_id))
        seat = session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
        ).first()
        if seat is None:
            names = session.exec(
                select(SeatRow.name).where(SeatRow.game_id == game_id).order_by(SeatRow.position)
            ).all()
            raise UserError(
                _(
                    "game {game} has no seat {seat}; its seats are {seats}",
                    game=game_id,
                    seat=repr(seat_name),
                    seats=", ".join(names),
                )
            )
        password = passwords.generate()
        seat.email, seat.password_hash = email, passwords.hash_password(password)
        seat.misses, seat.abandoned, seat.bot_level = 0, False, level
        seat.pending_password_hash = None  # a reset the old player asked for dies with the seat's change
        seat.link_generation += 1  # the old player's sign-in links and web sessions too (issue 30)
        session.add(seat)
        given = f"the stand-in ({level})" if level else "a new player"
        _note(session, game_id, "replace", f"seat {seat_name} given to {given}", now, ref)
        session.commit()
    return password


def rollback(engine: Engine, game_id: str, to_turn: int, now: datetime, *, ref: str = "") -> str:
    """Take the game back to the state after turn ``to_turn``.

    The turns after it stay in the archive marked ``undone``; the game's epoch grows by one, so the
    turns played again are recorded beside them. Orders waiting for the undone turns are set aside
    (superseded). Every seat and the observers get a report of turn ``to_turn`` saying what happened.
    """
    with Session(engine) as session:
        game = _game(session, game_id)
        was = _was(game)
        if not 0 <= to_turn < game.turn:
            raise UserError(
                _(
                    "game {game} is at turn {turn}: roll back to a turn from 0 to {last}",
                    game=game_id,
                    turn=game.turn,
                    last=game.turn - 1,
                )
            )
        target = session.exec(
            select(TurnRow).where(
                TurnRow.game_id == game_id,
                TurnRow.number == to_turn,
                TurnRow.undone == False,  # noqa: E712
            )
        ).one()
        if intact_state(target.state_z, target.state_sha256) is None:  # before anything is changed
            raise UserError(
                _(
                    "game {game}: the stored state of turn {turn} does not match its hash: a rollback onto "
                    "it would go on from a damaged state, so nothing was changed. `pbem replay {game} "
                    "--verify` shows what is damaged; restore the database from a backup",
                    game=game_id,
                    turn=to_turn,
                )
            )
        undone = session.exec(  # type: ignore[call-overload]
            update(TurnRow)
            .where(TurnRow.game_id == game_id, TurnRow.number > to_turn, TurnRow.undone == False)  # noqa: E712
            .values(undone=True)
            .execution_options(synchronize_session=False)
        ).rowcount
        session.exec(  # type: ignore[call-overload]
            update(SubmissionRow)
            .where(SubmissionRow.game_id == game_id, SubmissionRow.status == "accepted")
            .values(status="superseded")
            .execution_options(synchronize_session=False)
        )
        turn_was = game.turn
        rules = game_of(game)
        state = rules.load_state(unpack_json(target.state_z))
        game.turn, game.epoch = to_turn, game.epoch + 1
        game.state_z, game.state_sha256 = target.state_z, target.state_sha256
        clock = _clock(session, game)
        clock.epoch, clock.turn, clock.paused_left = game.epoch, game.turn, None
        if game.status == "paused":  # stays paused; on resume the turn gets its whole time
            game.deadline_at, clock.paused_left = None, game.turn_seconds
        else:
            game.status, game.finished_at = "active", None
            game.deadline_at = utc(now) + timedelta(seconds=game.turn_seconds) if game.turn_seconds else None  # type: ignore[operator]
        session.add_all([game, clock])
        session.flush()
        # every seat reads it in their own language: a Text, translated when each report is written
        said = T_(
            "The game master rolled the game back to turn {turn}: turns {first} to {last} are undone (kept "
            "in the archive). Orders for them are set aside: send orders for the turn below.",
            turn=to_turn,
            first=to_turn + 1,
            last=turn_was,
        )
        write_reports(session, rules, game, state, to_turn, [Event(said)])
        _note(
            session,
            game_id,
            "rollback",
            f"to turn {to_turn} from {turn_was}; {undone} turns undone",
            now,
            ref,
            was,
        )
        epoch = game.epoch
        session.commit()
    return ngettext(
        "game {game} rolled back to turn {turn} (epoch {epoch}); {n} turn kept as undone",
        "game {game} rolled back to turn {turn} (epoch {epoch}); {n} turns kept as undone",
        undone,
        game=game_id,
        turn=to_turn,
        epoch=epoch,
    )


def observe(
    engine: Engine, game_id: str, email: str, now: datetime, *, remove: bool = False, ref: str = ""
) -> str:
    """Add (or with ``remove`` take away) an observer, who gets the public report of every turn."""
    address = _address(email)
    with Session(engine) as session:
        _game(session, game_id)
        found = session.exec(
            select(ObserverRow).where(ObserverRow.game_id == game_id, ObserverRow.email == address)
        ).first()
        if remove:
            if found is None:
                raise UserError(_("{address} does not observe game {game}", address=address, game=game_id))
            session.delete(found)
            said = T_("{address} no longer observes game {game}", address=address, game=game_id)
        else:
            if found is not None:
                return _("{address} observes game {game} already", address=address, game=game_id)
            session.add(ObserverRow(game_id=game_id, email=address))
            said = T_(
                "{address} now observes game {game} and gets its public reports",
                address=address,
                game=game_id,
            )
        _note(session, game_id, "unobserve" if remove else "observe", said, now, ref)
        session.commit()
    return _(said)


def _address(email: str) -> str:
    try:
        return addresses.normalise(email)
    except addresses.AddressError as exc:
        raise UserError(str(exc)) from None
