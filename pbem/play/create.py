"""Creating a game: seats, passwords (shown once), the setup turn and its reports."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel

from pbem.core import clock, dice, i18n, registry, zones
from pbem.core.chance import Recorder
from pbem.core.codec import canonical_json, pack_json
from pbem.core.errors import UserError
from pbem.core.game import Game, GameError
from pbem.core.search import BOT_POLICIES, LEVELS
from pbem.intake import addresses, passwords
from pbem.render.reports import write_reports
from pbem.storage.history import TurnRecord, current_state, game_of, game_row, record_turn, settle
from pbem.storage.models import GameRow, SeatRow

GAME_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
SEAT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,31}")
# YAML 1.1 reads these as booleans or null, so a seat of that name could not be written plainly
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
NMR_POLICIES = ("wait", *BOT_POLICIES)


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


def check_languages(
    language: str | None, seat_languages: dict[str, str] | None, players: list[tuple[str, str]]
) -> tuple[str, dict[str, str]]:
    """The game's language and each seat's (normalised), or a :class:`UserError` naming the bad one."""
    names = [name for name, _email in players]
    try:
        game_language = i18n.check_language(language or i18n.DEFAULT_LANGUAGE)
        seats = {seat: i18n.check_language(code) for seat, code in (seat_languages or {}).items()}
    except i18n.UnknownLanguage as exc:
        raise UserError(str(exc)) from None
    unknown = [seat for seat in seats if seat not in names]
    if unknown:
        raise UserError(f"--lang {unknown[0]}=…: there is no seat {unknown[0]!r}; seats: {', '.join(names)}")
    return game_language, seats


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
    language: str | None = None,
    seat_languages: dict[str, str] | None = None,
    timezone: str = "UTC",
    seat_zones: dict[str, str] | None = None,
    absence: str = "extend",
    absence_days: int = 14,
    press: str = "private",
    session: Session | None = None,
    bots: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Create game ``game_id`` of ``game_type`` with these (seat, email) players, in seating order.
    ``bots``: the seats among them the stand-in plays, each at its level (their address is empty).

    Returns each seat's password: shown once, stored only as a salted hash. Raises :class:`UserError`
    for anything a person must fix (unknown game, bad id or seat, wrong count, bad option, id taken).
    ``language`` is the game's (observers, and seats with none of their own); ``seat_languages`` each
    seat's own. ``session``: written in that transaction, not committed (an open game starting: its
    welcomes and its lobby row change with it, or nothing does).
    """
    game = registry.require(game_type)
    check_game_id(game_id)
    check_seats(game, players)
    bots = check_bots(bots or {}, players)
    players = [(name, addresses.normalise(email) if email else email) for name, email in players]
    game_language, languages = check_languages(language, seat_languages, players)
    settings = check_settings(
        {
            "turn_seconds": turn_seconds,
            "grace_seconds": grace_seconds,
            "nmr": nmr,
            "abandon_after": abandon_after,
            "require_from_match": require_from_match,
            "absence": absence,
            "absence_days": absence_days,
            "press": press,
        }
    )
    opts = parse_options(game, options)
    timezone, seat_tz = check_zones(players, timezone, seat_zones or {})
    seed = secrets.randbelow(2**63) if seed is None else seed
    when = clock.utc(now)
    seats = [name for name, _ in players]
    chance = Recorder.for_dice(dice.CURRENT, seed, 0, 0, dice.orders_digest(seats, {}))
    try:
        state = game.setup(seats, opts, chance)
    except GameError as exc:
        raise UserError(f"{game.name} cannot start: {exc}") from None
    state, data, digest = settle(game, state)
    row = GameRow(
        id=game_id,
        game_type=game.name,
        engine_version=game.version,
        seed=seed,
        dice=dice.CURRENT,
        options_json=canonical_json(opts.model_dump(mode="json")),
        created_at=when,
        state_z=pack_json(data),
        state_sha256=digest,
        language=game_language,
        timezone=timezone,
        **settings,
    )
    setup = TurnRecord(0, state, data, digest, {}, [], [], chance.record)
    issued = store_game(
        engine,
        game,
        row,
        players,
        [(setup, when)],
        languages=languages,
        zones=seat_tz,
        session=session,
        bots=bots,
    )
    # a seat the stand-in plays has a password nobody is told: no player signs in to it
    return {seat: password for seat, password in issued.items() if seat not in bots}


def check_bots(bots: Mapping[str, str], players: list[tuple[str, str]]) -> dict[str, str]:
    """The seats the stand-in plays, each with its level, checked: a seat of the game, a known level,
    no address (nobody is mailed for it)."""
    emails = dict(players)
    for seat, level in bots.items():
        if seat not in emails:
            raise UserError(f"--bot {seat}={level}: there is no seat {seat!r}; seats: {', '.join(emails)}")
        if level not in LEVELS:
            raise UserError(f"--bot {seat}={level}: the stand-in's levels are {', '.join(LEVELS)}")
        if emails[seat]:
            raise UserError(f"--bot {seat}={level}: the stand-in's seat takes no address ({emails[seat]})")
    if len(bots) == len(players):
        raise UserError("every seat is the stand-in's: a game needs at least one player")
    return dict(bots)


def check_zones(
    players: list[tuple[str, str]], timezone: str, seat_zones: dict[str, str]
) -> tuple[str, dict[str, str]]:
    """The game's zone and each named seat's, checked (``--tz Europe/Budapest``,
    ``--tz ann=Asia/Shanghai``)."""
    names = {name for name, _ in players}
    unknown = sorted(set(seat_zones) - names)
    if unknown:
        raise UserError(
            f"--tz {unknown[0]}=...: there is no seat {unknown[0]!r}; seats: {', '.join(sorted(names))}"
        )
    return zones.check(timezone), {seat: zones.check(tz) for seat, tz in seat_zones.items()}


ABSENCE_POLICIES = ("bot", "extend")
#: what players may write each other through the host (pbem.mail.press), as njudge's press settings
PRESS_MODES = ("none", "public", "private")
#: the longest turn or grace: ten years (the CLI's bound too); a deadline date must still fit in a year
MAX_DURATION = 3650 * 86_400
#: far beyond any game's length; the column is a 32-bit integer on PostgreSQL
MAX_ABANDON_AFTER = 10_000

#: the settings a game row keeps beside its state, by kind: a choice, a whole number in a range
#: (optional: nothing allowed, for "none"), a switch
_CHOICES = {"nmr": NMR_POLICIES, "absence": ABSENCE_POLICIES, "press": PRESS_MODES}
_NUMBERS = {
    "turn_seconds": (1, MAX_DURATION, "seconds", True),
    "grace_seconds": (0, MAX_DURATION, "seconds", False),
    "abandon_after": (1, MAX_ABANDON_AFTER, "missed turns", True),
    "absence_days": (0, 366, "days", False),
}
_SWITCHES = ("require_from_match",)
#: how ``pbem new`` names each setting in its messages (its option, or the policy's name)
NEW_GAME_NAMES = {
    "turn_seconds": "--deadline",
    "grace_seconds": "--grace",
    "nmr": "missed-orders policy",
    "abandon_after": "--abandon-after",
    "require_from_match": "--require-from-match",
    "absence": "absence policy",
    "absence_days": "--absence-days",
    "press": "--press",
}


def check_settings(values: Mapping[str, Any], names: Mapping[str, str] = NEW_GAME_NAMES) -> dict[str, Any]:
    """``values``, each setting checked for its type and range, or a :class:`UserError` naming the first
    bad one (as ``names`` calls it) and what to write instead. One check for a new game and an imported
    archive, so that a host never stores a game its ticks cannot run."""
    for key, value in values.items():
        name = names.get(key, key)
        if key in _CHOICES:
            if not isinstance(value, str) or value not in _CHOICES[key]:
                raise UserError(f"{name} {_shown(value)}: use one of {', '.join(_CHOICES[key])}")
        elif key in _NUMBERS:
            low, high, unit, optional = _NUMBERS[key]
            whole = isinstance(value, int) and not isinstance(value, bool)
            if not (whole and low <= value <= high) and not (optional and value is None):
                nothing = " (or nothing, for none)" if optional else ""
                raise UserError(
                    f"{name} {_shown(value)}: write a number of {unit} from {low} to {high}{nothing}"
                )
        elif key in _SWITCHES:
            if not isinstance(value, bool):
                raise UserError(f"{name} {_shown(value)}: write true or false")
        else:
            known = ", ".join([*_NUMBERS, *_CHOICES, *_SWITCHES])
            raise UserError(f"{name}: there is no such setting; the settings are {known}")
    return dict(values)


def _shown(value: object) -> str:
    """A value as a message quotes it: bounded, as a hostile file may hold a long one."""
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def store_game(
    engine: Engine,
    game: Game,
    row: GameRow,
    players: list[tuple[str, str]],
    turns: list[tuple[TurnRecord, datetime]],
    *,
    languages: dict[str, str] | None = None,
    extra: Sequence[SQLModel] = (),
    zones: dict[str, str] | None = None,
    session: Session | None = None,
    bots: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Write a new game in one transaction: its row, its seats with new passwords (and ``languages``,
    the seats' own), ``extra`` rows (where it came from), and its turns from the setup on (each with its
    reports). Returns each seat's password. ``session``: written in the caller's transaction, which
    commits it."""
    issued = {name: passwords.generate() for name, _ in players}
    if session is not None:
        _store(session, game, row, players, turns, issued, languages or {}, extra, zones or {}, bots or {})
        return issued
    with Session(engine) as own:
        try:
            _store(own, game, row, players, turns, issued, languages or {}, extra, zones or {}, bots or {})
            own.commit()
        except IntegrityError:
            raise UserError(f"there is already a game {row.id!r}") from None
    return issued


def _store(
    session: Session,
    game: Game,
    row: GameRow,
    players: list[tuple[str, str]],
    turns: list[tuple[TurnRecord, datetime]],
    issued: dict[str, str],
    languages: dict[str, str],
    extra: Sequence[SQLModel],
    zones: dict[str, str],
    bots: Mapping[str, str],
) -> None:
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
                language=languages.get(name),
                timezone=zones.get(name),
                bot_level=bots.get(name),
            )
        )
    session.flush()
    session.add_all(extra)
    session.flush()
    for turn, when in turns:
        record_turn(session, game, row, turn, when)
        write_reports(session, game, row, turn.state, turn.number, turn.events)


def seat_colours(engine: Engine, game_id: str) -> dict[str, str]:
    """The colour each seat plays, as the game's public view names it (empty for a game without)."""
    with Session(engine) as session:
        row = game_row(session, game_id)
    game = game_of(row)
    colours = game.view(current_state(game, row), None).get("colours")
    return {str(k): str(v) for k, v in colours.items()} if isinstance(colours, dict) else {}


def colour_clashes(colours: dict[str, str]) -> list[str]:
    """Seats named after a colour that the game gives them another one: "red plays purple". The games
    deal colours by seating order, so a seat named red may well play purple; worth a word to the game
    master before the passwords go out, and the README's examples name seats after people."""
    used = set(colours.values())
    return [
        f"seat {seat} plays {colour}" + (f" (seat {other} plays {seat})" if other else "")
        for seat, colour in colours.items()
        if seat.lower() != colour.lower() and (seat.lower() in used or seat.lower() in KNOWN_COLOURS)
        for other in [next((s for s, c in colours.items() if c.lower() == seat.lower()), None)]
    ]


#: colour words a seat might be named after
KNOWN_COLOURS = frozenset(
    {"red", "blue", "green", "yellow", "white", "black", "purple", "orange", "pink", "grey", "gray"}
    | {"brown", "violet", "cyan", "magenta"}
)
