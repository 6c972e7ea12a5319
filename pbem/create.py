"""Creating a game: seats, passwords (shown once), the setup turn and its reports."""

from __future__ import annotations

import re
import secrets
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from pbem import addresses, clock, passwords, registry
from pbem.chance import Recorder
from pbem.codec import canonical_json, pack_json
from pbem.errors import UserError
from pbem.game import Game, GameError
from pbem.history import TurnRecord, record_turn, settle
from pbem.models import GameRow, SeatRow

GAME_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
SEAT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,31}")
# YAML 1.1 reads these as booleans or null, so a seat of that name could not be written plainly
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
NMR_POLICIES = ("wait", "bot")


def parse_options(game: Game, options: dict[str, str] | None) -> Any:
    """The game's options model from ``--option k=v`` pairs, or a :class:`UserError` naming each bad one."""
    try:
        return game.options_model.model_validate(options or {})
    except ValidationError as exc:
        known = ", ".join(game.options_model.model_fields) or "none"
        problems = "; ".join(
            f"option {'.'.join(str(p) for p in e['loc']) or '?'}: {e['msg']}" for e in exc.errors()
        )
        raise UserError(f"{game.name}: {problems} (options: {known})") from None


def check_game_id(game_id: str) -> None:
    if not GAME_ID.fullmatch(game_id):
        raise UserError(f"game id {game_id!r}: use a letter, then letters, digits, '-' or '_' (at most 64)")


def check_seats(game: Game, players: list[tuple[str, str]]) -> None:
    names = [name for name, _email in players]
    for name, email in players:
        if not SEAT_NAME.fullmatch(name) or name.lower() in _YAML_WORDS:
            raise UserError(
                f"seat name {name!r}: use a letter, then letters, digits or dashes (at most 32), "
                "and not a YAML word like yes/no/on/off"
            )
        if email:
            try:
                addresses.normalise(email)
            except addresses.AddressError as exc:
                raise UserError(f"seat {name}: {exc}") from None
    if len(set(names)) != len(names):
        raise UserError(f"seat names must differ: {', '.join(names)}")
    if not game.min_players <= len(names) <= game.max_players:
        raise UserError(
            f"{game.title} takes {game.min_players} to {game.max_players} players, not {len(names)}"
        )


def create_game(
    engine: Engine,
    game_type: str,
    game_id: str,
    players: list[tuple[str, str]],
    *,
    seed: int | None = None,
    options: dict[str, str] | None = None,
    turn_seconds: int | None = None,
    grace_seconds: int = 0,
    nmr: str = "wait",
    abandon_after: int | None = None,
    require_from_match: bool = False,
    now: datetime | None = None,
) -> dict[str, str]:
    """Create game ``game_id`` of ``game_type`` with these (seat, email) players, in seating order.

    Returns each seat's password: shown once, stored only as a salted hash. Raises :class:`UserError`
    for anything a person must fix (unknown game, bad id or seat, wrong count, bad option, id taken).
    """
    game = registry.require(game_type)
    check_game_id(game_id)
    check_seats(game, players)
    players = [(name, addresses.normalise(email) if email else email) for name, email in players]
    if nmr not in NMR_POLICIES:
        raise UserError(f"missed-orders policy {nmr!r}: use one of {', '.join(NMR_POLICIES)}")
    if turn_seconds is not None and turn_seconds <= 0:
        raise UserError("a turn's duration must be positive")
    if grace_seconds < 0 or (abandon_after is not None and abandon_after < 1):
        raise UserError("grace must be zero or more, and abandon-after at least 1")
    opts = parse_options(game, options)
    seed = secrets.randbelow(2**63) if seed is None else seed
    when = clock.utc(now)
    chance = Recorder.for_turn(seed, 0, 0)
    try:
        state = game.setup([name for name, _ in players], opts, chance)
    except GameError as exc:
        raise UserError(f"{game.name} cannot start: {exc}") from None
    state, data, digest = settle(game, state)
    row = GameRow(
        id=game_id,
        game_type=game.name,
        engine_version=game.version,
        seed=seed,
        options_json=canonical_json(opts.model_dump(mode="json")),
        created_at=when,
        state_z=pack_json(data),
        state_sha256=digest,
        turn_seconds=turn_seconds,
        grace_seconds=grace_seconds,
        nmr=nmr,
        abandon_after=abandon_after,
        require_from_match=require_from_match,
    )
    setup = TurnRecord(0, state, data, digest, {}, [], [], chance.record)
    return store_game(engine, game, row, players, [(setup, when)])


def store_game(
    engine: Engine,
    game: Game,
    row: GameRow,
    players: list[tuple[str, str]],
    turns: list[tuple[TurnRecord, datetime]],
) -> dict[str, str]:
    """Write a new game in one transaction: its row, its seats with new passwords, and its turns from
    the setup on (each with its reports). Returns each seat's password."""
    issued = {name: passwords.generate() for name, _ in players}
    with Session(engine) as session:
        if session.get(GameRow, row.id) is not None:
            raise UserError(f"there is already a game {row.id!r}")
        session.add(row)
        for position, (name, email) in enumerate(players):
            session.add(
                SeatRow(
                    game_id=row.id,
                    name=name,
                    position=position,
                    email=email,
                    password_hash=passwords.hash_password(issued[name]),
                )
            )
        try:
            session.flush()
            for turn, when in turns:
                record_turn(session, game, row, turn, when)
            session.commit()
        except IntegrityError:
            raise UserError(f"there is already a game {row.id!r}") from None
    return issued
