"""What a seat's page shows, read from the store: the seat's stored report of a turn (its web rendering,
boards as SVG), what the game waits for and by when in the seat's zone, the turns it can go back to, and
the press it wrote or was sent.

A stored report is the seat's own rendering of its own view (:mod:`pbem.render.reports`), in its
language: the page shows it as stored, split into its styles and its body so it sits inside the host's
page. The split is kept per process by (game, epoch, turn, seat): the seat is in the key, so a seat can
only ever be given its own (privacy by construction), and a stored report never changes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, or_
from sqlmodel import Session, col, select

from pbem.core import caches, zones
from pbem.core.codec import unpack
from pbem.core.errors import UserError
from pbem.render.reports import seat_zones
from pbem.storage.history import accepted_orders, current_state, game_of, seat_rows
from pbem.storage.models import GameRow, PressRow, ReportRow, SubmissionRow

_STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.DOTALL | re.IGNORECASE)
_BODY = re.compile(r"<body\b[^>]*>(.*)</body>", re.DOTALL | re.IGNORECASE)
#: press messages a page shows at most (the newest)
PRESS_SHOWN = 100


@dataclass(frozen=True)
class Shown:
    """A stored report cut for the host's page: its style elements and what its body holds."""

    styles: str
    body: str


@dataclass(frozen=True)
class Waiting:
    """What the game waits for now, as the seat may know it (who, not what)."""

    status: str  # active | paused | finished
    turn: int
    awaited: list[str]
    orders_in: list[str]
    deadline: str | None  # in the seat's zone and the reader's words
    yours_awaited: bool


def cut(page: str) -> Shown:
    """A report page's styles and body (the whole page as body when it has none)."""
    found = _BODY.search(page)
    return Shown("\n".join(_STYLE.findall(page)), found.group(1) if found else page)


def stored_report(engine: Engine, row: GameRow, seat: str, turn: int) -> Shown | None:
    """The seat's stored report after ``turn`` (the newest epoch's that holds it), cut; ``None`` if none."""

    def make() -> Shown | None:
        with Session(engine) as session:
            found = session.exec(
                select(ReportRow.html_z)
                .where(
                    ReportRow.game_id == row.id,
                    ReportRow.epoch <= row.epoch,
                    ReportRow.turn == turn,
                    ReportRow.seat == seat,
                )
                .order_by(col(ReportRow.epoch).desc())
            ).first()
        return cut(unpack(found)) if found is not None else None

    return caches.remembered("web-seat-reports", 256, (row.id, row.epoch, turn, seat), make)


def _pending(row: GameRow) -> list[str]:
    """The seats whose orders the current turn needs (kept by the state's hash: it is its function)."""

    def make() -> list[str]:
        game = game_of(row)
        return sorted(game.pending(current_state(game, row)))

    return caches.remembered("web-pending", 256, (row.id, row.state_sha256), make)


def waiting(engine: Engine, row: GameRow, seat: str) -> Waiting:
    """Whom the game waits for (names only) and until when, in the seat's zone."""
    pending = _pending(row) if row.status == "active" else []
    with Session(engine) as session:
        submitted = set(
            session.exec(select(SubmissionRow.seat).where(accepted_orders(row.id, row.epoch, row.turn + 1)))
        )
        zone = seat_zones(row, seat_rows(session, row.id)).get(seat, row.timezone)
    deadline = zones.show(row.deadline_at, zone) if row.status == "active" and row.deadline_at else None
    return Waiting(
        row.status,
        row.turn + 1 if row.status != "finished" else row.turn,
        [s for s in pending if s not in submitted],
        [s for s in pending if s in submitted],
        deadline,
        seat in pending and seat not in submitted,
    )


def press_of(engine: Engine, game_id: str, seat: str) -> list[dict[str, Any]]:
    """The press the seat wrote or was sent (public press included), newest first."""
    with Session(engine) as session:
        rows = session.exec(
            select(PressRow)
            .where(
                PressRow.game_id == game_id,
                or_(
                    col(PressRow.sender) == seat,
                    col(PressRow.to_all).is_(True),
                    col(PressRow.recipients_json).contains(json.dumps(seat)),
                ),
            )
            .order_by(col(PressRow.sent_at).desc(), col(PressRow.id).desc())
            .limit(PRESS_SHOWN * 2)
        ).all()
    shown = []
    for row in rows:
        recipients = json.loads(row.recipients_json)
        # the SQL "contains" narrows; this decides (a seat "ann" is not in ["anna"])
        if row.sender != seat and not row.to_all and seat not in recipients:
            continue
        shown.append(
            {
                "sender": row.sender,
                "to_all": row.to_all,
                "to": recipients,
                "turn": row.turn,
                "text": row.text,
                "at": zones.show(row.sent_at, "UTC"),
            }
        )
    return shown[:PRESS_SHOWN]


def turn_asked(row: GameRow, wanted: str | None) -> int:
    """The turn a page asks for (``?turn=``), the latest by default; a :class:`UserError` for another."""
    if wanted is None or wanted == "":
        return row.turn
    if not wanted.isdigit() or int(wanted) > row.turn:
        raise UserError("turn")
    return int(wanted)
