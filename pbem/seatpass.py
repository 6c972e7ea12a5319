"""Checking a seat's password, the requested one included.

A ``password`` mail (:mod:`pbem.mail.password_reset`) gives a seat a second, pending password and
sends it to the seat's registered address. Until it is first used the old one keeps working, so a
stranger who asks for resets locks nobody out; its first use makes it the seat's password.
"""

from __future__ import annotations

from sqlmodel import Session

from pbem import passwords
from pbem.models import SeatRow


def check(session: Session, seat: SeatRow | None, given: str) -> bool:
    """Whether ``given`` is ``seat``'s password, or its pending one (which then replaces the old one,
    in ``session``: the caller commits). Takes the time of a real check when ``seat`` is ``None``."""
    if passwords.verify(given, seat.password_hash if seat else None):
        return True
    if seat is None or not seat.pending_password_hash:
        return False
    if not passwords.verify(given, seat.pending_password_hash):
        return False
    seat.password_hash, seat.pending_password_hash = seat.pending_password_hash, None
    session.add(seat)
    return True
