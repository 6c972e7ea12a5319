"""Archives: one self-contained file per game (YAML or JSON), and importing one on another host.

An archive holds the game type, engine version, seed, options, the players (no password hashes), every
turn's orders (no passwords), draws and state hashes, and the game master's address when the game has
one (never the password's hash). Importing replays it all, checking every hash, before anything is
written; the seats and the game master get new passwords, shown once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.archive import checks, records
from pbem.archive.replay import GameRecord, TurnEntry, from_database, game_for, replay, undone_entries
from pbem.archive.store import (
    OPTIONAL_GAME,
    OPTIONAL_SEAT,
    SETTINGS,
    StoredTurn,
    replay_undone,
    store_imported,
)
from pbem.core import clock, zones
from pbem.core.codec import canonical_json, pack_json
from pbem.core.errors import UserError
from pbem.core.i18n import _
from pbem.intake import addresses, passwords
from pbem.intake.orderfile import OrderFileError, decode, load
from pbem.play.create import check_game_id, check_languages, check_seats
from pbem.storage import presslog
from pbem.storage.cron_models import ClockRow
from pbem.storage.db import connect
from pbem.storage.history import ASSUMED_NOTE, TurnRecord, game_row, seat_rows, settle
from pbem.storage.models import GameMasterRow, GameOriginRow, GameRow, ObserverRow
from pbem.storage.presslog import PressEntry

#: far above a long game's archive (a few MB); a bound against a hostile file
MAX_ARCHIVE_BYTES = 256 * 1024 * 1024
MAX_ARCHIVE_DEPTH = 64
FORMAT = "pbem-archive"
VERSION = 1
SUFFIXES = (".yaml", ".yml", ".json")


class Player(BaseModel):
    seat: str
    email: str = ""
    misses: int = Field(default=0, ge=0, le=checks.MAX_INT)  # the column holds no more
    abandoned: bool = False
    language: str | None = None
    timezone: str | None = None  # the seat's own zone, when it has one
    bot_level: Literal["easy", "normal", "strong"] | None = None  # a seat the stand-in plays, at this level


class UndoneEntry(TurnEntry):
    """A turn a rollback undid, kept in the archive as it is in the database, marked."""

    undone: Literal[True] = True


class Archive(BaseModel):
    """The file's content."""

    format: str
    version: int
    game: dict[str, Any]
    players: list[Player]
    turns: list[TurnEntry]
    observers: list[str] = []
    undone_turns: list[UndoneEntry] = []
    press: list[PressEntry] = []  # what the players wrote each other (issue 14)
    # the game master's address, as a seat's is kept: the password's hash stays on the host it was set on
    game_master: str | None = None

    def record(self) -> GameRecord:
        try:
            return GameRecord(
                id=self.game["id"],
                game_type=self.game["type"],
                engine_version=self.game["engine_version"],
                seed=self.game.get("seed"),
                recorded_elsewhere=bool(self.game.get("recorded_elsewhere", False)),
                dice=self.game.get("dice", 1),
                commitment=self.game.get("commitment"),
                options=self.game.get("options") or {},
                seats=[p.seat for p in self.players],
                standins=[p.seat for p in self.players if p.bot_level],
                turns=self.turns,
            )
        except KeyError as exc:
            raise UserError(f"the archive's game section lacks {exc}") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise UserError(f"the archive's game section: {where}: {first['msg']}") from None


def is_archive_path(source: str) -> bool:
    return source.lower().endswith(SUFFIXES) or "/" in source or Path(source).is_file()


class SecretsInArchive(UserError):
    """An unfinished game's archive was asked for without ``include_secrets``."""


def build_archive(engine: Engine, game_id: str, *, include_secrets: bool = False) -> dict[str, Any]:
    """The archive of ``game_id``. A game not finished yet is refused unless ``include_secrets``: its
    seed and draws tell the bag's future and, replayed, every seat's hidden holdings."""
    with Session(engine) as session:
        row = game_row(session, game_id)
        if row.status != "finished" and not include_secrets:
            raise SecretsInArchive(
                f"game {game_id} is not finished: its archive holds the seed and every draw, which tell "
                f"each seat's hidden holdings. Give players its watchable page instead (pbem archive "
                f"{game_id} -o {game_id}.html); to move the game to another host, add --include-secrets"
            )
    record = from_database(engine, game_id)
    with Session(engine) as session:
        row = game_row(session, game_id)
        seats = seat_rows(session, game_id)
        game: dict[str, Any] = {
            "id": row.id,
            "type": row.game_type,
            "engine_version": row.engine_version,
            "seed": record.seed,
            "dice": row.dice,
            "commitment": record.commitment,
            "options": json.loads(row.options_json),
            "created_at": _when(row.created_at),
            "status": row.status,
            "turn": row.turn,
            "epoch": row.epoch,
            "state_sha256": row.state_sha256,
            "deadline_at": _when(row.deadline_at),
            "finished_at": _when(row.finished_at),
            "settings": {key: getattr(row, key) for key in SETTINGS},
        }
        game.update({k: getattr(row, k) for k in OPTIONAL_GAME if getattr(row, k, None) is not None})
        if record.recorded_elsewhere:
            game["recorded_elsewhere"] = True
        clock_row = session.get(ClockRow, game_id)
        if clock_row is not None:
            game["clock"] = {
                "epoch": clock_row.epoch,
                "turn": clock_row.turn,
                "paused_left": clock_row.paused_left,
            }
        players = []
        for s in seats:
            player: dict[str, Any] = {
                "seat": s.name,
                "email": s.email,
                "misses": s.misses,
                "abandoned": s.abandoned,
            }
            player.update({k: getattr(s, k) for k in OPTIONAL_SEAT if getattr(s, k, None) is not None})
            players.append(player)
        observers = sorted(
            session.exec(select(ObserverRow.email).where(ObserverRow.game_id == game_id))  # type: ignore[call-overload]
        )
        # a finished game's, or a running one's moved with its secrets: private press is one of them
        press = presslog.archived(session, game_id)
        master = session.get(GameMasterRow, game_id)
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game,
        "players": players,
        "observers": observers,
        "turns": [t.model_dump(mode="json") for t in record.turns],
        "undone_turns": [
            {**t.model_dump(mode="json"), "undone": True} for t in undone_entries(engine, game_id)
        ],
        "press": press,
        **({"game_master": master.email} if master is not None else {}),
    }


def _when(moment: datetime | None) -> str | None:
    return clock.utc(moment).isoformat() if moment is not None else None


def dump(data: dict[str, Any], *, as_json: bool = False) -> str:
    """An archive's text: JSON, or YAML."""
    if as_json:
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)


def public_archive(engine: Engine, game_id: str) -> str:
    """A finished game's archive without the mail addresses of its seats and observers: the one its
    archive page carries, which a host may serve to the world. It imports and verifies as well."""
    data = build_archive(engine, game_id)
    for player in data["players"]:
        player["email"] = ""
    data["observers"] = []
    data.pop("game_master", None)
    return dump(data)


def export(engine: Engine, game_id: str, path: str | None, *, include_secrets: bool = False) -> str:
    """Write ``game_id``'s archive to ``path`` (JSON for ``*.json``, else YAML); returns the text.
    ``path`` ``None`` or ``-``: only return it, as YAML. An unfinished game: see :func:`build_archive`."""
    data = build_archive(engine, game_id, include_secrets=include_secrets)
    text = dump(data, as_json=path is not None and path.lower().endswith(".json"))
    if path and path != "-":
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {path}: {exc.strerror}") from None
    return text


def _read_data(path: str) -> Any:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read archive {path}: {exc.strerror}") from None
    try:
        if path.lower().endswith(".json"):
            return json.loads(decode(raw, MAX_ARCHIVE_BYTES))
        records.check_cost(raw, path)  # what is not an archive or a record at a glance costs no reading
        # through the order files' reader: no aliases, no tags, bounded size and depth
        return load(raw, max_bytes=MAX_ARCHIVE_BYTES, max_depth=MAX_ARCHIVE_DEPTH)
    except (OrderFileError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} is not a readable archive: {exc}") from None


def read_archive(path: str, data: Any = None) -> Archive:
    if data is None:
        data = _read_data(path)
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


@dataclass
class Imported:
    """What an import stored: the game's id, each seat's new password and, when the archive names a game
    master, the game master's address and new password (all to be shown once)."""

    id: str
    seats: dict[str, str]
    game_master: str | None = None
    game_master_password: str | None = None


def import_archive(
    engine: Engine, path: str, *, game_id: str | None = None, now: datetime | None = None
) -> tuple[str, dict[str, str]]:
    """Replay the archive at ``path``, checking every hash, then store it as ``game_id`` (default the
    archive's id). Returns the id and each seat's new password (:func:`import_game` also says the game
    master's). A *record* of a game played elsewhere (``docs/records.md``: no hashes) is replayed
    through the rules instead (:mod:`pbem.archive.records`)."""
    done = import_game(engine, path, game_id=game_id, now=now)
    return done.id, done.seats


def import_game(
    engine: Engine, path: str, *, game_id: str | None = None, now: datetime | None = None
) -> Imported:
    """:func:`import_archive`, with the game master: an archive naming one stores that address with a
    new password, as the seats get theirs."""

    data = _read_data(path)
    if records.is_record(data):
        record = records.parse_record(data, path)
        record.keep_lines(path)
        return Imported(*records.import_record(engine, path, record, game_id=game_id, now=now))
    archive = read_archive(path, data)
    master = checks.game_master(archive.game_master, path)
    record = archive.record()
    new_id = game_id or record.id
    check_game_id(new_id)
    game = game_for(record)
    players = [(p.seat, p.email) for p in archive.players]
    check_seats(game, players)
    check_languages(  # refused by name before anything is stored; the rows take them as written
        archive.game.get("language"), {p.seat: p.language for p in archive.players if p.language}, players
    )
    for p in archive.players:
        if p.timezone:
            zones.check(p.timezone)
        p.email = addresses.normalise(p.email) if p.email else ""  # valid: check_seats said so
    zones.check(str(archive.game.get("timezone") or "UTC"))
    settings = checks.settings(archive.game)
    observers = checks.observers(archive.observers)
    clock_row = checks.clock_row(archive.game.get("clock"))
    steps = list(replay(record))
    problems = [p for step in steps for p in step.problems]
    if problems or len(steps) != len(record.turns):
        raise UserError(f"{path} does not replay: " + "; ".join(problems[:5]))
    if record.seed is None and game.outcome(steps[-1].state) is None and game.pending(steps[-1].state):
        raise UserError(
            f"{path}: the archive gives no seed and its game is not over: this host would have nothing to "
            "draw the coming turns from"
        )
    when = clock.utc(now)
    options = game.options_model.model_validate(record.options)
    live = [(entry, step.state) for step, entry in zip(steps, record.turns, strict=True)]
    undone = replay_undone(
        game,
        record.seed,
        live,
        archive.undone_turns,
        path,
        dice=record.dice,
        seats=[p.seat for p in archive.players],
    )
    stored = []
    for step, entry in zip(steps, record.turns, strict=True):
        stored.append(_stored(game, entry, step.state, step.events, False, when))
    for entry, state, events in undone:
        stored.append(_stored(game, entry, state, events, True, when))
    last = stored[len(steps) - 1].turn
    row = _game_row(
        archive,
        new_id,
        game.name,
        record,
        options,
        last,
        when,
        game.outcome(last.state) is not None,
        settings,
    )
    extra: list[Any] = presslog.imported(new_id, archive.press, [p.seat for p in archive.players])
    if record.recorded_elsewhere or record.seed is None:
        extra.append(
            GameOriginRow(
                game_id=new_id, recorded_elsewhere=record.recorded_elsewhere, has_seed=record.seed is not None
            )
        )
    master_password = passwords.generate() if master else None
    if master and master_password:
        extra.append(
            GameMasterRow(
                game_id=new_id, email=master, password_hash=passwords.hash_password(master_password)
            )
        )
    note = _("This game was recorded elsewhere and imported.") if record.recorded_elsewhere else None
    # draws a record left unknown keep their mark in the archive (the values assumed in orders do not)
    assumed = record.recorded_elsewhere and any(d[3:] == ("assumed",) for t in record.turns for d in t.chance)
    if assumed:
        note = _(ASSUMED_NOTE)
    try:
        issued = store_imported(
            engine,
            game,
            row,
            [p.model_dump(exclude_none=True) for p in archive.players],
            observers,
            stored,
            clock=clock_row,
            extra=extra,
            status_note=note,
            assumed=assumed,
        )
    except UserError as exc:
        raise UserError(f"{exc}; import it under another id (--id)") from None
    return Imported(new_id, issued, master, master_password)


def _stored(
    game: Any, entry: TurnEntry, state: Any, events: list[Any], undone: bool, when: datetime
) -> StoredTurn:
    _state, data, digest = settle(game, state)
    chance = [list(d) for d in entry.chance]
    turn = TurnRecord(entry.number, state, data, digest, entry.orders, entry.by_bot, events, chance)
    where = (
        f"the archive's {'undone ' if undone else ''}turn {entry.number} (epoch {entry.epoch}): resolved_at"
    )
    resolved = clock.checked(entry.resolved_at, where) if entry.resolved_at else when
    return StoredTurn(turn, entry.epoch, undone, resolved)


def _game_row(
    archive: Archive,
    new_id: str,
    game_type: str,
    record: GameRecord,
    options: Any,
    last: TurnRecord,
    when: datetime,
    over: bool,
    settings: dict[str, Any],
) -> GameRow:
    """The game row as the archive says it stood (an archive from before settings were kept: as a new
    game at its last turn)."""
    section = archive.game
    if (
        section.get("turn", last.number) != last.number
        or section.get("state_sha256", last.state_sha256) != last.state_sha256
    ):
        raise UserError("the archive's game section does not stand at its last turn")
    status = section.get("status") or ("finished" if over else "active")
    if status not in ("active", "paused", "finished"):
        raise UserError(f"the archive's game status {status!r} is not active, paused or finished")
    row = GameRow(
        id=new_id,
        game_type=game_type,
        engine_version=record.engine_version,
        seed=record.seed if record.seed is not None else 0,  # 0 is never read: game_origin.has_seed
        dice=record.dice,
        options_json=canonical_json(options.model_dump(mode="json")),
        created_at=checks.moment(section, "created_at", when),
        status=status,
        turn=last.number,
        epoch=checks.epoch(section.get("epoch", max(t.epoch for t in record.turns))),
        state_z=pack_json(last.state_data),
        state_sha256=last.state_sha256,
        deadline_at=checks.moment(section, "deadline_at", None),
        finished_at=checks.moment(section, "finished_at", when if status == "finished" else None),
    )
    for key in OPTIONAL_GAME:
        if key in section and hasattr(row, key):
            setattr(row, key, section[key])
    for key, value in settings.items():
        setattr(row, key, value)
    return row


def load_source(source: str, db_url: str | None) -> GameRecord:
    """A game id in the database, or an archive file."""
    if is_archive_path(source):
        return read_archive(source).record()
    return from_database(connect(db_url, create=False), source)
