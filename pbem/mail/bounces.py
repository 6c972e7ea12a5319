"""Bounces: a delivery status notification marks the mail it returns, and the seat it could not reach.

``flufl.bounce`` reads the addresses that failed from RFC 3464 reports and from the common
non-standard shapes (Postfix, Exim, qmail, Microsoft, Yahoo…). Only permanent failures count: a
temporary one is the server's to retry. For each failed address:

- the outbox mail it returns is marked ``bounced``: the one whose Message-ID the report quotes (its
  ``text/rfc822-headers`` or ``message/rfc822`` part), else the latest one sent to that address;
- every seat registered at that address counts one bounce more; two in a row (no mail from the seat
  in between) mark it unreachable: ``pbem status`` says so, the game master's record says so (and the
  log), and the game's missed-orders policy applies at once: with ``--nmr bot`` the seat is marked
  abandoned, so the bot plays for it without waiting for deadlines to pass. A mail from the seat's
  address (orders, a command) counts it reachable again (:func:`heard_from`).

A report bounced twice for the same mail counts once (the outbox row is marked only once).
"""

from __future__ import annotations

import logging
from datetime import datetime
from email.message import Message

from flufl.bounce import all_failures
from sqlalchemy import Engine, func, update
from sqlmodel import Session, select

from pbem.core.search import policy_level
from pbem.intake import addresses
from pbem.mail.reading import header, parse
from pbem.outbox import begin_write, unpack_message
from pbem.storage.cron_models import GmActionRow
from pbem.storage.models import GameRow, OutboxRow, SeatRow

log = logging.getLogger("pbem.mail")


class _DetectorTripped(logging.Filter):
    """flufl.bounce logs every detector that raises on an odd message with ``log.exception``: outside
    the tick's own loggers that record reaches Python's last-resort handler, which prints a traceback
    on the operator's terminal and in cron's mail. A detector that trips only means no bounce could be
    read there (:func:`failed_addresses`); it is kept at DEBUG in the host's log, in one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        kind = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else "error"
        log.debug("a bounce detector could not read a message (%s): %s", kind, record.getMessage())
        return False


logging.getLogger("flufl.bounce").addFilter(_DetectorTripped())

#: bounces in a row that mark a seat unreachable
UNREACHABLE_AFTER = 2
#: how many recent mails to an address are looked through for the Message-ID a report quotes
_LOOK_BACK = 50


def failed_addresses(msg: Message) -> list[str]:
    """The addresses a bounce reports as permanently failed, lower-cased; empty for anything else."""
    try:
        _temporary, permanent = all_failures(msg)
    except Exception:  # a detector tripping on an odd message: no bounce we can read
        return []
    found = {a.decode("utf-8", "replace") if isinstance(a, bytes) else str(a) for a in permanent}
    return sorted(a.strip().lower() for a in found if addresses.is_valid(a.strip().lower()))


def returned_ids(msg: Message) -> set[str]:
    """The Message-IDs of the original mail that a bounce quotes."""
    ids: set[str] = set()
    for part in msg.walk():
        kind = part.get_content_type()
        if kind == "text/rfc822-headers":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                found = header(parse(payload + b"\n\n"), "Message-ID")
                ids.add(found) if found else None
        elif kind == "message/rfc822":
            inner = part.get_payload()
            for m in inner if isinstance(inner, list) else [inner]:
                if isinstance(m, Message) and header(m, "Message-ID"):
                    ids.add(header(m, "Message-ID"))
    return ids


def record(engine: Engine, msg: Message, now: datetime) -> str:
    """Record what a bounce says; a few words on what was done (for the inbound log), empty when the
    message reports no permanent failure."""
    addresses = failed_addresses(msg)
    if not addresses:
        return ""
    quoted = returned_ids(msg)
    said: list[str] = []
    with Session(engine) as session:
        begin_write(session)
        for address in addresses:
            row = _returned(session, address, quoted)
            if row is None or row.status == "bounced":
                said.append(f"{address}: no mail of ours to mark")
                continue
            row.status = "bounced"
            row.last_error = "bounced: the receiving side reported a permanent failure"
            session.add(row)
            said.append(f"{address}: outbox mail {row.id} bounced")
            said += _count(session, address, row.game_id, now)
        session.commit()
    return "; ".join(said)


def _returned(session: Session, address: str, quoted: set[str]) -> OutboxRow | None:
    recent = session.exec(
        select(OutboxRow)
        .where(func.lower(OutboxRow.to_addr) == address, OutboxRow.status.in_(("sent", "bounced")))  # type: ignore[attr-defined]
        .order_by(OutboxRow.id.desc())  # type: ignore[union-attr]
        .limit(_LOOK_BACK)
    ).all()
    if quoted:
        for row in recent:
            if header(parse(unpack_message(row.message_z).split(b"\r\n\r\n", 1)[0]), "Message-ID") in quoted:
                return row
    return recent[0] if recent else None  # the latest: when it bounced already, nothing more is counted


def _count(session: Session, address: str, game_id: str | None, now: datetime) -> list[str]:
    """One bounce more for the seats at ``address`` (of ``game_id`` when the mail was one game's)."""
    query = select(SeatRow).where(func.lower(func.trim(SeatRow.email)) == address)
    if game_id:
        query = query.where(SeatRow.game_id == game_id)
    said = []
    for seat in session.exec(query):
        seat.bounces += 1
        session.add(seat)
        if seat.bounces != UNREACHABLE_AFTER:
            continue
        game = session.get(GameRow, seat.game_id)
        policy = ""
        if game is not None and game.status == "active" and not seat.abandoned and policy_level(game.nmr):
            seat.abandoned = True  # the bot plays for it from now on, without waiting for deadlines
            policy = f"; the bot plays for it (missed-orders policy {game.nmr})"
        detail = f"seat {seat.name} is unreachable: {UNREACHABLE_AFTER} mails to it bounced in a row{policy}"
        session.add(GmActionRow(game_id=seat.game_id, at=now, action="unreachable", detail=detail))
        log.warning("game %s: %s", seat.game_id, detail)
        said.append(f"game {seat.game_id}: {detail}")
    return said


def heard_from(engine: Engine, address: str) -> None:
    """Mail came from ``address``: the seats registered there are reachable again."""
    with engine.begin() as conn:
        conn.execute(
            update(SeatRow)
            .where(func.lower(func.trim(SeatRow.email)) == address.lower(), SeatRow.bounces > 0)  # type: ignore[arg-type]
            .values(bounces=0)
        )
