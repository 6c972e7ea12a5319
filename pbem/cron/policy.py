"""What a deadline does: whose orders are missing, the deadline of the due turn, misses and abandoned
seats.

The missed-orders policy is the game's (``GameRow.nmr``, chosen at ``pbem new``):

- ``wait``: the deadline stands still until the orders come; the late seat gets a late notice, and
  another (and another miss) for each further turn's length the game waits for it.
- ``bot`` (or ``bot:LEVEL``, LEVEL easy, normal or strong; plain ``bot`` is easy): once the deadline plus
  the grace has passed, the stand-in plays the turn at that level for every seat whose orders are
  missing (the turn records them as ``by_bot``, each with its level).

A seat the stand-in plays from the start (``SeatRow.bot_level``) is never missing: the turn waits only
for the players' seats, and the stand-in's orders are made as it resolves (:mod:`pbem.play.turns`).
- ``abandon_after`` (with either): a seat that missed that many deadlines (counted over the game; a
  seat given to a new player starts again at 0) is marked abandoned, and from then on the bot plays
  for it without waiting for any deadline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import Enum
from functools import lru_cache

from sqlalchemy import Engine, bindparam, exists, or_, update
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.core.clock import utc
from pbem.core.codec import unpack_json
from pbem.core.registry import games, get_game
from pbem.core.search import policy_level
from pbem.core.zones import deadline_after
from pbem.cron.deadlines import has_passed, next_deadline, periods_missed
from pbem.storage.cron_models import ClockRow, NoticeRow
from pbem.storage.db import lock_game
from pbem.storage.history import SEATS_WITH_ORDERS, accepted_orders, of_turn
from pbem.storage.models import GameRow, MissRow, SeatRow, TurnRow


@dataclass(frozen=True)
class Due:
    """Where a game stands: the turn due (``turn``, in ``epoch``), the seats the game waits for, those
    whose orders are in, and which of the missing seats are abandoned."""

    game_id: str
    epoch: int
    turn: int
    waiting: tuple[str, ...]
    missing: tuple[str, ...]
    abandoned: tuple[str, ...]
    #: missing seats away (issue 17): the game's absence policy, not the missed-orders one, covers them
    away: tuple[str, ...] = ()
    #: when the last of them is back
    back_at: datetime | None = None

    @property
    def only_away_missing(self) -> bool:
        """Every missing seat that is not abandoned is away."""
        present = set(self.missing) - set(self.abandoned) - set(self.away)
        return bool(self.away) and not present

    @property
    def ready(self) -> bool:
        return bool(self.waiting) and not self.missing

    @property
    def only_abandoned_missing(self) -> bool:
        return bool(self.missing) and set(self.missing) <= set(self.abandoned)


class Step(Enum):
    """What a tick does next with a game."""

    NOTHING = "nothing"  # over, paused, or nothing due yet
    RESOLVE = "resolve"  # every order is in
    BOT = "bot"  # the bot plays for the missing seats
    LATE = "late"  # deadline passed under ``wait``: count the misses, send late notices
    REMIND = "remind"  # the deadline is near: remind those whose orders are missing
    EXTEND = "extend"  # deadline passed, the seats missing are away, absence policy extend: wait for them


# built once, run with each game's values (see pbem.storage.history's statements)
_SEAT_MARKS = select(SeatRow.name, SeatRow.abandoned, SeatRow.away_until, SeatRow.bot_level).where(
    SeatRow.game_id == bindparam("of_game")  # type: ignore[arg-type]
)
_GAME_AND_CLOCK = (
    select(GameRow, ClockRow)
    .outerjoin(ClockRow, ClockRow.game_id == GameRow.id)  # type: ignore[arg-type]
    .where(GameRow.id == bindparam("of_game"))  # type: ignore[arg-type]
)
_CLOCK = ClockRow.__table__  # type: ignore[attr-defined]
_MOVE_CLOCK = (
    update(_CLOCK)
    .where(_CLOCK.c.game_id == bindparam("of_game"))
    .values(epoch=bindparam("to_epoch"), turn=bindparam("to_turn"))
)


#: what :func:`due` reads of the database for a game: the seats with orders in for the due turn, and
#: every seat's (name, abandoned, away until, the stand-in's level when it plays the seat)
DueRows = tuple[frozenset[str], list[tuple[str, bool, datetime | None, str | None]]]


def due(session: Session, game: GameRow, now: datetime | None = None) -> Due:
    """Who owes orders now: the game's pending seats less those with accepted orders for the due turn;
    which of the missing are away at ``now`` (default: the present)."""
    return due_of(game, due_rows(session, game), now)


def due_rows(session: Session, game: GameRow) -> DueRows:
    """The two statements of :func:`due`, run on the session's connection: SQLAlchemy Core, as the rows
    are only read (the ORM's statement handling cost more than running them)."""
    session.flush()  # as the ORM's own execution would, so the statements see the session's writes
    conn = session.connection()
    sent = frozenset(conn.execute(SEATS_WITH_ORDERS, of_turn(game.id, game.epoch, game.turn + 1)).scalars())
    # every seat's two marks in one statement (a game has a handful of seats)
    marks = [
        (name, bool(gone), until, level)
        for name, gone, until, level in conn.execute(_SEAT_MARKS, {"of_game": game.id})
    ]
    return sent, marks


def due_of(
    game: GameRow, rows: DueRows, now: datetime | None = None, *, waiting: tuple[str, ...] | None = None
) -> Due:
    """:func:`due` from what it read (:func:`due_rows`): nothing more is read, only the game's state
    loaded, so a turn's writer can read the rows under its lock and leave this until after.
    ``waiting``: the seats the state waits for, when the caller has the state in memory (a turn's
    writer): then it is not loaded at all."""
    sent, marks = rows
    if waiting is None:
        waiting = _waiting(game.id, game.game_type, game.state_z)
    turn = game.turn + 1
    # a seat the stand-in plays owes nothing: its orders are made as the turn resolves
    played = {name for name, _gone, _until, level in marks if level}
    missing = tuple(seat for seat in waiting if seat not in sent and seat not in played)
    abandoned = {name for name, gone, _until, _level in marks if gone}
    away_until = {name: until for name, _gone, until, _level in marks if until is not None}
    moment = utc(now)
    away = {s: utc(t) for s, t in away_until.items() if s in missing and utc(t) > moment}  # type: ignore[operator]
    return Due(
        game.id,
        game.epoch,
        turn,
        waiting,
        missing,
        tuple(s for s in missing if s in abandoned),
        tuple(s for s in missing if s in away),
        max(away.values()) if away else None,  # type: ignore[type-var]
    )


@lru_cache(maxsize=8)
def _waiting(game_id: str, game_type: str, state_z: bytes) -> tuple[str, ...]:
    """The seats a state waits for. A tick asks again of one game's same state (before and after a step
    that changed nothing, each time round :func:`pbem.host.tick.advance`), and loading a state is most
    of the cost; the key is the stored state itself, so a changed state is never answered from here.
    The game is in the key too: the bench's fleet is clones of a few games, whose equal states a real
    host's games never share, and their answers must not make its tick look cheaper than a real one."""
    rules = get_game(game_type)
    return tuple(rules.pending(rules.load_state(unpack_json(state_z))))


def quiet(engine: Engine, game_ids: Sequence[str], now: datetime, remind_before: int) -> set[str]:
    """Those of ``game_ids`` for which :func:`next_step` cannot be anything but :attr:`Step.NOTHING`,
    found in one query for the batch, without loading a state: active, the clock at the game's turn (so
    :func:`sync_clock` has nothing to do), no orders in yet for the due turn (so it is not ready), no
    abandoned seat (so the bot has nothing to play), and no deadline, or one further off than the
    reminder (so nothing has passed and nobody is to be reminded). Most games of a host are like this at
    most ticks: they cost a share of this query instead of four queries and a state."""
    if not game_ids:
        return set()
    horizon = now + timedelta(seconds=remind_before)
    orders_in = exists().where(accepted_orders(GameRow.id, GameRow.epoch, GameRow.turn + 1))
    abandoned = exists().where(SeatRow.game_id == GameRow.id, SeatRow.abandoned == True)  # noqa: E712
    # a seat the stand-in plays may be all a turn waits for: its game is never quiet
    played = exists().where(SeatRow.game_id == GameRow.id, SeatRow.bot_level.is_not(None))  # type: ignore[union-attr]
    with Session(engine) as session:
        found = session.exec(
            select(GameRow.id, GameRow.status, GameRow.game_type)
            .join(ClockRow, ClockRow.game_id == GameRow.id)
            .where(
                GameRow.id.in_(list(game_ids)),  # type: ignore[attr-defined]
                ClockRow.epoch == GameRow.epoch,
                ClockRow.turn == GameRow.turn,
                or_(GameRow.deadline_at.is_(None), GameRow.deadline_at > horizon),  # type: ignore[union-attr, operator]
                ~orders_in,
                ~abandoned,
                ~played,
            )
        ).all()
    # status and type are looked at here, not in the query: with them there, SQLite's planner (no
    # statistics) walked the index on status, every active game of the host, instead of the ids
    known = games()
    return {game_id for game_id, status, game_type in found if status == "active" and game_type in known}


def next_step(game: GameRow, where: Due, now: datetime, remind_before: int) -> Step:
    """The one thing to do next; the tick repeats until :attr:`Step.NOTHING`, a reminder or a late
    notice (both of which leave the game waiting)."""
    if game.status != "active" or not where.waiting:
        return Step.NOTHING
    if where.ready:
        return Step.RESOLVE
    if where.only_abandoned_missing:
        return Step.BOT
    if has_passed(game, now):
        if where.only_away_missing:
            return Step.BOT if game.absence == "bot" else Step.EXTEND
        if policy_level(game.nmr) is not None:
            return Step.BOT
        return Step.LATE
    deadline = game.deadline_at
    if deadline is not None and (deadline - utc(now)).total_seconds() <= remind_before:  # type: ignore[operator]
        return Step.REMIND
    return Step.NOTHING


def standing(engine: Engine, game_id: str, now: datetime) -> tuple[GameRow, Due] | None:
    """:func:`sync_clock` and then :func:`due`: the game as it stands and who owes orders. When the
    clock is right already (most ticks), both are read in one transaction, the game and its clock in
    one statement; else the clock is given its deadline under the game's lock first, as
    :func:`sync_clock` does. ``None`` when there is no such game."""
    with Session(engine) as session:
        found = session.exec(_GAME_AND_CLOCK, params={"of_game": game_id}).first()
        if found is None:
            return None
        game, clock = found
        if clock is not None and (clock.epoch, clock.turn) == (game.epoch, game.turn):
            where = due(session, game, now)
            session.expunge(game)
            return game, where
    synced = sync_clock(engine, game_id, now)
    if synced is None:
        return None
    with Session(engine) as session:
        return synced, due(session, synced, now)


def sync_clock(engine: Engine, game_id: str, now: datetime) -> GameRow | None:
    """Give the due turn its deadline if it has none of its own yet (a turn resolved since the clock last
    looked, by a tick or by ``pbem process``), and return the game as it stands.

    The new deadline runs from when the previous turn resolved (from the game's creation for turn 1),
    so a turn resolved an hour before the tick still gets its full time counted from then.
    """
    with Session(engine) as session:  # most ticks find the clock right: look before taking the lock
        game = session.get(GameRow, game_id)
        clock = session.get(ClockRow, game_id)
        if game is None:
            return None
        if clock is not None and (clock.epoch, clock.turn) == (game.epoch, game.turn):
            session.expunge(game)
            return game
    with Session(engine, expire_on_commit=False) as session:  # the caller reads the game after
        if not lock_game(session, game_id):
            return None
        game = session.get(GameRow, game_id)
        assert game is not None
        clock = session.get(ClockRow, game_id)
        if clock is not None and (clock.epoch, clock.turn) == (game.epoch, game.turn):
            session.commit()
            return game
        if game.status == "active" and game.turn_seconds:
            start = _due_since(session, game)
            if game.deadline_at is None or game.deadline_at <= start:  # type: ignore[operator]
                game.deadline_at = next_deadline(game, start)
                session.add(game)
        clock = clock or ClockRow(game_id=game_id)
        clock.epoch, clock.turn = game.epoch, game.turn
        session.add(clock)
        session.commit()
        return game


def clock_turn(session: Session, game: GameRow, turn: int) -> None:
    """Move the clock to a turn just resolved, in the turn's own transaction (given to
    :func:`pbem.play.turns.process` as ``after_turn``): the turn's deadline is the one the turn driver set,
    counted from this very moment, so :func:`sync_clock` would find nothing else to do, and the tick
    saves a write transaction per turn."""
    # written without reading it first (a game's clock row is there from its first tick on), by Core on
    # the session's connection: no clock row is an object in the session, and the ORM's bulk update
    # took three times as long as the statement, under the one writer's lock
    moved = session.connection().execute(
        _MOVE_CLOCK, {"of_game": game.id, "to_epoch": game.epoch, "to_turn": turn}
    )
    if moved.rowcount != 1:
        clock = session.get(ClockRow, game.id) or ClockRow(game_id=game.id)
        clock.epoch, clock.turn = game.epoch, turn
        session.add(clock)


def columns_of(game: GameRow) -> dict[str, object]:
    """``game``'s columns as they stand in its session, as plain values (cheap: a turn's writer takes them
    under its lock; :func:`detached` makes the row of them after)."""
    return {key: getattr(game, key) for key in _GAME_KEYS}


def detached(columns: dict[str, object]) -> GameRow:
    """A game row of :func:`columns_of`'s values, belonging to no session: it can be read after that
    session commits (which expires the row itself) or closes."""
    return GameRow(**columns)


_GAME_KEYS = tuple(column.key for column in sa_inspect(GameRow).column_attrs)


def _due_since(session: Session, game: GameRow) -> datetime:
    latest = session.exec(
        select(TurnRow.resolved_at).where(
            TurnRow.game_id == game.id,
            # the turn may have been played in an earlier epoch (a rollback keeps the turns before it);
            # naming every epoch lets the unique (game, epoch, number) index find the row directly
            TurnRow.epoch.in_(range(game.epoch + 1)),  # type: ignore[attr-defined]
            TurnRow.number == game.turn,
            TurnRow.undone == False,  # noqa: E712
        )
    ).first()
    moment = latest if latest is not None and game.turn > 0 else game.created_at
    return utc(moment)  # type: ignore[return-value]


def extend_for_absence(engine: Engine, game_id: str, where: Due) -> datetime | None:
    """Move the due turn's deadline to a turn's length after the last missing seat away is back
    (absence policy ``extend``): time to play once home. The new deadline, or ``None`` when the game
    moved on meanwhile."""
    if where.back_at is None:
        return None
    with Session(engine) as session:
        if not lock_game(session, game_id):
            return None
        game = session.get(GameRow, game_id)
        if game is None or (game.epoch, game.turn + 1) != (where.epoch, where.turn):
            session.rollback()
            return None
        moved = deadline_after(where.back_at, game.turn_seconds or 86400, game.timezone)
        if game.deadline_at is None or game.deadline_at < moved:  # type: ignore[operator]
            game.deadline_at = moved
            session.add(game)
        session.commit()
        return game.deadline_at


def miss_kind(period: int) -> str:
    """The notice kind of the ``period``-th deadline missed in one turn: ``miss``, ``miss-2``, …"""
    return "miss" if period == 1 else f"miss-{period}"


def record_misses(engine: Engine, game: GameRow, where: Due, now: datetime) -> list[tuple[str, int, bool]]:
    """Count the misses of each missing seat in the due turn, one per deadline period passed (see
    :func:`~pbem.cron.deadlines.periods_missed`), each once however many ticks see it; mark seats
    abandoned that reach ``abandon_after``. Returns ``(seat, misses, newly abandoned)`` for each miss
    this call counted."""
    counted: list[tuple[str, int, bool]] = []
    # under `bot` the turn resolves at the first passed deadline: one miss, however late the tick
    periods = min(1, periods_missed(game, now)) if policy_level(game.nmr) else periods_missed(game, now)
    for period in range(1, periods + 1):
        for name in where.missing:
            if name in where.abandoned or name in where.away:  # away: not a miss
                continue
            found = _count_one(engine, game, where, name, miss_kind(period), now)
            if found is not None:
                counted.append(found)
                if found[2]:
                    where = replace(where, abandoned=(*where.abandoned, name))
    return counted


def miss_receipt(
    game: GameRow, where: Due, seat: SeatRow, kind: str, now: datetime, *, abandoned: bool
) -> MissRow:
    """The row that keeps a miss: the deadline it missed (the turn's, or a further turn's length later
    for each period the game waited) and what the host did."""
    period = 1 if kind == "miss" else int(kind.split("-")[1])
    deadline = utc(game.deadline_at) if game.deadline_at is not None else utc(now)
    if period > 1 and game.turn_seconds:
        deadline = deadline + timedelta(seconds=game.turn_seconds * (period - 1))  # type: ignore[operator]
    if abandoned:
        outcome = "abandoned"
    elif game.nmr == "bot":
        outcome = "bot"
    else:
        outcome = "wait"
    return MissRow(
        email=seat.email,
        game_id=game.id,
        epoch=where.epoch,
        turn=where.turn,
        seat=seat.name,
        period=period,
        deadline_at=deadline,  # type: ignore[arg-type]
        outcome=outcome,
        counted_at=now,
    )


def _count_one(
    engine: Engine, game: GameRow, where: Due, name: str, kind: str, now: datetime
) -> tuple[str, int, bool] | None:
    with Session(engine) as session:
        lock_game(session, game.id)
        seat = session.exec(select(SeatRow).where(SeatRow.game_id == game.id, SeatRow.name == name)).one()
        session.add(
            NoticeRow(
                game_id=game.id, epoch=where.epoch, turn=where.turn, seat=name, kind=kind, created_at=now
            )
        )
        seat.misses += 1
        newly = bool(game.abandon_after) and not seat.abandoned and seat.misses >= game.abandon_after  # type: ignore[operator]
        if newly:
            seat.abandoned = True
        session.add(seat)
        # the miss's receipt, where it is counted: the record can never disagree with the count
        session.add(miss_receipt(game, where, seat, kind, now, abandoned=newly))
        try:
            session.commit()
        except IntegrityError:  # this miss was counted already (by another tick, or an earlier one)
            session.rollback()
            return None
        return name, seat.misses, newly
