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
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, or_, select
from sqlmodel import Session

from pbem.core import caches, registry, zones
from pbem.core.codec import unpack
from pbem.core.errors import UserError
from pbem.storage.history import SEATS_WITH_ORDERS, current_state, of_turn
from pbem.storage.models import GameRow, PressRow, ReportRow, SeatRow

_STYLE = re.compile(r"<style\b[^>]*>.*?</style>", re.DOTALL | re.IGNORECASE)
_BODY = re.compile(r"<body\b[^>]*>(.*)</body>", re.DOTALL | re.IGNORECASE)
#: press messages a page shows at most (the newest)
PRESS_SHOWN = 100

# A page reads a game's and its seats' columns in one statement (never the state: it is large), the
# seats with orders in and the press in one more each, on one connection: an ORM session a query cost
# a millisecond each, and a page is asked for hundreds of times a second. Built once, run with values.
_G = GameRow.__table__.c  # type: ignore[attr-defined]
_S = SeatRow.__table__.c  # type: ignore[attr-defined]
_P = PressRow.__table__.c  # type: ignore[attr-defined]
_R = ReportRow.__table__.c  # type: ignore[attr-defined]
_GAME_AND_SEATS = (
    select(
        _G.id,
        _G.game_type,
        _G.epoch,
        _G.turn,
        _G.status,
        _G.deadline_at,
        _G.language,
        _G.timezone,
        _G.press,
        _G.state_sha256,
        _S.name,
        _S.link_generation,
        _S.language.label("seat_language"),
        _S.timezone.label("seat_timezone"),
        _S.email,
    )
    .select_from(GameRow.__table__.join(SeatRow.__table__, _S.game_id == _G.id))  # type: ignore[attr-defined]
    .where(_G.id == bindparam("of_game"))
    .order_by(_S.position)
)
_PRESS = (
    select(_P.sender, _P.to_all, _P.recipients_json, _P.turn, _P.text, _P.sent_at)
    .where(
        _P.game_id == bindparam("of_game"),
        or_(
            _P.sender == bindparam("of_seat"),
            _P.to_all.is_(True),
            _P.recipients_json.contains(bindparam("quoted")),
        ),
    )
    .order_by(_P.sent_at.desc(), _P.id.desc())
    .limit(PRESS_SHOWN * 2)
)
_REPORT = (
    select(_R.html_z)
    .where(
        _R.game_id == bindparam("of_game"),
        _R.epoch <= bindparam("of_epoch"),
        _R.turn == bindparam("of_turn"),
        _R.seat == bindparam("of_seat"),
    )
    .order_by(_R.epoch.desc())
    .limit(1)
)


@dataclass(frozen=True)
class SeatFacts:
    """A seat as a page needs it."""

    name: str
    link_generation: int
    language: str | None
    timezone: str | None
    email: str


@dataclass(frozen=True)
class GameFacts:
    """A game as a page needs it (never its state or seed), and its seats in seating order."""

    id: str
    game_type: str
    epoch: int
    turn: int
    status: str
    deadline_at: datetime | None
    language: str
    timezone: str
    press: str
    state_sha256: str
    seats: tuple[SeatFacts, ...]

    @property
    def title(self) -> str:
        return registry.require(self.game_type).title

    def seat(self, name: str) -> SeatFacts | None:
        return next((s for s in self.seats if s.name == name), None)

    def zone_of(self, name: str) -> str:
        found = self.seat(name)
        return zones.seat_zone(self.timezone, found.timezone if found else None)


def game_facts(conn: Connection, game_id: str) -> GameFacts | None:
    """The game and its seats, or ``None`` for no such game (or one without seats)."""
    rows = conn.execute(_GAME_AND_SEATS, {"of_game": game_id}).all()
    if not rows:
        return None
    first = rows[0]
    seats = tuple(
        SeatFacts(r.name, r.link_generation, r.seat_language, r.seat_timezone, r.email) for r in rows
    )
    return GameFacts(
        first.id,
        first.game_type,
        first.epoch,
        first.turn,
        first.status,
        first.deadline_at,
        first.language,
        first.timezone,
        first.press,
        first.state_sha256,
        seats,
    )


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


def stored_report(conn: Connection, game: GameFacts, seat: str, turn: int) -> Shown | None:
    """The seat's stored report after ``turn`` (the newest epoch's that holds it), cut; ``None`` if none."""

    def make() -> Shown | None:
        found = conn.execute(
            _REPORT, {"of_game": game.id, "of_epoch": game.epoch, "of_turn": turn, "of_seat": seat}
        ).scalar()
        return cut(unpack(found)) if found is not None else None

    return caches.remembered("web-seat-reports", 256, (game.id, game.epoch, turn, seat), make)


def _pending(engine: Engine, game: GameFacts) -> list[str]:
    """The seats whose orders the current turn needs (kept by the state's hash: it is its function)."""

    def make() -> list[str]:
        with Session(engine) as session:
            row = session.get(GameRow, game.id)
        if row is None:
            return []
        rules = registry.require(row.game_type)
        return sorted(rules.pending(current_state(rules, row)))

    return caches.remembered("web-pending", 256, (game.id, game.state_sha256), make)


def waiting(engine: Engine, conn: Connection, game: GameFacts, seat: str) -> Waiting:
    """Whom the game waits for (names only) and until when, in the seat's zone."""
    pending = _pending(engine, game) if game.status == "active" else []
    submitted = set(conn.execute(SEATS_WITH_ORDERS, of_turn(game.id, game.epoch, game.turn + 1)).scalars())
    deadline = (
        zones.show(game.deadline_at, game.zone_of(seat))
        if game.status == "active" and game.deadline_at
        else None
    )
    return Waiting(
        game.status,
        game.turn + 1 if game.status != "finished" else game.turn,
        [s for s in pending if s not in submitted],
        [s for s in pending if s in submitted],
        deadline,
        seat in pending and seat not in submitted,
    )


def press_of(conn: Connection, game: GameFacts, seat: str) -> list[dict[str, Any]]:
    """The press the seat wrote or was sent (public press included), newest first."""
    rows = conn.execute(_PRESS, {"of_game": game.id, "of_seat": seat, "quoted": json.dumps(seat)}).all()
    shown = []
    zone = game.zone_of(seat)
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
                "at": zones.show(row.sent_at, zone),
            }
        )
    return shown[:PRESS_SHOWN]


def turn_asked(game: GameFacts, wanted: str | None) -> int:
    """The turn a page asks for (``?turn=``), the latest by default; a :class:`UserError` for another."""
    if wanted is None or wanted == "":
        return game.turn
    if not wanted.isdigit() or int(wanted) > game.turn:
        raise UserError("turn")
    return int(wanted)
