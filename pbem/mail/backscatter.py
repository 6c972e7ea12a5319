"""Backscatter: mail with a forged From must not make the host mail strangers.

A reply goes to the From address, which anyone can write. To a registered address (a seat's, an
observer's or a game master's) every message is answered. To any other address at most
:data:`PER_DAY` replies go out a day: a person who mistyped their address, or a new player asking for
help, is still answered, but a spammer forging thousands of messages From one victim gets the victim
one mail, not thousands. The messages are archived all the same.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.storage.models import GameMasterRow, ObserverRow, OutboxRow, SeatRow

log = logging.getLogger("pbem.mail")

PER_DAY = 1


def registered(session: Session, address: str) -> bool:
    seat = session.exec(select(SeatRow.id).where(func.lower(SeatRow.email) == address)).first()
    if seat is not None:
        return True
    if session.exec(select(GameMasterRow.game_id).where(func.lower(GameMasterRow.email) == address)).first():
        return True
    return (
        session.exec(select(ObserverRow.id).where(func.lower(ObserverRow.email) == address)).first()
        is not None
    )


def suppressed(engine: Engine, frm: str, plan: Any, now: datetime) -> bool:
    """Whether the reply to ``frm`` must not be sent (see the module); logged when it is not."""
    with Session(engine) as session:
        if registered(session, frm):
            return False
        recent = session.exec(
            select(func.count()).where(
                OutboxRow.to_addr == frm,
                OutboxRow.dedupe_key.startswith("reply:"),  # type: ignore[attr-defined]
                OutboxRow.created_at > now - timedelta(days=1),
            )
        ).one()
    if recent >= PER_DAY:
        log.info("no reply to %s (not a player's address, answered already today): %s", frm, plan.reason)
        return True
    return False
