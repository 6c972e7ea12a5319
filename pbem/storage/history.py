"""Reading a game's rows and recording its turns: the one place a resolved turn is written.

A turn is written whole in the caller's transaction: the turn row (state, hash, orders, events, draws),
the game row's cached state (compare-and-set on the turn number) and a report for every seat and the
public. The caller commits; a second writer of the same turn fails on the unique constraint.
"""

from __future__ import annotations

import json
import logging
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import ColumnElement, Connection, Row, Update, and_, bindparam, false, insert, update
from sqlalchemy import select as core_select
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from pbem.core import registry
from pbem.core.codec import canonical_json, pack, pack_json, sha256_hex, unpack, unpack_json
from pbem.core.errors import UserError
from pbem.core.game import Event, Game
from pbem.core.i18n import N_, Text, _
from pbem.core.search import standin_of
from pbem.core.zones import deadline_after
from pbem.storage import fencing
from pbem.storage.db import connection_of
from pbem.storage.models import GameOriginRow, GameRow, ReportRow, SeatRow, SubmissionRow, TurnRow

log = logging.getLogger(__name__)


class TurnConflict(Exception):
    """Another process recorded this turn first; the caller rolls back."""


def game_row(session: Session, game_id: str) -> GameRow:
    row = session.get(GameRow, game_id)
    if row is None:
        raise UserError(_("there is no game {game}", game=repr(game_id)))
    return row


def game_of(row: GameRow) -> Game:
    return registry.require(row.game_type)


def seat_rows(session: Session, game_id: str) -> list[SeatRow]:
    return list(session.exec(_SEATS, params={"of_game": game_id}))


def game_facts(db: Session | Connection, game_id: str) -> Row[Any] | None:
    """The game's row to read only, or ``None``: a Core row of the table (the entity's attribute names),
    not an object of a session, so nothing it holds can be changed or flushed through it; read on the
    session's connection, or on ``db`` itself. Cheaper than :func:`game_row`: the ORM's execution and
    loading of one row cost about twice the statement (SQLite)."""
    return connection_of(db).execute(_GAME_FACTS, {"of_game": game_id}).first()


def seat_facts(db: Session | Connection, game_id: str) -> list[Row[Any]]:
    """The game's seats in their order, to read only: Core rows, as :func:`game_facts`."""
    return list(connection_of(db).execute(_SEAT_FACTS, {"of_game": game_id}))


def recorded_elsewhere(session: Session, game_id: str) -> bool:
    """Whether ``game_id`` came in from a record made elsewhere (:mod:`pbem.archive.records`)."""
    origin = session.get(GameOriginRow, game_id)
    return origin is not None and origin.recorded_elsewhere


def origin_note(session: Session, game_id: str) -> tuple[str | None, bool]:
    """The note every report and page of ``game_id`` carries about where it came from (a message, to
    translate for each reader), and whether some of what they show was assumed: a record's unknowns,
    filled at its import (:mod:`pbem.archive.unknowns`), marked in the turns' draws and events."""
    if not recorded_elsewhere(session, game_id):
        return None, False
    turns = list(session.exec(select(TurnRow).where(TurnRow.game_id == game_id, TurnRow.undone == False)))  # noqa: E712 - SQL
    assumed = any('"assumed"' in t.chance_json for t in turns) or any(
        "assumed" in (event.get("data") or {}) for t in turns for event in unpack_json(t.events_z)
    )
    if assumed:
        return ASSUMED_NOTE, True
    return RECORDED_NOTE, False


RECORDED_NOTE = N_("This game was recorded elsewhere and imported.")
ASSUMED_NOTE = N_(
    "This game was recorded elsewhere and imported. What its record left unknown was assumed: "
    "what is shown of it here is assumed, not recorded."
)


def accepted_orders(game_id: Any, epoch: Any, turn: Any) -> ColumnElement[bool]:
    """The ``submission`` rows whose orders stand for a game's turn (a ``where`` clause); the game,
    epoch and turn are values, or columns of an enclosing query."""
    return and_(
        SubmissionRow.game_id == game_id,
        SubmissionRow.epoch == epoch,
        SubmissionRow.turn == turn,
        SubmissionRow.status == "accepted",
    )


# Statements run once or more in every order intake, turn and tick, built once with bound parameters
# and run with each game's values: building a statement anew each time cost SQLAlchemy more than
# running it (a turn's seats with orders: 200 us of CPU built each time, 80 us prebuilt, SQLite).
#: :func:`accepted_orders` of a turn given by parameters (:func:`of_turn`)
OF_TURN = accepted_orders(bindparam("of_game"), bindparam("of_epoch"), bindparam("of_turn"))
#: the seats whose orders stand for a turn (params: :func:`of_turn`)
SEATS_WITH_ORDERS = select(SubmissionRow.seat).where(OF_TURN)
#: the orders standing for a turn: id, seat and the orders themselves
STANDING_ORDERS = select(SubmissionRow.id, SubmissionRow.seat, SubmissionRow.orders_json).where(OF_TURN)
_SEATS = select(SeatRow).where(SeatRow.game_id == bindparam("of_game")).order_by(SeatRow.position)  # type: ignore[arg-type]
_GAME_TABLE = GameRow.__table__  # type: ignore[attr-defined]
_SEAT_TABLE = SeatRow.__table__  # type: ignore[attr-defined]
#: :func:`game_facts` and :func:`seat_facts`: on the tables, run on the session's connection
_GAME_FACTS = core_select(_GAME_TABLE).where(_GAME_TABLE.c.id == bindparam("of_game"))
_SEAT_FACTS = (
    core_select(_SEAT_TABLE)
    .where(_SEAT_TABLE.c.game_id == bindparam("of_game"))
    .order_by(_SEAT_TABLE.c.position)
)


_INSERT_TURN = insert(TurnRow.__table__)  # type: ignore[attr-defined]


@cache
def _game_update(columns: tuple[str, ...]) -> Update:
    """The compare-and-set of the game row after a turn, setting ``columns``: built once for each set
    of them (a turn sets three to five), run with bound values (building and keying it for the cache
    cost SQLAlchemy more than running it)."""
    table = GameRow.__table__  # type: ignore[attr-defined]
    return (
        update(table)
        .where(
            table.c.id == bindparam("of_game"),
            table.c.epoch == bindparam("of_epoch"),
            table.c.turn == bindparam("of_turn"),
        )
        .values({column: bindparam(f"new_{column}") for column in columns})
        .returning(*table.c)  # the row as it left it: the turn's writer goes on with it
    )


def of_turn(game_id: str, epoch: int, turn: int) -> dict[str, Any]:
    """The parameters of :data:`OF_TURN`, :data:`SEATS_WITH_ORDERS` and :data:`STANDING_ORDERS`."""
    return {"of_game": game_id, "of_epoch": epoch, "of_turn": turn}


def current_state(game: Game, row: GameRow) -> Any:
    """The game's cached state, unchecked: to show or to check orders against. A turn is resolved only
    from :func:`checked_state`."""
    return game.load_state(unpack_json(row.state_z))


class DamagedState(UserError):
    """A stored state that does not match its hash, and no intact copy to take instead: the operator's
    to repair; nothing is resolved from it."""


def checked_state(db: Session | Connection, game: Game, row: Any) -> Any:
    """The state a turn is resolved from: the game's cached state (``game.state_z``) once it is seen to
    match ``game.state_sha256``. A turn resolved from a damaged cache would become history, every later
    turn built on it, and only a later verify would notice. A cache that does not match is replaced by
    the history it caches (the state of the game's last live turn row, when that one matches its own
    hash, which a replay checks); with neither intact, :class:`DamagedState` says so and how to repair.
    ``row``: the game's row (an entity, or a Core row of the table)."""
    text = intact_state(row.state_z, row.state_sha256)
    if text is None:
        turn = connection_of(db).execute(_LIVE_TURN_STATE, {"of_game": row.id, "of_turn": row.turn}).first()
        text = intact_state(turn.state_z, turn.state_sha256) if turn is not None else None
        if text is None:
            raise DamagedState(
                f"game {row.id}: its cached state (game.state_z) does not match its hash, nor does the "
                f"stored state of turn {row.turn}: no turn is resolved from a damaged state. `pbem replay "
                f"{row.id} --verify` shows what is damaged; restore the database from a backup, or rebuild "
                f"the game from its turns: `pbem export {row.id} --include-secrets -o {row.id}.yaml`, then "
                f"`pbem import {row.id}.yaml --id NEW-ID`"
            )
        log.warning(
            "game %s: its cached state does not match its hash; the stored state of turn %d is used",
            row.id,
            row.turn,
        )
    return game.load_state(json.loads(text))


def intact_state(packed: bytes, digest: str) -> str | None:
    """The canonical JSON a stored state (``state_z``) holds when its SHA-256 is ``digest``; ``None``
    when it differs or the blob cannot be read."""
    try:
        text = unpack(packed)
    except (zlib.error, UnicodeDecodeError):
        return None
    if sha256_hex(text) == digest:
        return text
    try:  # the same data written another way (spacing, key order) is no damage: the hash is of its form
        return text if sha256_hex(canonical_json(json.loads(text))) == digest else None
    except ValueError:
        return None


_TURN_TABLE = TurnRow.__table__  # type: ignore[attr-defined]
_LIVE_TURN_STATE = core_select(_TURN_TABLE.c.state_z, _TURN_TABLE.c.state_sha256).where(
    _TURN_TABLE.c.game_id == bindparam("of_game"),
    _TURN_TABLE.c.number == bindparam("of_turn"),
    _TURN_TABLE.c.undone == false(),
)


def settle(game: Game, state: Any) -> tuple[Any, Any, str]:
    """``state`` as the database gives it back, its data and the SHA-256 of its canonical JSON.

    Every state the host goes on from (to render, to resolve the next turn, in a replay) is read back
    from its canonical JSON, as the turn driver reads it from the game row: so a game whose results
    depend on the order of a dict's keys still gives the same results live and in a replay.
    """
    settled, data, digest, _text = settle_json(game, state)
    return settled, data, digest


def settle_json(game: Game, state: Any) -> tuple[Any, Any, str, str]:
    """:func:`settle`, and the canonical JSON itself, which :func:`record_turn` packs as it is: it is
    the canonical JSON of the data read back from it (a JSON object's keys are strings, sorted the same
    again), so writing it once serves the hash and the stored state."""
    text = canonical_json(game.dump_state(state))
    data = json.loads(text)
    return game.load_state(data), data, sha256_hex(text), text


def turn_events(by_bot: Sequence[str], game_events: Sequence[Event]) -> list[Event]:
    """A turn's events as reports show them: first, plainly, every seat the stand-in played for and at
    what level (a seat it plays, the missed-orders policy or a game master's ``--fill-missing``), then
    the game's own. Live turns and replays both build them here, so their reports agree."""
    notes = [_standin_note(*standin_of(mark)) for mark in sorted(by_bot)]
    return notes + list(game_events)


#: what a report says of a seat the stand-in played, by its level (a message each, so every language
#: words its level as it should)
STANDIN_NOTES = {
    "easy": N_("The stand-in played for {seat} this turn, at the easy level."),
    "normal": N_("The stand-in played for {seat} this turn, at the normal level."),
    "strong": N_("The stand-in played for {seat} this turn, at the strong level."),
}


def _standin_note(seat: str, level: str | None) -> Event:
    if level is None:  # a turn recorded before the levels keeps the words its reports had
        legacy = N_("{seat} sent no orders for this turn: the bot played for {seat}.")
        return Event(legacy, params={"seat": seat})
    return Event(STANDIN_NOTES[level], params={"seat": seat})


def dump_events(events: Sequence[Event]) -> list[dict[str, Any]]:
    # the text as English words; its message and parameters only when there are some (so the events
    # of games stored before them read the same), for rendering them anew in another language
    return [{"text": e.text, "to": e.to, "data": dict(e.data), **_message_of(e)} for e in events]


def _message_of(event: Event) -> dict[str, Any]:
    if isinstance(event.text, Text):
        stored = {"msgid": event.text.msgid, "params": _dump_params({**event.text.params, **event.params})}
        if event.text.context is not None:  # a list (i18n.listed) or a game's term: only then, as below
            stored["context"] = event.text.context
        return stored
    return {"params": dict(event.params)} if event.params else {}


_NESTED = "$text"  # the key that marks a stored parameter as a message of its own (a clause in a sentence)


def _dump_params(params: dict[str, Any]) -> dict[str, Any]:
    # a parameter that is itself a Text keeps its message and parameters, so that it is translated
    # with its sentence when the event is shown again; JSON alone would keep only its English words
    return {k: _dump_text(v) if isinstance(v, Text) else v for k, v in params.items()}


def _dump_text(text: Text) -> dict[str, Any]:
    stored: dict[str, Any] = {_NESTED: text.msgid, "params": _dump_params(text.params)}
    if text.context is not None:  # a game's term (P_): only then, so events stored before read the same
        stored["context"] = text.context
    return stored


def _load_params(params: dict[str, Any]) -> dict[str, Any]:
    return {
        k: Text(v[_NESTED], _load_params(v.get("params") or {}), v.get("context"))
        if isinstance(v, dict) and _NESTED in v
        else v
        for k, v in params.items()
    }


def load_event(entry: dict[str, Any]) -> Event:
    """An event as :func:`dump_events` stored it, its words translatable again."""
    params = _load_params(entry.get("params") or {})
    text = Text(entry["msgid"], params, entry.get("context")) if "msgid" in entry else entry["text"]
    return Event(text, entry.get("to"), entry.get("data") or {}, {} if "msgid" in entry else params)


@dataclass(frozen=True)
class TurnRecord:
    """What a resolved turn leaves behind, before it is written."""

    number: int
    state: Any
    state_data: Any
    state_sha256: str
    orders: Mapping[str, Any]
    by_bot: Sequence[str]
    events: Sequence[Event]
    chance: list[list[Any]]
    #: the canonical JSON of ``state_data`` when the caller has it (:func:`settle_json`): packed as it is
    state_json: str | None = None


def after_turn_values(game: Game, row: GameRow, turn: TurnRecord, now: datetime) -> dict[str, Any]:
    """The game row's new values once ``turn`` is recorded (but the packed state): its number, and the game
    finished (no deadline) or the next deadline counted from ``now``."""
    values: dict[str, Any] = {"turn": turn.number, "state_sha256": turn.state_sha256}
    if game.outcome(turn.state) is not None or not game.pending(turn.state):
        values.update(status="finished", finished_at=now, deadline_at=None)
    elif row.turn_seconds:
        values["deadline_at"] = deadline_after(now, row.turn_seconds, row.timezone)
    return values


def record_turn(
    session: Session,
    game: Game,
    row: GameRow | Row[Any],
    turn: TurnRecord,
    now: datetime,
    *,
    reports: Sequence[Mapping[str, Any]] = (),
) -> GameRow | Row[Any]:
    """Write ``turn`` (see the module's docstring) and return the game row as it stands after it.
    Raises :class:`TurnConflict` when the game row no longer stands at the turn before. ``row``: an
    object of the session, or a Core row read under the game's lock (:func:`pbem.storage.db.locked_game`), to
    read only: then the row returned is a Core row too, the one the update gave back. ``reports``: the
    turn's report rows, rendered beforehand for the game row as :func:`after_turn_values` leaves it
    (storage renders nothing: a caller that renders from the row as this leaves it stores them
    itself, with :func:`store_reports`)."""
    # a tick that lost its claim on the game writes no turn of it (pbem.storage.fencing), whatever the turn
    fencing.check(session, row.id)
    packed = pack_json(turn.state_data) if turn.state_json is None else pack(turn.state_json)
    # one Core INSERT on the table (after the session's pending rows, flushed first), through the
    # session's connection: the ORM's unit of work, or its bulk layer, for a row nothing reads back
    # cost more than the statement. The unique (game, epoch, number) speaks here: a second writer of
    # the turn stops at it.
    session.flush()
    session.connection().execute(
        _INSERT_TURN,
        [
            {
                "game_id": row.id,
                "epoch": row.epoch,
                "number": turn.number,
                "state_z": packed,
                "state_sha256": turn.state_sha256,
                "orders_z": pack_json(dict(turn.orders)),
                "by_bot_json": canonical_json(sorted(turn.by_bot)),
                "events_z": pack_json(dump_events(turn.events)),
                "chance_json": canonical_json(turn.chance),
                "resolved_at": now,
                "undone": False,
            }
        ],
    )
    values = {**after_turn_values(game, row, turn, now), "state_z": packed}
    if turn.number > 0:
        # on the table, through the session's connection, as the turn row: the ORM's bulk update layer
        # over plain column values cost more than the statement (the row is set by hand below)
        written = (
            session.connection()
            .execute(
                _game_update(tuple(sorted(values))),
                {"of_game": row.id, "of_epoch": row.epoch, "of_turn": turn.number - 1}
                | {f"new_{key}": value for key, value in values.items()},
            )
            .first()
        )
        if written is None:
            raise TurnConflict(f"game {row.id} is no longer at turn {turn.number - 1}")
        if isinstance(row, GameRow):
            # the object as this update left it, without reading it back: the caller goes on with it
            # (the turn driver asks whether the next turn is ready, cron's clock moves), and expired,
            # its next attribute read would load the whole row again, state and all
            for key, value in values.items():
                set_committed_value(row, key, value)
        else:
            row = written
    else:
        for key, value in values.items():
            setattr(row, key, value)
    session.flush()
    if reports:
        store_reports(session, reports)
    return row


def store_reports(session: Session, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert a turn's report rows (:class:`ReportRow` values) in the session's transaction."""
    # one statement for all of them: as ORM objects each would be an INSERT of its own (SQLite cannot
    # return a batch's ids in order, so the ORM inserts one by one to learn them, and none is needed).
    # On the table, through the session's connection (same transaction): the ORM's bulk layer over
    # plain column values cost more CPU than SQLite's writing of the five rows
    session.connection().execute(_INSERT_REPORTS, list(rows))


_INSERT_REPORTS = insert(ReportRow.__table__)  # type: ignore[attr-defined]
