"""The turn driver: a turn resolves once every pending seat's orders are in, in one transaction.

Each turn is read from the game row's cached state (never the whole history), resolved with chance
drawn from the RNG of (seed, epoch, turn, the digest of its orders: :mod:`pbem.core.dice`), and its
reports rendered, all from a snapshot read without the game's lock. The lock is taken to write it
whole with :func:`pbem.storage.history.record_turn` (the turn row, the game row by compare-and-set on the
turn number, the consumed submissions and every report), once the game is seen to stand where the
snapshot was taken, with the same orders. A second driver of the same game finds the turn done when
it comes to write, and looks again; the unique (game, epoch, number) backs this up."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine, Row, bindparam, case, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from pbem.core import clock, search
from pbem.core.chance import Recorder
from pbem.core.codec import canonical_json, pack, sha256_hex
from pbem.core.dice import orders_digest
from pbem.core.errors import UserError
from pbem.core.game import Game, GameError
from pbem.core.search import policy_level, standin_mark
from pbem.intake.away import away_notes
from pbem.intake.envelope import orders_yaml
from pbem.render.reports import render_reports, report_dice, report_rows, seat_zones, shown_deadline
from pbem.storage.catching_up import catching_up
from pbem.storage.db import locked_game
from pbem.storage.history import (
    OF_TURN,
    SEATS_WITH_ORDERS,
    STANDING_ORDERS,
    TurnConflict,
    TurnRecord,
    after_turn_values,
    checked_state,
    game_facts,
    game_of,
    of_turn,
    record_turn,
    seat_facts,
    settle_json,
    turn_events,
)
from pbem.storage.models import SubmissionRow

log = logging.getLogger(__name__)


#: called in a turn's transaction once the turn is written, with the game row (as the turn left it, to
#: read only: a Core row of the table), the turn's number and the seats the new state waits for (the
#: state is in memory here: the caller need not load it again): a layer above the host (cron's clock)
#: keeps its own rows in step with the turn, in one commit
AfterTurn = Callable[[Session, Row[Any], int, tuple[str, ...]], None]


def process(
    engine: Engine,
    game_id: str,
    *,
    now: datetime | None = None,
    fill_missing: bool = False,
    after_turn: AfterTurn | None = None,
) -> list[int]:
    """Resolve every turn of ``game_id`` whose orders are all in, as many as are ready; returns their
    numbers. Seats the stand-in plays (``SeatRow.bot_level``) never hold a turn up: their orders are made
    as it resolves. ``fill_missing``: the other seats that owe orders get the stand-in's too, at the level
    of the game's missed-orders policy (all of them recorded in the turn's ``by_bot``)."""
    resolved: list[int] = []
    while (done := _resolve_next(engine, game_id, clock.utc(now), fill_missing, after_turn)) is not None:
        number, next_ready = done
        resolved.append(number)
        if not next_ready:
            break
        fill_missing = False  # the bot covers the turn that was due, not the ones after it
    return resolved


#: how many times a driver that lost a race (another driver's turn, a player's new orders) looks again
ATTEMPTS = 3


def _resolve_next(
    engine: Engine, game_id: str, now: datetime, fill_missing: bool, after_turn: AfterTurn | None
) -> tuple[int, bool] | None:
    """Resolve the due turn if it is ready: (its number, whether the turn after it is ready too).

    The turn is resolved and its reports rendered from a snapshot, without the game's lock; the lock
    is taken only to write, once the game is seen to stand where the snapshot was taken (same epoch and
    turn, still active) with the same orders. So other games' turns, and on SQLite the whole database,
    are not held while this one renders. A driver that finds things moved looks again.
    """
    for _ in range(ATTEMPTS):
        prepared = _prepare(engine, game_id, now, fill_missing)
        if prepared is None:
            return None
        done = _write(engine, prepared, now, after_turn)
        if done is not None:
            return done
    return None


@dataclass
class _Prepared:
    """A turn resolved and rendered from a snapshot, waiting to be written."""

    game: Game
    row: Row[Any]  # as read (a Core row: pbem.storage.history.game_facts)
    record: TurnRecord
    statuses: dict[int, str]  # the orders read (submission id -> consumed | superseded)
    bot_orders: list[SubmissionRow]
    bot_seats: frozenset[str]  # the seats the stand-in plays: the next turn does not wait for them
    reports: list[dict[str, Any]]


def _prepare(engine: Engine, game_id: str, now: datetime, fill_missing: bool) -> _Prepared | None:
    # a snapshot, read only: Core rows on a connection of the engine's own (nothing is written, so no
    # Session is wanted; the ORM's loading of the game and its seats into objects cost more than the
    # statements)
    with engine.connect() as conn:
        row = game_facts(conn, game_id)
        if row is None:
            raise UserError(f"there is no game {game_id!r}")
        if row.status != "active":
            return None
        game = game_of(row)
        state = checked_state(conn, game, row)  # never a turn resolved from a damaged cache
        pending = game.pending(state)
        if not pending:
            return None
        number = row.turn + 1
        # the three columns read, not whole rows (each with its raw file) made into ORM objects
        waiting = conn.execute(STANDING_ORDERS, of_turn(game_id, row.epoch, number)).all()
        seat_list = seat_facts(conn, game_id)
        # the seats the stand-in will play for (when it does), and what each seat behind has missed
        unsent = [seat for seat in pending if seat not in {sub.seat for sub in waiting}]
        behind = catching_up(conn, game_id, row.epoch, number, seat_list, unsent)
    languages = {seat.name: seat.language for seat in seat_list}
    seats = list(languages)
    given = {sub.seat: json.loads(sub.orders_json or "null") for sub in waiting if sub.seat in pending}
    bot_seats = {seat.name: seat.bot_level for seat in seat_list if seat.bot_level}
    missing = [seat for seat in pending if seat not in given]
    if not fill_missing and not set(missing) <= set(bot_seats):
        return None
    # a seat the stand-in plays at its own level, a player's that missed its orders at the policy's
    levels = {seat: bot_seats.get(seat) or policy_level(row.nmr) or "easy" for seat in missing}
    bots = [_bot_orders(game, row, state, seat, levels[seat], number, now) for seat in missing]
    for bot in bots:
        given[bot.seat] = json.loads(bot.orders_json or "null")
    orders = {seat: game.order_model(pending[seat]).model_validate(given[seat]) for seat in pending}
    plain = {seat: _plain(o) for seat, o in orders.items()}
    # committed dice: the turn's draws depend on every order of it (pbem.core.dice), so they are drawn now
    chance = Recorder.for_dice(row.dice, row.seed, row.epoch, number, orders_digest(seats, plain))
    try:
        resolution = game.resolve(state, orders, chance)
    except GameError as exc:
        raise UserError(f"game {game_id}: turn {number} cannot be resolved: {exc}") from None
    new_state, data, digest, text = settle_json(game, resolution.state)
    record = TurnRecord(
        number=number,
        state=new_state,
        state_data=data,
        state_sha256=digest,
        orders=plain,
        by_bot=[standin_mark(seat, level) for seat, level in levels.items()],
        events=turn_events([standin_mark(seat, level) for seat, level in levels.items()], resolution.events),
        chance=chance.record,
        state_json=text,
    )
    after = after_turn_values(game, row, record, now)
    deadline = shown_deadline(after.get("status", row.status), after.get("deadline_at", row.deadline_at))
    rendered = render_reports(
        game,
        game_id,
        seats,
        new_state,
        number,
        record.events,
        deadline,
        languages=languages,
        public_language=row.language,
        dice=report_dice(game, row, new_state),
        zones_for=seat_zones(row, seat_list),
        away=away_notes(row, seat_list, now),
        caught_up=behind,
    )
    return _Prepared(
        game=game,
        row=row,
        record=record,
        statuses={sub.id: "consumed" if sub.seat in pending else "superseded" for sub in waiting},
        bot_orders=bots,
        bot_seats=frozenset(bot_seats),
        reports=report_rows(game_id, row.epoch, number, rendered),
    )


def _write(
    engine: Engine, p: _Prepared, now: datetime, after_turn: AfterTurn | None
) -> tuple[int, bool] | None:
    """Write a prepared turn under the game's lock; ``None`` when the game moved since the snapshot."""
    number = p.record.number
    with Session(engine) as session:
        row = locked_game(session, p.row.id)  # the lock, and the game as it stands under it
        if row is None:
            raise UserError(f"there is no game {p.row.id!r}")
        if (row.status, row.epoch, row.turn) != ("active", p.row.epoch, number - 1) or not _settle_orders(
            session, row, number, p.statuses
        ):
            session.rollback()
            log.info("game %s: turn %d moved while it was resolved; looking again", row.id, number)
            return None
        session.add_all(p.bot_orders)
        try:
            row = record_turn(session, p.game, row, p.record, now, reports=p.reports)
            waiting = tuple(p.game.pending(p.record.state))
            if after_turn is not None:
                after_turn(session, row, number, waiting)
            # asked under the game's lock, so no order can slip in between: spares the caller a second
            # transaction to learn that the next turn waits for its players
            players = tuple(seat for seat in waiting if seat not in p.bot_seats)
            next_ready = bool(waiting) and _all_orders_in(session, row, players, number + 1)
            session.commit()
        except (IntegrityError, TurnConflict):
            session.rollback()
            log.info("game %s: turn %d already resolved by another process", row.id, number)
            return None
        return number, next_ready


def _settle_orders(session: Session, row: Row[Any], number: int, statuses: dict[int, str]) -> bool:
    """Mark the orders standing for turn ``number`` consumed or superseded as the snapshot found them,
    under the game's lock, in one statement; whether they are the orders the snapshot read (when not,
    orders came or went meanwhile, and the caller rolls this back and looks again)."""
    consumed = [sub_id for sub_id, to in statuses.items() if to == "consumed"]
    params = of_turn(row.id, row.epoch, number)
    if len(consumed) == len(statuses):  # the usual turn: every order consumed, no list of ids to send
        marked = session.connection().execute(_CONSUME_ORDERS, params)
    else:
        marked = session.connection().execute(_SETTLE_ORDERS, {**params, "consumed": consumed})
    return set(marked.scalars()) == set(statuses)


_SUBMISSIONS = SubmissionRow.__table__  # type: ignore[attr-defined]
# every order standing for the turn set consumed (the snapshot's seats owing orders) or superseded,
# the ids marked given back: the check that they are the snapshot's and the writing of their new
# status in one statement. Built once, on the table (no submission is an object in the session):
# building and keying the ORM statement cost more than running it
_SETTLE_ORDERS = (
    update(_SUBMISSIONS)
    .where(OF_TURN)
    .values(
        status=case(
            (_SUBMISSIONS.c.id.in_(bindparam("consumed", expanding=True)), "consumed"), else_="superseded"
        )
    )
    .returning(_SUBMISSIONS.c.id)
)
# the same when the snapshot found every order consumed: without the list of their ids, whose
# expanding parameter SQLAlchemy renders into the statement anew at each run
_CONSUME_ORDERS = update(_SUBMISSIONS).where(OF_TURN).values(status="consumed").returning(_SUBMISSIONS.c.id)


def _all_orders_in(session: Session, row: Row[Any], pending: tuple[str, ...], number: int) -> bool:
    """Whether every one of ``pending`` (the players' seats the next turn waits for) has its orders in:
    none at all when only the stand-in's seats are waited for (a turn of theirs, ready at once)."""
    if not pending:
        return True
    sent = session.connection().execute(SEATS_WITH_ORDERS, of_turn(row.id, row.epoch, number)).scalars().all()
    return set(pending) <= set(sent)


def _plain(orders: BaseModel) -> Any:
    return orders.model_dump(mode="json", by_alias=True)


def _bot_orders(
    game: Game, row: Row[Any], state: Any, seat: str, level: str, number: int, now: datetime
) -> SubmissionRow:
    """The stand-in's orders for ``seat`` at ``level``, to be stored as a consumed submission of source
    ``bot``: a function of the seat's view and of the chance the seed, turn and seat give."""
    chance = Recorder.for_turn(row.seed, row.epoch, number, f"bot:{seat}")
    decision = game.pending(state)[seat]
    orders = game.order_model(decision).model_validate(search.decide(game, state, seat, chance, level))
    game.check(state, seat, orders)  # a bot that breaks its own rules is a bug: let it show
    text = canonical_json(_plain(orders))
    return SubmissionRow(
        game_id=row.id,
        seat=seat,
        epoch=row.epoch,
        turn=number,
        received_at=now,
        source="bot",
        raw_z=pack(orders_yaml(_plain(orders))),
        orders_json=text,
        receipt=sha256_hex(text),
        status="consumed",
    )
