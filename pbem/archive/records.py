"""Games recorded elsewhere: a *record* (``docs/records.md``) read, replayed through the rules and stored.

A record holds what happened and nothing this engine computes: the game type, the engine version it
was written for, the seats, the options, the setup's draws, then per turn the orders and the draws.
No hashes, and a seed only if the game had one. Every order is checked by the game's own entry point
(shape, then :meth:`Game.check`) before it is resolved with the recorded draws, and the first one the
rules refuse stops the import, named with the rule it breaks. Nothing is stored until every turn has
been re-run; then the game is written with every hash computed here, marked recorded elsewhere
(:class:`pbem.storage.models.GameOriginRow`).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import Engine

from pbem.core import clock, registry
from pbem.core.chance import Script, rederive
from pbem.core.codec import canonical_json, pack_json
from pbem.core.dice import orders_digest
from pbem.core.errors import UserError
from pbem.core.game import GameError, RulesError
from pbem.intake.orderfile import OrderFileError, load
from pbem.play.create import check_game_id, check_seats, parse_options, store_game
from pbem.storage.history import TurnRecord, settle, turn_events
from pbem.storage.models import GameOriginRow, GameRow

FORMAT = "pbem-record"
VERSION = 1
MAX_RECORD_BYTES = 64 * 1024 * 1024
MAX_RECORD_DEPTH = 64

Draw = tuple[str, int, int]


class RecordSeat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: str
    email: str = ""


class RecordSetup(BaseModel):
    model_config = ConfigDict(extra="forbid")
    draws: list[Draw] = []


class RecordTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    orders: dict[str, Any]
    draws: list[Draw] = []
    by_bot: list[str] = []
    resolved_at: datetime | None = None


class Record(BaseModel):
    """A record file's content (``docs/records.md``)."""

    model_config = ConfigDict(extra="forbid")
    format: Literal["pbem-record"]
    version: Literal[1]
    game: str
    engine_version: str
    id: str | None = None
    seed: int | None = Field(default=None, ge=0)
    #: how the draws derive from the seed (pbem.core.dice): 2, from the seed and each turn's orders; 1, the
    #: derivation of games made before committed dice. Only read when the record gives a seed.
    dice: int = Field(default=1, ge=1, le=2)
    options: dict[str, Any] = {}
    seats: list[RecordSeat | str]
    setup: RecordSetup = RecordSetup()
    turns: list[RecordTurn] = []

    def players(self) -> list[tuple[str, str]]:
        return [(s, "") if isinstance(s, str) else (s.seat, s.email) for s in self.seats]


def is_record(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def read_record(path: str) -> Record:
    try:
        data = load(Path(path).read_bytes(), max_bytes=MAX_RECORD_BYTES, max_depth=MAX_RECORD_DEPTH)
    except OSError as exc:
        raise UserError(f"cannot read record {path}: {exc.strerror}") from None
    except OrderFileError as exc:
        raise UserError(f"{path} is not a readable record: {exc}") from None
    return parse_record(data, path)


def parse_record(data: Any, path: str) -> Record:
    try:
        return Record.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise UserError(
            f"{path} is not a pbem record: {where}: {first['msg']} (docs/records.md shows the format)"
        ) from None


def _shape(exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = list(first["loc"])
    where = f"orders[{loc.pop(0)}]" if loc and isinstance(loc[0], int) else "orders"
    path = ".".join(str(p) for p in loc[1:] if not isinstance(p, int)) if loc else ""
    return f"{where}: {path + ': ' if path else ''}{first['msg']} [orders.{first['type']}]"


def replay_record(record: Record, path: str) -> list[TurnRecord]:
    """Every turn of ``record`` re-run through the rules: the setup, then each turn's orders checked
    and resolved with its draws. A :class:`UserError` names the first order the rules refuse."""
    game = registry.require(record.game)
    options = parse_options(game, record.options)
    seats = [name for name, _email in record.players()]
    where = "setup"
    script = Script([list(d) for d in record.setup.draws], where=f"{path}: setup")
    try:
        state = game.setup(seats, options, script)
    except GameError as exc:
        raise UserError(f"{path}: the setup cannot be re-run: {exc}") from None
    turns = [_settled(game, 0, state, {}, [], [], record.setup.draws, script, path, "setup", record)]
    for number, turn in enumerate(record.turns, start=1):
        where = f"turns[{number - 1}] (turn {number})"
        pending = game.pending(state)
        if not pending:
            raise UserError(f"{path}: {where}: the game was already over; the record goes on")
        if set(pending) != set(turn.orders):
            raise UserError(
                f"{path}: {where}: the game waits for orders of {', '.join(sorted(pending))}; the record "
                f"has orders of {', '.join(sorted(turn.orders)) or 'nobody'}"
            )
        orders = {}
        for seat in pending:
            try:
                orders[seat] = game.order_model(pending[seat]).model_validate(turn.orders[seat])
                game.check(state, seat, orders[seat])
            except ValidationError as exc:
                raise UserError(f"{path}: {where}: {seat}'s {_shape(exc)}") from None
            except RulesError as exc:
                raise UserError(f"{path}: {where}: {seat}'s {exc}") from None
            except GameError as exc:
                raise UserError(f"{path}: {where}: {seat}'s orders: {exc}") from None
        script = Script([list(d) for d in turn.draws], where=f"{path}: {where}")
        try:
            resolution = game.resolve(state, orders, script)
        except RulesError as exc:
            raise UserError(f"{path}: {where}: {exc}") from None
        except GameError as exc:
            raise UserError(f"{path}: {where}: cannot be re-run: {exc}") from None
        events = turn_events(turn.by_bot, resolution.events)
        dumped = {s: o.model_dump(mode="json", by_alias=True) for s, o in orders.items()}
        turns.append(
            _settled(
                game,
                number,
                resolution.state,
                dumped,
                turn.by_bot,
                events,
                turn.draws,
                script,
                path,
                where,
                record,
            )
        )
        state = turns[-1].state
    return turns


def _settled(
    game: Any,
    number: int,
    state: Any,
    orders: dict[str, Any],
    by_bot: list[str],
    events: list[Any],
    draws: list[Draw],
    script: Script,
    path: str,
    where: str,
    record: Record,
) -> TurnRecord:
    if script.unused():
        raise UserError(f"{path}: {where}: {script.unused()} recorded draws were not asked for")
    chance = [list(d) for d in draws]
    digest = orders_digest([name for name, _email in record.players()], orders)
    if record.seed is not None and not rederive(
        chance, record.seed, 0, number, dice=record.dice, digest=digest
    ):
        raise UserError(f"{path}: {where}: the recorded draws are not those seed {record.seed} gives")
    state, data, digest = settle(game, state)
    return TurnRecord(number, state, data, digest, orders, sorted(by_bot), events, chance)


def import_record(
    engine: Engine, path: str, record: Record, *, game_id: str | None = None, now: datetime | None = None
) -> tuple[str, dict[str, str]]:
    """Replay ``record`` through the rules and store it as a game recorded elsewhere; returns its id and
    each seat's new password."""
    game = registry.require(record.game)
    new_id = game_id or record.id or Path(path).stem
    check_game_id(new_id)
    players = record.players()
    check_seats(game, players)
    turns = replay_record(record, path)
    if record.seed is None and game.outcome(turns[-1].state) is None and game.pending(turns[-1].state):
        raise UserError(
            f"{path}: the record gives no seed and its game is not over: this host would have nothing to "
            "draw the coming turns from; give the record a seed, or import the game once it is finished"
        )
    when = clock.utc(now)
    options = parse_options(game, record.options)
    stored = [(turns[0], when)] + [
        (turn, clock.utc(entry.resolved_at) if entry.resolved_at else when)
        for turn, entry in zip(turns[1:], record.turns, strict=True)
    ]
    row = GameRow(
        id=new_id,
        game_type=game.name,
        engine_version=record.engine_version,
        seed=record.seed if record.seed is not None else 0,  # 0 is never read: game_origin.has_seed
        dice=record.dice,
        options_json=canonical_json(options.model_dump(mode="json")),
        created_at=when,
        state_z=pack_json(turns[0].state_data),
        state_sha256=turns[0].state_sha256,
    )
    origin = GameOriginRow(game_id=new_id, recorded_elsewhere=True, has_seed=record.seed is not None)
    try:
        return new_id, store_game(engine, game, row, players, stored, extra=[origin])
    except UserError as exc:
        raise UserError(f"{exc}; import it under another id (--id)") from None
