"""A player's record on this host, by address (issue 32): the games joined, finished and given up,
every missed deadline with its receipt, and a reliability figure.

The misses are the ``miss`` rows :func:`pbem.cron.policy.record_misses` writes where it counts them,
in the same transaction, so the record and the count cannot disagree. The figure is **turns on time
out of turns owed**: a turn is owed by a seat when the seat's orders made it (the player's or the
stand-in's) or when the seat missed its deadline; it is late when the seat has a miss in it that no game
master excused. Turns owed are counted over the seats the address holds now (a seat given to another
player takes its turns with it); its misses stay the address's.

The record is shown in the reader's language; the CLI (``pbem record ADDRESS``) and a game master
(``record`` with the ``gm:`` line) see the figure of each player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.core.codec import unpack_json
from pbem.core.errors import UserError
from pbem.core.i18n import _, format_deadline, ngettext
from pbem.storage.db import lock_game
from pbem.storage.models import GameRow, MissRow, SeatRow, TurnRow


@dataclass(frozen=True)
class Miss:
    """One miss as the record shows it."""

    game_id: str
    turn: int
    seat: str
    deadline_at: datetime
    outcome: str
    excused: bool
    period: int = 1


@dataclass
class Record:
    """What the host knows of one address."""

    address: str
    joined: list[str] = field(default_factory=list)  # game ids, as the seats were made
    finished: list[str] = field(default_factory=list)
    abandoned: list[str] = field(default_factory=list)  # seats given to the stand-in for missing
    misses: list[Miss] = field(default_factory=list)
    owed: int = 0
    late: int = 0

    @property
    def on_time(self) -> int:
        return self.owed - self.late

    @property
    def percent(self) -> int | None:
        """Turns on time out of turns owed, in whole percent (rounded down); ``None`` before any."""
        return None if not self.owed else self.on_time * 100 // self.owed


def _address(address: str) -> str:
    return address.strip().lower()


def record_of(engine: Engine, address: str, *, game_id: str | None = None) -> Record:
    """The record of ``address`` (all its games, or only ``game_id``'s seat)."""
    wanted = _address(address)
    record = Record(wanted)
    with Session(engine) as session:
        seats = session.exec(
            select(SeatRow, GameRow.status)
            .join(GameRow, GameRow.id == SeatRow.game_id)  # type: ignore[arg-type]
            .where(func.lower(SeatRow.email) == wanted)
            .order_by(SeatRow.game_id, SeatRow.position)  # type: ignore[arg-type]
        ).all()
        query = select(MissRow).where(func.lower(MissRow.email) == wanted)
        if game_id is not None:
            query = query.where(MissRow.game_id == game_id)
        rows = session.exec(
            query.order_by(MissRow.game_id, MissRow.epoch, MissRow.turn, MissRow.period)
        ).all()
        owed: set[tuple[str, int, int]] = set()
        for seat, status in seats:
            if game_id is not None and seat.game_id != game_id:
                continue
            record.joined.append(seat.game_id)
            if status == "finished":
                record.finished.append(seat.game_id)
            if seat.abandoned:
                record.abandoned.append(seat.game_id)
            owed |= _turns_played(session, seat.game_id, seat.name)
    late: set[tuple[str, int, int]] = set()
    for row in rows:
        record.misses.append(
            Miss(
                row.game_id,
                row.turn,
                row.seat,
                utc(row.deadline_at),
                row.outcome,
                row.excused_at is not None,
                row.period,
            )  # type: ignore[arg-type]
        )
        owed.add((row.game_id, row.epoch, row.turn))
        if row.excused_at is None:
            late.add((row.game_id, row.epoch, row.turn))
    record.owed, record.late = len(owed), len(late)
    return record


def _turns_played(session: Session, game_id: str, seat: str) -> set[tuple[str, int, int]]:
    """The turns of the game (those standing, not undone) that ``seat``'s orders made."""
    turns = session.exec(
        select(TurnRow.epoch, TurnRow.number, TurnRow.orders_z).where(
            TurnRow.game_id == game_id,
            TurnRow.number > 0,
            TurnRow.undone == False,  # noqa: E712
        )
    ).all()
    return {(game_id, epoch, number) for epoch, number, orders in turns if seat in unpack_json(orders)}


def outcome_words(outcome: str) -> str:
    if outcome == "bot":
        return _("the stand-in played")
    if outcome == "abandoned":
        return _("the seat was given to the stand-in")
    return _("the game waited")


def receipt(miss: Miss) -> str:
    """``turn 12: no orders by Mar 2, 2026 09:00 UTC; the stand-in played`` in the reader's words."""
    said = _(
        "game {game}, seat {seat}, turn {turn}: no orders by {deadline}; {outcome}",
        game=miss.game_id,
        seat=miss.seat,
        turn=miss.turn,
        deadline=format_deadline(miss.deadline_at),
        outcome=outcome_words(miss.outcome),
    )
    if miss.excused:
        said += " " + _("(excused by the game master)")
    return said


def figure(record: Record) -> str:
    """``18 of 20 turns on time (90 %)``, or that there is none yet."""
    if record.percent is None:
        return _("no turns owed yet")
    return ngettext(
        "{on_time} of {n} turn on time ({percent} %)",
        "{on_time} of {n} turns on time ({percent} %)",
        record.owed,
        on_time=record.on_time,
        percent=record.percent,
    )


def text(record: Record) -> str:
    """The whole record, for its owner: games, the figure, and every miss with its receipt."""
    lines = [
        _("Your record on this host ({address}):", address=record.address),
        "",
        "  " + ngettext("{n} game joined", "{n} games joined", len(record.joined)),
        "  " + ngettext("{n} of them finished", "{n} of them finished", len(record.finished)),
        "  "
        + ngettext(
            "{n} seat given to the stand-in", "{n} seats given to the stand-in", len(record.abandoned)
        ),
        "  " + _("reliability: {figure}", figure=figure(record)),
        "",
    ]
    if not record.misses:
        lines.append(_("No missed deadline."))
    else:
        lines.append(ngettext("{n} missed deadline:", "{n} missed deadlines:", len(record.misses)))
        lines += ["  - " + receipt(miss) for miss in record.misses]
    return "\n".join(lines) + "\n"


def excuse(engine: Engine, game_id: str, seat: str, turn: int, by: str, now: datetime) -> int:
    """Excuse ``seat``'s misses of ``turn`` (every period of it): they stay in the record, shown as
    excused, and leave the figure; the seat's count of misses (what ``abandon_after`` reads) goes down
    by as many. Returns how many were excused; a :class:`UserError` when there was none to excuse."""
    with Session(engine) as session:
        lock_game(session, game_id)
        rows = session.exec(
            select(MissRow).where(
                MissRow.game_id == game_id,
                MissRow.seat == seat,
                MissRow.turn == turn,
                MissRow.excused_at == None,  # noqa: E711
            )
        ).all()
        if not rows:
            raise UserError(
                _(
                    "game {game}: seat {seat} has no miss in turn {turn} to excuse",
                    game=game_id,
                    seat=seat,
                    turn=turn,
                )
            )
        for row in rows:
            row.excused_at, row.excused_by = now, by[:320]
            session.add(row)
        holder = session.exec(select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.name == seat)).first()
        if holder is not None:
            holder.misses = max(0, holder.misses - len(rows))
            session.add(holder)
        session.commit()
        return len(rows)


def players_of(engine: Engine, game_id: str) -> list[tuple[str, str, Record]]:
    """Each seat of the game with its address and the address's whole record: what a game master
    choosing or keeping players reads (the figure, never another game's details)."""
    with Session(engine) as session:
        seats = session.exec(
            select(SeatRow.name, SeatRow.email).where(SeatRow.game_id == game_id).order_by(SeatRow.position)  # type: ignore[arg-type]
        ).all()
    return [(name, email, record_of(engine, email)) for name, email in seats if email]


def summary(record: Record) -> str:
    """One line of a player's figure and counts, for a game master."""
    return _(
        "{figure}; {missed}; {games}",
        figure=figure(record),
        missed=ngettext("{n} miss", "{n} misses", len([m for m in record.misses if not m.excused])),
        games=ngettext("{n} game", "{n} games", len(record.joined)),
    )
