"""The turn driver: a turn resolves once every pending seat's orders are in, in one transaction.

Each turn is read from the game row's cached state (never the whole history), resolved with chance
drawn from the RNG of (seed, epoch, turn), and written whole by :func:`pbem.history.record_turn`: the
turn row, the game row (compare-and-set on the turn number), the consumed submissions and every
report. A second driver of the same game waits for the game's lock and then finds the turn done; if it
still loses the race on the unique (game, epoch, number) it rolls back and stops.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem import clock
from pbem.chance import Recorder
from pbem.codec import canonical_json, pack, sha256_hex
from pbem.db import lock_game
from pbem.envelope import orders_yaml
from pbem.errors import UserError
from pbem.game import Game, GameError
from pbem.history import TurnConflict, TurnRecord, current_state, game_of, record_turn, settle, turn_events
from pbem.models import GameRow, SubmissionRow

log = logging.getLogger(__name__)


#: called in a turn's transaction once the turn is written, with the game row and the turn's number:
#: a layer above the host (cron's clock) keeps its own rows in step with the turn, in one commit
AfterTurn = Callable[[Session, GameRow, int], None]


def process(
    engine: Engine,
    game_id: str,
    *,
    now: datetime | None = None,
    fill_missing: bool = False,
    after_turn: AfterTurn | None = None,
) -> list[int]:
    """Resolve every turn of ``game_id`` whose orders are all in, as many as are ready; returns their
    numbers. ``fill_missing``: seats that owe orders get the game's bot's (recorded as ``by_bot``)."""
    resolved: list[int] = []
    while (done := _resolve_next(engine, game_id, clock.utc(now), fill_missing, after_turn)) is not None:
        number, next_ready = done
        resolved.append(number)
        if not next_ready:
            break
        fill_missing = False  # the bot covers the turn that was due, not the ones after it
    return resolved


def _resolve_next(
    engine: Engine, game_id: str, now: datetime, fill_missing: bool, after_turn: AfterTurn | None
) -> tuple[int, bool] | None:
    """Resolve the due turn if it is ready: (its number, whether the turn after it is ready too)."""
    with Session(engine) as session:
        if not lock_game(session, game_id):
            raise UserError(f"there is no game {game_id!r}")
        row = session.get(GameRow, game_id)
        assert row is not None
        if row.status != "active":
            return None
        game = game_of(row)
        state = current_state(game, row)
        pending = game.pending(state)
        if not pending:
            return None
        number = row.turn + 1
        waiting = list(
            session.exec(
                select(SubmissionRow).where(
                    SubmissionRow.game_id == game_id,
                    SubmissionRow.epoch == row.epoch,
                    SubmissionRow.turn == number,
                    SubmissionRow.status == "accepted",
                )
            )
        )
        given = {sub.seat: json.loads(sub.orders_json or "null") for sub in waiting if sub.seat in pending}
        missing = [seat for seat in pending if seat not in given]
        if missing and not fill_missing:
            return None
        for seat in missing:
            given[seat] = _bot_orders(session, game, row, state, seat, number, now)
        orders = {seat: game.order_model(pending[seat]).model_validate(given[seat]) for seat in pending}
        chance = Recorder.for_turn(row.seed, row.epoch, number)
        try:
            resolution = game.resolve(state, orders, chance)
        except GameError as exc:
            raise UserError(f"game {game_id}: turn {number} cannot be resolved: {exc}") from None
        new_state, data, digest = settle(game, resolution.state)
        for sub in waiting:
            sub.status = "consumed" if sub.seat in pending else "superseded"
            session.add(sub)
        record = TurnRecord(
            number=number,
            state=new_state,
            state_data=data,
            state_sha256=digest,
            orders={seat: _plain(o) for seat, o in orders.items()},
            by_bot=missing,
            events=turn_events(missing, resolution.events),
            chance=chance.record,
        )
        try:
            record_turn(session, game, row, record, now)
            if after_turn is not None:
                after_turn(session, row, number)
            # asked under the game's lock, so no order can slip in between: spares the caller a second
            # transaction to learn that the next turn waits for its players
            next_ready = _all_orders_in(session, game, row, new_state, number + 1)
            session.commit()
        except (IntegrityError, TurnConflict):
            session.rollback()
            log.info("game %s: turn %d already resolved by another process", game_id, number)
            return None
        return number, next_ready


def _all_orders_in(session: Session, game: Game, row: GameRow, state: Any, number: int) -> bool:
    pending = game.pending(state)
    if not pending:
        return False
    sent = session.exec(
        select(SubmissionRow.seat).where(
            SubmissionRow.game_id == row.id,
            SubmissionRow.epoch == row.epoch,
            SubmissionRow.turn == number,
            SubmissionRow.status == "accepted",
        )
    ).all()
    return set(pending) <= set(sent)


def _plain(orders: BaseModel) -> Any:
    return orders.model_dump(mode="json", by_alias=True)


def _bot_orders(
    session: Session, game: Game, row: GameRow, state: Any, seat: str, number: int, now: datetime
) -> Any:
    """The bot's orders for ``seat``, stored as a consumed submission of source ``bot``."""
    chance = Recorder.for_turn(row.seed, row.epoch, number, f"bot:{seat}")
    decision = game.pending(state)[seat]
    orders = game.order_model(decision).model_validate(game.bot(state, seat, chance))
    game.check(state, seat, orders)  # a bot that breaks its own rules is a bug: let it show
    text = canonical_json(_plain(orders))
    session.add(
        SubmissionRow(
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
    )
    return _plain(orders)
