"""Two guards on mailed orders: a captured order mail sent again, and passwords guessed by mail.

**Replays.** Anyone who saw an order mail on its way can send it again with a new Message-ID (the key
of exactly-once changes with it). Orders identical to ones this sender sent before and that later
orders replaced (their submission is ``superseded``) are such a copy: they are not taken, so a replay
cannot put old orders back over newer ones. (Orders identical to the ones standing change nothing;
they are taken as usual.) A player who really wants the old orders back changes anything in them, a
comment will do.

**Guessing.** Per seat, whatever the sender: :mod:`pbem.intake.guessing` holds a seat after a few wrong
passwords; while it is held a wrong password is not answered (a right one is taken from any address),
and :func:`tell_held_seat` tells the seat's player, once a hold, at the registered address. Per
sender: a wrong password is logged at WARNING with the sender and how many this sender got wrong in
the last hour. Past :data:`GUESSES_PER_HOUR`, the answers stop: the
guesses are still checked and recorded, but no reply tells the guesser anything, and nothing waits (the
tick is never slowed for everyone else).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.core.codec import sha256_hex, unpack
from pbem.core.i18n import _, format_deadline, language, ngettext
from pbem.intake import addresses, guessing
from pbem.mail import reading
from pbem.outbox import begin_write, queue
from pbem.outbox.message import header_fields, new_message, set_text, subject_line, thread_root
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from pbem.render.reports import reader_language
from pbem.storage.models import SeatRow, SubmissionRow

log = logging.getLogger("pbem.mail")

GUESSES_PER_HOUR = 5
AUTH_FAILED = "[auth.failed]"


def replayed(engine: Engine, frm: str, text: str) -> datetime | None:
    """When the orders in ``text`` were first received from ``frm``, if they are a copy of orders
    that later orders replaced; ``None`` otherwise."""
    stored_text = orders.redact(text, reading.password_in(text)).strip()
    with Session(engine) as session:
        earlier = session.exec(
            select(SubmissionRow).where(
                SubmissionRow.source == "mail",
                SubmissionRow.from_address == frm,
                SubmissionRow.status == "superseded",
            )
        ).all()
        copy = next((row for row in earlier if unpack(row.raw_z).strip() == stored_text), None)
        if copy is None:
            return None
        standing = session.exec(
            select(SubmissionRow).where(
                SubmissionRow.game_id == copy.game_id,
                SubmissionRow.seat == copy.seat,
                SubmissionRow.epoch == copy.epoch,
                SubmissionRow.turn == copy.turn,
                SubmissionRow.status == "accepted",
            )
        ).first()
    if standing is not None and unpack(standing.raw_z).strip() == stored_text:
        return None  # the same orders stand: taking them again changes nothing
    return copy.received_at


def wrong_password(engine: Engine, frm: str, errors: list[str], now: datetime) -> bool:
    """Log a wrong password; ``True`` when this sender is past the limit and must get no answer."""
    if not any(AUTH_FAILED in e for e in errors):
        return False
    with Session(engine) as session:
        recent = session.exec(
            select(func.count()).where(
                SubmissionRow.from_address == frm,
                SubmissionRow.status == "rejected",
                SubmissionRow.errors.contains(AUTH_FAILED),  # type: ignore[union-attr]
                SubmissionRow.received_at > now - timedelta(hours=1),
            )
        ).one()
    silenced = recent > GUESSES_PER_HOUR
    log.warning(
        "wrong password in mail from %s (%d in the last hour%s)",
        frm,
        recent,
        "; not answered any more" if silenced else "",
    )
    return silenced


def tell_held_seat(
    engine: Engine, settings: MailSettings, game_id: str, seat_name: str, now: datetime
) -> bool:
    """If the seat is held against guessing (:mod:`pbem.intake.guessing`), tell its player at the registered
    address, once a hold, and the operator's log at WARNING; whether this call queued that mail."""
    with language(reader_language(engine, game_id, seat_name)), Session(engine) as session:
        begin_write(session)
        held = guessing.hold(session, game_id, seat_name, now)
        if held is None:
            return False
        seat = session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
        ).first()
        address = seat.email.strip().lower() if seat is not None else ""
        if seat is None or not addresses.is_valid(address):
            return False  # no such seat (its name was guessed too), or nobody to tell
        key = "held:" + sha256_hex(f"{game_id}\0{seat_name}\0{held.since.isoformat()}")
        message = new_message(
            header_fields(
                settings,
                to=address,
                subject=subject_line(game_id, _("wrong passwords for {seat}", seat=seat_name)),
                key=key,
                now=now,
                thread=thread_root(settings, game_id, seat_name),
            )
        )
        body = [
            ngettext(
                "Mail for seat {seat} in game {game} gave a wrong password {n} time within an hour.",
                "Mail for seat {seat} in game {game} gave a wrong password {n} times within an hour.",
                guessing.SEAT_GUESSES,
                seat=seat_name,
                game=game_id,
            ),
            "",
            _(
                "Until {until}, a wrong password for your seat from any address but yours gets no "
                "answer. Mail with the right password is taken from any address, and your own mail "
                "works as always: nothing is asked of you.",
                until=format_deadline(held.until),
            ),
            "",
            _(
                "If that was not you, someone may be guessing your password. If you think they may know "
                "it, send a mail with the subject: password (and the lines game: and player:) to get a "
                "new one."
            ),
        ]
        set_text(message, "\n".join(body) + "\n")
        if not queue(session, key=key, to=address, message=message, now=now, game_id=game_id):
            session.rollback()
            return False
        session.commit()
    log.warning(
        "game %s seat %s held after %d wrong passwords until %s; its player is told",
        game_id,
        seat_name,
        guessing.SEAT_GUESSES,
        f"{held.until:%Y-%m-%d %H:%M} UTC",
    )
    return True
