"""Replays: a game re-run from its setup and recorded orders, every state hash checked.

The record (from the database or an archive) is the truth; chance answers from the recorded draws
(:class:`pbem.chance.Script`), and where the seed is known the draws are checked against it too. Run
as ``python -m pbem.replay`` it verifies in a process of its own, with its own hash seed, which is what
``pbem replay --verify`` does: a state that depended on one process's set order would show there.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem import registry, reports
from pbem.chance import Script, rederive
from pbem.codec import unpack_json
from pbem.errors import UserError
from pbem.game import Event, Game, GameError
from pbem.history import game_row, seat_rows, settle, turn_events
from pbem.models import TurnRow


class TurnEntry(BaseModel):
    """One recorded turn: number 0 is the setup."""

    number: int = Field(ge=0)
    epoch: int = 0
    orders: dict[str, Any] = {}
    by_bot: list[str] = []
    chance: list[tuple[str, int, int]] = []
    state_sha256: str
    resolved_at: datetime | None = None


class GameRecord(BaseModel):
    """Everything a replay needs, whether it comes from the database or an archive."""

    id: str
    game_type: str
    engine_version: str
    seed: int | None = None
    options: dict[str, Any] = {}
    seats: list[str]
    turns: list[TurnEntry]


@dataclass
class Step:
    """The state after one replayed turn."""

    number: int
    state: Any
    events: list[Event]
    digest: str
    problems: list[str] = field(default_factory=list)


def from_database(engine: Engine, game_id: str) -> GameRecord:
    """The record of ``game_id``'s live line of turns (those no rollback undid)."""
    with Session(engine) as session:
        row = game_row(session, game_id)
        turns = session.exec(
            select(TurnRow)
            .where(TurnRow.game_id == game_id, TurnRow.undone == False)  # noqa: E712 - SQL, not Python
            .order_by(TurnRow.number)
        )
        entries = [
            TurnEntry(
                number=t.number,
                epoch=t.epoch,
                orders=unpack_json(t.orders_z),
                by_bot=json.loads(t.by_bot_json),
                chance=json.loads(t.chance_json),
                state_sha256=t.state_sha256,
                resolved_at=t.resolved_at,
            )
            for t in turns
        ]
        return GameRecord(
            id=row.id,
            game_type=row.game_type,
            engine_version=row.engine_version,
            seed=row.seed,
            options=json.loads(row.options_json),
            seats=[s.name for s in seat_rows(session, game_id)],
            turns=entries,
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
            [list(d) for d in entry.chance], record.seed, entry.epoch, entry.number
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


def report_at(record: GameRecord, turn: int, player: str | None, fmt: str) -> str:
    """The report of ``player`` (``None``: the public one, or every seat's once the game is over) after
    turn ``turn``, rendered anew from the replayed state."""
    kind = reports.report_format(fmt)
    if player is not None and player not in record.seats:
        raise UserError(f"{record.id} has no seat {player!r}; its seats are {', '.join(record.seats)}")
    steps = replayed(record)
    if not 0 <= turn < len(steps):
        raise UserError(f"{record.id} has turns 0 to {len(steps) - 1}; there is no turn {turn}")
    step, game = steps[turn], game_for(record)
    over = game.outcome(steps[-1].state) is not None
    seats: list[str | None] = [player] if player is not None else [None, *record.seats] if over else [None]
    rendered = []
    for seat in seats:
        ctx = reports.context(game, record.id, step.state, turn, seat, step.events)
        text, page = reports.render_pair(game, ctx)
        rendered.append((seat, page if kind == "html" else text))
    return reports.combine(rendered, kind)


def verify_in_new_process(source: str, db_url: str | None) -> dict[str, Any]:
    """:func:`verify` run by ``python -m pbem.replay`` with a hash seed of its own."""
    env = dict(os.environ, PYTHONHASHSEED=str(secrets.randbelow(2**32)))
    command = [sys.executable, "-m", "pbem.replay", source]
    if db_url:
        command += ["--db", db_url]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        raise UserError(
            f"the replay process failed: {done.stderr.strip()[-2000:] or done.returncode}"
        ) from None


def load_source(source: str, db_url: str | None) -> GameRecord:
    """A game id in the database, or an archive file."""
    from pbem.archive import is_archive_path, read_archive
    from pbem.db import connect

    if is_archive_path(source):
        return read_archive(source).record()
    return from_database(connect(db_url, create=False), source)


def _main(argv: list[str]) -> int:
    source = argv[0]
    db_url = argv[argv.index("--db") + 1] if "--db" in argv else None
    try:
        result = verify(load_source(source, db_url))
    except UserError as exc:
        result = {"ok": False, "turns": 0, "problems": [str(exc)]}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
