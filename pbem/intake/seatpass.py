"""Checking a seat's password, the requested one included.

A ``password`` mail (:mod:`pbem.mail.password_reset`) gives a seat a second, pending password and
sends it to the seat's registered address. Until it is first used the old one keeps working, so a
stranger who asks for resets locks nobody out; its first use makes it the seat's password.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, bindparam, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from pbem.intake import passwords
from pbem.storage.models import SeatRow


def check(session: Session, seat: SeatRow | Row[Any] | None, given: str) -> bool:
    """Whether ``given`` is ``seat``'s password, or its pending one (which then replaces the old one,
    in ``session``'s transaction: the caller commits). Takes the time of a real check when ``seat`` is
    ``None``. ``seat``: an object of the session, or a Core row of the table read to read only
    (:func:`pbem.storage.history.seat_facts`)."""
    if passwords.verify(given, seat.password_hash if seat else None):
        return True
    if seat is None or not seat.pending_password_hash:
        return False
    if not passwords.verify(given, seat.pending_password_hash):
        return False
    # written on the table, whatever ``seat`` is (a Core row cannot be changed); an object of the
    # session is set as the update left it, so that it reads the new password and flushes nothing more
    session.connection().execute(_PROMOTE, {"of_seat": seat.id, "to": seat.pending_password_hash})
    if isinstance(seat, SeatRow):
        set_committed_value(seat, "password_hash", seat.pending_password_hash)
        set_committed_value(seat, "pending_password_hash", None)
    return True


_TABLE = SeatRow.__table__  # type: ignore[attr-defined]
# the pending password made the seat's, built once
_PROMOTE = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("of_seat"))
    .values(password_hash=bindparam("to"), pending_password_hash=None)
)
