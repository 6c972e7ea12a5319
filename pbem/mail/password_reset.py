"""The ``password`` mail command: a new password, mailed to the seat's registered address only.

    password
    game: reef-7
    player: red

Anyone may ask; the answer to the sender is the same whatever the game and seat (nobody learns which
seats exist or where they live), and the new password goes to the address the seat was registered
with, never to the sender or a Reply-To. At most one reset mail a day per seat; the old password keeps
working until the new one is first used (:mod:`pbem.intake.seatpass`), so asking cannot lock anybody out.

The new password, the moment and the mail are written in one transaction with a dedupe key of the
seat and the day, so a run that dies and is recovered does not send a second one.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.core.i18n import _
from pbem.intake import addresses, passwords
from pbem.mail.commands import Answer, handles
from pbem.outbox import begin_write, queue, readers
from pbem.outbox.message import header_fields, new_message, set_text, subject_line, thread_root
from pbem.outbox.settings import MailSettings, load_settings
from pbem.storage.models import GameRow, SeatRow

#: how long after one reset mail the next may be sent
RESET_INTERVAL = timedelta(days=1)


def reset_key(game_id: str, seat: str, now: datetime) -> str:
    return f"password:{game_id}:{seat}:{now:%Y-%m-%d}"


@handles("password", envelope=True)
def request(
    engine: Engine,
    envelope: dict[str, Any],
    *,
    settings: MailSettings | None = None,
    now: datetime | None = None,
) -> Answer:
    """Send ``envelope``'s seat a new password if it may have one now; the answer to the sender."""
    missing = [k for k in ("game", "player") if not envelope.get(k)]
    if missing:
        return Answer(
            False,
            _("[pbem] your request was not carried out"),
            "",
            errors=[
                _(
                    "missing {fields}: a password request needs the lines game: and player:",
                    fields=", ".join(missing),
                )
            ],
        )
    game_id, seat_name = str(envelope["game"]), str(envelope["player"])
    with readers.reader_of(engine, game_id, seat_name).speaking():  # the seat's words, not the sender's
        _send(engine, settings or load_settings(), game_id, seat_name, utc(now))
    text = _(
        "If game {game} has a seat {seat} with a registered address, a new password is on its way to "
        "that address (never to any other, and at most one a day). The old password keeps working "
        "until the new one is first used.",
        game=game_id,
        seat=seat_name,
    )
    return Answer(True, subject_line(game_id, _("password request")), text + "\n")


def _send(engine: Engine, settings: MailSettings, game_id: str, seat_name: str, now: datetime) -> bool:
    """Queue the reset mail when the seat exists, has an address and had none in a day; whether it did."""
    new_password = passwords.generate()
    new_hash = passwords.hash_password(new_password)  # before the write lock: scrypt takes a while
    with Session(engine) as session:
        begin_write(session)
        game = session.get(GameRow, game_id)
        seat = session.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat_name)
        ).first()
        if game is None or seat is None or game.status == "finished":
            return False
        address = seat.email.strip().lower()
        if not addresses.is_valid(address):
            return False
        if seat.password_reset_at is not None and now - seat.password_reset_at < RESET_INTERVAL:
            return False
        seat.pending_password_hash, seat.password_reset_at = new_hash, now
        # a reset is what a player does when a link or password may be in other hands: every sign-in
        # link and web session of the seat made before stops working (issue 30)
        seat.link_generation += 1
        session.add(seat)
        key = reset_key(game_id, seat_name, now)
        message = new_message(
            header_fields(
                settings,
                to=address,
                subject=subject_line(game_id, _("new password for {seat}", seat=seat_name)),
                key=key,
                now=now,
                thread=thread_root(settings, game_id, seat_name),
            )
        )
        set_text(message, _body(game_id, seat_name, new_password))
        if not queue(session, key=key, to=address, message=message, now=now, game_id=game_id):
            session.rollback()
            return False
        session.commit()
    return True


def _body(game_id: str, seat: str, password: str) -> str:
    return (
        "\n".join(
            [
                _(
                    "Someone, perhaps you, asked for a new password for seat {seat} in game {game}.",
                    seat=seat,
                    game=game_id,
                ),
                "",
                _("Your new password: {password}", password=password),
                "",
                _(
                    "Your old password keeps working until you first use the new one; from then on only "
                    "the new one does. If you did not ask for it, ignore this mail: nothing changes."
                ),
                _("This mail goes only to the address your seat was registered with."),
            ]
        )
        + "\n"
    )
