"""Wrong passwords counted per seat, whatever address they come from: a guesser with many sender
addresses gets no more answers about one seat than a guesser with one.

Every wrong password given by mail for a seat is recorded under the game and seat the mail named
(whether or not that seat exists, so the limit tells nobody which seats exist). After
:data:`SEAT_GUESSES` wrong passwords within :data:`WINDOW`, the seat is *held*: a wrong password for it
from any address but the seat's registered one gets no answer (the guesser learns nothing, and nobody
is mailed back: backscatter). The hold grows with every further wrong password (:data:`FIRST_HOLD`
doubled each time, at most :data:`LONGEST_HOLD`) and ends on its own.

The hold throttles wrong guesses, never right ones: every try's password is checked, held or not, and
the right password is taken from any address. So a hold cannot cost a player anything they sent: not
mail from their registered address, and not mail from a second address of theirs that gives the right
password (issue 33: an outsider with five mails used to shut a player's second address out for days).
What a guesser gets from a hold is silence: no answer to a wrong password, and the player is told of
the hold, once, at the registered address (:func:`pbem.mail.guards.tell_held_seat`). Guessing a
password of four words and two digits (some 48 bits) by mail, one scrypt check a try, is no threat the
hold has to stop; its answers were the oracle worth closing.

The per-sender limit (:func:`pbem.mail.guards.wrong_password`) stays beside this one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from pbem.core.clock import utc
from pbem.storage.models import PasswordFailureRow, SeatRow

log = logging.getLogger("pbem.mail")

SEAT_GUESSES = 5
WINDOW = timedelta(hours=1)
FIRST_HOLD = timedelta(minutes=15)
LONGEST_HOLD = timedelta(days=1)


@dataclass(frozen=True)
class Hold:
    """A seat's hold: since when (the wrong password that began it) and until when."""

    since: datetime
    until: datetime


def _names(game_id: str, seat: str) -> tuple[str, str]:
    return game_id[:64], seat[:64]  # as the columns keep them


def hold(session: Session, game_id: str, seat: str, now: datetime) -> Hold | None:
    """The seat's hold at ``now``, or ``None`` when its password may be checked for anyone."""
    now = utc(now)
    game_id, seat = _names(game_id, seat)
    recent = [
        utc(at)
        for at in session.exec(
            select(PasswordFailureRow.at)
            .where(
                PasswordFailureRow.game_id == game_id,
                PasswordFailureRow.seat == seat,
                col(PasswordFailureRow.at) > now - LONGEST_HOLD - WINDOW,
            )
            .order_by(col(PasswordFailureRow.at))
        ).all()
    ]
    # the hold began with the first wrong password that made SEAT_GUESSES within one WINDOW
    start = next(
        (
            i
            for i in range(SEAT_GUESSES - 1, len(recent))
            if recent[i] - recent[i - SEAT_GUESSES + 1] <= WINDOW
        ),
        None,
    )
    if start is None:
        return None
    beyond = len(recent) - 1 - start  # wrong passwords given since the hold began
    until = recent[-1] + min(FIRST_HOLD * 2**beyond, LONGEST_HOLD)
    return Hold(recent[start], until) if now < until else None


def silenced(session: Session, game_id: str, seat_name: str, from_address: str | None, now: datetime) -> bool:
    """Whether a wrong password for the seat from ``from_address`` goes unanswered: the seat is held
    and the address is not the seat's registered one (whose answers reach the player, never a guesser).
    ``None`` (a file given to ``pbem submit`` by the host's operator) is always answered."""
    if from_address is None:
        return False
    found = hold(session, game_id, seat_name, now)
    if found is None:
        return False
    seat = session.exec(
        select(SeatRow).where(SeatRow.game_id == game_id[:64], SeatRow.name == seat_name[:64])
    ).first()
    if seat is not None and seat.email and seat.email.strip().lower() == from_address.strip().lower():
        return False  # the player's own address is always answered
    log.warning(
        "game %s seat %s is held after %d wrong passwords: a wrong one from %s is not answered, until %s",
        game_id[:64],
        seat_name[:64],
        SEAT_GUESSES,
        from_address,
        f"{found.until:%Y-%m-%d %H:%M} UTC",
    )
    return True


def wrong(session: Session, game_id: str, seat: str, from_address: str | None, now: datetime) -> None:
    """Record a wrong password for the seat, in ``session`` (the caller commits). A file given to
    ``pbem submit`` (no address) is the operator's, not a guess: not counted."""
    if from_address is None:
        return
    game_id, seat = _names(game_id, seat)
    session.add(PasswordFailureRow(game_id=game_id, seat=seat, from_address=from_address[:320], at=utc(now)))
