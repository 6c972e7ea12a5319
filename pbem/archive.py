"""Archives: one self-contained file per game (YAML or JSON), and importing one on another host.

An archive holds the game type, engine version, seed, options, the players (no password hashes), every
turn's orders (no passwords), draws and state hashes. Importing replays it all, checking every hash,
before anything is written; the seats get new passwords, shown once.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from sqlalchemy import Engine
from sqlmodel import Session

from pbem import clock, zones
from pbem.codec import canonical_json, pack_json
from pbem.create import check_game_id, check_seats, store_game
from pbem.errors import UserError
from pbem.history import TurnRecord, game_row, seat_rows, settle
from pbem.models import GameRow
from pbem.orderfile import OrderFileError, decode, load
from pbem.replay import GameRecord, TurnEntry, from_database, game_for, replay

#: far above a long game's archive (a few MB); a bound against a hostile file
MAX_ARCHIVE_BYTES = 256 * 1024 * 1024
MAX_ARCHIVE_DEPTH = 64
FORMAT = "pbem-archive"
VERSION = 1
SUFFIXES = (".yaml", ".yml", ".json")


class Player(BaseModel):
    seat: str
    email: str = ""
    timezone: str | None = None  # the seat's own zone, when it has one


class Archive(BaseModel):
    """The file's content."""

    format: str
    version: int
    game: dict[str, Any]
    players: list[Player]
    turns: list[TurnEntry]

    def record(self) -> GameRecord:
        try:
            return GameRecord(
                id=self.game["id"],
                game_type=self.game["type"],
                engine_version=self.game["engine_version"],
                seed=self.game.get("seed"),
                dice=self.game.get("dice", 1),
                commitment=self.game.get("commitment"),
                options=self.game.get("options") or {},
                seats=[p.seat for p in self.players],
                turns=self.turns,
            )
        except (KeyError, ValidationError) as exc:
            raise UserError(f"the archive's game section lacks {exc}") from None


def is_archive_path(source: str) -> bool:
    return source.lower().endswith(SUFFIXES) or "/" in source or Path(source).is_file()


def build_archive(engine: Engine, game_id: str, *, with_seed: bool = False) -> dict[str, Any]:
    """The archive's content. The seed is in it once the game is finished (or ``with_seed``, for a
    game master moving a running game to another host): before, it would tell the future draws."""
    record = from_database(engine, game_id)
    with Session(engine) as session:
        row = game_row(session, game_id)
        seats = seat_rows(session, game_id)
        game = {
            "id": row.id,
            "type": row.game_type,
            "engine_version": row.engine_version,
            "dice": row.dice,
            "commitment": record.commitment,
            "seed": row.seed if with_seed or row.status == "finished" else None,
            "options": json.loads(row.options_json),
            "created_at": row.created_at.isoformat(),
            "status": row.status,
            "turn": row.turn,
            "state_sha256": row.state_sha256,
            "timezone": row.timezone,
            "absence": row.absence,
            "absence_days": row.absence_days,
        }
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "players": [
            {"seat": s.name, "email": s.email, **({"timezone": s.timezone} if s.timezone else {})}
            for s in seats
        ],
        "turns": [t.model_dump(mode="json") for t in record.turns],
    }


def export(engine: Engine, game_id: str, path: str | None, *, with_seed: bool = False) -> str:
    """Write ``game_id``'s archive to ``path`` (JSON for ``*.json``, else YAML); returns the text.
    ``path`` ``None`` or ``-``: only return it, as YAML."""
    data = build_archive(engine, game_id, with_seed=with_seed)
    as_json = path is not None and path.lower().endswith(".json")
    if as_json:
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    else:
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)
    if path and path != "-":
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {path}: {exc.strerror}") from None
    return text


def read_archive(path: str) -> Archive:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read archive {path}: {exc.strerror}") from None
    try:
        if path.lower().endswith(".json"):
            data = json.loads(decode(raw, MAX_ARCHIVE_BYTES))
        else:  # through the order files' reader: no aliases, no tags, bounded size and depth
            data = load(raw, max_bytes=MAX_ARCHIVE_BYTES, max_depth=MAX_ARCHIVE_DEPTH)
    except (OrderFileError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} is not a readable archive: {exc}") from None
    try:
        archive = Archive.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"{path} is not a pbem archive: {where}: {first['msg']}") from None
    if archive.format != FORMAT or archive.version != VERSION:
        raise UserError(
            f"{path}: format {archive.format} {archive.version}; this host reads {FORMAT} {VERSION}"
        )
    return archive


def import_archive(
    engine: Engine, path: str, *, game_id: str | None = None, now: datetime | None = None
) -> tuple[str, dict[str, str]]:
    """Replay the archive at ``path``, checking every hash, then store it as ``game_id`` (default the
    archive's id). Returns the id and each seat's new password."""
    archive = read_archive(path)
    record = archive.record()
    new_id = game_id or record.id
    check_game_id(new_id)
    game = game_for(record)
    players = [(p.seat, p.email) for p in archive.players]
    check_seats(game, players)
    if record.seed is None and archive.game.get("status", "finished") != "finished":
        raise UserError(
            f"{path} is the archive of a running game without its seed, which its next turns need; "
            "export it with --with-seed to move it to another host"
        )
    steps = list(replay(record))
    problems = [p for step in steps for p in step.problems]
    if problems or len(steps) != len(record.turns):
        raise UserError(f"{path} does not replay: " + "; ".join(problems[:5]))
    when = clock.utc(now)
    options = game.options_model.model_validate(record.options)
    turns = []
    for step, entry in zip(steps, record.turns, strict=True):
        _state, data, digest = settle(game, step.state)
        chance = [list(d) for d in entry.chance]
        turn = TurnRecord(
            step.number, step.state, data, digest, entry.orders, entry.by_bot, step.events, chance
        )
        turns.append((turn, clock.utc(entry.resolved_at) if entry.resolved_at else when))
    setup = turns[0][0]
    row = GameRow(
        id=new_id,
        game_type=game.name,
        engine_version=record.engine_version,
        seed=record.seed if record.seed is not None else 0,
        dice=record.dice,
        timezone=zones.check(str(archive.game.get("timezone") or "UTC")),
        absence=str(archive.game.get("absence") or "extend"),
        absence_days=int(archive.game.get("absence_days", 14)),
        options_json=canonical_json(options.model_dump(mode="json")),
        created_at=when,
        state_z=pack_json(setup.state_data),
        state_sha256=setup.state_sha256,
    )
    try:
        seat_zones = {p.seat: zones.check(p.timezone) for p in archive.players if p.timezone}
        return new_id, store_game(engine, game, row, players, turns, zones=seat_zones)
    except UserError as exc:
        raise UserError(f"{exc}; import it under another id (--id)") from None
