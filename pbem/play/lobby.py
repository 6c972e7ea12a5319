"""Open games (issue 32): a game announced with N open seats that players take by mail.

An open game is a :class:`~pbem.storage.models.LobbyGameRow` and the seats taken in it
(:class:`~pbem.storage.models.LobbySeatRow`); it has no game row until it starts, since nothing can
be set up before its seats are known. ``settings_json`` keeps what ``pbem new`` was given, checked
here as ``pbem new`` checks it, so the start (:mod:`pbem.mail.lobby_start`) cannot fail on a setting.

Every change by mail is confirmed by a one-time code mailed to the address concerned
(:class:`~pbem.storage.models.LobbyCodeRow`): only the owner of an address reads what is sent to it, so
a forged From signs nobody up, makes nobody leave and resigns no seat. Only the code's SHA-256 is kept.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, text
from sqlmodel import Session, SQLModel, col, select

from pbem.core import clock, i18n, registry, zones
from pbem.core.codec import sha256_hex
from pbem.core.errors import UserError
from pbem.core.i18n import _, ngettext
from pbem.play import create
from pbem.storage.models import GameRow, LobbyCodeRow, LobbyGameRow, LobbySeatRow

#: letters and digits nobody misreads (no 0/O, 1/I/L)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: three groups of four: 59 bits, past guessing within the hour a code lives for the few tries a sender
#: gets (:data:`pbem.mail.guards.GUESSES_PER_HOUR`)
CODE_GROUPS = 3
_CODE = re.compile(r"^[A-Z0-9]{4}(-[A-Z0-9]{4}){2}$")
#: codes a single address may have waiting at once: forged requests cannot flood its owner
PENDING_PER_ADDRESS = 3
#: the name of a seat a bot plays at the start of a game whose empty seats bots fill: ``bot-1``, ...
BOT_SEAT = "bot-{n}"
#: the seat name a player gets who asked for none: ``seat-1``, ...
DEFAULT_SEAT = "seat-{n}"


def new_code() -> str:
    """A fresh one-time code, ``K7QD-M2XA-9RTE``."""
    return "-".join("".join(secrets.choice(CODE_ALPHABET) for _ in range(4)) for _ in range(CODE_GROUPS))


def code_digest(code: str) -> str:
    """How a code is kept and looked up: the SHA-256 of its normal form (upper case, no spaces)."""
    return sha256_hex(normal_code(code))


def normal_code(code: str) -> str:
    return re.sub(r"\s+", "", code).upper().strip(".:,;!")


def is_code(code: str) -> bool:
    return _CODE.match(normal_code(code)) is not None


def lock_lobby(session: Session, game_id: str) -> LobbyGameRow | None:
    """The open game ``game_id`` read under its write lock (a no-op update first: two confirmations of
    the last seat are taken one after the other), or ``None``."""
    session.connection().execute(text("UPDATE lobby_game SET seats = seats WHERE id = :id"), {"id": game_id})
    return session.get(LobbyGameRow, game_id)


@dataclass(frozen=True)
class OpenGame:
    """An open game as ``games`` lists it."""

    id: str
    game_type: str
    title: str
    seats: int
    taken: int
    start_by: datetime | None
    fill_with_bots: bool
    language: str

    @property
    def free(self) -> int:
        return self.seats - self.taken


def open_game(
    engine: Engine,
    game_type: str,
    game_id: str,
    seats: int,
    *,
    settings: dict[str, Any],
    start_by: datetime | None = None,
    fill_with_bots: bool = False,
    now: datetime | None = None,
    extra: Sequence[SQLModel] = (),
) -> None:
    """Announce ``game_id`` of ``game_type`` with ``seats`` open seats. ``settings``: what
    :func:`pbem.play.create.create_game` takes besides the game, id and players (options, deadlines,
    policies, ``language``, ``timezone``, ``seed``), checked now as ``pbem new`` checks them.
    ``extra``: rows written in the same transaction (the record of a game master's mail that asked)."""
    game = registry.require(game_type)
    create.check_game_id(game_id)
    if not game.min_players <= seats <= game.max_players:
        raise UserError(
            ngettext(
                "{title} takes {low} to {n} player, not {asked}",
                "{title} takes {low} to {n} players, not {asked}",
                game.max_players,
                title=game.title,
                low=game.min_players,
                asked=seats,
            )
        )
    when = clock.utc(now)
    if start_by is not None and clock.utc(start_by) <= when:
        raise UserError(
            _("start date {when}: it must be later than now", when=f"{clock.utc(start_by):%Y-%m-%d %H:%M}")
        )
    stored = dict(settings)
    stored.setdefault("seed", secrets.randbelow(2**63))
    _check(game, stored)
    with Session(engine) as session:
        if session.get(GameRow, game_id) is not None or session.get(LobbyGameRow, game_id) is not None:
            raise UserError(_("there is already a game {game}", game=repr(game_id)))
        session.add(
            LobbyGameRow(
                id=game_id,
                game_type=game.name,
                seats=seats,
                settings_json=json.dumps(stored, sort_keys=True),
                start_by=clock.utc(start_by) if start_by else None,
                fill_with_bots=fill_with_bots,
                created_at=when,
            )
        )
        session.add_all(extra)
        session.commit()


def _check(game: Any, settings: dict[str, Any]) -> None:
    """A :class:`UserError` for the first setting ``pbem new`` would refuse."""
    known = set(create.NEW_GAME_NAMES) | {"options", "language", "timezone", "seed"}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise UserError(f"{unknown[0]}: there is no such setting")
    create.check_settings({k: v for k, v in settings.items() if k in create.NEW_GAME_NAMES})
    create.parse_options(game, settings.get("options"))
    create.check_languages(settings.get("language"), {}, [])
    zones.check(settings.get("timezone") or "UTC")


def settings_of(lobby: LobbyGameRow) -> dict[str, Any]:
    return dict(json.loads(lobby.settings_json))


def language_of(lobby: LobbyGameRow) -> str:
    return str(settings_of(lobby).get("language") or i18n.DEFAULT_LANGUAGE)


def taken(session: Session, game_id: str) -> list[LobbySeatRow]:
    """The seats taken in an open game, in seating order."""
    return list(
        session.exec(
            select(LobbySeatRow).where(LobbySeatRow.game_id == game_id).order_by(col(LobbySeatRow.position))
        )
    )


def open_games(engine: Engine) -> list[OpenGame]:
    """Every open game, the oldest first, with its free seats."""
    known = registry.games()
    with Session(engine) as session:
        rows = session.exec(
            select(LobbyGameRow)
            .where(LobbyGameRow.status == "open")
            .order_by(col(LobbyGameRow.created_at), col(LobbyGameRow.id))
        ).all()
        found = []
        for row in rows:
            if row.game_type not in known:
                continue
            found.append(
                OpenGame(
                    row.id,
                    row.game_type,
                    known[row.game_type].title,
                    row.seats,
                    len(taken(session, row.id)),
                    row.start_by,
                    row.fill_with_bots,
                    language_of(row),
                )
            )
    return found


def seat_name(session: Session, lobby: LobbyGameRow, wanted: str | None) -> str:
    """The seat name a joining player gets: ``wanted`` when it is a valid, free name, else the first
    free ``seat-N``; a :class:`UserError` in the reader's words for a bad or taken one."""
    names = {s.seat.lower() for s in taken(session, lobby.id)}
    if wanted:
        if not create.SEAT_NAME.fullmatch(wanted) or wanted.lower() in create._YAML_WORDS:
            raise UserError(
                _(
                    "seat name {seat}: use a letter, then letters, digits or dashes (at most 32), and not "
                    "a word like yes, no, on or off",
                    seat=repr(wanted[:40]),
                )
            )
        if wanted.lower() in names or re.fullmatch(r"bot-\d+", wanted.lower()):
            raise UserError(
                _("seat name {seat} is taken in game {game}: choose another", seat=wanted, game=lobby.id)
            )
        return wanted
    n = 1
    while DEFAULT_SEAT.format(n=n) in names:
        n += 1
    return DEFAULT_SEAT.format(n=n)


def pending_codes(session: Session, email: str, now: datetime) -> int:
    """How many unused codes ``email`` asked for in the last day (see :data:`PENDING_PER_ADDRESS`)."""
    since = clock.utc(now).timestamp() - 86_400
    rows = session.exec(
        select(LobbyCodeRow.created_at).where(
            LobbyCodeRow.email == email,
            col(LobbyCodeRow.used_at).is_(None),
            LobbyCodeRow.kind != "offer",  # seats offered to the address are not its own requests
        )
    ).all()
    return sum(1 for at in rows if clock.utc(at).timestamp() > since)


def find_code(session: Session, code: str) -> LobbyCodeRow | None:
    return session.exec(select(LobbyCodeRow).where(LobbyCodeRow.code_sha256 == code_digest(code))).first()
