"""Backscatter: mail with a forged From must not make the host mail strangers, nor flood a player.

A reply goes to the From address, which anyone can write. Three kinds of sender:

- a *stranger*: an address that is no seat's, observer's or game master's, in a mail that proved no
  seat's password. A stranger's answer repeats nothing the mail said (not its Subject, not its
  Message-ID, not a ``game:`` or ``player:`` value): it is :func:`stranger_body` unless the answer is
  one of the host's fixed texts (help, "no orders found", "too large"). At most :data:`PER_DAY` of
  these go to one stranger a day and :data:`STRANGERS_PER_HOUR` to all strangers together an hour, so a
  spammer forging thousands of mails From thousands of victims gets the host to send a few short
  mails that say nothing of theirs;
- a *registered* address: answered in full, but a mail that proved no password (a refusal, a
  ``password`` request, help) at most :data:`ANSWERS_PER_HOUR` times an hour, so thirty forged
  ``password`` requests From a player give the player a handful of mails, not thirty (issue 33,
  findings 3 and 4);
- a mail that gave a seat's (or the game master's) right password, from any address (a player's second
  one too): always answered: its receipt tells what was done, and only the password's owner can make one.

Every message is archived all the same.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from pbem.core.i18n import _
from pbem.storage.models import GameMasterRow, LobbySeatRow, ObserverRow, OutboxRow, SeatRow, StandbyRow

log = logging.getLogger("pbem.mail")

#: answers to one stranger a day
PER_DAY = 1
#: answers to all strangers together an hour
STRANGERS_PER_HOUR = 10
#: answers an hour to one registered address for mail that proved no password
ANSWERS_PER_HOUR = 6
#: the dedupe keys of answers start with ``reply:``; these mark answers to strangers, and answers to a
#: registered address for mail that proved no password: what the limits count
STRANGER_KEY = "reply:stranger:"
UNPROVEN_KEY = "reply:unproven:"


def registered(session: Session, address: str) -> bool:
    seat = session.exec(select(SeatRow.id).where(func.lower(SeatRow.email) == address)).first()
    if seat is not None:
        return True
    if session.exec(select(GameMasterRow.game_id).where(func.lower(GameMasterRow.email) == address)).first():
        return True
    if session.exec(select(ObserverRow.id).where(func.lower(ObserverRow.email) == address)).first():
        return True
    # a seat taken in an open game, a standby list (issue 32): the address's owner confirmed it by a code
    if session.exec(select(LobbySeatRow.id).where(LobbySeatRow.email == address)).first():
        return True
    return session.exec(select(StandbyRow.id).where(StandbyRow.email == address)).first() is not None


def is_stranger(engine: Engine, frm: str, proven: bool) -> bool:
    """Whether ``frm`` is a stranger (see the module): not registered, and its mail proved no password."""
    if proven:
        return False
    with Session(engine) as session:
        return not registered(session, frm)


def key_prefix(plan: Any, stranger: bool) -> str:
    """How the dedupe key of the answer to ``plan``'s mail begins (see :data:`STRANGER_KEY`)."""
    if stranger:
        return STRANGER_KEY
    return "reply:" if plan.proven else UNPROVEN_KEY


def suppressed(engine: Engine, frm: str, plan: Any, now: datetime, *, stranger: bool) -> bool:
    """Whether the reply to ``frm`` must not be sent (see the module); logged when it is not."""
    if plan.proven:
        return False
    with Session(engine) as session:
        if stranger:
            to_this = session.exec(
                select(func.count()).where(
                    OutboxRow.to_addr == frm,
                    col(OutboxRow.dedupe_key).startswith("reply:"),
                    OutboxRow.created_at > now - timedelta(days=1),
                )
            ).one()
            to_all = session.exec(
                select(func.count()).where(
                    col(OutboxRow.dedupe_key).startswith(STRANGER_KEY),
                    OutboxRow.created_at > now - timedelta(hours=1),
                )
            ).one()
            if to_this >= PER_DAY or to_all >= STRANGERS_PER_HOUR:
                why = "answered already today" if to_this >= PER_DAY else "strangers' answers this hour"
                log.info("no reply to %s (not a player's address, %s): %s", frm, why, plan.reason)
                return True
            return False
        recent = session.exec(
            select(func.count()).where(
                OutboxRow.to_addr == frm,
                col(OutboxRow.dedupe_key).startswith(UNPROVEN_KEY),
                OutboxRow.created_at > now - timedelta(hours=1),
            )
        ).one()
    if recent >= ANSWERS_PER_HOUR:
        log.warning("no reply to %s (%d answers in the last hour): %s", frm, recent, plan.reason)
        return True
    return False


def stranger_body() -> str:
    """The answer to a stranger: the host's own words only, nothing of the mail it answers."""
    return (
        _(
            "The pbem host read your mail. This address belongs to no player, observer or game master "
            "here, so the host answers it briefly and repeats nothing of it."
        )
        + "\n\n"
        + _(
            "If you play here: write from the address your seat was registered with, or put your "
            "orders with your seat's password in the mail. If you asked for a new password: if the "
            "game has that seat and the seat has a registered address, the new password is on its way "
            "to that address, and only there."
        )
        + "\n"
    )


def stranger_subject() -> str:
    """The subject of an answer to a stranger: not theirs, which may say anything."""
    return _("[pbem] your mail to the pbem host")
