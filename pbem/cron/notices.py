"""Mail the cron layer sends on its own: reminders before a deadline, late notices after it, and the
word that a seat was marked abandoned.

Each is sent at most once per turn and seat: the :class:`~pbem.cron.models.NoticeRow` of its kind and the
outbox row (dedupe key ``KIND:GAME:EPOCH:TURN:SEAT``) are written in one transaction, and either unique
constraint turns a second writer (another tick at the same moment) into a rollback. Mail goes out
through the mail layer's outbox like every report, so it is delivered (and retried) by ``send``.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem import addresses
from pbem.calendar import deadline_part
from pbem.cron.deadlines import describe, show_deadline, show_duration
from pbem.cron.models import NoticeRow
from pbem.db import lock_game
from pbem.errors import UserError
from pbem.i18n import N_, _, language, ngettext
from pbem.mail.compose import header_fields, new_message, set_text, subject_line, thread_root, with_language
from pbem.mail.outbox import queue
from pbem.mail.settings import MailSettings
from pbem.models import GameRow, SeatRow
from pbem.orders import template
from pbem.registry import get_game
from pbem.reports import reader_language
from pbem.zones import seat_zone

log = logging.getLogger("pbem.cron")

KINDS = ("reminder", "late", "abandoned", "moved")


def notice_key(kind: str, game_id: str, epoch: int, turn: int, seat: str) -> str:
    """``reminder:GAME:EPOCH:TURN:SEAT``: the outbox dedupe key of a notice."""
    return f"{kind}:{game_id}:{epoch}:{turn}:{seat}"


def _subject(kind: str, game_id: str, turn: int) -> str:
    what = {
        "reminder": N_("your orders are due soon"),
        "late": N_("your orders are late"),
        "abandoned": N_("your seat is now played by the bot"),
        "moved": N_("the deadline moved"),
    }[kind.split("-")[0]]
    return subject_line(game_id, _("turn {turn}", turn=turn), _(what))


def _template_or_none(engine: Engine, game_id: str, seat: str) -> str | None:
    try:
        return template(engine, game_id, seat)
    except UserError:  # nothing asked of the seat any more (the turn moved on meanwhile)
        return None


def body(kind: str, game: GameRow, seat: SeatRow, turn: int, now: datetime, order_file: str | None) -> str:
    """The plain text of a notice. Names only the seat's own situation: never who else is late."""
    title = get_game(game.game_type).title
    tz = seat_zone(game.timezone, seat.timezone)  # every deadline in the seat's own zone, UTC beside it
    lines = [
        _(
            "{title} game {game}, seat {seat}, turn {turn}.",
            title=title,
            game=game.id,
            seat=seat.name,
            turn=turn,
        ),
        "",
    ]
    kind = kind.split("-")[0]
    if kind == "reminder":
        lines.append(
            _(
                "Your orders are due by {deadline}, and the host has none from you yet.",
                deadline=describe(game, now, tz),
            )
        )
    elif kind == "late":
        lines.append(
            _(
                "The deadline ({deadline}) has passed and your orders are missing. "
                "The game waits for them: send them as soon as you can.",
                deadline=show_deadline(game.deadline_at, tz),
            )
        )
        lines.append(_("Deadlines missed by this seat so far: {misses}.", misses=seat.misses))
        if game.abandon_after:
            lines.append(
                ngettext(
                    "After {n} missed deadline a seat is marked abandoned and the bot plays for it.",
                    "After {n} missed deadlines a seat is marked abandoned and the bot plays for it.",
                    game.abandon_after,
                )
            )
    elif kind == "moved":
        lines.append(
            _(
                "The deadline of this turn has moved: orders are now due by {deadline}, while a seat "
                "is away. Your calendar's event for it is updated.",
                deadline=show_deadline(game.deadline_at, tz),
            )
        )
    else:
        lines.append(
            ngettext(
                "This seat missed {n} deadline and is now marked abandoned: the game's bot plays "
                "for it from this turn on, without waiting. Ask the game master to give the seat back to "
                "you ({command}) if you want to play on.",
                "This seat missed {n} deadlines and is now marked abandoned: the game's bot plays "
                "for it from this turn on, without waiting. Ask the game master to give the seat back to "
                "you ({command}) if you want to play on.",
                seat.misses,
                command=f"pbem replace {game.id} {seat.name} ADDRESS",
            )
        )
    if game.grace_seconds and kind == "reminder":
        lines.append(
            _("A grace of {duration} follows the deadline.", duration=show_duration(game.grace_seconds))
        )
    if order_file and kind not in ("abandoned", "moved"):
        lines += ["", _("The orders to send (fill in your password):"), "", order_file.rstrip("\n")]
    return "\n".join(lines) + "\n"


def send_notice(
    engine: Engine,
    settings: MailSettings,
    kind: str,
    game_id: str,
    seat_name: str,
    *,
    epoch: int,
    turn: int,
    now: datetime,
) -> bool:
    """Record the notice and queue its mail, once; whether this call did it. ``kind`` is one of
    :data:`KINDS`, for a late notice with the period after a dash (``late-2``: the second turn's length
    the game has waited). A seat without an address gets the record only. Written in the seat's
    language."""
    with language(reader_language(engine, game_id, seat_name)):
        if kind.split("-")[0] not in KINDS:
            raise ValueError(f"unknown notice kind {kind!r}")
        order_file = _template_or_none(engine, game_id, seat_name) if kind != "abandoned" else None
        with Session(engine) as session:
            lock_game(session, game_id)
            game = session.get(GameRow, game_id)
            seat = session.exec(
                select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
            ).one()
            assert game is not None
            if (game.epoch, game.turn + 1) != (epoch, turn):  # the turn moved on since we looked: too late
                session.rollback()
                return False
            session.add(
                NoticeRow(game_id=game_id, epoch=epoch, turn=turn, seat=seat_name, kind=kind, created_at=now)
            )
            if seat.email and not addresses.is_valid(seat.email):
                # stored by an older pbem that did not check addresses: the notice is recorded, and the
                # operator told, instead of the whole reminder step failing for every seat
                log.warning(
                    "game %s seat %s: no %s mailed, %r is not a mail address",
                    game_id,
                    seat_name,
                    kind,
                    seat.email,
                )
            elif seat.email:
                key = notice_key(kind, game_id, epoch, turn, seat_name)
                message = new_message(
                    header_fields(
                        settings,
                        to=seat.email,
                        subject=_subject(kind, game_id, turn),
                        key=key,
                        now=now,
                        thread=thread_root(settings, game_id, seat_name),
                    )
                )
                set_text(message, body(kind, game, seat, turn, now, order_file))
                if kind.startswith("moved") and game.deadline_at is not None:  # the same event, moved
                    part = deadline_part(game, seat, turn, game.deadline_at, now, settings.from_addr)
                    message.add_attachment(
                        part.encode("utf-8"),
                        maintype="text",
                        subtype="calendar",
                        filename="deadline.ics",
                        params={"method": "PUBLISH", "charset": "utf-8"},
                    )
                with_language(message)  # last: a multipart move takes the Content-* headers inward
                queue(session, key=key, to=seat.email, message=message, now=now, game_id=game_id)
            try:
                session.commit()
            except IntegrityError:  # sent already, by this tick earlier or by another one just now
                session.rollback()
                return False
        return True
