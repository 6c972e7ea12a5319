"""Whether a seat's orders for a turn can be taken now, once the seat is proven: the game runs, the seat
owes a decision, and the orders are for the turn that is due. Order files (:mod:`pbem.play.orders`) and
the web's step-by-step orders (:mod:`pbem.play.builder`) refuse in the same words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row

from pbem.core.game import Decision, Game
from pbem.core.i18n import _
from pbem.storage.history import current_state, game_of


@dataclass(frozen=True)
class Standing:
    """Whether a seat's orders for a turn can be taken now: the errors that refuse them (the game over
    or paused, nothing owed, another turn), or the game, its state and the seat's pending decision."""

    errors: list[str]
    game: Game | None = None
    state: Any = None
    decision: Decision | None = None


def due_decision(row: Row[Any], seat: str, turn: int) -> Standing:
    """What the intake checks once the seat is proven, before the orders' shape and rules: shared by
    order files and the web's step-by-step orders (:mod:`pbem.play.builder`)."""
    if row.status == "finished":
        errors = ["game: " + _("game {game} is over; no more orders are taken", game=row.id) + " [game.over]"]
        return Standing(errors)
    if row.status != "active":
        errors = [
            "game: "
            + _("game {game} is paused; orders wait until it resumes", game=row.id)
            + f" [game.{row.status}]"
        ]
        return Standing(errors)
    game = game_of(row)
    state = current_state(game, row)
    pending = game.pending(state)
    decision = pending.get(seat)
    if decision is None:
        said = (
            _(
                "{seat} owes no orders now; the game waits for {seats}",
                seat=seat,
                seats=", ".join(pending),
            )
            if pending
            else _("{seat} owes no orders now; the game waits for nobody", seat=seat)
        )
        return Standing(["player: " + said + " [turn.not_yours]"], game, state)
    due = row.turn + 1
    if turn != due:
        said = (
            _(
                "these orders are for turn {turn}, an earlier turn; "
                "game {game} now takes orders for turn {due}",
                turn=turn,
                game=row.id,
                due=due,
            )
            if turn < due
            else _(
                "these orders are for turn {turn}, a later turn; game {game} now takes orders for turn {due}",
                turn=turn,
                game=row.id,
                due=due,
            )
        )
        return Standing(["turn: " + said + f" [turn.{'stale' if turn < due else 'future'}]"], game, state)
    return Standing([], game, state, decision)
