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

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
from sqlalchemy import Engine

from pbem.archive.unknowns import Guesses, Refused, choices_at, fill, put, unknowns_in
from pbem.core import clock, registry
from pbem.core.chance import ASSUMED, UNKNOWN, Recorder, Script, rederive
from pbem.core.codec import canonical_json, pack_json
from pbem.core.dice import orders_digest
from pbem.core.errors import UserError
from pbem.core.game import Event, GameError, RulesError, ScriptExhausted
from pbem.core.i18n import N_, T_
from pbem.intake.orderfile import OrderFileError, load
from pbem.play.create import check_game_id, check_seats, parse_options, store_game
from pbem.storage.history import TurnRecord, settle, turn_events
from pbem.storage.models import GameOriginRow, GameRow

FORMAT = "pbem-record"
VERSION = 1
#: a record of a whole game is some kilobytes (tests/fixtures/records: 8 KB, under 2,200 YAML values); the
#: limits leave a hundred times that and bound what a hostile file costs before it is refused
MAX_RECORD_BYTES = 4 * 1024 * 1024
MAX_RECORD_VALUES = 50_000
MAX_RECORD_DEPTH = 64

#: ``[label, n, index]`` (the engine's ordering), ``[label, face]`` (what came out) or ``[label, unknown]``;
#: its shape is checked when the game asks for it (:class:`pbem.core.chance.Script`), naming its line
Draw = Any

#: what a turn's events say of a record's unknowns (docs/records.md, "Unknowns")
ASSUMED_ORDERS = N_("assumed, not recorded (the record says unknown): {seat}'s {keys}")
ASSUMED_VALUES = N_("assumed for your orders, not recorded (the record says unknown): {values}")
ASSUMED_DRAWS = N_("assumed, not recorded (the record says unknown): what these draws gave: {draws}")


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

    _source: bytes = PrivateAttr(default=b"")
    _lines: dict[tuple[Any, ...], list[int]] | None = PrivateAttr(default=None)

    def players(self) -> list[tuple[str, str]]:
        return [(s, "") if isinstance(s, str) else (s.seat, s.email) for s in self.seats]

    def keep_lines(self, path: str) -> None:
        """Keep the file at ``path`` for refusals to name the line of a draw (found only then)."""
        try:
            self._source = Path(path).read_bytes()
        except OSError:
            self._source = b""

    def line(self, where: tuple[Any, ...], index: int) -> int | None:
        """The line of draw ``index`` of the list at ``where`` (``("setup",)``, ``("turns", 3)``)."""
        if self._lines is None:  # composing the file again costs as much as reading it: only for a refusal
            self._lines = _draw_lines(self._source) if self._source else {}
        found = self._lines.get(where, [])
        return found[index] if index < len(found) else None


def is_record(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT


def read_record(path: str) -> Record:
    try:
        raw = Path(path).read_bytes()
        check_cost(raw, path)
        data = load(raw, max_bytes=MAX_RECORD_BYTES, max_depth=MAX_RECORD_DEPTH)
    except OSError as exc:
        raise UserError(f"cannot read record {path}: {exc.strerror}") from None
    except OrderFileError as exc:
        raise UserError(f"{path} is not a readable record: {exc}") from None
    record = parse_record(data, path)
    record._source = raw
    return record


def check_cost(raw: bytes, path: str) -> None:
    """Refuse, before it is read, a file that cannot be an archive or a record at a glance (its top is
    not a mapping), or one that does not begin as an archive does (``format: pbem-archive``) and is too
    large or holds more values than a record could. Reading YAML into
    values costs microseconds each, so a long flow list would cost seconds per megabyte; libyaml's
    events cost a sixth of that, and the count stops at the limit."""
    parser = yaml.CSafeLoader(raw) if yaml.__with_libyaml__ else yaml.SafeLoader(raw)
    try:
        head = [parser.get_event() for _ in range(5) if parser.check_event()]
        top = next((e for e in head if isinstance(e, yaml.NodeEvent)), None)
        if top is not None and not isinstance(top, yaml.MappingStartEvent):
            what = "list" if isinstance(top, yaml.SequenceStartEvent) else "single value"
            raise UserError(
                f"{path} holds a {what}; an archive or a record is a mapping of keys (format: "
                "pbem-record, game: ..., docs/records.md)"
            )
        keys = [e.value for e in head[3:5] if isinstance(e, yaml.ScalarEvent)]
        if keys == ["format", "pbem-archive"]:
            return  # an archive, as pbem export writes it: its own limits apply
        # a record, or a file that says what it is further down: a record's limits
        if len(raw) > MAX_RECORD_BYTES:
            raise UserError(
                f"{path} is {len(raw):,} bytes; a record may be at most {MAX_RECORD_BYTES:,} bytes (a whole "
                "game is some kilobytes)"
            )
        count = len(head)
        while parser.check_event():
            parser.get_event()
            count += 1
            if count > MAX_RECORD_VALUES:
                raise UserError(
                    f"{path} holds more than {MAX_RECORD_VALUES:,} YAML values; a record of a whole game "
                    "holds some thousands"
                )
    except yaml.YAMLError:
        return  # the reading proper says what is wrong, and where
    finally:
        parser.dispose()


def _draw_lines(raw: bytes) -> dict[tuple[Any, ...], list[int]]:
    """Where each draw list's items stand in the file (1-based lines), for refusals to name: from
    libyaml's events, which cost a fraction of composing the document again."""
    found: dict[tuple[Any, ...], list[int]] = {}
    parser = yaml.CSafeLoader(raw) if yaml.__with_libyaml__ else yaml.SafeLoader(raw)
    # each open collection: [its path, a mapping's key waiting for its value (None: a key comes next),
    # a sequence's next index (None: a mapping)]
    open_: list[list[Any]] = []
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, yaml.CollectionEndEvent):
                open_.pop()
                continue
            if not isinstance(event, yaml.NodeEvent):
                continue
            path: tuple[Any, ...] = ()
            if open_:
                parent = open_[-1]
                if parent[2] is None and parent[1] is None:  # a mapping's key
                    parent[1] = event.value if isinstance(event, yaml.ScalarEvent) else ""
                    continue
                if parent[2] is None:
                    path, parent[1] = (*parent[0], parent[1]), None
                else:
                    path, parent[2] = (*parent[0], parent[2]), parent[2] + 1
            if len(path) in (3, 4) and path[-2] == "draws" and path[0] in ("setup", "turns"):
                found.setdefault(path[:-2] if path[0] == "turns" else ("setup",), []).append(
                    event.start_mark.line + 1
                )
            if isinstance(event, yaml.MappingStartEvent):
                open_.append([path, None, None])
            elif isinstance(event, yaml.SequenceStartEvent):
                open_.append([path, None, 0])
    except yaml.YAMLError:
        pass
    finally:
        parser.dispose()
    return found


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


def has_unknowns(record: Record) -> bool:
    draws = [d for turn in [record.setup, *record.turns] for d in turn.draws]
    return any(isinstance(d, list) and d[1:] == [UNKNOWN] for d in draws) or any(
        unknowns_in(turn.orders) for turn in record.turns
    )


def replay_record(record: Record, path: str) -> tuple[list[TurnRecord], Guesses | None]:
    """Every turn of ``record`` re-run through the rules: the setup, then each turn's orders checked
    and resolved with its draws, its unknowns filled (:mod:`pbem.archive.unknowns`). A
    :class:`UserError` names the first order or draw the rules refuse."""
    if not has_unknowns(record):
        return _replay(record, path, None), None
    return fill(lambda guesses: _replay(record, path, guesses), record.seed or 0)


def _orders_of(
    game: Any, decision: Any, written: Any, guesses: Guesses | None, who: str
) -> tuple[Any, list[tuple[str, str]]]:
    """The orders as written, each ``unknown`` in them filled; and what was filled, in words."""
    filled: list[tuple[str, str]] = []
    for place in unknowns_in(written):
        choices = choices_at(game.order_model(decision).model_json_schema(), place)
        key = ".".join(str(p) for p in place[1:] if not isinstance(p, int)) or "orders"
        if not choices or guesses is None:
            raise GameError(
                "record.unknown",
                f"{key} is unknown, and the order grammar names no values to fill it with: write it",
            )
        value = guesses.value(f"{who}: {key}", choices)
        written = put(written, place, value)
        filled.append((key, value))
    return written, filled


def _replay(record: Record, path: str, guesses: Guesses | None) -> list[TurnRecord]:
    game = registry.require(record.game)
    options = parse_options(game, record.options)
    seats = [name for name, _email in record.players()]
    guess = guesses.draw if guesses is not None else None
    seeded = (
        Recorder.for_dice(record.dice, record.seed, 0, 0, orders_digest(seats, {}))
        if record.seed is not None
        else None
    )
    script = Script(
        record.setup.draws,
        where=f"{path}: setup",
        line=lambda index: record.line(("setup",), index),
        seeded=seeded,
        guess=guess,
    )
    try:
        state = game.setup(seats, options, script)
    except ScriptExhausted as exc:  # it names the file, the line and the draw
        raise Refused(str(exc), (0, 1, 0, len(script.drawn))) from None
    except GameError as exc:
        raise Refused(f"{path}: the setup cannot be re-run: {exc}", (0, 1, 0, len(script.drawn))) from None
    turns = [_settled(game, 0, state, {}, [], [], script, path, "setup", record)]
    for number, turn in enumerate(record.turns, start=1):
        where = f"turns[{number - 1}] (turn {number})"
        pending = game.pending(state)
        if not pending:
            raise Refused(
                f"{path}: {where}: the game was already over; the record goes on", (number, 0, 0, 0)
            )
        if set(pending) != set(turn.orders):
            raise Refused(
                f"{path}: {where}: the game waits for orders of {', '.join(sorted(pending))}; the record "
                f"has orders of {', '.join(sorted(turn.orders)) or 'nobody'}",
                (number, 0, 0, 0),
            )
        orders, assumed = {}, []
        for position, seat in enumerate(pending):
            try:
                written, filled = _orders_of(game, pending[seat], turn.orders[seat], guesses, seat)
                assumed += [(seat, *value) for value in filled]
                orders[seat] = game.order_model(pending[seat]).model_validate(written)
                game.check(state, seat, orders[seat])
            except ValidationError as exc:
                raise Refused(f"{path}: {where}: {seat}'s {_shape(exc)}", (number, 0, position, 0)) from None
            except RulesError as exc:
                step = exc.step if exc.step is not None else 10**6
                raise Refused(f"{path}: {where}: {seat}'s {exc}", (number, 0, position, step)) from None
            except GameError as exc:
                raise Refused(f"{path}: {where}: {seat}'s orders: {exc}", (number, 0, position, 0)) from None
        dumped = {s: o.model_dump(mode="json", by_alias=True) for s, o in orders.items()}
        if record.seed is not None:
            seeded = Recorder.for_dice(record.dice, record.seed, 0, number, orders_digest(seats, dumped))
        script = Script(
            turn.draws,
            where=f"{path}: {where}",
            line=lambda index, at=number - 1: record.line(("turns", at), index),
            seeded=seeded,
            guess=guess,
        )
        try:
            resolution = game.resolve(state, orders, script)
        except ScriptExhausted as exc:
            raise Refused(str(exc), (number, 1, 0, len(script.drawn))) from None
        except RulesError as exc:
            raise Refused(f"{path}: {where}: {exc}", (number, 1, 0, len(script.drawn))) from None
        except GameError as exc:
            raise Refused(
                f"{path}: {where}: cannot be re-run: {exc}", (number, 1, 0, len(script.drawn))
            ) from None
        events = turn_events(turn.by_bot, resolution.events) + _assumed_events(assumed, script.drawn)
        turns.append(
            _settled(game, number, resolution.state, dumped, turn.by_bot, events, script, path, where, record)
        )
        state = turns[-1].state
    return turns


def _assumed_events(orders: list[tuple[str, str, str]], drawn: list[Any]) -> list[Event]:
    """The word that what a turn's record left unknown was assumed, not recorded: in public what was
    assumed, to each seat the values assumed in its own orders (they are as secret as the real ones)."""
    said = []
    for seat in dict.fromkeys(seat for seat, _key, _value in orders):
        mine = [(key, value) for who, key, value in orders if who == seat]
        keys = ", ".join(key for key, _value in mine)
        values = ", ".join(f"{key}: {value}" for key, value in mine)
        said.append(Event(T_(ASSUMED_ORDERS, seat=seat, keys=keys), data={"assumed": len(mine)}))
        said.append(Event(T_(ASSUMED_VALUES, values=values), to=seat))
    draws = Counter(d[0] for d in drawn if d[3:] == [ASSUMED])
    if draws:
        what = ", ".join(f"{label} ×{n}" for label, n in draws.items())
        said.append(Event(T_(ASSUMED_DRAWS, draws=what), data={"assumed": sum(draws.values())}))
    return said


def _settled(
    game: Any,
    number: int,
    state: Any,
    orders: dict[str, Any],
    by_bot: list[str],
    events: list[Any],
    script: Script,
    path: str,
    where: str,
    record: Record,
) -> TurnRecord:
    if script.unused():
        raise Refused(
            f"{path}: {where}: {script.unused()} recorded draws were not asked for", (number, 2, 0, 0)
        )
    chance = script.drawn
    digest = orders_digest([name for name, _email in record.players()], orders)
    if record.seed is not None and not rederive(
        chance, record.seed, 0, number, dice=record.dice, digest=digest
    ):
        raise Refused(
            f"{path}: {where}: the recorded draws are not those seed {record.seed} gives", (number, 2, 0, 0)
        )
    if number == 0:
        events = events + _assumed_events([], chance)
    state, data, digest = settle(game, state)
    return TurnRecord(number, state, data, digest, orders, sorted(by_bot), events, chance)


def played_at(record: Record, now: datetime) -> list[datetime]:
    """When the setup and each turn were played: the game starts at the record's first time (its first
    turn's), a turn without a time is dated as the turn before it; a record without any time, ``now``."""
    # checked, not only moved to UTC: year 9999 with a negative offset overflows, year 1 fits no column
    stated = {
        i: clock.checked(t.resolved_at, f"turn {i + 1}: resolved_at")
        for i, t in enumerate(record.turns)
        if t.resolved_at is not None
    }
    times = [next(iter(stated.values()), now)]
    for i in range(len(record.turns)):
        times.append(stated.get(i, times[-1]))
    return times


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
    turns, _guesses = replay_record(record, path)
    if record.seed is None and game.outcome(turns[-1].state) is None and game.pending(turns[-1].state):
        raise UserError(
            f"{path}: the record gives no seed and its game is not over: this host would have nothing to "
            "draw the coming turns from; give the record a seed, or import the game once it is finished"
        )
    times = played_at(record, clock.utc(now))
    when = times[0]
    options = parse_options(game, record.options)
    stored = list(zip(turns, times, strict=True))
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
