"""Where games stand: for ``pbem status`` and for scripts (``--json``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import clock
from pbem.errors import UserError
from pbem.history import accepted_orders, current_state, game_of, seat_rows
from pbem.models import GameRow, SubmissionRow


def status(engine: Engine, game_id: str | None = None) -> list[dict[str, Any]]:
    """One entry per game (or just ``game_id``): its id, game type, latest turn, the seats whose
    orders are awaited and those already in, the deadline, and once finished the scores and ranking.
    Shows nothing any seat keeps hidden."""
    with Session(engine) as session:
        query = select(GameRow).order_by(GameRow.created_at, GameRow.id)
        if game_id is not None:
            query = query.where(GameRow.id == game_id)
        rows = list(session.exec(query))
        if game_id is not None and not rows:
            raise UserError(f"there is no game {game_id!r}")
        return [_entry(session, row) for row in rows]


def _entry(session: Session, row: GameRow) -> dict[str, Any]:
    game = game_of(row)
    state = current_state(game, row)
    pending = game.pending(state) if row.status == "active" else {}
    submitted = set(
        session.exec(select(SubmissionRow.seat).where(accepted_orders(row.id, row.epoch, row.turn + 1)))
    )
    outcome = game.outcome(state)
    entry: dict[str, Any] = {
        "id": row.id,
        "game_type": row.game_type,
        "title": game.title,
        "status": row.status,
        "turn": row.turn,
        "seats": [s.name for s in seat_rows(session, row.id)],
        # two bounced mails in a row (pbem.mail.bounces): the host cannot reach the seat
        "unreachable": [s.name for s in seat_rows(session, row.id) if s.bounces >= 2],
        "awaited": [seat for seat in pending if seat not in submitted],
        "orders_in": [seat for seat in pending if seat in submitted],
        "deadline": clock.show(row.deadline_at) if row.status == "active" else None,
        "finished": outcome is not None,
    }
    if outcome is not None:
        entry.update(
            reason=outcome.reason,
            scores=dict(outcome.scores),
            places=dict(outcome.places),
            ranking=outcome.ranking(),
        )
    return entry


def describe(entry: dict[str, Any]) -> str:
    """One game's status as a line or two for people."""
    head = f"{entry['id']}  {entry['title']}  turn {entry['turn']}  {entry['status']}"
    if entry["finished"]:
        ranking = ", ".join(f"{entry['places'][s]}. {s} {entry['scores'][s]}" for s in entry["ranking"])
        return f"{head}\n  over: {entry['reason']}; {ranking}"
    lines = [head, f"  awaiting orders from: {', '.join(entry['awaited']) or 'nobody'}"]
    if entry["orders_in"]:
        lines.append(f"  orders in from: {', '.join(entry['orders_in'])}")
    if entry["deadline"]:
        lines.append(f"  deadline: {entry['deadline']}")
    if entry.get("unreachable"):
        lines.append(f"  unreachable (mail bounces): {', '.join(entry['unreachable'])}")
    return "\n".join(lines)
