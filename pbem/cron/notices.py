"""Mail the cron layer sends on its own: reminders before a deadline, late notices after it, and the
word that a seat was marked abandoned.

Each is sent at most once per turn and seat: the :class:`~pbem.storage.cron_models.NoticeRow` of its kind and
the outbox row (dedupe key ``KIND:GAME:EPOCH:TURN:SEAT``) are written in one transaction, and either unique
constraint turns a second writer (another tick at the same moment) into a rollback. Mail goes out
through the mail layer's outbox like every report, so it is delivered (and retried) by ``send``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.core.errors import UserError
from pbem.core.i18n import N_, _, language, ngettext
from pbem.core.registry import get_game
from pbem.core.zones import seat_zone
from pbem.cron.deadlines import describe, show_deadline, show_duration
from pbem.intake import addresses
from pbem.outbox import notices as pushes
from pbem.outbox import queue
from pbem.outbox.message import header_fields, new_message, set_text, subject_line, thread_root, with_language
from pbem.outbox.settings import MailSettings, load_settings
from pbem.play.orders import template
from pbem.render.calendar import cancel_part, deadline_part
from pbem.render.reports import reader_language
from pbem.storage.cron_models import NoticeRow
from pbem.storage.db import lock_game
from pbem.storage.models import GameRow, SeatRow

log = logging.getLogger("pbem.cron")

#: ``held``: the game master paused the game (the deadline's event cancelled); ``shift``: the game
#: master moved the deadline (extend, resume, rollback: the event updated)
KINDS = ("reminder", "late", "abandoned", "moved", "held", "shift")


def notice_key(kind: str, game_id: str, epoch: int, turn: int, seat: str) -> str:
    """``reminder:GAME:EPOCH:TURN:SEAT``: the outbox dedupe key of a notice."""
    return f"{kind}:{game_id}:{epoch}:{turn}:{seat}"


def _subject(kind: str, game_id: str, turn: int) -> str:
    what = {
        "reminder": N_("your orders are due soon"),
        "late": N_("your orders are late"),
        "abandoned": N_("your seat is now played by the bot"),
        "moved": N_("the deadline moved"),
        "held": N_("the game is paused"),
        "shift": N_("the deadline moved"),
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
    elif kind == "held":
        lines.append(
            _(
                "The game master paused the game: no deadline runs and no turn is resolved until it "
                "resumes. Your calendar's event for this turn's deadline is cancelled; a new one comes "
                "when the game resumes."
            )
        )
    elif kind == "shift":
        lines.append(
            _(
                "The game master moved the deadline: your orders for turn {turn} are now due by "
                "{deadline}. Your calendar's event for it is updated.",
                turn=turn,
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
    if order_file and kind not in ("abandoned", "moved", "held", "shift"):
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
    calendars: Sequence[str] | None = None,
) -> bool:
    """Record the notice and queue its mail, once; whether this call did it. ``kind`` is one of
    :data:`KINDS`, for a late notice with the period after a dash (``late-2``: the second turn's length
    the game has waited). A seat without an address gets the record only. Written in the seat's
    language. ``calendars``: the iCalendar parts the mail carries (by default a ``moved`` notice
    carries the turn's event, moved, and the others none)."""
    with language(reader_language(engine, game_id, seat_name)):
        if kind.split("-")[0] not in KINDS:
            raise ValueError(f"unknown notice kind {kind!r}")
        base = kind.split("-")[0]
        order_file = (
            _template_or_none(engine, game_id, seat_name)
            if base not in ("abandoned", "moved", "held", "shift")
            else None
        )
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
            try:  # now, not at the outbox's first query (an autoflush): done already is no error
                session.flush()
            except IntegrityError:
                session.rollback()
                return False
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
                parts = list(calendars or ())
                if calendars is None and base == "moved" and game.deadline_at is not None:
                    # the same event, moved
                    parts.append(deadline_part(game, seat, turn, game.deadline_at, now, settings.from_addr))
                for number, part in enumerate(parts, 1):
                    message.add_attachment(
                        part.encode("utf-8"),
                        maintype="text",
                        subtype="calendar",
                        filename="deadline.ics" if len(parts) == 1 else f"deadline-{number}.ics",
                        params={"method": _method(part), "charset": "utf-8"},
                    )
                with_language(message)  # last: a multipart move takes the Content-* headers inward
                queue(session, key=key, to=seat.email, message=message, now=now, game_id=game_id)
            if base == "reminder":  # and at the seat's notice URLs, in the same transaction (issue 32)
                pushes.queue(
                    session,
                    pushes.Event("reminder", game_id, epoch, turn, game.deadline_at),
                    [seat_name],
                    now,
                )
            try:
                session.commit()
            except IntegrityError:  # sent already, by this tick earlier or by another one just now
                session.rollback()
                return False
        return True


def _method(part: str) -> str:
    return "CANCEL" if "\nMETHOD:CANCEL" in part.replace("\r\n", "\n") else "PUBLISH"


# ---------------------------------------------------------------- the game master moves a deadline


@dataclass(frozen=True)
class Deadline:
    """Where a game's deadline stands: which turn's event it is (epoch, due turn) and when, if it runs."""

    epoch: int
    turn: int  # the turn orders are due for
    at: datetime | None  # None: no deadline runs (none set, paused, finished)


def deadline_now(engine: Engine, game_id: str) -> Deadline | None:
    """The game's deadline as it stands; ``None`` when there is no such game."""
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
    if game is None:
        return None
    running = game.status == "active" and game.deadline_at is not None
    return Deadline(game.epoch, game.turn + 1, game.deadline_at if running else None)


def calendar_updates(
    engine: Engine,
    game_id: str,
    now: datetime,
    change: Callable[[], str],
    *,
    settings: MailSettings | None = None,
) -> tuple[str, list[str]]:
    """Run a game master's ``change`` (pause, resume, extend, rollback: :mod:`pbem.cron.admin`) and mail
    every seat whose deadline it moved or stopped the updated calendar event; what ``change`` said and
    the seats mailed.

    A pause cancels the event (METHOD:CANCEL): a paused game has no deadline, and a calendar that kept
    a date would remind the player of one that does not exist; resume publishes the same UID again with
    the new date and a higher SEQUENCE, which supersedes the cancellation (RFC 5546 §2.1.5). A rollback
    cancels the undone turn's event and publishes the new turn's."""
    before = deadline_now(engine, game_id)
    said = change()
    return said, calendar_notices(
        engine, game_id, now, before, deadline_now(engine, game_id), settings=settings
    )


def calendar_notices(
    engine: Engine,
    game_id: str,
    now: datetime,
    before: Deadline | None,
    after: Deadline | None,
    *,
    settings: MailSettings | None = None,
) -> list[str]:
    """The mails of :func:`calendar_updates` for a deadline moved from ``before`` to ``after``; the seats
    this call mailed. Each is queued once (:func:`send_notice`), so a run recovering a game master's
    command may call it again and queue only what the dead run did not."""
    if before is None or after is None or before == after:
        return []
    settings = settings or load_settings()
    with Session(engine) as session:
        game = session.get(GameRow, game_id)
        seats = list(
            session.exec(select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.position))
        )
    assert game is not None
    same_event = (before.epoch, before.turn) == (after.epoch, after.turn)
    told = []
    for seat in seats:
        with language(reader_language(engine, game_id, seat.name)):
            parts = []
            if before.at is not None and (after.at is None or not same_event):
                parts.append(
                    cancel_part(game, seat, before.turn, now, settings.from_addr, epoch=before.epoch)
                )
            if after.at is not None:
                parts.append(deadline_part(game, seat, after.turn, after.at, now, settings.from_addr))
        if not parts:
            continue
        kind = (
            f"shift-{int(after.at.timestamp())}" if after.at is not None else f"held-{int(now.timestamp())}"
        )
        if seat.email and send_notice(
            engine,
            settings,
            kind,
            game_id,
            seat.name,
            epoch=after.epoch,
            turn=after.turn,
            now=now,
            calendars=parts,
        ):
            told.append(seat.name)
    return told


def told_line(seats: list[str]) -> str:
    """What the game master reads of :func:`calendar_updates`' mail (nothing when none went out)."""
    if not seats:
        return ""
    return "\n" + _("calendar update queued for {seats}", seats=", ".join(seats))
