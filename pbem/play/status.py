"""Where games stand: for ``pbem status`` and for scripts (``--json``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import clock
from pbem.core.dice import report_data
from pbem.core.errors import UserError
from pbem.core.i18n import N_, _, ngettext
from pbem.storage import presslog
from pbem.storage.history import accepted_orders, current_state, game_of, recorded_elsewhere, seat_rows
from pbem.storage.models import GameMasterRow, GameRow, SubmissionRow

#: the stand-in's levels in the reader's words (pbem.core.search.LEVELS)
STAND_IN_LEVELS = {"easy": N_("easy level"), "normal": N_("normal level"), "strong": N_("strong level")}


def status(engine: Engine, game_id: str | None = None) -> list[dict[str, Any]]:
    """One entry per game (or just ``game_id``): its id, game type, the turn being played (``turn``:
    the one orders are for; once over, the last one) and how many are resolved, the seats whose orders
    are awaited and those already in, the deadline (ISO 8601 with its offset), and once finished the
    scores and ranking. Shows nothing any seat keeps hidden."""
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
    outcome = game.outcome(state)
    submitted = set(
        session.exec(select(SubmissionRow.seat).where(accepted_orders(row.id, row.epoch, row.turn + 1)))
    )
    stand_ins = {s.name: s.bot_level for s in seat_rows(session, row.id) if s.bot_level}
    entry: dict[str, Any] = {
        "id": row.id,
        "game_type": row.game_type,
        "title": game.title,
        "status": row.status,
        # the turn being played, as order files and reports number it; once over, the last one played
        "turn": row.turn if outcome is not None else row.turn + 1,
        "turns_resolved": row.turn,
        "seats": [s.name for s in seat_rows(session, row.id)],
        # two bounced mails in a row (pbem.mail.bounces): the host cannot reach the seat
        "unreachable": [s.name for s in seat_rows(session, row.id) if s.bounces >= 2],
        # a seat the stand-in plays is never awaited: its orders are made as the turn resolves
        "awaited": [seat for seat in pending if seat not in submitted and seat not in stand_ins],
        "stand_ins": stand_ins,
        "orders_in": [seat for seat in pending if seat in submitted],
        "deadline": clock.utc(row.deadline_at).isoformat()
        if row.deadline_at and row.status == "active"
        else None,
        "created_at": clock.utc(row.created_at).isoformat(),
        "finished": outcome is not None,
        "recorded_elsewhere": recorded_elsewhere(session, row.id),
        # how many press messages each seat sent: counts only, never to whom or what (issue 14)
        "press": row.press,
        "press_sent": presslog.counts(session, row.id),
        # whether a game master may mail commands; status shows no addresses, so not whose (issue 14)
        "game_master": session.get(GameMasterRow, row.id) is not None,
    }
    dice = report_data(row.dice, row.seed, row.status == "finished")
    if dice is not None:  # the commitment always; the seed only once the game is over
        entry["dice_commitment"] = dice["commitment"]
        if dice["seed"] is not None:
            entry["seed"] = dice["seed"]
    if outcome is not None:
        entry.update(
            reason=outcome.reason,
            scores=dict(outcome.scores),
            places=dict(outcome.places),
            ranking=outcome.ranking(),
        )
    return entry


#: the first line of a game that is not over, by its status
HEADS = {
    "active": N_("{game}  {title}  turn {turn}  active"),
    "paused": N_("{game}  {title}  turn {turn}  paused"),
}


def describe(entry: dict[str, Any]) -> str:
    """One game's status as a line or two for people."""
    game, title = entry["id"], entry["title"]
    head = _(HEADS.get(entry["status"], HEADS["active"]), game=game, title=title, turn=entry["turn"])
    if entry["finished"]:
        head = ngettext(
            "{game}  {title}  {n} turn  finished",
            "{game}  {title}  {n} turns  finished",
            entry["turns_resolved"],
            game=game,
            title=title,
        )
    if entry.get("recorded_elsewhere"):
        head += "  " + _("(recorded elsewhere)")
    if entry["finished"]:
        ranking = ", ".join(f"{entry['places'][s]}. {s} {entry['scores'][s]}" for s in entry["ranking"])
        over = head + "\n  " + _("over: {reason}; {ranking}", reason=entry["reason"], ranking=ranking)
        if "seed" in entry:
            over += "\n  " + _(
                "draws: seed {seed}, committed as {commitment}",
                seed=entry["seed"],
                commitment=entry["dice_commitment"],
            )
        return over
    master = "\n  " + _("game master by mail: yes") if entry.get("game_master") else ""
    if entry["status"] == "paused":
        paused = _("paused by the game master: no orders are taken and no deadline runs until it resumes")
        return f"{head}\n  {paused}{master}"
    awaited = ", ".join(entry["awaited"]) or _("nobody")
    lines = [head, "  " + _("awaiting orders from: {seats}", seats=awaited)]
    if entry["orders_in"]:
        lines.append("  " + _("orders in from: {seats}", seats=", ".join(entry["orders_in"])))
    if entry.get("stand_ins"):
        levels = entry["stand_ins"].items()
        played = ", ".join(f"{seat} ({_(STAND_IN_LEVELS[level])})" for seat, level in levels)
        lines.append("  " + _("played by the stand-in: {seats}", seats=played))
    if entry["deadline"]:
        deadline = clock.show(datetime.fromisoformat(entry["deadline"]))
        lines.append("  " + _("deadline: {deadline}", deadline=deadline))
    if entry.get("dice_commitment"):
        lines.append("  " + _("commitment to the draws: {commitment}", commitment=entry["dice_commitment"]))
    if entry.get("press_sent"):
        sent = ", ".join(f"{seat} {n}" for seat, n in sorted(entry["press_sent"].items()))
        lines.append("  " + _("press ({press}) sent: {counts}", press=entry["press"], counts=sent))
    if entry.get("unreachable"):
        lines.append("  " + _("unreachable (mail bounces): {seats}", seats=", ".join(entry["unreachable"])))
    return "\n".join(lines) + master
