"""Replays: a game re-run from its setup and recorded orders, every state hash checked.

The record (from the database or an archive) is the truth; chance answers from the recorded draws
(:class:`pbem.core.chance.Script`), and where the seed is known the draws are checked against it too. Run
as ``python -m pbem.archive.verifying`` it verifies in a process of its own, with its own hash seed, which is
what ``pbem replay --verify`` does: a state that depended on one process's set order would show there.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core import registry
from pbem.core.chance import Script, rederive
from pbem.core.codec import canonical_json, sha256_hex, unpack, unpack_json
from pbem.core.dice import commitment, orders_digest
from pbem.core.errors import UserError
from pbem.core.game import Event, Game, GameError
from pbem.render import reports
from pbem.render.reports import content_digest
from pbem.storage.catching_up import Turn, bot_seats, caught_up
from pbem.storage.history import game_row, seat_rows, settle, turn_events
from pbem.storage.models import MAX_INT, MAX_INT64, GameOriginRow, ReportRow, TurnRow


class TurnEntry(BaseModel):
    """One recorded turn: number 0 is the setup."""

    number: int = Field(ge=0, le=MAX_INT)
    epoch: int = Field(default=0, ge=0, le=MAX_INT)
    orders: dict[str, Any] = {}
    by_bot: list[str] = []
    #: [label, n, outcome], with "assumed" fourth where a record left the draw unknown
    chance: list[tuple[str, int, int] | tuple[str, int, int, Literal["assumed"]]] = []
    state_sha256: str
    resolved_at: datetime | None = None


class GameRecord(BaseModel):
    """Everything a replay needs, whether it comes from the database or an archive."""

    id: str
    game_type: str
    engine_version: str
    seed: int | None = Field(default=None, ge=0, le=MAX_INT64)
    #: the dice derivation (:mod:`pbem.core.dice`): 1 for games created before committed dice
    dice: int = 1
    #: SHA-256 of the dice tag and the seed, published from the start (dice 2 on)
    commitment: str | None = None
    options: dict[str, Any] = {}
    seats: list[str]
    turns: list[TurnEntry]
    recorded_elsewhere: bool = False
    #: the seats the stand-in plays for good (a level of their own): they catch up on nothing
    standins: list[str] = []

    def digest(self, entry: TurnEntry) -> str:
        """The orders digest the draws of ``entry`` derive from (dice 2 on)."""
        return orders_digest(self.seats, entry.orders)


@dataclass
class Step:
    """The state after one replayed turn."""

    number: int
    state: Any
    events: list[Event]
    digest: str
    problems: list[str] = field(default_factory=list)


def _entry(t: TurnRow) -> TurnEntry:
    return TurnEntry(
        number=t.number,
        epoch=t.epoch,
        orders=_stored_orders(t),
        by_bot=json.loads(t.by_bot_json),
        chance=json.loads(t.chance_json),
        state_sha256=t.state_sha256,
        resolved_at=t.resolved_at,
    )


def undone_entries(engine: Engine, game_id: str) -> list[TurnEntry]:
    """The turns of ``game_id`` a rollback undid, by epoch and number."""
    with Session(engine) as session:
        rows = session.exec(
            select(TurnRow)
            .where(TurnRow.game_id == game_id, TurnRow.undone == True)  # noqa: E712 - SQL, not Python
            .order_by(TurnRow.epoch, TurnRow.number)  # type: ignore[arg-type]
        )
        return [_entry(t) for t in rows]


def _stored_orders(turn: TurnRow) -> dict[str, Any]:
    try:
        return unpack_json(turn.orders_z)
    except (zlib.error, ValueError, UnicodeDecodeError):
        raise UserError(f"turn {turn.number}: its stored orders (turn.orders_z) cannot be read") from None


def from_database(engine: Engine, game_id: str) -> GameRecord:
    """The record of ``game_id``'s live line of turns (those no rollback undid)."""
    with Session(engine) as session:
        row = game_row(session, game_id)
        turns = session.exec(
            select(TurnRow)
            .where(TurnRow.game_id == game_id, TurnRow.undone == False)  # noqa: E712 - SQL, not Python
            .order_by(TurnRow.number)
        )
        entries = [_entry(t) for t in turns]
        origin = session.get(GameOriginRow, game_id)
        seated = seat_rows(session, game_id)
        return GameRecord(
            id=row.id,
            game_type=row.game_type,
            engine_version=row.engine_version,
            seed=None if origin is not None and not origin.has_seed else row.seed,
            recorded_elsewhere=origin is not None and origin.recorded_elsewhere,
            dice=row.dice,
            commitment=commitment(row.seed) if row.dice >= 2 else None,
            options=json.loads(row.options_json),
            seats=[s.name for s in seated],
            turns=entries,
            standins=[s.name for s in seated if s.bot_level],
        )


def game_for(record: GameRecord) -> Game:
    return registry.require(record.game_type)


def replay(record: GameRecord) -> Iterator[Step]:
    """Each turn of ``record`` re-run, in order, with what differs from the record in ``problems``.
    Stops after the first turn that cannot be re-run at all."""
    game = game_for(record)
    numbers = [t.number for t in record.turns]
    if numbers != list(range(len(numbers))):
        raise UserError(f"{record.id}: the record's turns are not 0, 1, 2, ...: {numbers[:10]}")
    options = game.options_model.model_validate(record.options)
    state: Any = None
    for entry in record.turns:
        where = f"turn {entry.number}"
        chance = Script([list(d) for d in entry.chance], where=where)
        problems: list[str] = []
        events: list[Event] = []
        try:
            if entry.number == 0:
                state = game.setup(record.seats, options, chance)
            else:
                pending = game.pending(state)
                if set(pending) != set(entry.orders):
                    problems.append(
                        f"{where}: the game waits for {sorted(pending)}, the record has orders of "
                        f"{sorted(entry.orders)}"
                    )
                    yield Step(entry.number, state, [], "", problems)
                    return
                orders = {
                    seat: game.order_model(pending[seat]).model_validate(entry.orders[seat])
                    for seat in pending
                }
                resolution = game.resolve(state, orders, chance)
                state, events = resolution.state, turn_events(entry.by_bot, resolution.events)
        except (GameError, ValueError) as exc:
            yield Step(entry.number, state, [], "", [f"{where}: cannot be re-run: {exc}"])
            return
        if chance.unused():
            problems.append(f"{where}: {chance.unused()} recorded draws were not asked for")
        if record.seed is not None and not rederive(
            [list(d) for d in entry.chance],
            record.seed,
            entry.epoch,
            entry.number,
            dice=record.dice,
            digest=record.digest(entry),
        ):
            problems.append(f"{where}: the recorded draws are not those the game's seed gives")
        state, _data, digest = settle(game, state)
        if digest != entry.state_sha256:
            problems.append(
                f"{where}: state hash {digest[:12]} differs from the recorded {entry.state_sha256[:12]}"
            )
        yield Step(entry.number, state, events, digest, problems)


def verify(record: GameRecord) -> dict[str, Any]:
    """Replay all of ``record``: ``{ok, turns, problems, engine_version}``."""
    problems: list[str] = []
    checked = 0
    for step in replay(record):
        checked += 1
        problems.extend(step.problems)
    installed = game_for(record).version
    if problems and installed != record.engine_version:
        problems.append(
            f"the game was recorded with {record.game_type} engine {record.engine_version}; "
            f"this host has {installed}"
        )
    return {"ok": not problems and checked == len(record.turns), "turns": checked, "problems": problems}


def replayed(record: GameRecord) -> list[Step]:
    """Every turn of ``record`` re-run; a :class:`UserError` at the first that cannot be."""
    steps = []
    for step in replay(record):
        if step.problems and not step.digest:
            raise UserError("; ".join(step.problems))
        steps.append(step)
    return steps


def report_at(record: GameRecord, turn: int, player: str | None, fmt: str, *, public: bool = False) -> str:
    """The report of ``player`` (``None``: the public one, or every seat's once the game is over, unless
    ``public``) after turn ``turn``, rendered anew from the replayed state."""
    kind = reports.report_format(fmt)
    if public and player is not None:
        raise UserError("--public shows the observers' report; leave out --player, or leave out --public")
    if player is not None and player not in record.seats:
        raise UserError(f"{record.id} has no seat {player!r}; its seats are {', '.join(record.seats)}")
    steps = replayed(record)
    if not 0 <= turn < len(steps):
        raise UserError(f"{record.id} has turns 0 to {len(steps) - 1}; there is no turn {turn}")
    step, game = steps[turn], game_for(record)
    over = game.outcome(steps[-1].state) is not None
    seats: list[str | None] = (
        [player] if player is not None else [None, *record.seats] if over and not public else [None]
    )
    rendered = []
    dice = None
    if record.dice >= 2 and record.commitment:
        ended = game.outcome(step.state) is not None or not game.pending(step.state)
        revealed = str(record.seed) if ended and record.seed is not None else None
        dice = {"commitment": record.commitment, "seed": revealed}
    behind = _caught_up(record, steps, turn)
    for seat in seats:
        missed = behind.get(seat or "", ())
        ctx = reports.context(
            game, record.id, step.state, turn, seat, step.events, dice=dice, caught_up=missed
        )
        text, page = reports.render_pair(game, ctx)
        rendered.append((seat, page if kind == "html" else text))
    return reports.combine(rendered, kind)


def _caught_up(record: GameRecord, steps: list[Step], turn: int) -> dict[str, list[tuple[int, Any]]]:
    """What each seat read of the turns it missed in its report of ``turn``, as the turn's driver found
    it (:mod:`pbem.storage.catching_up`)."""
    history = [
        Turn(entry.number, frozenset(entry.orders), bot_seats(entry.by_bot), step.events)
        for entry, step in zip(record.turns, steps, strict=False)
    ]
    players = [seat for seat in record.seats if seat not in record.standins]
    return caught_up(history, turn, players, record.turns[turn].by_bot)


def _digest_of(packed: bytes) -> str | None:
    """The SHA-256 of a stored state's canonical JSON, or ``None`` when it cannot be read."""
    try:
        return sha256_hex(canonical_json(unpack_json(packed)))
    except (zlib.error, ValueError, UnicodeDecodeError):
        return None


def stored_problems(engine: Engine, game_id: str) -> list[str]:
    """What is wrong with the blobs the host reads of ``game_id``, beside its turns' record: the game
    row's state (the next turn is resolved from it) and turn number, every turn's stored state (a
    rollback goes back to it) and every stored report (mail sends it, ``pbem report`` prints it)."""
    problems: list[str] = []
    with Session(engine) as session:
        row = game_row(session, game_id)
        turns = list(session.exec(select(TurnRow).where(TurnRow.game_id == game_id).order_by(TurnRow.id)))
        live = sorted((t for t in turns if not t.undone), key=lambda t: t.number)
        for t in turns:
            if _digest_of(t.state_z) != t.state_sha256:
                problems.append(
                    f"turn {t.number} (epoch {t.epoch}): its stored state (turn.state_z, what a rollback "
                    "goes back to) does not match its hash"
                )
        if live and live[-1].number != row.turn:
            problems.append(f"game.turn says {row.turn}, but the last recorded turn is {live[-1].number}")
        if live and row.state_sha256 != live[-1].state_sha256:
            problems.append(
                f"game.state_sha256 is not the hash of the last recorded turn ({live[-1].number})"
            )
        if _digest_of(row.state_z) != row.state_sha256:
            problems.append("game.state_z (the state the next turn is resolved from) does not match its hash")
        for report in session.exec(
            select(ReportRow).where(ReportRow.game_id == game_id).order_by(ReportRow.id)  # type: ignore[arg-type]
        ):
            who = report.seat or "public"
            where = f"the stored report of turn {report.turn} (epoch {report.epoch}) for {who}"
            try:
                text, page = unpack(report.text_z), unpack(report.html_z)
            except (zlib.error, UnicodeDecodeError):
                problems.append(f"{where} cannot be read")
                continue
            if report.content_sha256 is not None and content_digest(text, page) != report.content_sha256:
                problems.append(f"{where} does not match its hash")
    return problems
