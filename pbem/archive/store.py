"""Storing an imported archive as the game it was: its settings, seats, observers, every turn of its
live line and the turns a rollback undid, each at its own epoch, in one transaction.

:func:`pbem.play.create.store_game` writes a new game's turns through the turn driver's path (one epoch, the
game row advancing turn by turn); an archive's game may have been rolled back, so its turns carry
epochs of their own and the game row is written as the archive says it stood.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel

from pbem.archive.replay import TurnEntry
from pbem.core.chance import Script, rederive
from pbem.core.codec import canonical_json, pack_json
from pbem.core.dice import orders_digest
from pbem.core.errors import UserError
from pbem.core.game import Event, Game, GameError
from pbem.intake import passwords
from pbem.render import reports
from pbem.storage.catching_up import Turn, bot_seats, caught_up
from pbem.storage.cron_models import ClockRow
from pbem.storage.history import TurnRecord, dump_events, settle, store_reports, turn_events
from pbem.storage.models import GameRow, ObserverRow, SeatRow, TurnRow

#: the game row's settings an archive keeps (beyond id, type, seed, options): what a game is
SETTINGS = ("turn_seconds", "grace_seconds", "nmr", "abandon_after", "require_from_match")
#: the game's and seats' own settings beyond the core: exported, and imported when the models have them
OPTIONAL_GAME = ("language", "timezone", "absence", "absence_days", "press")
#: a seat's columns an archive carries only when set: its own language and zone, and the stand-in's level
#: of a seat the stand-in plays (without it, an imported running solo game would wait for that seat)
OPTIONAL_SEAT = ("language", "timezone", "bot_level")


@dataclass
class StoredTurn:
    """One turn to write: its record and state, at its epoch, undone or not."""

    turn: TurnRecord
    epoch: int
    undone: bool
    resolved_at: datetime


def replay_undone(
    game: Game,
    seed: int | None,
    live: Sequence[tuple[TurnEntry, Any]],
    undone: Sequence[TurnEntry],
    where: str,
    *,
    dice: int = 1,
    seats: Sequence[str] = (),
) -> list[tuple[TurnEntry, Any, list[Event]]]:
    """The states of the turns a rollback undid, each re-run from the state it followed: the turn before
    it that stood at its epoch (the one of that number with the greatest epoch not above its own)."""
    states: dict[tuple[int, int], Any] = {(e.epoch, e.number): s for e, s in live}
    out = []
    for entry in sorted(undone, key=lambda e: (e.epoch, e.number)):
        before = [k for k in states if k[1] == entry.number - 1 and k[0] <= entry.epoch]
        if not before:
            raise UserError(f"{where}: undone turn {entry.number} (epoch {entry.epoch}) follows no turn")
        state = states[max(before)]
        chance = Script([list(d) for d in entry.chance], where=f"undone turn {entry.number}")
        try:
            pending = game.pending(state)
            orders = {s: game.order_model(pending[s]).model_validate(entry.orders[s]) for s in pending}
            resolution = game.resolve(state, orders, chance)
        except (GameError, ValueError, KeyError) as exc:
            raise UserError(
                f"{where}: undone turn {entry.number} (epoch {entry.epoch}) cannot be re-run: {exc}"
            ) from None
        new_state, _data, digest = settle(game, resolution.state)
        if digest != entry.state_sha256 or chance.unused():
            raise UserError(
                f"{where}: undone turn {entry.number} (epoch {entry.epoch}) does not replay to its hash"
            )
        digest = orders_digest(seats, entry.orders)  # dice 2: the draws hang on the turn's orders
        if seed is not None and not rederive(
            [list(d) for d in entry.chance], seed, entry.epoch, entry.number, dice=dice, digest=digest
        ):
            raise UserError(f"{where}: undone turn {entry.number}: its draws are not those the seed gives")
        states[(entry.epoch, entry.number)] = new_state
        out.append((entry, new_state, turn_events(entry.by_bot, resolution.events)))
    return out


def store_imported(
    engine: Engine,
    game: Game,
    row: GameRow,
    seats: Sequence[dict[str, Any]],
    observers: Sequence[str],
    turns: Sequence[StoredTurn],
    *,
    clock: dict[str, Any] | None = None,
    extra: Sequence[SQLModel] = (),
    status_note: str | None = None,
    assumed: bool = False,
) -> dict[str, str]:
    """Write the game row as given, its seats (new passwords; misses and abandonment kept), observers,
    ``extra`` rows and every turn with its reports, in one transaction. Returns each seat's password.
    ``assumed``: some of the game was assumed at the import of its record (its reports say so)."""
    issued = {seat["seat"]: passwords.generate() for seat in seats}
    names = list(issued)
    with Session(engine) as session:
        if session.get(GameRow, row.id) is not None:
            raise UserError(f"there is already a game {row.id!r}")
        session.add(row)
        for position, seat in enumerate(seats):
            seat_row = SeatRow(
                game_id=row.id,
                name=seat["seat"],
                position=position,
                email=seat.get("email", ""),
                password_hash=passwords.hash_password(issued[seat["seat"]]),
                misses=int(seat.get("misses", 0)),
                abandoned=bool(seat.get("abandoned", False)),
            )
            for key in OPTIONAL_SEAT:
                if key in seat and hasattr(seat_row, key):
                    setattr(seat_row, key, seat[key])
            session.add(seat_row)
        session.add_all(ObserverRow(game_id=row.id, email=email) for email in observers)
        try:
            session.flush()
            session.add_all(extra)
            if clock is not None:
                session.add(ClockRow(game_id=row.id, **clock))
            players = [seat["seat"] for seat in seats if not seat.get("bot_level")]
            kept = [
                Turn(t.turn.number, frozenset(t.turn.orders), bot_seats(t.turn.by_bot), t.turn.events)
                for t in turns
                if not t.undone
            ]
            for stored in turns:
                turn = stored.turn
                # what each seat the stand-in played for read of the turns it missed, as it read it then
                behind = caught_up(kept, turn.number, players, turn.by_bot)
                session.add(
                    TurnRow(
                        game_id=row.id,
                        epoch=stored.epoch,
                        number=turn.number,
                        state_z=pack_json(turn.state_data),
                        state_sha256=turn.state_sha256,
                        orders_z=pack_json(dict(turn.orders)),
                        by_bot_json=canonical_json(sorted(turn.by_bot)),
                        events_z=pack_json(dump_events(turn.events)),
                        chance_json=canonical_json(turn.chance),
                        resolved_at=stored.resolved_at,
                        undone=stored.undone,
                    )
                )
                rendered = reports.render_reports(
                    game,
                    row.id,
                    names,
                    turn.state,
                    turn.number,
                    turn.events,
                    None,
                    status_note,
                    languages={seat["seat"]: seat.get("language") for seat in seats},
                    public_language=getattr(row, "language", None),
                    dice=reports.report_dice(game, row, turn.state),
                    assumed=assumed,
                    caught_up=behind,
                )
                store_reports(session, reports.report_rows(row.id, stored.epoch, turn.number, rendered))
            session.commit()
        except IntegrityError:
            raise UserError(f"there is already a game {row.id!r}") from None
    return issued
